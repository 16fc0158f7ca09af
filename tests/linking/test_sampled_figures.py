"""Profile figures from a sample are labelled as the sample's (issue 23), exact ones are not."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tablerag.cli import app
from tablerag.cli._common import console
from tablerag.linking.rows import SAMPLE_ROWS

runner = CliRunner()


def _env() -> dict[str, str]:
    return {**os.environ, "TABLERAG_INDEX_ON_INGEST": "false", "COLUMNS": "250"}


@pytest.fixture(autouse=True)
def wide_console(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(console, "width", 250)


def _schema(ws: Path, table: str, *extra: str) -> str:
    res = runner.invoke(app, ["schema", table, "-w", str(ws), *extra], env=_env())
    assert res.exit_code == 0, res.output
    return res.stdout


def test_big_table_figures_say_they_come_from_a_sample(tmp_path: Path) -> None:
    rows = SAMPLE_ROWS + 5_000
    (tmp_path / "big.csv").write_text(
        "order_id,status\n" + "".join(f"O{i},{'PAID' if i % 3 else ''}\n" for i in range(rows)),
        encoding="utf-8",
    )
    (tmp_path / "small.csv").write_text("id,city\n1,上海\n2,北京\n3,上海\n", encoding="utf-8")
    ws = tmp_path / "ws"
    res = runner.invoke(
        app,
        ["ingest", str(tmp_path / "big.csv"), str(tmp_path / "small.csv"), "-w", str(ws)],
        env=_env(),
    )
    assert res.exit_code == 0, res.output

    out = _schema(ws, "big")
    assert f"from a sample of {SAMPLE_ROWS:,} of {rows:,} rows" in out
    line = next(ln for ln in out.splitlines() if "order_id" in ln)
    assert f"≥{SAMPLE_ROWS:,}" in line  # every sampled id differs: at least that many
    status = next(ln for ln in out.splitlines() if ln.lstrip("│ ").startswith("status"))
    assert "≈33%" in status and "enum (few values in the sample)" in status
    profiles = json.loads(_schema(ws, "big", "--json"))["profiles"]
    assert {p["exact"] for p in profiles} == {False}

    out = _schema(ws, "small")
    assert "sample of" not in out and "≥" not in out and "≈" not in out
    city = next(ln for ln in out.splitlines() if "city" in ln)
    assert " 2 " in city and "enum (few values)" in city
    assert {p["exact"] for p in json.loads(_schema(ws, "small", "--json"))["profiles"]} == {True}
