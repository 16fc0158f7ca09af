"""Notes under a table (``注：…``, ``Source: …``) kept with the table, not as rows (issue 29)."""

from __future__ import annotations

import csv
from collections.abc import Sequence
from pathlib import Path

import openpyxl
import pytest
from typer.testing import CliRunner

from tablerag.answering import suggestions
from tablerag.cli import app
from tablerag.ingest.limits import IngestLimits
from tablerag.ingest.pipeline import ingest_sources
from tablerag.ingest.tables.notes import find_notes
from tablerag.ingest.worker import LocalReaders
from tablerag.linking.cache import workspace_catalog
from tablerag.linking.render import render_table
from tablerag.service import Workspace
from tablerag.settings import Settings
from tablerag.types import SourceReport

SETTINGS = Settings(index_on_ingest=False)
NOTE = "注：早鸟九折为开课前30天以上报名的优惠价；退学学员的退费另行登记。"
HEADER = ["报名号", "学员编号", "课程代码", "报名日期", "实收学费", "备注", "状态", "结业成绩"]
ROWS: list[list[object]] = [
    [f"BM{i:04d}", f"S{i:03d}", f"C0{i % 4 + 1}", f"2026-03-{i % 28 + 1:02d}", 1200 + i % 3 * 100]
    + ["早鸟" if i % 5 == 0 else None, "在读" if i % 7 else "退学", 60 + i % 40]
    for i in range(1, 161)
]
runner = CliRunner()


def _workbook(path: Path, tail: Sequence[Sequence[object]]) -> None:
    """A sheet as the evaluation set's: merged title, a note row, the header, 160 rows, tail."""
    book = openpyxl.Workbook()
    sheet = book.active
    assert sheet is not None
    sheet.title = "报名记录"
    sheet.append(["启航职业技能培训学校 2026年春季报名记录"])
    sheet.append(["制表：教务处　金额单位：元"])
    sheet.append(HEADER)
    sheet.merge_cells("A1:H1")
    for row in ROWS:
        sheet.append(row)
    for row in tail:
        sheet.append(list(row))
    courses = book.create_sheet("课程")
    courses.append(["课程代码", "课程名称"])
    courses.append(["C01", "Excel 入门"])
    courses.append(["C02", "电工基础"])
    book.save(path)


def _csv(path: Path, header: Sequence[object], rows: Sequence[Sequence[object]]) -> None:
    with path.open("w", encoding="utf-8", newline="") as handle:
        out = csv.writer(handle)
        out.writerow(header)
        out.writerows(rows)


def _ingest(workspace: Workspace, path: Path) -> SourceReport:
    (report,) = workspace.ingest([path], settings=SETTINGS)
    assert report.status == "added", report.error
    return report


def _count(workspace: Workspace, table: str) -> int:
    row = workspace.con.execute(f'SELECT count(*) FROM data."{table}"').fetchone()
    assert row is not None
    return int(row[0])


def _note_lines(report: SourceReport) -> list[str]:
    return [p.line() for p in report.problems if "under the table" in p.what]


def test_workbook_footnote_is_the_tables_note(workspace: Workspace, tmp_path: Path) -> None:
    _workbook(tmp_path / "报名.xlsx", [[], [NOTE]])
    report = _ingest(workspace, tmp_path / "报名.xlsx")
    assert _count(workspace, "报名记录") == 160  # 一共有多少条报名？ -> 160, not 161
    assert report.rows_read == report.rows_stored == 162  # and the 2 rows of 课程
    (line,) = _note_lines(report)
    assert line.startswith("row 165: 1 note row under the table") and NOTE in line
    assert not [p for p in report.problems if "blank row" in p.what]  # not inside the table
    catalog = workspace_catalog(workspace)
    assert NOTE in render_table(catalog, "报名记录").splitlines()[0]  # the schema the model reads
    assert catalog.tables["课程"].description == ""
    # a note is no caption: the example question names the table, not the note's "注"
    assert suggestions(catalog, None, "zh")[0][0] == "查数据：报名记录"


def test_note_directly_under_the_data(workspace: Workspace, tmp_path: Path) -> None:
    _workbook(tmp_path / "报名.xlsx", [["* 退学学员的退费另行登记"]])
    report = _ingest(workspace, tmp_path / "报名.xlsx")
    assert _count(workspace, "报名记录") == 160
    assert len(_note_lines(report)) == 1


@pytest.mark.parametrize(
    "tail",
    [
        pytest.param([[NOTE, "", "", "", "", "", "", ""]], id="fast-path-empty-fields"),
        pytest.param([[], [NOTE]], id="blank-line-then-one-field"),
        pytest.param([[NOTE], ["Source: 教务处报名系统导出"]], id="two-notes"),
    ],
)
def test_csv_footnote_is_the_tables_note(
    workspace: Workspace, tmp_path: Path, tail: list[list[object]]
) -> None:
    _csv(tmp_path / "enroll.csv", HEADER, ROWS + tail)
    report = _ingest(workspace, tmp_path / "enroll.csv")
    assert _count(workspace, "enroll") == 160
    assert report.rows_read == report.rows_stored == 160
    (line,) = _note_lines(report)
    assert NOTE in line
    (info,) = workspace.tables()
    assert info.description.startswith(NOTE)


def test_csv_note_under_a_numbered_column_leaves_it_numeric(
    workspace: Workspace, tmp_path: Path
) -> None:
    rows = [[n, f"城市{n}", n * 10] for n in range(1, 41)]
    _csv(tmp_path / "gdp.csv", ["序号", "城市", "产值"], [*rows, ["数据来源：统计年鉴", "", ""]])
    report = _ingest(workspace, tmp_path / "gdp.csv")
    assert _count(workspace, "gdp") == 40
    assert "数据来源：统计年鉴" in _note_lines(report)[0]
    (info,) = workspace.tables()
    assert info.columns[0].type == "BIGINT"  # typed again without the note's text


def test_schema_and_search_show_the_note(tmp_path: Path) -> None:
    _csv(tmp_path / "enroll.csv", HEADER, [*ROWS, [NOTE]])
    root = tmp_path / "ws"
    res = runner.invoke(app, ["ingest", str(tmp_path / "enroll.csv"), "-w", str(root)])
    assert res.exit_code == 0, res.output
    assert "1 note row under the table" in res.output
    res = runner.invoke(app, ["schema", "enroll", "-w", str(root)])
    assert res.exit_code == 0, res.output
    assert "早鸟九折" in res.output
    with Workspace.open(root) as workspace:
        hits = workspace.search("早鸟九折 退费另行登记", k=3)
        noted = [c.ordinal for c in workspace.chunks() if "早鸟九折" in c.text]
    assert hits[0].table == "enroll" and f"Note: {NOTE}" in hits[0].text
    assert noted == [hits[0].ordinal]  # on the table's card, not repeated on its rows


def test_last_row_with_only_its_id_stays_data(workspace: Workspace, tmp_path: Path) -> None:
    # the id alone (the rest not filled in yet), after a blank row or directly under the data
    _workbook(tmp_path / "报名.xlsx", [[], ["BM0161"]])
    report = _ingest(workspace, tmp_path / "报名.xlsx")
    assert _count(workspace, "报名记录") == 161
    assert _note_lines(report) == []
    _csv(tmp_path / "enroll.csv", HEADER, [*ROWS, ["BM0161", "", "", "", "", "", "", ""]])
    report = _ingest(workspace, tmp_path / "enroll.csv")
    assert _count(workspace, "enroll") == 161
    assert _note_lines(report) == []
    assert workspace.tables()[0].description == ""


@pytest.mark.parametrize(
    ("rows", "expected"),
    [
        pytest.param(
            [["E001", "张三", "3000"], ["E002", "李四", "4000"], ["数据截至十月底", None, None]],
            [2],
            id="note-without-marker-by-width",
        ),
        pytest.param(
            [["1", "a"], ["2", "b"], ["3", "c"], ["Note: net", None]], [3], id="marker-short"
        ),
        pytest.param(
            [["1", "a"], ["2", "b"], ["Provisional figures", None]], [2], id="text-under-numbers"
        ),
        pytest.param([["1", "a"], ["2", "b"], ["Unknown", None]], [], id="short-under-numbers"),
        pytest.param([["E001", "x"], ["E002", "y"], ["E003", None]], [], id="id-alone"),
        pytest.param([["E001", "x"], ["E002", "y"], ["2026-01-02", None]], [], id="date-alone"),
        pytest.param([["张三", "x"], ["李四", "y"], ["王五", None]], [], id="name-alone"),
        pytest.param(
            [["a short remark", "1"], ["another remark", "2"], ["a third remark here", None]],
            [],
            id="text-column-of-its-width",
        ),
        pytest.param(
            [["a", None], ["b", None], ["c", "1"], ["注：这一行不是数据", None]],
            [],
            id="table-of-one-cell-rows",
        ),
        pytest.param([["E001", "x"], ["注：说明文字较长的一行", "y"]], [], id="two-cells-filled"),
        pytest.param([["E001", "x"], ["注：只有一行数据时无从比较", None]], [], id="too-few-rows"),
    ],
)
def test_find_notes_cases(rows: list[list[str | None]], expected: list[int]) -> None:
    assert [n.index for n in find_notes(rows) if n.text] == expected


def test_long_csv_reads_its_head_and_tail_for_notes_then_its_totals(
    workspace: Workspace, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("tablerag.ingest.tables.delimited._TOTALS_SCAN_ROWS", 4)
    monkeypatch.setattr("tablerag.ingest.tables.delimited._NOTES_HEAD_ROWS", 3)
    lines = [f"r{i},{i}" for i in range(1, 8)]
    (tmp_path / "long.csv").write_text(
        "name,n\n" + "\n".join(lines) + "\n合计：,28\nSource: the 2026 ledger,\n",
        encoding="utf-8",
    )
    # read in this process: the worker would not see the patched constants
    (report,) = ingest_sources(
        workspace, [tmp_path / "long.csv"], settings=SETTINGS, readers=LocalReaders(IngestLimits())
    )
    assert report.status == "added", report.error
    assert _count(workspace, "long") == 7
    assert _note_lines(report) == [
        "line 10: 1 note row under the table: 'Source: the 2026 ledger' "
        "(kept as the table's note, not as a row)"
    ]
    assert any(p.where == "line 9" and "totals row" in p.what for p in report.problems)
