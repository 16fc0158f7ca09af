"""Enum values from CHECK constraints and lookup tables, in profiles and the schema text."""

from __future__ import annotations

import json
import sqlite3
from dataclasses import replace
from pathlib import Path

import duckdb
import pytest

from tablerag.ingest.database import reflect_database
from tablerag.linking.cache import table_profiles, workspace_catalog, workspace_samples
from tablerag.linking.catalog import LOOKUP_MAX_ROWS, build_catalog
from tablerag.linking.profile import ColumnCheck, column_checks
from tablerag.linking.render import render_full, render_table
from tablerag.linking.rows import SQLiteRows
from tablerag.service import Workspace
from tablerag.settings import Settings
from tablerag.types import ColumnInfo, TableInfo

# --------------------------------------------------------------------------- parsing


@pytest.mark.parametrize(
    ("check", "expected"),
    [
        pytest.param("status IN ('PAID', 'REFUND')", ColumnCheck(("PAID", "REFUND")), id="in"),
        pytest.param(
            "CHECK ((status = 'PAID') OR (status = 'UNPAID'))",
            ColumnCheck(("PAID", "UNPAID")),
            id="or",
        ),
        pytest.param(
            "'PAID' = status OR status IS NULL", ColumnCheck(("PAID",)), id="or-null-reversed"
        ),
        pytest.param(
            "((STATUS)::text = ANY ((ARRAY['PAID'::character varying, "
            "'REFUND'::character varying])::text[]))",
            ColumnCheck(("PAID", "REFUND")),
            id="postgres-any-array",
        ),
        pytest.param("status BETWEEN 1 AND 5", ColumnCheck(range="[1, 5]"), id="between"),
        pytest.param(
            "((status >= (0)::double precision) AND (status < (1)::double precision))",
            ColumnCheck(range="[0, 1)"),
            id="postgres-range",
        ),
        pytest.param("0 < status", ColumnCheck(range="> 0"), id="literal-first"),
        pytest.param("status >= -3", ColumnCheck(range=">= -3"), id="negative"),
        pytest.param(
            "status <= '2026-12-31'", ColumnCheck(range="<= '2026-12-31'"), id="date-string"
        ),
        pytest.param(
            "length(status) = 3", ColumnCheck(raw=("LENGTH(status) = 3",)), id="raw-function"
        ),
        pytest.param(
            "status NOT IN ('X')", ColumnCheck(raw=("NOT status IN ('X')",)), id="raw-not-in"
        ),
        pytest.param(
            "status IN (SELECT 1)", ColumnCheck(raw=("status IN (SELECT 1)",)), id="raw-subquery"
        ),
        pytest.param(
            "status @@@ ((( broken", ColumnCheck(raw=("status @@@ ((( broken",)), id="unparsable"
        ),
    ],
)
def test_column_checks_forms(check: str, expected: ColumnCheck) -> None:
    assert column_checks([check], ["status", "other"]) == {"status": expected}


def test_column_checks_split_conjuncts_and_columns() -> None:
    got = column_checks(
        ["qty > 0 AND price <= 100 AND kind IN ('a', 'b')", "qty < 10", "qty + price > 1"],
        ["qty", "price", "kind", "unused"],
    )
    assert got == {
        "qty": ColumnCheck(range="(0, 10)", raw=("qty + price > 1",)),
        "price": ColumnCheck(range="<= 100", raw=("qty + price > 1",)),
        "kind": ColumnCheck(("a", "b")),
    }
    # A constraint on a column the table does not have (or no column at all) is dropped.
    assert column_checks(["y > 1", "1 = 1"], ["x"]) == {}


# --------------------------------------------------------------------------- CHECK → profile

DDL = """
CREATE TABLE orders (
    id INTEGER PRIMARY KEY,
    status VARCHAR CHECK (status IN ('PAID', 'REFUND', 'UNPAID')),
    qty INTEGER CHECK (qty > 0),
    pct DOUBLE,
    code VARCHAR,
    CONSTRAINT pct_range CHECK (pct BETWEEN 0 AND 100),
    CHECK (length(code) = 3)
);
"""


@pytest.fixture(params=["duckdb", "sqlite"])
def checked_db(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A database file whose ``orders`` table declares CHECK constraints."""
    rows = [(i, "PAID", i, 1.5, "abc") for i in range(1, 30)]
    if request.param == "duckdb":
        path = tmp_path / "shop.duckdb"
        with duckdb.connect(str(path)) as con:
            con.execute(DDL)
            con.executemany("INSERT INTO orders VALUES (?, ?, ?, ?, ?)", rows)
        return f"duckdb:///{path}"
    path = tmp_path / "shop.db"
    con = sqlite3.connect(path)
    con.executescript(DDL)
    con.executemany("INSERT INTO orders VALUES (?, ?, ?, ?, ?)", rows)
    con.commit()
    con.close()
    return f"sqlite:///{path}"


def test_check_constraints_become_enums_ranges_and_raw_text(checked_db: str) -> None:
    (orders,) = reflect_database(checked_db)
    catalog = build_catalog([orders])  # in place: no rows read, the constraints still count
    status = catalog.profile("orders", "status")
    assert status is not None
    assert (status.enum_values, status.enum_origin) == (("PAID", "REFUND", "UNPAID"), "check")
    assert [catalog.profiles[("orders", c)].check_range for c in ("qty", "pct")] == [
        "> 0",
        "[0, 100]",
    ]
    assert catalog.profiles[("orders", "code")].checks == ("LENGTH(code) = 3",)
    text = render_full(catalog).text
    assert "status VARCHAR,  -- values: 'PAID', 'REFUND', 'UNPAID' (CHECK)" in text
    assert "-- CHECK range > 0" in text and "CHECK range [0, 100]" in text
    assert "code VARCHAR,  -- e.g. 'abc'; CHECK LENGTH(code) = 3" in text
    # CHECK values are schema, not data: they stay when sample values are left out.
    assert "'UNPAID' (CHECK)" in render_full(catalog, samples=False).text


def test_check_enum_wins_over_the_sampled_values(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE t (s TEXT CHECK (s IN ('a', 'b', 'c')))")
    con.executemany("INSERT INTO t VALUES (?)", [("a",), ("a",), ("b",)])
    con.commit()
    con.close()
    (info,) = reflect_database(f"sqlite:///{path}")
    rows = SQLiteRows(path)
    try:
        catalog = build_catalog([info], rows=rows)
    finally:
        rows.close()
    p = catalog.profiles[("t", "s")]
    assert (p.enum_values, p.enum_origin, p.distinct_count) == (("a", "b", "c"), "check", 2)


def test_database_checks_are_kept_in_the_workspace(tmp_path: Path) -> None:
    path = tmp_path / "shop.duckdb"
    with duckdb.connect(str(path)) as con:
        con.execute(DDL)
    with Workspace.open(tmp_path / "ws") as ws:
        ws.ingest([f"duckdb:///{path}"], settings=Settings(index_on_ingest=False))
    with Workspace.open(tmp_path / "ws", read_only=True) as ws:
        info = ws.table("orders")
        assert not info.stored and len(info.checks) == 4
        profiles = {p.column: p for p in table_profiles(ws, "orders")}
        catalog = workspace_catalog(ws)
    assert profiles["status"].enum_values == ("PAID", "REFUND", "UNPAID")
    assert profiles["qty"].check_range == "> 0"
    assert catalog.profiles[("orders", "status")].enum_origin == "check"


# --------------------------------------------------------------------------- lookup tables


def test_sample_mart_reason_codes_come_from_the_lookup_table(mart: Workspace) -> None:
    catalog = workspace_catalog(mart)
    p = catalog.profiles[("fact_refund", "reason_code")]
    assert p.enum_origin == "lookup:dim_refund_reason"
    assert p.enum_labels[:2] == (("R01", "七天无理由退货"), ("R02", "商品破损"))
    assert p.enum_values == ("R01", "R02", "R03", "R04", "R05", "R06")
    text = render_table(catalog, "fact_refund")
    assert (
        "reason_code VARCHAR  -- 退款原因编码 / Refund reason code; codes: 'R01'=七天无理由退货, "
        "'R02'=商品破损, 'R03'=质量问题, 'R04'=发错货或漏发, 'R05'=尺码或规格不符, "
        "'R06'=物流超时 (dim_refund_reason)"
    ) in text.replace(",  --", "  --")
    # dim_employee (5 columns, personal data) is no lookup table; its codes stay plain.
    emp = catalog.profiles[("fact_sales", "emp_code")]
    assert not emp.enum_origin.startswith("lookup:") and not emp.enum_labels
    # Only the codes a column holds: fact_sales has provinces, dim_employee also areas.
    sales_regions = dict(catalog.profiles[("fact_sales", "region_code")].enum_labels)
    staff_regions = dict(catalog.profiles[("dim_employee", "region_code")].enum_labels)
    assert "EAST" not in sales_regions and staff_regions["EAST"] == "华东"
    assert sales_regions.items() < staff_regions.items()
    # the lookup table's own key is left alone
    assert catalog.profiles[("dim_refund_reason", "reason_code")].enum_labels == ()


def test_lookup_rows_are_cached_and_old_cache_entries_are_refreshed(mart: Workspace) -> None:
    first = workspace_samples(mart)["dim_refund_reason"].lookup_rows
    assert dict(zip(first["reason_code"], first["reason_name"], strict=True))["R02"] == "商品破损"
    assert "dim_refund_reason" in workspace_samples(mart)  # from the cache
    assert workspace_samples(mart)["dim_refund_reason"].lookup_rows == first
    assert workspace_samples(mart)["fact_sales"].lookup_rows == {}  # too big
    # An entry cached before lookup rows were kept is profiled again.
    mart.con.execute(
        "UPDATE tablerag.profiles SET distinct_values = json_object('distinct', "
        "json(distinct_values)->'distinct', 'composite_key', json('[]')) "
        "WHERE table_name = 'dim_refund_reason'"
    )
    assert workspace_samples(mart)["dim_refund_reason"].lookup_rows == first
    (stored,) = mart.con.execute(
        "SELECT distinct_values FROM tablerag.profiles WHERE table_name = 'dim_refund_reason'"
    ).fetchone()
    assert "lookup_rows" in json.loads(stored)


class _Rows:
    """An in-memory row source."""

    def __init__(self, data: dict[str, list[tuple[object, ...]]]) -> None:
        self.data = data

    def sample(self, table: str, columns: object, limit: int) -> list[tuple[object, ...]]:
        return self.data[table][:limit]


def _lookup_case(dim_rows: int, *, label: str = "status_name") -> list[TableInfo]:
    dim = TableInfo(
        "dim_status",
        "",
        (ColumnInfo("status_code", "VARCHAR"), ColumnInfo(label, "VARCHAR")),
        dim_rows,
        primary_key=("status_code",),
    )
    fact = TableInfo(
        "orders", "", (ColumnInfo("id", "INTEGER"), ColumnInfo("status_code", "VARCHAR")), 40
    )
    return [dim, fact]


def _rows(dim_rows: int) -> _Rows:
    return _Rows(
        {
            "dim_status": [(f"S{i:02d}", f"状态{i}") for i in range(dim_rows)],
            "orders": [(i, f"S{i % 3:02d}") for i in range(40)],
        }
    )


def test_inferred_key_to_a_small_table_gives_code_labels() -> None:
    # The lookup has five codes; the orders (all read) use three: only those are listed.
    catalog = build_catalog(_lookup_case(5), rows=_rows(5))
    assert any(
        e.table == "orders" and e.ref_table == "dim_status" and not e.declared
        for e in catalog.edges
    )
    p = catalog.profiles[("orders", "status_code")]
    assert p.enum_labels == (("S00", "状态0"), ("S01", "状态1"), ("S02", "状态2"))
    assert p.enum_origin == "lookup:dim_status"


def test_big_referenced_table_is_not_a_lookup() -> None:
    n = LOOKUP_MAX_ROWS + 1
    catalog = build_catalog(_lookup_case(n), rows=_rows(n))
    p = catalog.profiles[("orders", "status_code")]
    assert p.enum_labels == () and p.enum_origin == "sample"


def test_label_column_must_not_be_an_identifier() -> None:
    catalog = build_catalog(_lookup_case(3, label="parent_id"), rows=_rows(3))
    assert catalog.profiles[("orders", "status_code")].enum_labels == ()


@pytest.mark.parametrize("rows", [-1, -2], ids=["unknown", "no-access"])
def test_a_table_without_a_row_count_tells_the_model_none(rows: int) -> None:
    """Issue 36: the model's schema said "-1 rows" for a table whose rows were not counted."""
    info = TableInfo(
        "staff", "postgresql://h/db", (ColumnInfo("id", "INTEGER"),), rows, stored=False
    )
    text = render_table(build_catalog([info]), "staff")
    assert "rows" not in text and str(rows) not in text
    counted = render_table(build_catalog([replace(info, row_count=12)]), "staff")
    assert "12 rows" in counted
