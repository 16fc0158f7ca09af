"""A schema file listing a table its database lacks (SQLite's ``sqlite_sequence``, as
Spider-derived schema files do) is warned about and left out; the run goes on (issue 22)."""

from __future__ import annotations

import json
import logging
import sqlite3
from collections.abc import Sequence
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tablerag.cli import app
from tablerag.evals.datasets.chase import load_chase
from tablerag.evals.datasets.spider import load_spider
from tablerag.evals.sql_task import load_sql_dataset
from tablerag.llm.base import Message
from tablerag.llm.testing import FunctionLLM

runner = CliRunner()
QUESTION = "列出所有商品名称"


def _make(root: Path) -> Path:
    """A one-database CHASE/Spider folder whose tables.json also lists ``sqlite_sequence`` and a
    ``returns`` table (with a foreign key to ``items``... and one from ``items`` to it)."""
    cols = [[-1, "*"], [0, "id"], [0, "name"], [0, "ret_id"], [1, "name"], [1, "seq"], [2, "id"]]
    record = {
        "db_id": "shop",
        "table_names_original": ["items", "sqlite_sequence", "returns"],
        "table_names": ["items", "sqlite sequence", "returns"],
        "column_names_original": cols,
        "column_names": cols,
        "column_types": ["text", "number", "text", "number", "text", "text", "number"],
        "primary_keys": [1, 6],
        "foreign_keys": [[3, 6]],
    }
    (root / "database" / "shop").mkdir(parents=True)
    (root / "tables.json").write_text(json.dumps([record]), encoding="utf-8")
    turn = {"utterance": QUESTION, "query": "select name from items"}
    (root / "chase_dev_t.json").write_text(
        json.dumps([{"database_id": "shop", "interaction": [turn]}], ensure_ascii=False),
        encoding="utf-8",
    )
    (root / "dev.json").write_text(
        json.dumps([{"db_id": "shop", "question": QUESTION, "query": "select name from items"}]),
        encoding="utf-8",
    )
    con = sqlite3.connect(root / "database" / "shop" / "shop.sqlite")
    con.execute("CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT, ret_id INTEGER)")
    con.executemany("INSERT INTO items VALUES (?, ?, NULL)", [(1, "苹果"), (2, "梨")])
    con.commit()
    con.close()
    return root


@pytest.fixture
def dataset(tmp_path: Path) -> Path:
    return _make(tmp_path / "chase")


def test_readers_leave_out_missing_tables_with_a_warning(
    dataset: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, logger="tablerag.evals")
    for loaded in (load_chase(dataset).schemas, load_spider(dataset).schemas):
        assert [t.name for t in loaded["shop"]] == ["items"]
        assert loaded["shop"][0].foreign_keys == ()  # its key to `returns` went with it
    for kind in ("chase", "spider"):
        assert [t.name for t in load_sql_dataset(kind, dataset).schemas["shop"]] == ["items"]
    warned = [r.getMessage() for r in caplog.records]
    assert any("'sqlite_sequence'" in m and "'shop'" in m for m in warned), warned
    assert any("'returns'" in m for m in warned)


def test_without_a_database_file_the_schema_is_kept_whole(dataset: Path) -> None:
    (dataset / "database" / "shop" / "shop.sqlite").unlink()
    names = [t.name for t in load_chase(dataset).schemas["shop"]]
    assert names == ["items", "sqlite_sequence", "returns"]


def test_eval_linking_and_sql_on_chase_go_on(
    dataset: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    linking = runner.invoke(
        app, ["eval", "linking", "--dataset", "chase", "--path", str(dataset), "--json"]
    )
    assert linking.exit_code == 0, linking.output
    assert "no such table" not in linking.output
    assert json.loads(linking.stdout)  # a report, not an internal error

    def reply(messages: Sequence[Message]) -> str:
        return "```sql\nSELECT name FROM items\n```"

    llm = FunctionLLM(reply)
    monkeypatch.setattr("tablerag.cli.eval_common.load_llm", lambda spec=None, **kw: llm)
    args = ["eval", "sql", "--dataset", "chase", "--path", str(dataset), "--llm", "scripted",
            "--methods", "naive,tablerag", "--out", str(tmp_path / "run"), "--json"]  # fmt: skip
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    methods = json.loads(result.stdout)["methods"]
    assert methods["naive"]["accuracy"] == 1.0 and methods["tablerag"]["accuracy"] == 1.0
