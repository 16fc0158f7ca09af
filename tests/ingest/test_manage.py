"""Finding the source a user names (``remove``/``refresh``), and what ``refresh`` will re-read."""

from __future__ import annotations

from pathlib import Path

import pytest

from tablerag.errors import ConfigError
from tablerag.ingest.manage import refresh_plan, resolve_source
from tablerag.store.workspace import SourceRecord


def record(location: str, kind: str = "file", source_id: str = "") -> SourceRecord:
    return SourceRecord(
        source_id=source_id or f"id-{abs(hash(location)) % 10_000}",
        location=location,
        kind=kind,
        format="csv",
        content_hash=None,
        ingested_at="",
        rows_read=0,
        rows_stored=0,
        chunks=0,
        tables=(),
        problems=(),
    )


RECORDS = [
    record("/d/fruit.csv", source_id="aaa111"),
    record("/d/fruit.csv.bak"),
    record("/d/sub/guide.md"),
    record("postgresql://bob:***@db.internal/sales", kind="database"),
]


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("/d/sub/guide.md", "/d/sub/guide.md"),
        ("aaa111", "/d/fruit.csv"),  # the id `tablerag sources --json` shows
        ("fruit.csv", "/d/fruit.csv"),  # a file name beside a longer one
        ("guide", "/d/sub/guide.md"),
        ("GUIDE.MD", "/d/sub/guide.md"),
        ("postgresql://bob:s3cret@db.internal/sales", "postgresql://bob:***@db.internal/sales"),
        ("sales", "postgresql://bob:***@db.internal/sales"),
    ],
)
def test_a_source_is_found_by_location_id_name_url_or_a_unique_part(
    query: str, expected: str
) -> None:
    assert resolve_source(RECORDS, query).location == expected


def test_an_ambiguous_or_unknown_name_says_how_to_name_it() -> None:
    with pytest.raises(ConfigError, match=r"'fruit' matches 2 sources .*give more of the path"):
        resolve_source(RECORDS, "fruit")
    with pytest.raises(ConfigError, match=r"Did you mean '/d/sub/guide.md'\?"):
        resolve_source(RECORDS, "gide.md")
    with pytest.raises(ConfigError, match="`tablerag sources` lists them") as err:
        resolve_source(RECORDS, "zzz")
    assert "Did you mean" not in str(err.value)


def test_refresh_plan_reads_present_files_and_databases_and_refuses_gone_files(
    tmp_path: Path,
) -> None:
    here = tmp_path / "here.csv"
    here.write_text("a\n1\n", encoding="utf-8")
    db = record("postgresql://bob:***@db.internal/sales", kind="database", source_id="db1")
    gone = record(str(tmp_path / "gone.csv"))
    plan = refresh_plan(
        [record(str(here)), db, gone], urls={"db1": "postgresql://bob:pw@db.internal/sales"}
    )
    assert [(t.location, t.url) for t in plan.targets] == [
        (str(here), None),
        ("postgresql://bob:***@db.internal/sales", "postgresql://bob:pw@db.internal/sales"),
    ]
    [(refused, why)] = plan.refused
    assert refused is gone and "its file is gone" in why and "tablerag remove" in why
