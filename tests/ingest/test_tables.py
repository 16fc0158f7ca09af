"""Table readers: CSV/TSV, Excel, Parquet, JSON, and tables found inside documents."""

from __future__ import annotations

import csv
import datetime as dt
import io
import json
import zipfile
from decimal import Decimal
from pathlib import Path

import duckdb
import openpyxl
import pytest

from tablerag.errors import SourceError
from tablerag.ingest.store import store_table
from tablerag.ingest.tables import TABLE_SUFFIXES, read_table_file, stage_rows
from tablerag.store.staging import StagedTable
from tablerag.types import TableInfo


@pytest.fixture
def con() -> duckdb.DuckDBPyConnection:
    return duckdb.connect()


def load(
    con: duckdb.DuckDBPyConnection, path: Path
) -> tuple[StagedTable, TableInfo, list[tuple[object, ...]]]:
    """Read a one-table file, store it, and return the staged table, its info and its rows."""
    (staged,) = read_table_file(path, con)
    info = store_table(con, staged, staged.name)
    return staged, info, con.execute(f'SELECT * FROM data."{info.name}"').fetchall()


def lines(staged: StagedTable) -> list[str]:
    return [p.line() for p in staged.problems]


# --- CSV / TSV -------------------------------------------------------------------------------


def test_clean_csv_is_typed_on_the_fast_path(
    con: duckdb.DuckDBPyConnection, tmp_path: Path
) -> None:
    path = tmp_path / "sales.csv"
    path.write_text(
        'id,region,amount,share,day\n1,华东,"1,234.5",12.5%,2026-09-01\n2,华南,99,7%,2026-09-02\n',
        encoding="utf-8",
    )
    staged, info, rows = load(con, path)
    assert [c.type for c in info.columns] == [
        "BIGINT",
        "VARCHAR",
        "DECIMAL(18,1)",
        "DECIMAL(18,1)",
        "DATE",
    ]
    assert info.columns[3].unit == "%"
    assert rows[0] == (1, "华东", Decimal("1234.5"), Decimal("12.5"), dt.date(2026, 9, 1))
    assert staged.rows_read == info.row_count == 2
    assert lines(staged) == []


def test_the_fast_path_builds_the_stored_table_itself(
    con: duckdb.DuckDBPyConnection, tmp_path: Path
) -> None:
    path = tmp_path / "sales.csv"
    path.write_text("id,amount\n1,2.5\n2,=SUM(A1)\n", encoding="utf-8")
    con.execute("BEGIN")
    (staged,) = read_table_file(path, con)
    assert staged.final and staged.sql.startswith("data.") and staged.rows_read == 2
    info = store_table(con, staged, "sales")
    tables = "SELECT table_name, temporary FROM duckdb_tables() ORDER BY 1"
    assert con.execute(tables).fetchall() == [("sales", False)]  # renamed: nothing left over
    assert con.execute('SELECT * FROM data."sales"').fetchall() == [(1, "2.5"), (2, "=SUM(A1)")]
    assert info.row_count == 2 and "formulas such as '=SUM(A1)'" in " ".join(lines(staged))
    con.execute("ROLLBACK")  # the caller's transaction still decides
    assert con.execute(tables).fetchall() == []


def test_a_line_over_duckdbs_default_limit_is_read_whole(
    con: duckdb.DuckDBPyConnection, tmp_path: Path
) -> None:
    long_cell = "长" * 1_200_000  # 3.6 MB of UTF-8, over DuckDB's 2 MB default line limit
    path = tmp_path / "notes.csv"
    path.write_text(f"id,note\n1,short\n2,{long_cell}\n", encoding="utf-8")
    staged, info, rows = load(con, path)
    assert rows == [(1, "short"), (2, long_cell)]
    assert staged.rows_read == info.row_count == 2
    assert lines(staged) == []  # still DuckDB's reader, retried with a higher limit


@pytest.mark.parametrize(
    ("encoding", "suffix", "delimiter"),
    [
        pytest.param("gbk", ".csv", ",", id="gbk-csv"),
        pytest.param("utf-16", ".tsv", "\t", id="utf16-tsv"),
        pytest.param("utf-8-sig", ".csv", ",", id="bom-csv"),
        pytest.param("utf-8", ".csv", ";", id="semicolon"),
        pytest.param("utf-8", ".csv", "|", id="pipe"),
    ],
)
def test_encodings_and_delimiters(
    con: duckdb.DuckDBPyConnection, tmp_path: Path, encoding: str, suffix: str, delimiter: str
) -> None:
    text = (
        delimiter.join(["名称", "金额", "说明"])
        + "\n"
        + "\n".join(delimiter.join([f"产品{i}", str(i * 10), "含税 不含运费"]) for i in range(1, 6))
        + "\n"
    )
    path = tmp_path / f"t{suffix}"
    path.write_bytes(text.encode(encoding))
    staged, info, rows = load(con, path)
    assert [c.original for c in info.columns] == ["名称", "金额", "说明"]
    assert rows[0] == ("产品1", 10, "含税 不含运费")
    assert info.row_count == 5
    converted = [p for p in lines(staged) if "converted to UTF-8" in p]
    assert bool(converted) == (encoding != "utf-8")


def test_invalid_utf8_past_the_head_is_transcoded(
    con: duckdb.DuckDBPyConnection, tmp_path: Path
) -> None:
    path = tmp_path / "late.csv"
    path.write_bytes(b"name,n\n" + b"abc,1\n" * 60_000 + "José,2\n".encode("cp1252"))
    staged, info, rows = load(con, path)
    assert rows[-1] == ("José", 2)
    assert info.row_count == staged.rows_read == 60_001
    assert "the file is encoded as cp1252 (converted to UTF-8)" in lines(staged)


def test_ragged_rows_are_padded_or_kept(con: duckdb.DuckDBPyConnection, tmp_path: Path) -> None:
    path = tmp_path / "ragged.csv"
    path.write_text("a,b,c\n1,2,3\n4,5\n6,7,8,9\n10,11,12,,\n", encoding="utf-8")
    staged, info, rows = load(con, path)
    assert [c.name for c in info.columns] == ["a", "b", "c", "extra_1"]
    assert rows == [(1, 2, 3, None), (4, 5, None, None), (6, 7, 8, 9), (10, 11, 12, None)]
    report = "\n".join(lines(staged))
    assert "line 3: 1 row(s) have fewer fields than the header (3) (padded with NULL)" in report
    assert (
        "line 4: 1 row(s) have more fields than the header (3) (kept in extra columns "
        "extra_1)" in report
    )
    assert "line 5: 1 row(s) end with empty fields past the header" in report
    assert "read with Python's csv module" in report
    assert staged.rows_read == info.row_count == 4


def test_duplicate_and_empty_headers(con: duckdb.DuckDBPyConnection, tmp_path: Path) -> None:
    path = tmp_path / "h.csv"
    path.write_text("id,amount,,amount\n1,2,3,4\n", encoding="utf-8")
    staged, info, _ = load(con, path)
    assert [c.name for c in info.columns] == ["id", "amount", "col_3", "amount_2"]
    assert [c.original for c in info.columns] == ["id", "amount", "", "amount"]
    assert lines(staged) == [
        "column 3: the header cell is empty (named 'col_3')",
        "column 4: the header 'amount' repeats an earlier one (named 'amount_2')",
    ]


def test_formula_cells_stay_text_and_are_reported(
    con: duckdb.DuckDBPyConnection, tmp_path: Path
) -> None:
    path = tmp_path / "f.csv"
    path.write_text('item,total\na,"=SUM(A1:A3)"\nb,5\n', encoding="utf-8")
    staged, info, rows = load(con, path)
    assert rows == [("a", "=SUM(A1:A3)"), ("b", "5")]
    assert info.columns[1].type == "VARCHAR"
    assert lines(staged) == [
        "column 'total': 1 cell(s) hold spreadsheet formulas such as "
        "'=SUM(A1:A3)', not their values (kept as text)"
    ]


def test_quoted_newlines_and_blank_lines(con: duckdb.DuckDBPyConnection, tmp_path: Path) -> None:
    path = tmp_path / "q.csv"
    path.write_text('k,note\n1,"two\nlines"\n\n2,"say ""hi"""\n\n', encoding="utf-8")
    staged, info, rows = load(con, path)
    assert rows == [(1, "two\nlines"), (2, 'say "hi"')]
    assert "2 blank line(s) (skipped)" in lines(staged)
    assert staged.rows_read == info.row_count == 2


def test_backslash_escaped_quotes_like_wikitq(
    con: duckdb.DuckDBPyConnection, tmp_path: Path
) -> None:
    text = (
        '"Year","Title","Notes"\n"1999","The \\"Best\\" Of","a, b"\n'
        '"2001","Plain","c"\n"2003","Say \\"x\\"","d\\"e"\n'
    )
    path = tmp_path / "wtq.csv"
    path.write_text(text, encoding="utf-8")
    expected = list(csv.reader(io.StringIO(text), escapechar="\\", doublequote=False))
    staged, info, rows = load(con, path)
    assert [list(map(str, r)) for r in rows] == expected[1:]
    assert info.columns[0].type == "BIGINT"
    assert not any("Python" in p for p in lines(staged))


def test_backslash_quote_after_the_head(con: duckdb.DuckDBPyConnection, tmp_path: Path) -> None:
    body = "".join(f'{i},"row {i}"\n' for i in range(40_000))  # ~500 KB: past the sniffed head
    path = tmp_path / "late.csv"
    path.write_text("n,text\n" + body + '40000,"a \\"quoted\\" word"\n', encoding="utf-8")
    staged, info, rows = load(con, path)
    assert rows[-1] == (40000, 'a "quoted" word')
    assert info.row_count == staged.rows_read == 40_001


def test_rfc_quotes_win_a_tie_over_a_stray_backslash(
    con: duckdb.DuckDBPyConnection, tmp_path: Path
) -> None:
    path = tmp_path / "paths.csv"
    path.write_text('k,v\n1,"say ""hi"""\n2,"C:\\dir\\"\n', encoding="utf-8")
    _, _, rows = load(con, path)
    assert rows == [(1, 'say "hi"'), (2, "C:\\dir\\")]


@pytest.mark.parametrize(
    ("content", "message"),
    [
        pytest.param(b"", "is empty", id="empty"),
        pytest.param(b"\n\n  \n", "no header", id="blank"),
        pytest.param(b'a,b\n1,"x"\n2,"open\n3,4\n', "never closed", id="unterminated-quote"),
        pytest.param(
            b"\x89PNG\r\n\x1a\n\x00\x00" + bytes(range(256)) * 8, "not a text file", id="binary"
        ),
    ],
)
def test_unreadable_csv_raises(
    con: duckdb.DuckDBPyConnection, tmp_path: Path, content: bytes, message: str
) -> None:
    path = tmp_path / "bad.csv"
    path.write_bytes(content)
    with pytest.raises(SourceError, match=message) as caught:
        read_table_file(path, con)
    assert caught.value.source == "bad.csv"


def test_a_lone_quote_in_a_file_that_never_quotes(
    con: duckdb.DuckDBPyConnection, tmp_path: Path
) -> None:
    path = tmp_path / "entities.tsv"  # like WikiTQ's 203-csv/45.tsv
    path.write_text('name\tchar\tcode\nquot\t"\t34\namp\t&\t38\n', encoding="utf-8")
    staged, info, rows = load(con, path)
    assert rows == [("quot", '"', 34), ("amp", "&", 38)]
    assert any("never closed" in line and "ordinary character" in line for line in lines(staged))


def test_header_only_csv(con: duckdb.DuckDBPyConnection, tmp_path: Path) -> None:
    path = tmp_path / "h.csv"
    path.write_text("a,b\n", encoding="utf-8")
    staged, info, rows = load(con, path)
    assert rows == [] and info.row_count == 0 and [c.name for c in info.columns] == ["a", "b"]
    assert "the file has a header but no data rows (stored as an empty table)" in lines(staged)


# --- Excel -----------------------------------------------------------------------------------


def write_report_workbook(path: Path) -> None:
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Sales"
    ws["A1"] = "2026 销售报表"
    ws.merge_cells("A1:E1")
    ws["A2"], ws["B2"], ws["D2"], ws["E2"] = "Region", "2026", "Total", "Date"
    ws.merge_cells("A2:A3")
    ws.merge_cells("B2:C2")
    ws.merge_cells("D2:D3")
    ws.merge_cells("E2:E3")
    ws["B3"], ws["C3"] = "Q1", "Q2"
    ws.append(["华东", 100, 200, "=B4+C4", dt.datetime(2026, 9, 1)])
    ws.append(["华南", 1.5, 2.5, "=B5+C5", dt.datetime(2026, 9, 2)])
    wb.create_sheet("Empty")
    notes = wb.create_sheet("Notes")
    notes.append(["key", "value"])
    notes.append(["a", "x"])
    wb.save(path)


def test_excel_sheets_title_rows_merged_headers_formulas_dates(
    con: duckdb.DuckDBPyConnection,
    tmp_path: Path,
) -> None:
    path = tmp_path / "report.xlsx"
    write_report_workbook(path)
    sales, notes = read_table_file(path, con)
    assert (sales.name, notes.name) == ("Sales", "Notes")
    assert sales.origin == "sheet 'Sales'"
    info = store_table(con, sales, "sales")
    assert [c.original for c in info.columns] == [
        "Region",
        "2026 / Q1",
        "2026 / Q2",
        "Total",
        "Date",
    ]
    assert [c.type for c in info.columns] == [
        "VARCHAR",
        "DECIMAL(18,1)",
        "DECIMAL(18,1)",
        "VARCHAR",
        "DATE",
    ]
    rows = con.execute('SELECT * FROM data."sales"').fetchall()
    assert rows == [
        ("华东", Decimal("100.0"), Decimal("200.0"), None, dt.date(2026, 9, 1)),
        ("华南", Decimal("1.5"), Decimal("2.5"), None, dt.date(2026, 9, 2)),
    ]
    report = "\n".join(lines(sales))
    assert "sheet 'Empty': the sheet is empty (skipped)" in report
    assert "rows 1-1: rows above the header: '2026 销售报表' (skipped)" in report
    assert "the header spans two rows" in report
    assert "D4, D5: 2 formula cell(s) have no cached value" in report
    assert store_table(con, notes, "notes").row_count == 1


def test_excel_single_sheet_named_after_file_and_cached_formula(
    con: duckdb.DuckDBPyConnection,
    tmp_path: Path,
) -> None:
    path = tmp_path / "budget.xlsx"
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.append(["n", "double"])
    ws.append([21, "=A2*2"])
    wb.save(path)
    with zipfile.ZipFile(path) as source:  # give the formula a cached value, as Excel would
        parts = {name: source.read(name) for name in source.namelist()}
    sheet = "xl/worksheets/sheet1.xml"
    parts[sheet] = parts[sheet].replace(b"<f>A2*2</f><v></v>", b"<f>A2*2</f><v>42</v>")
    with zipfile.ZipFile(path, "w") as target:
        for name, data in parts.items():
            target.writestr(name, data)
    staged, info, rows = load(con, path)
    assert staged.name == "budget"
    assert rows == [(21, 42)]
    assert lines(staged) == []


def test_excel_all_empty_and_not_a_workbook(con: duckdb.DuckDBPyConnection, tmp_path: Path) -> None:
    empty = tmp_path / "empty.xlsx"
    openpyxl.Workbook().save(empty)
    with pytest.raises(SourceError, match="Every sheet"):
        read_table_file(empty, con)
    fake = tmp_path / "fake.xlsx"
    fake.write_text("not a zip", encoding="utf-8")
    with pytest.raises(SourceError, match="not a readable Excel workbook"):
        read_table_file(fake, con)


# --- Parquet, JSON ---------------------------------------------------------------------------


def test_parquet_keeps_types(con: duckdb.DuckDBPyConnection, tmp_path: Path) -> None:
    path = tmp_path / "p.parquet"
    con.execute(
        f"COPY (SELECT 1::INT AS id, DATE '2026-09-01' AS day, '00123' AS zip, "
        f"12.5::DECIMAL(10,2) AS amount) TO '{path}' (FORMAT parquet)"
    )
    staged, info, rows = load(con, path)
    assert staged.typed
    assert [c.type for c in info.columns] == ["INTEGER", "DATE", "VARCHAR", "DECIMAL(10,2)"]
    assert rows == [(1, dt.date(2026, 9, 1), "00123", Decimal("12.50"))]


def test_not_parquet(con: duckdb.DuckDBPyConnection, tmp_path: Path) -> None:
    path = tmp_path / "p.parquet"
    path.write_text("a,b\n1,2\n", encoding="utf-8")
    with pytest.raises(SourceError, match="not a Parquet file"):
        read_table_file(path, con)


def test_json_array_and_nested_objects(con: duckdb.DuckDBPyConnection, tmp_path: Path) -> None:
    records = [
        {
            "id": 1,
            "name": "甲",
            "addr": {"city": "杭州", "geo": {"lat": 30}},
            "tags": ["a"],
            "day": "2026-09-01",
            "ok": True,
            "amount": "1,200",
        },
        {
            "id": 2,
            "name": "乙",
            "addr": {"city": "苏州"},
            "tags": [],
            "day": None,
            "ok": False,
            "amount": "5",
            "extra": 2.5,
        },
    ]
    path = tmp_path / "people.json"
    path.write_text(json.dumps({"data": records}, ensure_ascii=False), encoding="utf-8")
    staged, info, rows = load(con, path)
    assert [(c.original, c.type) for c in info.columns] == [
        ("id", "BIGINT"),
        ("name", "VARCHAR"),
        ("addr.city", "VARCHAR"),
        ("addr.geo", "VARCHAR"),
        ("tags", "VARCHAR"),
        ("day", "DATE"),
        ("ok", "BOOLEAN"),
        ("amount", "VARCHAR"),
        ("extra", "DOUBLE"),
    ]
    assert rows[0] == (
        1,
        "甲",
        "杭州",
        '{"lat": 30}',
        '["a"]',
        dt.date(2026, 9, 1),
        True,
        "1,200",
        None,
    )
    assert rows[1][-1] == 2.5


def test_json_lines_and_several_arrays(con: duckdb.DuckDBPyConnection, tmp_path: Path) -> None:
    path = tmp_path / "events.jsonl"
    path.write_text('{"a": 1}\n\n{"a": 2, "b": "x"}\n', encoding="utf-8")
    _, info, rows = load(con, path)
    assert rows == [(1, None), (2, "x")]
    both = tmp_path / "both.json"
    both.write_text(
        json.dumps({"orders": [{"n": 1}], "users": [{"u": "a"}], "v": 1}), encoding="utf-8"
    )
    assert [s.name for s in read_table_file(both, con)] == ["both_orders", "both_users"]


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        pytest.param("bad.json", '[{"a": 1},\n {"a": }]', "line 2 column 8", id="json"),
        pytest.param("bad.jsonl", '{"a": 1}\n{"a": 1,,}\n', "line 2 column 9", id="jsonl"),
        pytest.param("scalars.json", "[1, 2]", "no array of objects", id="no-records"),
    ],
)
def test_malformed_json(
    con: duckdb.DuckDBPyConnection, tmp_path: Path, name: str, content: str, message: str
) -> None:
    path = tmp_path / name
    path.write_text(content, encoding="utf-8")
    with pytest.raises(SourceError, match=message):
        read_table_file(path, con)


# --- dispatch and document tables ------------------------------------------------------------


def test_dispatch(con: duckdb.DuckDBPyConnection, tmp_path: Path) -> None:
    assert {".csv", ".tsv", ".xlsx", ".xlsm", ".parquet", ".json", ".jsonl"} <= TABLE_SUFFIXES
    path = tmp_path / "notes.md"
    path.write_text("# hi\n", encoding="utf-8")
    with pytest.raises(SourceError, match="not a table file"):
        read_table_file(path, con)


def test_stage_rows_from_a_document(con: duckdb.DuckDBPyConnection) -> None:
    staged = stage_rows(
        con,
        "report_table_1",
        ["项目", "", "项目"],
        [["收入", "1,000", "x"], ["成本"], ["利润", "200", "y", "注"]],
        origin="table 1",
        page=3,
    )
    info = store_table(con, staged, "report_table_1")
    assert (info.origin, info.page) == ("table 1", 3)
    assert [c.name for c in info.columns] == ["项目", "col_2", "项目_2", "extra_1"]
    rows = con.execute('SELECT * FROM data."report_table_1"').fetchall()
    assert rows == [("收入", 1000, "x", None), ("成本", None, None, None), ("利润", 200, "y", "注")]
    report = "\n".join(lines(staged))
    assert "row 2: 1 row(s) have fewer fields than the header (3) (padded with NULL)" in report
    assert "row 3: 1 row(s) have more fields" in report
