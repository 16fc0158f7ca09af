"""Totals and subtotal rows kept out of stored tables and reported (issue 23), in every reader."""

from __future__ import annotations

from pathlib import Path

import docx
import openpyxl
import pytest

from tablerag.ingest.limits import IngestLimits
from tablerag.ingest.pipeline import ingest_sources
from tablerag.ingest.tables.totals import find_totals
from tablerag.ingest.worker import LocalReaders
from tablerag.service import Workspace
from tablerag.settings import Settings
from tablerag.types import SourceReport

SETTINGS = Settings(index_on_ingest=False)
STAFF = [
    ("E001", "张三", "销售", 20000),
    ("E002", "李四", "技术", 30000),
    ("E003", "王五", "财务", 20000),
]


def _ingest(workspace: Workspace, path: Path) -> SourceReport:
    (report,) = workspace.ingest([path], settings=SETTINGS)
    assert report.status == "added", report.error
    return report


def _sum(workspace: Workspace, table: str, column: str) -> float:
    row = workspace.con.execute(f'SELECT sum("{column}") FROM data."{table}"').fetchone()
    assert row is not None
    return float(row[0])


def _totals_lines(report: SourceReport) -> list[str]:
    return [p.line() for p in report.problems if "totals row" in p.line()]


def test_workbook_total_row_out_of_the_sum(workspace: Workspace, tmp_path: Path) -> None:
    wb = openpyxl.Workbook()
    ws = wb.active
    assert ws is not None
    ws.append(["工号", "姓名", "部门", "月薪"])
    for row in STAFF:
        ws.append(list(row))
    ws.append(["合计", None, None, 70000])
    ws.merge_cells("A5:C5")  # the label merged across the text columns, as sheets often do
    wb.save(tmp_path / "员工.xlsx")
    report = _ingest(workspace, tmp_path / "员工.xlsx")
    assert _sum(workspace, "员工", "月薪") == 70000  # 员工的月薪总和是多少？ -> 70000, not 140000
    assert workspace.con.execute('SELECT count(*) FROM data."员工"').fetchone() == (3,)
    (line,) = _totals_lines(report)
    assert line.startswith("row 5:") and "合计" in line
    assert report.rows_read == report.rows_stored == 3


def test_merged_header_workbook_with_subtotals_and_grand_total(
    workspace: Workspace, tmp_path: Path
) -> None:
    wb = openpyxl.Workbook()
    ws = wb.active
    assert ws is not None
    ws.append(["地区", "2026", None])
    ws.merge_cells("B1:C1")
    ws.append([None, "Q1", "Q2"])
    ws.append(["上海", 100, 200])
    ws.append(["杭州", 50, 70])
    ws.append(["华东小计", 150, 270])
    ws.append(["广州", 30, 40])
    ws.append(["深圳", 10, 20])
    ws.append(["华南小计", 40, 60])
    ws.append(["总计", 190, 330])
    wb.save(tmp_path / "sales.xlsx")
    report = _ingest(workspace, tmp_path / "sales.xlsx")
    assert workspace.con.execute('SELECT count(*) FROM data."sales"').fetchone() == (4,)
    assert _sum(workspace, "sales", "col_2026_q1") == 190
    assert len(_totals_lines(report)) == 3


def test_csv_total_and_unlabelled_sum_row(workspace: Workspace, tmp_path: Path) -> None:
    (tmp_path / "claims.csv").write_text(
        "claim,product,amount,units\nC1,phone,100.50,2\nC2,laptop,200.25,3\nTotal,,300.75,5\n",
        encoding="utf-8",
    )
    (tmp_path / "plain.csv").write_text(
        "name,amount,units\na,1.5,2\nb,2.5,3\n,4.0,5\n", encoding="utf-8"
    )
    report = _ingest(workspace, tmp_path / "claims.csv")
    assert _sum(workspace, "claims", "amount") == pytest.approx(300.75)
    assert _totals_lines(report)[0].startswith("line 4:")
    report = _ingest(workspace, tmp_path / "plain.csv")
    assert _sum(workspace, "plain", "amount") == pytest.approx(4.0)
    assert "sums of the rows above (2 columns)" in _totals_lines(report)[0]


def test_word_and_html_tables_with_totals(workspace: Workspace, tmp_path: Path) -> None:
    document = docx.Document()
    document.add_paragraph("差旅费用明细")
    table = document.add_table(rows=1, cols=2)
    table.rows[0].cells[0].text, table.rows[0].cells[1].text = "项目", "金额"
    for name, amount in (("住宿", "600"), ("交通", "400"), ("合 计", "1,000")):
        cells = table.add_row().cells
        cells[0].text, cells[1].text = name, amount
    document.save(str(tmp_path / "policy.docx"))
    report = _ingest(workspace, tmp_path / "policy.docx")
    (name,) = report.tables
    assert _sum(workspace, name, "金额") == 1000
    assert len(_totals_lines(report)) == 1
    (tmp_path / "page.html").write_text(
        "<html><body><table><tr><th>region</th><th>revenue</th><th>orders</th></tr>"
        "<tr><td>east</td><td>10</td><td>1</td></tr><tr><td>west</td><td>20</td><td>2</td></tr>"
        "<tr><td>Grand Total</td><td>30</td><td>3</td></tr></table></body></html>",
        encoding="utf-8",
    )
    report = _ingest(workspace, tmp_path / "page.html")
    (name,) = report.tables
    assert _sum(workspace, name, "revenue") == 30
    assert len(_totals_lines(report)) == 1


def test_false_positives_are_kept(workspace: Workspace, tmp_path: Path) -> None:
    # a column named total, a name that contains a totals word, rows of plain numbers whose
    # last row happens to be a sum, a mid-table label whose numbers are not sums
    (tmp_path / "orders.csv").write_text(
        "id,item,qty,total\n1,Total Recall DVD,1,10\n2,pen,2,4\n3,book,3,14\n",
        encoding="utf-8",
    )
    report = _ingest(workspace, tmp_path / "orders.csv")
    assert workspace.con.execute("SELECT count(*) FROM data.orders").fetchone() == (3,)
    assert _totals_lines(report) == []
    (tmp_path / "fib.csv").write_text("a,b\n1,2\n1,3\n2,5\n", encoding="utf-8")
    assert _totals_lines(_ingest(workspace, tmp_path / "fib.csv")) == []
    assert workspace.con.execute("SELECT count(*) FROM data.fib").fetchone() == (3,)


@pytest.mark.parametrize(
    ("rows", "expected"),
    [
        pytest.param(
            [["x", "1"], ["y", "2"], ["Sum", "9"], ["z", "3"], ["w", "4"], ["v", "5"]],
            [],
            id="mid-label-not-a-sum",
        ),
        pytest.param([["a", "0", "0"], ["b", "0", "0"], [None, "0", "0"]], [], id="zero-sums"),
        pytest.param(
            [["a", "1", "7"], ["b", "2", "8"], [None, "3", "9"]], [], id="one-column-sums"
        ),
        pytest.param([["合计", "3"], ["a", "1"], ["b", "2"], ["c", "5"]], [0], id="total-on-top"),
        pytest.param(
            [["a", "1.004"], ["b", "2.004"], ["小计", "3.01"], ["c", "4"], ["d", "5"]],
            [2],
            id="rounded-subtotal",
        ),
    ],
)
def test_find_totals_cases(rows: list[list[str | None]], expected: list[int]) -> None:
    assert [t.index for t in find_totals(rows)] == expected


def test_long_csv_checks_only_its_edges(
    workspace: Workspace, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("tablerag.ingest.tables.delimited._TOTALS_SCAN_ROWS", 4)
    lines = [f"r{i},{i}" for i in range(1, 8)]
    (tmp_path / "long.csv").write_text(
        "name,n\n" + "\n".join(lines) + "\n合计：,28\n", encoding="utf-8"
    )
    # read in this process: the worker would not see the patched constant
    (report,) = ingest_sources(
        workspace, [tmp_path / "long.csv"], settings=SETTINGS, readers=LocalReaders(IngestLimits())
    )
    assert report.status == "added", report.error
    assert _sum(workspace, "long", "n") == 28
    assert _totals_lines(report) == [
        "line 9: a totals row: a '合计：' row at the end of the table "
        "(kept out of the table; sum the rows instead)"
    ]


def test_csv_column_kept_text_only_by_its_totals_label_is_typed(
    workspace: Workspace, tmp_path: Path
) -> None:
    (tmp_path / "pay.csv").write_text(
        '序号,姓名,月薪\n1,张三,"¥20,000"\n2,李四,"¥30,000"\n3,王五,"¥20,000"\n合计,,"¥70,000"\n',
        encoding="utf-8",
    )
    report = _ingest(workspace, tmp_path / "pay.csv")
    types = dict(
        workspace.con.execute(
            "SELECT column_name, data_type FROM duckdb_columns() WHERE schema_name = 'data' "
            "AND table_name = 'pay'"
        ).fetchall()
    )
    assert types["序号"] == "BIGINT" and types["姓名"] == "VARCHAR"
    assert _sum(workspace, "pay", "月薪") == 70000
    assert workspace.con.execute('SELECT max("序号") FROM data.pay').fetchone() == (3,)
    (table,) = [t for t in workspace.tables() if t.name == "pay"]
    assert next(c.unit for c in table.columns if c.name == "月薪") == "¥"
    assert len(_totals_lines(report)) == 1


def test_workbook_total_row_of_formulas_without_cached_values(
    workspace: Workspace, tmp_path: Path
) -> None:
    wb = openpyxl.Workbook()
    ws = wb.active
    assert ws is not None
    ws.append(["姓名", "月薪"])
    ws.append(["张三", 20000])
    ws.append(["李四", 50000])
    ws.append(["合计", "=SUM(B2:B3)"])  # openpyxl stores no cached value: the cell reads NULL
    wb.save(tmp_path / "pay.xlsx")
    report = _ingest(workspace, tmp_path / "pay.xlsx")
    assert workspace.con.execute('SELECT count(*), sum("月薪") FROM data.pay').fetchone() == (
        2,
        70000,
    )
    assert any(
        "a '合计' row at the end of the table, empty" in line for line in _totals_lines(report)
    )


def test_a_block_of_total_rows_ending_the_table_goes_whole() -> None:
    rows = [
        ["1996", "Viking", "1", "0"],
        ["1997", "Viking", "13", "5"],
        ["1998", "Fulham", "8", "3"],
        ["1999", "Fulham", "4", "1"],
        ["2000", "Viking", "20", "13"],
        ["Total", "Norway", "34", "18"],
        ["Total", "England", "12", "4"],
        ["Career total", "Career total", "46", "22"],
    ]
    assert [t.index for t in find_totals(rows)] == [5, 6, 7]
    assert find_totals([["Total Recall", "1"], ["Jaws", "2"], ["Alien", "3"], ["Heat", "4"]]) == []
