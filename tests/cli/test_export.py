"""``--csv`` / ``--xlsx``: the result rows taken away, whole or not at all (issue 36)."""

from __future__ import annotations

import csv
import json
from collections.abc import Sequence
from pathlib import Path

import pytest
from openpyxl import load_workbook
from typer.testing import CliRunner

from tablerag.cli import app
from tablerag.cli.export import save_result
from tablerag.errors import ConfigError
from tablerag.llm.base import Message
from tablerag.llm.testing import FunctionLLM
from tests.plugins.answering import build_sample_workspace

runner = CliRunner()
SQL = (
    "SELECT channel_code, '=1+1' AS trap, COUNT(*) AS n FROM fact_sales "
    "GROUP BY channel_code ORDER BY channel_code"
)


@pytest.fixture(scope="module")
def ws(sample_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_sample_workspace(sample_dir, tmp_path_factory.mktemp("export") / "ws")


@pytest.fixture
def scripted(monkeypatch: pytest.MonkeyPatch) -> None:
    def reply(messages: Sequence[Message]) -> str:
        if "SELECT" in messages[0]["content"]:
            return f"```sql\n{SQL}\n```"
        return "Orders by channel are in the table."

    monkeypatch.setattr("tablerag.service.load_llm", lambda spec=None, **kw: FunctionLLM(reply))


def test_ask_writes_the_rows_it_shows_to_csv_and_xlsx(
    ws: Path, scripted: None, tmp_path: Path
) -> None:
    out_csv, out_xlsx = tmp_path / "r.csv", tmp_path / "r.xlsx"
    question = "How many order lines per channel?"
    res = runner.invoke(
        app,
        ["ask", question, "-w", str(ws), "--json", "--csv", str(out_csv), "--xlsx", str(out_xlsx)],
    )
    assert res.exit_code == 0, res.output
    table = json.loads(res.stdout)["table"]
    with out_csv.open(encoding="utf-8", newline="") as f:
        read = list(csv.reader(f))
    assert read[0] == ["channel_code", "trap", "n"]
    assert [r[0] for r in read[1:]] == [r[0] for r in table["rows"]]
    assert [int(r[2]) for r in read[1:]] == [r[2] for r in table["rows"]]
    assert {r[1] for r in read[1:]} == {"'=1+1"}  # a spreadsheet shows it, never runs it
    sheet = load_workbook(out_xlsx).active
    assert sheet is not None
    cells = [[c.value for c in row] for row in sheet.iter_rows()]
    assert cells[0] == ["channel_code", "trap", "n"]
    assert cells[1:] == [[r[0], "=1+1", r[2]] for r in table["rows"]]
    assert all(row[1].data_type == "s" for row in sheet.iter_rows(min_row=2))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.csv", "r.xlsx"]  # no temp left


def test_an_unwritable_path_is_one_clear_line_and_leaves_nothing(
    ws: Path, scripted: None, tmp_path: Path
) -> None:
    missing = tmp_path / "no" / "such" / "folder" / "r.csv"
    res = runner.invoke(
        app, ["ask", "How many order lines per channel?", "-w", str(ws), "--csv", str(missing)]
    )
    assert res.exit_code == 1
    assert "Cannot write" in res.output and "choose a folder you can write to" in res.output
    assert "Traceback" not in res.output and not missing.exists()


def test_a_failed_write_keeps_the_old_file_whole(tmp_path: Path) -> None:
    target = tmp_path / "r.xlsx"
    target.write_bytes(b"old")
    with pytest.raises(ConfigError, match="do not fit one Excel sheet"):
        save_result(["a"], [[1]] * 1_048_576, xlsx_path=target)
    assert target.read_bytes() == b"old"
    assert [p.name for p in tmp_path.iterdir()] == ["r.xlsx"]


def test_sql_writes_the_masked_rows_it_shows(ws: Path, tmp_path: Path) -> None:
    out_csv, out_xlsx = tmp_path / "s.csv", tmp_path / "s.xlsx"
    query = (
        "SELECT channel_code, 'ann@example.com' AS contact, '=1+1' AS trap, COUNT(*) AS n "
        "FROM fact_sales GROUP BY channel_code ORDER BY channel_code"
    )
    res = runner.invoke(
        app, ["sql", query, "-w", str(ws), "--json", "--csv", str(out_csv), "--xlsx", str(out_xlsx)]
    )
    assert res.exit_code == 0, res.output
    shown = json.loads(res.stdout)
    assert shown["masked_columns"] == ["contact"] and shown["rows"]
    with out_csv.open(encoding="utf-8", newline="") as f:
        read = list(csv.reader(f))
    assert read[0] == ["channel_code", "contact", "trap", "n"]
    assert [r[:2] for r in read[1:]] == [r[:2] for r in shown["rows"]]
    assert "ann@example.com" not in out_csv.read_text(encoding="utf-8")
    assert {r[2] for r in read[1:]} == {"'=1+1"}
    sheet = load_workbook(out_xlsx).active
    assert sheet is not None
    cells = [[c.value for c in row] for row in sheet.iter_rows()]
    assert cells[1:] == [list(r) for r in shown["rows"]]
    assert f"saved {len(shown['rows'])} rows to" in res.stderr


def test_sql_cut_at_the_row_cap_says_so_and_keeps_exit_4(ws: Path, tmp_path: Path) -> None:
    out = tmp_path / "cut.csv"
    query = "SELECT channel_code FROM fact_sales"
    res = runner.invoke(app, ["sql", query, "-w", str(ws), "--max-rows", "2", "--csv", str(out)])
    assert res.exit_code == 4, res.output
    assert len(out.read_text(encoding="utf-8").splitlines()) == 3  # header and the 2 rows shown
    assert "saved 2 rows (cut at the row cap) to" in res.stderr
