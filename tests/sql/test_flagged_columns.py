"""A column a descriptions file flags sensitive is hidden from the gate and the engine too."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tablerag.errors import SQLRejected
from tablerag.service import Workspace
from tablerag.settings import Settings
from tablerag.sql.engines import open_engine

CANARY = "CANARY-diagnosis-5c1e"
QUERIES = (
    "SELECT diagnosis FROM customers",
    "SELECT * FROM customers",
    "SELECT c.diagnosis AS d FROM customers AS c",
    "SELECT name FROM customers WHERE diagnosis = 'x'",
    "SELECT count(DISTINCT diagnosis) FROM customers",
)


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    src = tmp_path / "in"
    src.mkdir()
    (src / "customers.csv").write_text(
        f"name,city,diagnosis\nAna,Lyon,{CANARY}\nBo,Oslo,{CANARY}-2\n", encoding="utf-8"
    )
    doc = {
        "format": "tablerag-table-descriptions/1",
        "tables": {"customers": {"columns": {"diagnosis": {"sensitive": True}}}},
    }
    (src / "d.json").write_text(json.dumps(doc), encoding="utf-8")
    with Workspace.open(tmp_path / "ws") as w:
        w.ingest([src / "customers.csv", src / "d.json"], settings=Settings(embedder="hashing"))
        tables = w.tables()
    assert any(c.sensitive for t in tables for c in t.columns)
    return tmp_path / "ws"


def test_a_flagged_column_cannot_be_read_named_or_starred(ws: Path) -> None:
    with Workspace.open(ws, create=False) as w:
        tables = w.tables()
    with open_engine(ws, catalog=tables) as engine:
        for sql in QUERIES:
            try:
                result = engine.execute(sql)
            except SQLRejected as exc:
                assert CANARY not in str(exc), sql
                continue
            assert "diagnosis" not in result.columns, sql
            assert CANARY not in json.dumps([list(map(str, r)) for r in result.rows]), sql
        assert engine.execute("SELECT name, city FROM customers").rows
