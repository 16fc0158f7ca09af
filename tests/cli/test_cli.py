"""The CLI as a user meets it: exit codes, JSON output, one-line errors."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from tablerag.cli import app

runner = CliRunner()


def _env() -> dict[str, str]:
    return {**os.environ, "TABLERAG_INDEX_ON_INGEST": "false"}


def test_ingest_then_browse(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    (tmp_path / "t.csv").write_text("name,qty\napple,3\npear,5\n", encoding="utf-8")
    (tmp_path / "doc.md").write_text("# Title\n\nSome text about apples.\n", encoding="utf-8")
    res = runner.invoke(
        app,
        ["ingest", str(tmp_path / "t.csv"), str(tmp_path / "doc.md"), "-w", str(ws), "--json"],
        env=_env(),
    )
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    assert [s["status"] for s in out["sources"]] == ["added", "added"]
    assert out["workspace"]["tables"] == 1

    res = runner.invoke(app, ["tables", "-w", str(ws), "--json"])
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout) == [
        {
            "name": "t",
            "rows": 2,
            "readable": True,
            "columns": 2,
            "source": str((tmp_path / "t.csv").resolve()),
            "origin": "t.csv",
            "page": None,
            "stored": True,
        }
    ]
    res = runner.invoke(app, ["schema", "t", "-w", str(ws), "--json"])
    cols = json.loads(res.stdout)["columns"]
    assert [(c["name"], c["type"]) for c in cols] == [("name", "VARCHAR"), ("qty", "BIGINT")]
    assert set(cols[0]["samples"]) == {"apple", "pear"}

    res = runner.invoke(app, ["chunks", "-w", str(ws), "--source", "doc.md", "--json"])
    chunks = json.loads(res.stdout)
    assert chunks and chunks[0]["heading_path"] == ["Title"]

    res = runner.invoke(app, ["sources", "-w", str(ws), "--json"])
    assert {Path(s["location"]).name for s in json.loads(res.stdout)} == {"t.csv", "doc.md"}

    res = runner.invoke(app, ["tables", "-w", str(ws)])
    assert "t" in res.stdout and res.exit_code == 0


def test_ingest_report_counts_a_document_kind_as_a_note_not_a_problem(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tablerag.cli._common import console

    monkeypatch.setattr(console, "width", 200)
    ws = tmp_path / "ws"
    (tmp_path / "short.csv").write_text("name,qty\napple,3\npear\n", encoding="utf-8")
    (tmp_path / "doc.md").write_text("# Title\n\nSome text about apples.\n", encoding="utf-8")
    files = [str(tmp_path / "short.csv"), str(tmp_path / "doc.md")]
    res = runner.invoke(app, ["ingest", *files, "-w", str(ws)], env=_env())
    assert res.exit_code == 0, res.output
    doc, csv = _row(res.stdout, "doc.md"), _row(res.stdout, "short.csv")
    assert (doc[-2], doc[-1]) == ("0", "1")  # problems, notes
    assert (csv[-2], csv[-1]) == ("2", "0")  # a short row: not in the header, padded
    head, _, notes = res.stdout.partition("notes:")
    assert "! " in head and "short.csv" in head.split("Ingest report")[-1]
    assert "document kind 'prose'" in notes and "document kind" not in head
    res = runner.invoke(app, ["sources", "-w", str(ws), "--json"])
    by_name = {Path(s["location"]).name: s["problems"] for s in json.loads(res.stdout)}
    assert [p["is_note"] for p in by_name["doc.md"]] == [True]
    assert [p["is_note"] for p in by_name["short.csv"]] == [False, False]
    res = runner.invoke(app, ["sources", "-w", str(ws)])
    assert _row(res.stdout, "doc.md")[-1] == "0" and _row(res.stdout, "short.csv")[-1] == "2"


def _row(printed: str, name: str) -> list[str]:
    """The cells of the table row printed for the source named ``name``."""
    for line in printed.splitlines():
        cells = [cell.strip() for cell in line.split("│")[1:-1]]
        if cells and cells[0].endswith(name):
            return cells
    raise AssertionError(f"no row for {name!r} in:\n{printed}")


def test_ingest_failure_exits_1(tmp_path: Path) -> None:
    bad = tmp_path / "bad.xlsx"
    bad.write_bytes(b"not a zip")
    res = runner.invoke(app, ["ingest", str(bad), "-w", str(tmp_path / "ws")], env=_env())
    assert res.exit_code == 1
    assert "failed" in res.stdout


def _run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tablerag", *args],
        cwd=cwd,
        env=_env(),
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_errors_are_one_line_not_tracebacks(tmp_path: Path) -> None:
    res = _run("tables", "-w", str(tmp_path / "none"), cwd=tmp_path)
    assert res.returncode == 1
    assert "No workspace" in res.stderr and "Traceback" not in res.stderr
    res = _run("ingest", str(tmp_path / "missing.csv"), "-w", str(tmp_path / "ws"), cwd=tmp_path)
    assert res.returncode == 2
    assert "neither an existing file" in res.stderr and "Traceback" not in res.stderr
    res = _run("schema", "nope", "-w", str(tmp_path / "ws"), cwd=tmp_path)
    assert res.returncode in (1, 2) and "Traceback" not in res.stderr


@pytest.mark.parametrize("where", ["sources", "index"])
def test_ctrl_c_during_ingest_says_what_was_kept_and_the_workspace_stays_usable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, where: str
) -> None:
    """Ctrl-C exited 130 with no word, and left the index out of date with no hint (issue 36)."""
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "a.csv").write_text("id,v\n1,2\n", encoding="utf-8")
    (corpus / "b.md").write_text("# Refunds\n\nRefunds take 7 days.\n", encoding="utf-8")
    ws = tmp_path / "ws"

    def stop(*args: object, **kwargs: Any) -> None:
        if where == "index":  # stopped once embedding has begun
            kwargs["progress"](0, 10)
        raise KeyboardInterrupt

    target = "refresh_index" if where == "index" else "ingest_sources"
    monkeypatch.setattr(f"tablerag.service.{target}", stop)
    monkeypatch.setenv("TABLERAG_EMBEDDER", "hashing")
    res = runner.invoke(app, ["ingest", str(corpus), "-w", str(ws)])
    assert res.exit_code == 130
    said = " ".join(res.output.split())
    assert "Traceback" not in res.output
    if where == "index":
        assert "Stopped while building the text index" in said
    else:
        assert "nothing is half written" in said
    assert "run the same `tablerag ingest` again" in said
    monkeypatch.undo()
    monkeypatch.setenv("TABLERAG_EMBEDDER", "hashing")
    again = runner.invoke(app, ["ingest", str(corpus), "-w", str(ws)])
    assert again.exit_code == 0, again.output
    found = runner.invoke(app, ["search", "refunds", "-w", str(ws), "--json"])
    assert found.exit_code == 0 and "7 days" in found.output
