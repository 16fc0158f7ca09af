"""Storing staged tables: names, types inferred over every value, units, reports."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import duckdb
import pytest

from tablerag.errors import SourceError
from tablerag.ingest.store import (
    sanitize_column_names,
    sanitize_table_name,
    store_table,
)
from tablerag.ingest.tables import stage_rows
from tablerag.store.staging import StagedTable
from tablerag.types import TableInfo


@pytest.fixture
def con() -> duckdb.DuckDBPyConnection:
    return duckdb.connect()


@pytest.mark.parametrize(
    ("name", "taken", "expected"),
    [
        pytest.param("Sales Report 2026", set(), "sales_report_2026", id="snake"),
        pytest.param("销售 明细", set(), "销售_明细", id="chinese-kept"),
        pytest.param("２０２６年 Ｑ１", set(), "t_2026年_q1", id="fullwidth-and-digit"),
        pytest.param("Café déjà vu", set(), "cafe_deja_vu", id="accents"),
        pytest.param("select", set(), "select_", id="reserved"),
        pytest.param("!!!", set(), "table", id="never-empty"),
        pytest.param("orders", {"orders", "orders_2"}, "orders_3", id="unique"),
    ],
)
def test_sanitize_table_name(name: str, taken: set[str], expected: str) -> None:
    assert sanitize_table_name(name, taken) == expected


def test_sanitize_table_name_fits_postgres_limit() -> None:
    long = "很长的表名" * 20
    first = sanitize_table_name(long, set())
    second = sanitize_table_name(long, {first})
    assert len(first.encode()) <= 63 and len(second.encode()) <= 63
    assert first != second and second.endswith("_2")


def test_sanitize_column_names_unique_and_idempotent() -> None:
    names = sanitize_column_names(["ID", "id", "", "Amount (¥)", "增长率%", "2026 / Q1", "id_2"])
    assert names == ["id", "id_2", "col_3", "amount", "增长率_pct", "col_2026_q1", "id_2_2"]
    assert sanitize_column_names(names) == names


def stored(
    con: duckdb.DuckDBPyConnection, header: list[str], rows: list[list[str | None]], name: str = "t"
) -> tuple[TableInfo, list[tuple[object, ...]], list[str]]:
    staged = stage_rows(con, name, header, rows)
    info = store_table(con, staged, name)
    data = con.execute(f'SELECT * FROM data."{name}"').fetchall()
    return info, data, [p.line() for p in staged.problems]


def test_store_types_units_and_order(con: duckdb.DuckDBPyConnection) -> None:
    header = ["编号", "Region", "Amount", "Share", "Day", "Zip"]
    rows: list[list[str | None]] = [
        ["3", "华东", "1,234.50", "12.5%", "2026-09-01", "00123"],
        ["1", "North", "N/A", "7%", "2026/9/2", "02139"],
        ["2", "South", "(10)", "-", "2026年9月3日", "10001"],
    ]
    info, data, problems = stored(con, header, rows)
    columns = {c.name: c for c in info.columns}
    assert [(c.type, c.unit, c.original) for c in columns.values()] == [
        ("BIGINT", None, "编号"),
        ("VARCHAR", None, "Region"),
        ("DECIMAL(18,2)", None, "Amount"),
        ("DECIMAL(18,1)", "%", "Share"),
        ("DATE", None, "Day"),
        ("VARCHAR", None, "Zip"),
    ]
    assert data == [
        (3, "华东", Decimal("1234.50"), Decimal("12.5"), dt.date(2026, 9, 1), "00123"),
        (1, "North", None, Decimal("7.0"), dt.date(2026, 9, 2), "02139"),
        (2, "South", Decimal("-10.00"), None, dt.date(2026, 9, 3), "10001"),
    ]
    assert "column 'amount': 1 value(s) such as 'N/A' mean no value (stored as NULL)" in problems
    assert "column 'share': 1 value(s) such as '-' mean no value (stored as NULL)" in problems
    assert info.row_count == 3


def test_a_misfit_after_the_sample_widens_the_type(con: duckdb.DuckDBPyConnection) -> None:
    rows: list[list[str | None]] = [[str(i), str(i), str(i)] for i in range(1, 3001)]
    rows.append(["3001", "2.125", "00123"])  # past the 1000 rows the proposal looks at
    info, data, _ = stored(con, ["a", "b", "c"], rows)
    assert [c.type for c in info.columns] == ["BIGINT", "DECIMAL(18,3)", "VARCHAR"]
    assert data[-1] == (3001, Decimal("2.125"), "00123")
    assert data[0] == (1, Decimal("1.000"), "1")


def test_text_keeps_every_value_verbatim(con: duckdb.DuckDBPyConnection) -> None:
    rows: list[list[str | None]] = [[" 12 "], ["N/A"], ["x"], [None], ["=SUM(A1:A3)"]]
    info, data, problems = stored(con, ["v"], rows)
    assert data == [(" 12 ",), ("N/A",), ("x",), (None,), ("=SUM(A1:A3)",)]
    assert problems == [
        "column 'v': 1 cell(s) hold spreadsheet formulas such as "
        "'=SUM(A1:A3)', not their values (kept as text)"
    ]


def test_formulas_are_reported_in_a_column_widened_to_text(
    con: duckdb.DuckDBPyConnection,
) -> None:
    rows: list[list[str | None]] = [[str(i), "x"] for i in range(1, 1201)]
    rows += [["=A1+1", "=5"], ["= note", "=B2*2"]]  # past the sample: a rebuilt text column
    info, data, problems = stored(con, ["a", "b"], rows)
    assert [c.type for c in info.columns] == ["VARCHAR", "VARCHAR"]
    assert data[-2:] == [("=A1+1", "=5"), ("= note", "=B2*2")]
    assert problems == [  # "=5" and "= note" start with "=" but are no formulas
        "column 'a': 1 cell(s) hold spreadsheet formulas such as '=A1+1', not their values "
        "(kept as text)",
        "column 'b': 1 cell(s) hold spreadsheet formulas such as '=B2*2', not their values "
        "(kept as text)",
    ]


def test_a_table_the_reader_built_is_renamed_not_copied(con: duckdb.DuckDBPyConnection) -> None:
    con.execute("CREATE SCHEMA data")
    con.execute('CREATE TABLE data."_stage" AS SELECT 1 AS "a b", 2 AS "a_b", 3 AS "Total"')
    staged = StagedTable("t", "_stage", ("a b", "a_b", "Total"), 1, typed=True, final=True)
    info = store_table(con, staged, "t", source="s.csv")
    assert [(c.name, c.original) for c in info.columns] == [
        ("a_b", "a b"),  # the name the second column had: renamed through a free name
        ("a_b_2", "a_b"),
        ("total", "Total"),
    ]
    assert con.execute('SELECT * FROM data."t"').fetchall() == [(1, 2, 3)]
    tables = con.execute("SELECT table_name FROM duckdb_tables() ORDER BY 1").fetchall()
    assert tables == [("t",)] and info.row_count == 1


def test_a_built_table_is_dropped_when_the_target_exists(con: duckdb.DuckDBPyConnection) -> None:
    stored(con, ["a"], [["1"]])
    con.execute('CREATE TABLE data."_stage" AS SELECT 2 AS a')
    staged = StagedTable("t", "_stage", ("a",), 1, typed=True, final=True)
    with pytest.raises(SourceError, match="already exists"):
        store_table(con, staged, "t")
    tables = con.execute("SELECT table_name FROM duckdb_tables() ORDER BY 1").fetchall()
    assert tables == [("t",)]
    con.execute('CREATE TABLE data."_stage" AS SELECT 2 AS a')
    info = store_table(con, staged, "t", replace=True)
    assert con.execute('SELECT a FROM data."t"').fetchall() == [(2,)] and info.row_count == 1


def test_existing_table_needs_replace(con: duckdb.DuckDBPyConnection) -> None:
    stored(con, ["a"], [["1"]])
    with pytest.raises(SourceError, match="already exists"):
        store_table(con, stage_rows(con, "t", ["a"], [["2"]]), "t")
    info = store_table(con, stage_rows(con, "t", ["a"], [["2"]]), "t", replace=True)
    assert info.row_count == 1
    assert con.execute('SELECT a FROM data."t"').fetchall() == [(2,)]


def test_store_drops_the_staging_table_and_respects_the_callers_transaction(
    con: duckdb.DuckDBPyConnection,
) -> None:
    con.execute("CREATE SCHEMA data")
    con.execute("BEGIN")
    staged = stage_rows(con, "t", ["a"], [["1"], ["2"]])
    store_table(con, staged, "t")
    temp = con.execute("SELECT count(*) FROM duckdb_tables() WHERE temporary").fetchone()
    assert temp == (0,)
    con.execute("ROLLBACK")
    tables = con.execute("SELECT count(*) FROM duckdb_tables() WHERE schema_name = 'data'")
    assert tables.fetchone() == (0,)


def test_empty_table_is_stored(con: duckdb.DuckDBPyConnection) -> None:
    info, data, problems = stored(con, ["a", "b"], [])
    assert data == [] and info.row_count == 0
    assert [c.type for c in info.columns] == ["VARCHAR", "VARCHAR"]
    assert any("no data rows" in p for p in problems)
