"""What a query computed, read from its SQL (tablerag.answer.reading)."""

from __future__ import annotations

import pytest

from tablerag.answer import Reading
from tablerag.answer.reading import read_query, reading_line


def test_a_cte_reports_the_aggregate_that_feeds_the_result() -> None:
    r = read_query(
        "WITH m AS (SELECT cat, COUNT(DISTINCT order_id) AS orders FROM sales "
        "WHERE status IN ('PAID', 'REFUND') GROUP BY cat) SELECT cat, orders FROM m "
        "ORDER BY orders DESC LIMIT 3",
        "duckdb",
    )
    assert r is not None
    assert r.measures == ["orders = COUNT(DISTINCT order_id)"]
    assert r.filters == ["status IN ('PAID', 'REFUND')"]
    assert r.groups == ["cat"] and r.order == ["orders DESC"] and r.limit == 3


def test_a_condition_subquery_is_named_once_inside_its_condition() -> None:
    r = read_query(
        "SELECT name FROM staff WHERE pay < (SELECT AVG(pay) FROM staff WHERE dept = 'IT')",
        "sqlite",
    )
    assert r is not None
    assert r.measures == []  # the AVG is the condition's, not a figure the query reports
    assert r.filters == ["pay < (SELECT AVG(pay) FROM staff WHERE dept = 'IT')"]


@pytest.mark.parametrize(
    ("sql", "period"),
    [
        pytest.param(
            "SELECT SUM(x) FROM t WHERE strftime('%Y-%m', d) = '2026-10'",
            ["STRFTIME('%Y-%m', d) = '2026-10'"],
            id="month-function",
        ),
        pytest.param(
            "SELECT SUM(x) FROM t WHERE d BETWEEN '2026-01-01' AND '2026-03-31'",
            ["d BETWEEN '2026-01-01' AND '2026-03-31'"],
            id="between-dates",
        ),
        pytest.param("SELECT SUM(x) FROM t WHERE year = 2025", ["year = 2025"], id="year-column"),
        pytest.param("SELECT SUM(x) FROM t WHERE region = 'East'", [], id="not-time"),
    ],
)
def test_conditions_on_time_are_the_period(sql: str, period: list[str]) -> None:
    r = read_query(sql, "sqlite")
    assert r is not None and r.period == period
    assert (r.filters == []) == bool(period)


def test_a_unit_is_said_only_when_the_summed_columns_share_it() -> None:
    units = {"net_amt": "元", "cost_fen": "分", "qty": "件"}
    r = read_query(
        "SELECT SUM(net_amt) AS sales, SUM(net_amt - cost_fen) AS margin, COUNT(qty) AS n, "
        "AVG(qty) AS q FROM t",
        "duckdb",
        units=units,
    )
    assert r is not None and r.units == ["sales: 元", "q: 件"]


def test_group_by_position_names_the_projection_and_the_gate_cap_is_not_a_limit() -> None:
    r = read_query(
        "SELECT upper(region) AS r, SUM(v) FROM t GROUP BY 1 LIMIT 1001", "duckdb", row_cap=1000
    )
    assert r is not None and r.groups == ["UPPER(region)"] and r.limit is None


@pytest.mark.parametrize(
    "sql",
    [
        pytest.param("SELECT a FROM t UNION SELECT a FROM u WHERE b = 1", id="union"),
        pytest.param("SELECT a FROM t EXCEPT SELECT a FROM u WHERE b = 1", id="except"),
        pytest.param("SELEC a FROM", id="unparsable"),
        pytest.param("INSERT INTO t VALUES (1)", id="not-a-query"),
    ],
)
def test_no_reading_rather_than_a_misreading(sql: str) -> None:
    assert read_query(sql, "duckdb") is None


def test_long_lists_are_cut_and_counted_in_both_languages() -> None:
    reading = Reading(filters=[f"c{i} = {i}" for i in range(6)])
    assert reading_line(reading, "en") == "where c0 = 0, c1 = 1, c2 = 2, c3 = 3 and 2 more."
    assert reading_line(reading, "zh") == "条件：c0 = 0，c1 = 1，c2 = 2，c3 = 3 等另 2 项。"
    assert reading_line(Reading(), "en") == ""


def test_a_column_read_in_one_format_reads_as_the_column_and_mixed_units_say_none() -> None:
    """The demo's canonical month CASE filled two lines; net_amt (元) less cost_amt (分) ÷ 100
    is in 元, without the division it has no one unit."""
    r = read_query(
        "SELECT SUM(net_amt) - SUM(cost_amt) / 100 AS gross_profit FROM fact_sales WHERE "
        "CASE WHEN LENGTH(stat_month) = 6 THEN SUBSTRING(stat_month, 1, 4) || '-' || "
        "SUBSTRING(stat_month, 5, 2) ELSE stat_month END = '2026-10' AND status = 'PAID'",
        "duckdb",
        units={"net_amt": "元", "cost_amt": "分"},
    )
    assert r is not None
    assert r.period == ["stat_month = '2026-10'"] and r.filters == ["status = 'PAID'"]
    assert r.units == ["gross_profit: 元"]
    mixed = read_query(
        "SELECT SUM(net_amt) - SUM(cost_amt) AS gp FROM fact_sales",
        "duckdb",
        units={"net_amt": "元", "cost_amt": "分"},
    )
    assert mixed is not None and mixed.units == []
