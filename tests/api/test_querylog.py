"""The query log: one transaction per entry, `tablerag log`, retention, CLI ask logs too."""

from __future__ import annotations

import datetime as dt
import json
import sqlite3
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tablerag.cli import app
from tablerag.llm.testing import FunctionLLM
from tablerag.request import Request
from tablerag.runtime import Runtime, record_answer
from tablerag.store import querylog
from tests.api.conftest import reply

runner = CliRunner()


def test_a_failed_write_leaves_no_entry(ws: Path) -> None:
    """The insert and whatever follows it in the transaction go together, or not at all."""
    with pytest.raises(RuntimeError), querylog.connect(ws) as con:
        con.execute(
            "INSERT INTO answers (id, asked_at, origin, question, status) "
            "VALUES ('x', '2026-01-01', 'api', 'q', 'ok')"
        )
        raise RuntimeError("crash mid-entry")
    assert querylog.entries(ws) == []


def test_a_busy_request_is_logged_as_such(runtime: Runtime) -> None:
    runtime.admission.queue_max = 0
    with runtime.admission.enter(Request.make("hold", max_seconds=5)):
        rq = runtime.request("How many refunds are there?")
        with pytest.raises(Exception, match="busy"):
            runtime.serve(rq, token_id="t1")
    entry = querylog.get(runtime.path, rq.id)
    assert entry is not None and (entry.status, entry.token_id) == ("busy", "t1")
    assert "busy" in (entry.error or "")


def test_retention_prunes_old_entries_and_their_feedback(ws: Path) -> None:
    old = Request.make("old question", max_seconds=5)
    record_answer(ws, old, None, status="failed", error="x")
    with sqlite3.connect(querylog.service_db(ws)) as con:
        con.execute("UPDATE answers SET asked_at = '2020-01-01T00:00:00+00:00'")
    querylog.add_feedback(ws, old.id, "wrong")
    new = Request.make("new question", max_seconds=5)
    record_answer(ws, new, None, status="failed", error="y")
    assert querylog.prune(ws, 0) == 0
    assert querylog.prune(ws, 30) == 1
    assert [e.question for e in querylog.entries(ws)] == ["new question"]
    with sqlite3.connect(querylog.service_db(ws)) as con:
        assert con.execute("SELECT count(*) FROM feedback").fetchone() == (0,)


def test_cli_ask_logs_and_log_reads_it(ws: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    llm = FunctionLLM(reply)
    monkeypatch.setattr("tablerag.service.load_llm", lambda spec=None, **kw: llm)
    monkeypatch.setenv("TABLERAG_EMBEDDER", "hashing")
    asked = runner.invoke(app, ["ask", "How many refunds are there?", "-w", str(ws)])
    assert asked.exit_code == 0, asked.output
    shown = runner.invoke(app, ["log", "-w", str(ws), "--json"])
    assert shown.exit_code == 0, shown.output
    entries = json.loads(shown.stdout)
    assert [(e["origin"], e["status"], e["question"]) for e in entries] == [
        ("cli", "ok", "How many refunds are there?")
    ]
    assert entries[0]["tables"] == ["fact_refund"] and entries[0]["llm_calls"] == 1
    assert (
        runner.invoke(app, ["log", "-w", str(ws), "--status", "error", "--json"]).stdout.strip()
        == "[]"
    )
    future = (dt.datetime.now(dt.UTC) + dt.timedelta(days=1)).date().isoformat()
    assert (
        json.loads(runner.invoke(app, ["log", "-w", str(ws), "--since", future, "--json"]).stdout)
        == []
    )
    assert (
        len(
            json.loads(runner.invoke(app, ["log", "-w", str(ws), "--since", "1h", "--json"]).stdout)
        )
        == 1
    )
    table = runner.invoke(app, ["log", "-w", str(ws)])
    assert table.exit_code == 0 and "when (UTC)" in table.output and "ok" in table.output
    bad = runner.invoke(app, ["log", "-w", str(ws), "--since", "last tuesday"])
    assert bad.exit_code == 2 and "30m, 2h, 7d" in bad.output


def test_the_log_can_be_switched_off(ws: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    llm = FunctionLLM(reply)
    monkeypatch.setattr("tablerag.service.load_llm", lambda spec=None, **kw: llm)
    monkeypatch.setenv("TABLERAG_QUERY_LOG", "false")
    assert runner.invoke(app, ["ask", "How many refunds are there?", "-w", str(ws)]).exit_code == 0
    assert not querylog.service_db(ws).exists()


def test_a_servers_kept_connection_logs_what_others_read_at_once(ws: Path) -> None:
    """The server's writer (issue 31) keeps one connection: each entry is committed for the
    CLI and other processes to read as soon as it is written, and a CLI entry in between
    does not disturb it."""
    writer = querylog.Writer(ws)
    try:
        for n in range(3):
            record_answer(ws, Request.make(f"q{n}", max_seconds=5), None, status="failed",
                          error="x", writer=writer)  # fmt: skip
            # readable at once (newest first by time: two entries may share a clock tick)
            assert f"q{n}" in {e.question for e in querylog.entries(ws)}
        record_answer(ws, Request.make("from the CLI", max_seconds=5), None, status="failed")
        record_answer(ws, Request.make("q3", max_seconds=5), None, status="failed", writer=writer)
    finally:
        writer.close()
    with sqlite3.connect(querylog.service_db(ws)) as con:
        assert con.execute("SELECT count(*) FROM answers").fetchone() == (5,)
