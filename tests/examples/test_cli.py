"""``tablerag examples``: every pair through its source's gate; bad pairs named, nothing half
stored; export → import → export is identical; ``check`` lists what no longer runs."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from tablerag.cli import app
from tablerag.store.examples import Example, add_examples
from tablerag.store.workspace import Workspace

runner = CliRunner()
COUNT = "SELECT count(*) AS refunds FROM fact_refund"


def _run(*args: str) -> tuple[int, str]:
    result = runner.invoke(app, ["examples", *args])
    return result.exit_code, " ".join(result.output.split())


def test_add_shows_the_rows_and_list_export_import_round_trip(ws: Path, tmp_path: Path) -> None:
    code, out = _run("add", "-q", "How many refunds are there?", "--sql", COUNT, "-w", str(ws))
    assert code == 0, out
    assert "152" in out and "Added verified query" in out
    code, out = _run(
        "add", "-q", "退款按原因各有多少笔？", "--by", "li",
        "--sql", "SELECT reason_code, count(*) AS n FROM fact_refund GROUP BY reason_code",
        "-w", str(ws),
    )  # fmt: skip
    assert code == 0, out
    code, out = _run("list", "--json", "-w", str(ws))
    listed = json.loads(runner.invoke(app, ["examples", "list", "--json", "-w", str(ws)]).stdout)
    assert [e["question"] for e in listed] == [
        "How many refunds are there?",
        "退款按原因各有多少笔？",
    ]
    assert listed[0]["tables"] == ["fact_refund"] and listed[0]["source"] == "files"
    assert listed[1]["verified_by"] == "li" and listed[1]["origin"] == "manual"
    first = tmp_path / "first.jsonl"
    assert _run("export", str(first), "-w", str(ws))[0] == 0
    code, out = _run("import", str(first), "--replace", "-w", str(ws))
    assert code == 0 and "Imported 2 verified queries" in out, out
    second = tmp_path / "second.jsonl"
    assert _run("export", str(second), "-w", str(ws))[0] == 0
    assert first.read_bytes() == second.read_bytes()
    code, out = _run("check", "-w", str(ws))
    assert code == 0 and "All 2 verified queries pass" in out
    code, out = _run("remove", listed[0]["id"], "-w", str(ws))
    assert code == 0
    code, out = _run("remove", listed[0]["id"], "-w", str(ws))
    assert code == 2 and "no verified query" in out


def test_writing_hidden_and_broken_sql_and_duplicates_are_refused(ws: Path) -> None:
    assert _run("add", "-q", "How many refunds are there?", "--sql", COUNT, "-w", str(ws))[0] == 0
    cases = {
        "DELETE FROM fact_refund": "refuses",
        "SELECT mobile FROM dim_employee": "mobile",  # a hidden column
        "SELECT refund_total FROM fact_refund": "refund_total",  # no such column
    }
    for sql, said in cases.items():
        code, out = _run("add", "-q", f"q {sql}", "--sql", sql, "-w", str(ws))
        assert code == 2 and said in out and "nothing was stored" in out, (sql, out)
    code, out = _run("add", "-q", "how many refunds are there? ", "--sql", COUNT, "-w", str(ws))
    assert code == 2 and "is already a verified query" in out
    listed = runner.invoke(app, ["examples", "list", "--json", "-w", str(ws)]).stdout
    assert len(json.loads(listed)) == 1


def test_an_import_with_one_bad_pair_stores_none(ws: Path, tmp_path: Path) -> None:
    lines = [
        {"question": "Refunds in total?", "sql": COUNT},
        {"question": "Employees' phones?", "sql": "SELECT emp_name, mobile FROM dim_employee"},
        {"question": "Refunds in total?", "sql": COUNT},  # the same question twice
    ]
    file = tmp_path / "pairs.jsonl"
    file.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    code, out = _run("import", str(file), "-w", str(ws))
    assert code == 2 and "nothing was stored" in out
    assert "mobile" in out and "already a verified query" in out
    assert runner.invoke(app, ["examples", "export", "-w", str(ws)]).stdout == ""
    file.write_text("{not json\n", encoding="utf-8")
    code, out = _run("import", str(file), "-w", str(ws))
    assert code == 2 and "line 1: not JSON" in out


def test_check_lists_a_pair_that_no_longer_runs(ws: Path) -> None:
    assert _run("add", "-q", "How many refunds are there?", "--sql", COUNT, "-w", str(ws))[0] == 0
    with Workspace.open(ws) as w, w.transaction() as con:  # as if the schema had changed
        add_examples(
            con, [Example("Old refunds?", "SELECT refund_total FROM fact_refund", "files")]
        )
    code, out = _run("check", "-w", str(ws))
    assert code == 1 and "Old refunds?" in out and "refund_total" in out
    assert "How many refunds are there?" not in out
