"""A data question whose words fit many look-alike tables goes to the TableRAG loop, which
queries the table its rows were found in; a workspace of few tables, or a database asked in
place, keeps the one-query path."""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path

import pytest

from tablerag.llm.testing import FunctionLLM
from tablerag.request import Request
from tablerag.service import QA, Workspace
from tablerag.settings import Settings
from tests.loop.conftest import ByKind

QUESTION = "What was the revenue from cloud services in 2019?"
ITEMS = ("Cloud services", "Licences", "Hardware", "Consulting", "Training", "Support")
OTHERS = ("Engineers", "Sales staff", "Offices", "Vehicles", "Servers", "Patents", "Leases")


def _report(rows: tuple[str, ...], salt: int) -> str:
    lines = [f"{item},{100 + 7 * n + salt},{90 + 5 * n + salt}" for n, item in enumerate(rows)]
    return "item,2019,2018\n" + "\n".join(lines) + "\n"


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Twelve report tables alike in their columns; only segment_report holds cloud services."""
    root = tmp_path_factory.mktemp("tied")
    files = root / "files"
    files.mkdir()
    (files / "segment_report.csv").write_text(_report(ITEMS, 0), "utf-8")
    for n in range(11):
        (files / f"annex_{n:02d}.csv").write_text(_report(OTHERS, n + 1), "utf-8")
    (files / "notes.md").write_text("# Notes\n\nThe annexes restate the year's figures.\n")
    with Workspace.open(root / "ws") as ws:
        done = ws.ingest([files], settings=Settings(embedder="hashing"))
    assert all(r.status != "failed" for r in done), done
    return root / "ws"


def _sql(prompt: str) -> str:
    """The query a model writes: the first table its prompt shows, the question's row."""
    table = re.search(r'CREATE TABLE "?(\w+)', prompt)
    assert table is not None, prompt
    return f"""```sql\nSELECT col_2019 FROM {table.group(1)} WHERE item = 'Cloud services'\n```"""


def _qa(ws: Path, script: ByKind, **settings: object) -> QA:
    options: dict[str, object] = {"embedder": "hashing", "rag_min_score": 0.0, **settings}
    return QA.open(ws, llm=FunctionLLM(script), settings=Settings(**options))  # type: ignore[arg-type]


def test_a_question_fitting_many_look_alike_tables_is_answered_by_the_loop(reports: Path) -> None:
    script = ByKind(decompose=f"NEXT: {QUESTION}", sql=_sql, passages="NOT_FOUND")
    rq = Request.make(QUESTION, max_seconds=60)
    with _qa(reports, script) as qa:
        answer = qa.answer(rq)
    assert answer.route is not None and answer.path == "loop", answer.route.reasons
    # the router's decision first, then the linker's tie once linking is done
    routes = [e.data for e in rq.trace.events if e.kind == "route"]
    assert [r["loop"] for r in routes] == [False, True]
    assert [e.kind for e in rq.trace.events][0] == "route"
    assert answer.route.reasons[0] == (
        "the words fit 12 tables alike: the TableRAG loop finds the table by its rows"
    )
    # the loop queried the table whose rows the search found, and the answer is its figure
    assert answer.steps and answer.steps[0].tables[0] == "segment_report"
    assert answer.answer == "100"
    assert answer.table is not None and answer.table.rows == [[100]]


def test_the_setting_at_zero_keeps_one_query(reports: Path) -> None:
    script = ByKind(sql=_sql, passages="NOT_FOUND")
    with _qa(reports, script, loop_tied_tables=0) as qa:
        answer = qa.ask(QUESTION)
    assert answer.route is not None and answer.path != "loop"
    assert "decompose" not in script.seen
    assert not any("alike" in r for r in answer.route.reasons)


def test_fewer_tied_tables_than_the_setting_keep_one_query(reports: Path) -> None:
    script = ByKind(sql=_sql, passages="NOT_FOUND")
    with _qa(reports, script, loop_tied_tables=13) as qa:
        answer = qa.ask(QUESTION)
    assert answer.path != "loop"


def test_a_database_asked_in_place_keeps_one_query(tmp_path: Path) -> None:
    # the same twelve tables in a database: no chunks of their rows, nothing for a loop to find
    db = tmp_path / "reports.db"
    with sqlite3.connect(db) as con:
        for n, rows in enumerate([ITEMS, *([OTHERS] * 11)]):
            name = "segment_report" if n == 0 else f"annex_{n:02d}"
            con.execute(f"CREATE TABLE {name} (item TEXT, col_2019 REAL, col_2018 REAL)")
            for k, item in enumerate(rows):
                con.execute(f"INSERT INTO {name} VALUES (?, ?, ?)", (item, 100 + 7 * k + n, 90))
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "notes.md").write_text("# Notes\n\nThe annexes restate the year's figures.\n")
    with Workspace.open(tmp_path / "ws") as ws:
        done = ws.ingest([docs, f"sqlite:///{db}"], settings=Settings(embedder="hashing"))
    assert all(r.status != "failed" for r in done), done
    script = ByKind(sql=_sql, passages="NOT_FOUND")
    with _qa(tmp_path / "ws", script) as qa:
        answer = qa.ask(QUESTION)
    assert answer.route is not None and answer.path != "loop", answer.route.reasons
