"""`tablerag schema TABLE` shows enum values from CHECK constraints and lookup tables."""

from __future__ import annotations

import json
import os
from pathlib import Path

import duckdb
import pytest
from typer.testing import CliRunner

from tablerag.cli import app
from tablerag.cli._common import console

runner = CliRunner()


def _env() -> dict[str, str]:
    return {**os.environ, "TABLERAG_INDEX_ON_INGEST": "false", "COLUMNS": "250"}


@pytest.fixture(scope="module")
def sample_ws(sample_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    ws = tmp_path_factory.mktemp("schema") / "ws"
    res = runner.invoke(app, ["ingest", str(sample_dir), "-w", str(ws)], env=_env())
    assert res.exit_code == 0, res.output
    return ws


@pytest.fixture(autouse=True)
def wide_console(monkeypatch: pytest.MonkeyPatch) -> None:
    """Rows of the schema table on one line each (the console is made once, at import)."""
    monkeypatch.setattr(console, "width", 250)


def test_schema_shows_lookup_codes_with_labels(sample_ws: Path) -> None:
    res = runner.invoke(app, ["schema", "fact_refund", "-w", str(sample_ws)], env=_env())
    assert res.exit_code == 0, res.output
    line = next(ln for ln in res.stdout.splitlines() if "reason_code" in ln)
    assert "R02=商品破损" in line and "codes from dim_refund_reason" in line

    res = runner.invoke(app, ["schema", "fact_refund", "-w", str(sample_ws), "--json"])
    profiles = {p["column"]: p for p in json.loads(res.stdout)["profiles"]}
    reason = profiles["reason_code"]
    assert reason["enum_origin"] == "lookup:dim_refund_reason"
    assert ["R02", "商品破损"] in reason["enum_labels"]
    assert profiles["refund_amt"]["enum_values"] == []


def test_schema_of_a_database_table_shows_its_check_constraints(tmp_path: Path) -> None:
    db = tmp_path / "shop.duckdb"
    with duckdb.connect(str(db)) as con:
        con.execute(
            "CREATE TABLE pay (id INTEGER, status VARCHAR CHECK (status IN ('PAID', 'UNPAID')), "
            "qty INTEGER CHECK (qty BETWEEN 1 AND 9), code VARCHAR CHECK (length(code) = 3))"
        )
    ws = tmp_path / "ws"
    res = runner.invoke(app, ["ingest", f"duckdb:///{db}", "-w", str(ws)], env=_env())
    assert res.exit_code == 0, res.output

    res = runner.invoke(app, ["schema", "pay", "-w", str(ws)], env=_env())
    assert res.exit_code == 0, res.output
    lines = {ln.split()[1]: ln for ln in res.stdout.splitlines() if ln.startswith("│ ")}
    assert "PAID | UNPAID" in lines["status"] and "enum from CHECK" in lines["status"]
    assert "CHECK range [1, 9]" in lines["qty"]
    assert "CHECK LENGTH(code) = 3" in lines["code"]

    res = runner.invoke(app, ["schema", "pay", "-w", str(ws), "--json"])
    out = json.loads(res.stdout)
    assert len(out["checks"]) == 3
    status = next(p for p in out["profiles"] if p["column"] == "status")
    assert (status["enum_values"], status["enum_origin"]) == (["PAID", "UNPAID"], "check")


def test_schema_says_how_the_file_wrote_its_dates(tmp_path: Path) -> None:
    """Issue 23 (ud-30): a DATE column typed from 03/05/2026 … 05/13/2026 says it was written
    month first, on screen and in the schema text the model reads."""
    (tmp_path / "payments.csv").write_text(
        "id,paid_on,amount\n1,03/05/2026,10.5\n2,05/13/2026,20\n", encoding="utf-8"
    )
    ws = tmp_path / "ws"
    res = runner.invoke(app, ["ingest", str(tmp_path / "payments.csv"), "-w", str(ws)], env=_env())
    assert res.exit_code == 0, res.output

    res = runner.invoke(app, ["schema", "payments", "-w", str(ws)], env=_env())
    assert res.exit_code == 0, res.output
    lines = {ln.split()[1]: ln for ln in res.stdout.splitlines() if ln.startswith("│ ")}
    assert "written MM/DD/YYYY in the file" in lines["paid_on"]
    assert "written" not in lines["amount"]

    res = runner.invoke(app, ["schema", "payments", "-w", str(ws), "--json"])
    (paid_on,) = [c for c in json.loads(res.stdout)["columns"] if c["name"] == "paid_on"]
    assert paid_on["unit"] == "MM/DD/YYYY"


def test_schema_of_a_database_table_is_profiled_through_its_engine(tmp_path: Path) -> None:
    """Issue 36: "from a sample of 0 of 3,757 rows" with empty distinct and null columns."""
    db = tmp_path / "crm.duckdb"
    with duckdb.connect(str(db)) as con:
        con.execute(
            "CREATE TABLE clients (id INTEGER PRIMARY KEY, tier VARCHAR, phone VARCHAR, "
            "memo VARCHAR)"
        )
        con.execute(
            "INSERT INTO clients SELECT i, CASE WHEN i % 3 = 0 THEN NULL ELSE 'T' || (i % 2) END,"
            " '1390000' || lpad(i::VARCHAR, 4, '0'), 'call 13812345678' FROM range(1, 301) t(i)"
        )
        con.execute("COMMENT ON COLUMN clients.tier IS 'Service tier agreed in the contract'")
    ws = tmp_path / "ws"
    res = runner.invoke(app, ["ingest", f"duckdb:///{db}", "-w", str(ws)], env=_env())
    assert res.exit_code == 0, res.output
    res = runner.invoke(app, ["schema", "clients", "-w", str(ws)], env=_env())
    assert res.exit_code == 0, res.output
    assert "sample of" not in res.stdout  # all 300 rows read: exact figures
    lines = {ln.split()[1]: ln for ln in res.stdout.splitlines() if ln.startswith("│ ")}
    assert "│ 300 " in lines["id"] and "│ 2 " in lines["tier"] and "33%" in lines["tier"]
    assert "Service tier agreed in the contract" in lines["tier"]
    assert "(hidden)" in lines["phone"] and "13900000" not in res.stdout
    assert "13812345678" not in res.stdout and "138****5678" in lines["memo"]
    res = runner.invoke(app, ["schema", "clients", "-w", str(ws), "--json"])
    profiles = {p["column"]: p for p in json.loads(res.stdout)["profiles"]}
    assert profiles["id"]["sampled_rows"] == 300
    assert (profiles["phone"]["sampled_rows"], profiles["phone"]["samples"]) == (0, [])
