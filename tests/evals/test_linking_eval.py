"""The linking evaluation on tiny Spider- and CHASE-format datasets written by the test."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from tablerag.cli.eval import register
from tablerag.errors import ConfigError
from tablerag.evals.datasets.chase import load_chase
from tablerag.evals.datasets.spider import load_spider
from tablerag.evals.gold import gold_schema
from tablerag.evals.linking import merge_schemas, merged_catalog, run_linking

TABLES = {
    "db_id": "music",
    "table_names_original": ["singer", "concert", "singer_in_concert", "stadium"],
    "table_names": ["singer", "concert", "singer in concert", "stadium"],
    "column_names_original": [
        [-1, "*"],
        [0, "Singer_ID"],
        [0, "Name"],
        [0, "Country"],
        [0, "Age"],
        [1, "concert_ID"],
        [1, "concert_Name"],
        [1, "Stadium_ID"],
        [1, "Year"],
        [2, "concert_ID"],
        [2, "Singer_ID"],
        [3, "Stadium_ID"],
        [3, "Location"],
        [3, "Capacity"],
    ],
    "column_names": [
        [-1, "*"],
        [0, "singer id"],
        [0, "name"],
        [0, "country"],
        [0, "age"],
        [1, "concert id"],
        [1, "concert name"],
        [1, "stadium id"],
        [1, "year"],
        [2, "concert id"],
        [2, "singer id"],
        [3, "stadium id"],
        [3, "location"],
        [3, "capacity"],
    ],
    "column_types": [
        "text",
        "number",
        "text",
        "text",
        "number",
        "number",
        "text",
        "number",
        "text",
        "number",
        "number",
        "number",
        "text",
        "number",
    ],
    "primary_keys": [1, 5, 11],
    "foreign_keys": [[10, 1], [9, 5], [7, 11]],
}
QUESTIONS = [
    ("How many singers are there?", "SELECT count(*) FROM singer"),
    ("Names of singers from France", 'SELECT Name FROM singer WHERE Country = "France"'),
    ("Which concerts were held in 2014?", "SELECT concert_Name FROM concert WHERE Year = 2014"),
    (
        "Names of singers who performed in a concert in 2014",
        "SELECT T1.Name FROM singer AS T1 JOIN singer_in_concert AS T2 ON T1.Singer_ID = "
        "T2.Singer_ID JOIN concert AS T3 ON T2.concert_ID = T3.concert_ID WHERE T3.Year = 2014",
    ),
    (
        "What is the capacity of the stadium at Glasgow?",
        "SELECT Capacity FROM stadium WHERE Location = 'Glasgow'",
    ),
]


def write_db(path: Path) -> None:
    path.parent.mkdir(parents=True)
    con = sqlite3.connect(path)
    con.executescript(
        """
        CREATE TABLE singer (Singer_ID INT PRIMARY KEY, Name TEXT, Country TEXT, Age INT);
        CREATE TABLE concert (concert_ID INT PRIMARY KEY, concert_Name TEXT, Stadium_ID INT,
                              Year TEXT);
        CREATE TABLE singer_in_concert (concert_ID INT, Singer_ID INT);
        CREATE TABLE stadium (Stadium_ID INT PRIMARY KEY, Location TEXT, Capacity INT);
        INSERT INTO singer VALUES (1, 'Joe', 'France', 30), (2, 'Ann', 'Netherlands', 40);
        INSERT INTO concert VALUES (1, 'Auditions', 1, '2014'), (2, 'Super', 2, '2015');
        INSERT INTO singer_in_concert VALUES (1, 1), (2, 2);
        INSERT INTO stadium VALUES (1, 'Glasgow', 50000), (2, 'Raith Rovers', 10000);
        """
    )
    con.commit()
    con.close()


@pytest.fixture
def spider_dir(tmp_path: Path) -> Path:
    root = tmp_path / "spider"
    root.mkdir()
    (root / "tables.json").write_text(json.dumps([TABLES]), encoding="utf-8")
    dev = [{"db_id": "music", "question": q, "query": s} for q, s in QUESTIONS]
    (root / "dev.json").write_text(json.dumps(dev), encoding="utf-8")
    write_db(root / "database" / "music" / "music.sqlite")
    return root


@pytest.fixture
def chase_dir(tmp_path: Path) -> Path:
    root = tmp_path / "chase"
    root.mkdir()
    names = ["歌手", "演唱会", "歌手举办演唱会", "体育场"]
    zh = dict(TABLES, db_id="音乐", table_names_original=names)
    (root / "tables.json").write_text(json.dumps([zh], ensure_ascii=False), encoding="utf-8")
    interaction = {
        "database_id": "音乐",
        "interaction": [
            {"utterance": "有多少歌手？", "query": "select count(*) from 歌手"},
            {"utterance": "他们来自哪些国家？", "query": "select distinct Country from 歌手"},
        ],
    }
    (root / "chase_dev_x.json").write_text(
        json.dumps([interaction], ensure_ascii=False), encoding="utf-8"
    )
    return root


def test_gold_tables_and_columns_come_from_the_sql(spider_dir: Path) -> None:
    data = load_spider(spider_dir)
    gold = gold_schema(data.cases[3].sql, data.schemas["music"])
    assert gold is not None
    tables, cols = gold
    assert tables == {"singer", "singer_in_concert", "concert"}
    assert ("singer", "Name") in cols and ("concert", "Year") in cols
    assert ("singer_in_concert", "concert_ID") in cols
    assert gold_schema("SELEC nonsense FROM", data.schemas["music"]) is None


def test_spider_run_reports_recall_tokens_latency_and_baselines(spider_dir: Path) -> None:
    report = run_linking(load_spider(spider_dir), merged=True)
    s = report.linker
    assert s.n_questions == 5 and s.n_unparsed == 0
    assert s.strict_table_recall == 1.0
    assert 0 < s.prompt_token_ratio < 1.0
    assert s.linking_p95_ms > 0
    names = [b.method for b in report.baselines]
    assert names == ["all tables", "top-2 tables (BM25)", "top-3 tables (BM25)"]
    assert report.baselines[0].prompt_token_ratio == 1.0
    assert report.merged is not None and report.merged.catalog_tables == 4
    # Tables listed compactly count as shown; the full-tier figures say how many were in full.
    assert s.strict_table_recall_full <= s.strict_table_recall
    assert s.strict_column_recall_full <= s.strict_column_recall
    assert 0 < s.mean_tables_full <= s.mean_tables_selected
    assert report.baselines[0].strict_table_recall_full == 1.0


def test_a_database_id_taken_by_an_earlier_dataset_is_renamed(spider_dir: Path) -> None:
    data = load_spider(spider_dir)
    merged = merge_schemas([data, data])
    assert list(merged) == ["music", "music@spider"]
    assert {t.name for t in merged["music@spider"]} == {
        f"music@spider.{t.name}" for t in data.schemas["music"]
    }
    catalog = merged_catalog([data, data], use_values=True)
    assert len(catalog.tables) == 8
    assert all(e.ref_table.split(".")[0] == e.table.split(".")[0] for e in catalog.edges)


def test_no_values_mode_needs_no_database(spider_dir: Path) -> None:
    (spider_dir / "database" / "music" / "music.sqlite").unlink()
    report = run_linking(load_spider(spider_dir), use_values=False)
    assert report.linker.n_questions == 5


def test_chase_turns_carry_their_history(chase_dir: Path) -> None:
    data = load_chase(chase_dir)
    assert [c.history for c in data.cases] == [(), ("有多少歌手？",)]
    assert all(not fk for t in data.schemas["音乐"] for fk in t.foreign_keys)
    report = run_linking(data, use_values=False)
    assert report.linker.strict_table_recall == 1.0


def test_cli_json_has_the_summary_keys(spider_dir: Path, chase_dir: Path) -> None:
    app = typer.Typer()

    @app.callback()
    def main() -> None:
        """Test root."""

    register(app)
    result = CliRunner().invoke(
        app,
        [
            "eval",
            "linking",
            "--dataset",
            "spider",
            "--path",
            str(spider_dir),
            "--json",
            "--merge-with",
            f"chase:{chase_dir}",
        ],
    )
    assert result.exit_code == 0, result.output
    out = json.loads(result.output)
    for key in (
        "n_questions",
        "strict_table_recall",
        "strict_column_recall",
        "prompt_token_ratio",
        "linking_p95_ms",
        "strict_table_recall_full",
        "strict_column_recall_full",
        "mean_tables_full",
    ):
        assert key in out
    assert out["merged"]["catalog_tables"] == 8
    bad = CliRunner().invoke(app, ["eval", "linking", "--dataset", "bird", "--path", "x"])
    assert isinstance(bad.exception, ConfigError)


def test_cli_tiers_preset_adds_compact_tables(spider_dir: Path) -> None:
    app = typer.Typer()

    @app.callback()
    def main() -> None:
        """Test root."""

    register(app)
    args = ["eval", "linking", "--dataset", "spider", "--path", str(spider_dir), "--json"]
    off = json.loads(CliRunner().invoke(app, args).output)
    extra = json.loads(CliRunner().invoke(app, [*args, "--tiers", "extra"]).output)
    assert off["mean_tables_selected"] == off["mean_tables_full"]
    assert extra["mean_tables_selected"] > extra["mean_tables_full"] == off["mean_tables_full"]
    bad = CliRunner().invoke(app, [*args, "--tiers", "lots"])
    assert isinstance(bad.exception, ConfigError) and "off, extra, demote" in str(bad.exception)
