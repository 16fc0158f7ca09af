"""Descriptions-file flags match their columns whatever the case, and a flag naming no column
says so instead of failing silently (issue 28)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tablerag.cli import app
from tablerag.store.annotations import Annotation, record_annotations, unknown_names
from tablerag.store.workspace import Workspace

runner = CliRunner()


def _descriptions(path: Path, table: str, columns: dict[str, bool]) -> Path:
    spec = {
        "format": "tablerag-table-descriptions/1",
        "tables": {table: {"columns": {c: {"sensitive": s} for c, s in columns.items()}}},
    }
    path.write_text(json.dumps(spec), "utf-8")
    return path


@pytest.mark.parametrize("order", ["data-first", "descriptions-first"])
def test_a_flag_in_another_case_hides_its_column(tmp_path: Path, order: str) -> None:
    (tmp_path / "staff.csv").write_text("id,name,salary\n1,Ann,5100\n2,Bob,6200\n", "utf-8")
    flags = _descriptions(tmp_path / "d.json", "Staff", {"Salary": True})
    files = [tmp_path / "staff.csv", flags]
    if order == "descriptions-first":
        files.reverse()
    root = tmp_path / "ws"
    for file in files:
        res = runner.invoke(app, ["ingest", str(file), "-w", str(root)])
        assert res.exit_code == 0, res.output
    with Workspace.open(root, create=False, read_only=True) as ws:
        salary = next(c for c in ws.table("staff").columns if c.name == "salary")
        chunks = [c.text for c in ws.chunks() if c.table == "staff"]
    assert salary.sensitive and salary.samples == ()
    assert chunks and not any("5100" in text or "salary" in text for text in chunks), chunks
    res = runner.invoke(app, ["sql", "SELECT salary FROM staff", "-w", str(root)])
    assert res.exit_code == 3, res.output


def test_a_flag_naming_no_column_is_reported(tmp_path: Path) -> None:
    (tmp_path / "staff.csv").write_text("id,name,salary\n1,Ann,5100\n", "utf-8")
    root = tmp_path / "ws"
    assert (
        runner.invoke(app, ["ingest", str(tmp_path / "staff.csv"), "-w", str(root)]).exit_code == 0
    )
    flags = _descriptions(tmp_path / "d.json", "staff", {"salry": True, "NAME": False})
    res = runner.invoke(app, ["ingest", str(flags), "-w", str(root), "--json"])
    assert res.exit_code == 0, res.output
    text = res.stdout
    assert "staff.salry" in text and "sensitive flag names no column of table 'staff'" in text
    assert "staff.NAME" not in text  # known, case aside


def test_unknown_names_tells_a_table_not_ingested_yet(tmp_path: Path) -> None:
    with Workspace.open(tmp_path / "ws") as ws:
        notes = [Annotation("payroll", "salary", sensitive=True), Annotation("payroll", None)]
        stored = record_annotations(ws.con, "src1", notes)
        problems = unknown_names(ws.con, stored)
    assert [p.where for p in problems] == ["payroll.salary"]
    assert "no ingested source has (yet)" in problems[0].what
