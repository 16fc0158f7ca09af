"""The WikiTQ reader: question TSV escapes, backslash-escaped CSV tables, size categories."""

from __future__ import annotations

from pathlib import Path

import pytest

from tablerag.errors import ConfigError
from tablerag.evals.datasets.wikitq import load_wikitq, read_table, size_bucket

SMALL = (
    '"Year","Team","Notes"\n'
    '"1990","Lions","won \\"the\\" cup"\n'
    '"1991","Tigers","two\nlines"\n'
    '"1992","Lions",""\n'
)


def write_wikitq(root: Path) -> Path:
    """A tiny WikiTQ-shaped dataset: two tables (3 and 30 rows) and five questions."""
    folder = root / "csv" / "200-csv"
    folder.mkdir(parents=True)
    (folder / "0.csv").write_text(SMALL, encoding="utf-8")
    big = ['"Rank","City","Population"']
    big += [f'"{i}","City {i}","{1000 * i}"' for i in range(1, 31)]
    (folder / "1.csv").write_text("\n".join(big) + "\n", encoding="utf-8")
    lines = [
        "id\tutterance\tcontext\ttargetValue",
        "nu-0\twhich team won in 1991?\tcsv/200-csv/0.csv\tTigers",
        "nu-1\thow many seasons are listed?\tcsv/200-csv/0.csv\t3",
        "nu-2\twhich years did the lions win?\tcsv/200-csv/0.csv\t1990|1992",
        "nu-3\twhat is the population of city 7?\tcsv/200-csv/1.csv\t7000",
        "nu-4\twhich band is named ac/dc?\tcsv/200-csv/1.csv\tAC\\pDC",
    ]
    tsv = root / "pristine-unseen-tables.subset.tsv"
    tsv.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return root


def test_load_cases_with_gold_category_and_table(tmp_path: Path) -> None:
    cases = load_wikitq(write_wikitq(tmp_path))
    assert [c.case_id for c in cases] == ["nu-0", "nu-1", "nu-2", "nu-3", "nu-4"]
    assert cases[2].gold == ("1990", "1992")
    assert cases[4].gold == ("AC|DC",)
    assert [c.category for c in cases] == ["rows<=20"] * 3 + ["rows<=100"] * 2
    assert cases[0].context["rows"] == 3
    assert Path(cases[3].context["table"]) == (tmp_path / "csv/200-csv/1.csv").resolve()


def test_path_may_be_the_tsv_itself(tmp_path: Path) -> None:
    write_wikitq(tmp_path)
    assert len(load_wikitq(tmp_path / "pristine-unseen-tables.subset.tsv")) == 5


def test_csv_backslash_escapes_and_newlines(tmp_path: Path) -> None:
    write_wikitq(tmp_path)
    header, rows = read_table(tmp_path / "csv/200-csv/0.csv")
    assert header == ["Year", "Team", "Notes"]
    assert rows[0] == ["1990", "Lions", 'won "the" cup']
    assert rows[1][2] == "two\nlines"
    assert len(rows) == 3


def test_size_buckets() -> None:
    assert [size_bucket(n) for n in (0, 20, 21, 100, 101)] == [
        "rows<=20",
        "rows<=20",
        "rows<=100",
        "rows<=100",
        "rows>100",
    ]


def test_missing_files_say_what_to_pass(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="--path"):
        load_wikitq(tmp_path)
    write_wikitq(tmp_path)
    (tmp_path / "csv/200-csv/1.csv").unlink()
    with pytest.raises(ConfigError, match="Missing WikiTQ table"):
        load_wikitq(tmp_path)


def test_other_tsv_columns_are_refused(tmp_path: Path) -> None:
    bad = tmp_path / "q.tsv"
    bad.write_text("id\tquestion\n1\tx\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="does not start with the columns"):
        load_wikitq(bad)
