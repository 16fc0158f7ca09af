"""All-number dates (MM/DD/YYYY, DD/MM/YYYY with / - .) typed when the data decides the order,
kept as text and reported when it does not (issue 23)."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import openpyxl
import pytest

from tablerag.ingest.infer import infer_column
from tablerag.service import Workspace
from tablerag.settings import Settings
from tablerag.types import SourceReport

SETTINGS = Settings(index_on_ingest=False)


def _ingest(workspace: Workspace, path: Path, settings: Settings = SETTINGS) -> SourceReport:
    (report,) = workspace.ingest([path], settings=settings)
    assert report.status == "added", report.error
    return report


def _type(workspace: Workspace, table: str, column: str) -> str:
    row = workspace.con.execute(
        "SELECT data_type FROM duckdb_columns() WHERE schema_name = 'data' AND table_name = ? "
        "AND column_name = ?",
        [table, column],
    ).fetchone()
    assert row is not None
    return str(row[0])


def _ambiguity(report: SourceReport) -> list[str]:
    return [p.line() for p in report.problems if "order is unknown" in p.line()]


@pytest.mark.parametrize(
    ("values", "sql_type", "first"),
    [
        pytest.param(["03/05/2026", "13/05/2026"], "DATE", dt.date(2026, 5, 3), id="day-over-12"),
        pytest.param(["03/05/2026", "05/13/2026"], "DATE", dt.date(2026, 3, 5), id="month-first"),
        pytest.param(["03.05.2026", "25.12.2026"], "DATE", dt.date(2026, 5, 3), id="dots"),
        pytest.param(["3-5-2026", "12-31-2026"], "DATE", dt.date(2026, 3, 5), id="dashes"),
        pytest.param(["03/05/2026", "04/06/2026"], "VARCHAR", "03/05/2026", id="undecided"),
        pytest.param(["13/05/2026", "05/13/2026"], "VARCHAR", "13/05/2026", id="both-orders"),
    ],
)
def test_csv_dates(
    workspace: Workspace, tmp_path: Path, values: list[str], sql_type: str, first: object
) -> None:
    (tmp_path / "claims.csv").write_text(
        "id,filed\n" + "".join(f"{i},{v}\n" for i, v in enumerate(values)), encoding="utf-8"
    )
    report = _ingest(workspace, tmp_path / "claims.csv")
    assert _type(workspace, "claims", "filed") == sql_type
    assert workspace.con.execute("SELECT filed FROM data.claims WHERE id = 0").fetchone() == (
        first,
    )
    assert len(_ambiguity(report)) == (1 if values[1] == "04/06/2026" else 0)


def test_deciding_value_far_below_the_head(workspace: Workspace, tmp_path: Path) -> None:
    rows = [f"{i},{1 + i % 12:02d}/{1 + i % 9:02d}/2026\n" for i in range(1500)]
    (tmp_path / "long.csv").write_text(
        "id,filed\n" + "".join(rows) + "1500,25/12/2026\n", encoding="utf-8"
    )
    report = _ingest(workspace, tmp_path / "long.csv")
    assert _type(workspace, "long", "filed") == "DATE"
    assert workspace.con.execute("SELECT filed FROM data.long WHERE id = 1").fetchone() == (
        dt.date(2026, 2, 2),
    )
    assert workspace.con.execute("SELECT filed FROM data.long WHERE id = 4").fetchone() == (
        dt.date(2026, 5, 5),
    )
    assert workspace.con.execute("SELECT filed FROM data.long WHERE id = 11").fetchone() == (
        dt.date(2026, 3, 12),  # 12/03 read day first
    )
    assert _ambiguity(report) == []


def test_workbook_text_dates_undecided_are_reported(workspace: Workspace, tmp_path: Path) -> None:
    wb = openpyxl.Workbook()
    ws = wb.active
    assert ws is not None
    ws.append(["订单", "日期"])
    ws.append(["A1", "03/05/2026"])
    ws.append(["A2", "N/A"])
    ws.append(["A3", "11/12/2026"])
    wb.save(tmp_path / "orders.xlsx")
    report = _ingest(workspace, tmp_path / "orders.xlsx")
    assert _type(workspace, "orders", "日期") == "VARCHAR"
    values = workspace.con.execute('SELECT "日期" FROM data.orders ORDER BY rowid').fetchall()
    assert values == [("03/05/2026",), ("N/A",), ("11/12/2026",)]  # text kept exactly
    (line,) = _ambiguity(report)
    assert line.startswith("column '日期': the dates are written MM/DD/YYYY or DD/MM/YYYY")
    assert "date_order" in line


def test_not_dates_stay_what_they_were() -> None:
    assert infer_column(["1.2.3", "10.11.12"]).sql_type == "VARCHAR"  # versions
    assert infer_column(["12.50", "3.25"]).sql_type == "DECIMAL(18,2)"
    assert infer_column(["2026-09-01", "2026-9-2"]).sql_type == "DATE"
    assert infer_column(["31/02/2026"]).sql_type == "VARCHAR"  # no such day in either order


@pytest.mark.parametrize(
    ("order", "expected"), [("mdy", dt.date(2026, 3, 5)), ("dmy", dt.date(2026, 5, 3))]
)
def test_date_order_setting_decides_what_the_data_does_not(
    workspace: Workspace, tmp_path: Path, order: str, expected: dt.date
) -> None:
    (tmp_path / "claims.csv").write_text("id,filed\n0,03/05/2026\n1,04/06/2026\n", "utf-8")
    report = _ingest(
        workspace, tmp_path / "claims.csv", Settings(index_on_ingest=False, date_order=order)
    )
    assert workspace.con.execute("SELECT filed FROM data.claims WHERE id = 0").fetchone() == (
        expected,
    )
    assert _ambiguity(report) == []


def _written(workspace: Workspace, table: str, column: str) -> tuple[str | None, str | None]:
    (col,) = [c for c in workspace.table(table).columns if c.name == column]
    return col.unit, col.written_order


@pytest.mark.parametrize(
    ("values", "written"),
    [
        pytest.param(["03/05/2026", "05/13/2026"], ("MM/DD/YYYY", "mdy"), id="month-first"),
        pytest.param(["03.05.2026", "25.12.2026"], ("DD.MM.YYYY", "dmy"), id="day-first-dots"),
        pytest.param(["2026-03-05", "2026-05-13"], (None, None), id="iso"),
        pytest.param(["03/05/2026", "04/06/2026"], (None, None), id="undecided"),
    ],
)
def test_catalog_keeps_the_written_order(
    workspace: Workspace, tmp_path: Path, values: list[str], written: tuple[str, str]
) -> None:
    """Issue 23 (ud-30): the stored DATE no longer says the file wrote 03/05/2026 month first;
    the catalog keeps it, so the prompt and the answer checks can read the question's date."""
    (tmp_path / "payments.csv").write_text(
        "id,paid_on,amount\n" + "".join(f"{i},{v},{i + 1}0.5\n" for i, v in enumerate(values)),
        encoding="utf-8",
    )
    _ingest(workspace, tmp_path / "payments.csv")
    assert _written(workspace, "payments", "paid_on") == written


def test_catalog_keeps_the_order_the_setting_decided(workspace: Workspace, tmp_path: Path) -> None:
    (tmp_path / "claims.csv").write_text("id,filed\n0,03/05/2026\n1,04/06/2026\n", "utf-8")
    _ingest(workspace, tmp_path / "claims.csv", Settings(index_on_ingest=False, date_order="mdy"))
    assert _written(workspace, "claims", "filed") == ("MM/DD/YYYY", "mdy")


def test_workbook_text_dates_keep_the_written_order(workspace: Workspace, tmp_path: Path) -> None:
    wb = openpyxl.Workbook()
    ws = wb.active
    assert ws is not None
    ws.append(["order", "paid"])
    ws.append(["A1", "03/05/2026"])
    ws.append(["A2", "28/02/2026"])
    wb.save(tmp_path / "orders.xlsx")
    _ingest(workspace, tmp_path / "orders.xlsx")
    assert _written(workspace, "orders", "paid") == ("DD/MM/YYYY", "dmy")
