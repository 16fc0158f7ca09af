"""Mixed-format columns are read in one format: the rewrite is executed to prove it."""

from __future__ import annotations

import duckdb
import pytest

from tablerag.nl2sql.canonical import canonical_format, canonicalize_formats

MONTHS = {("sales", "month"): "YYYY-MM"}


@pytest.fixture
def con() -> duckdb.DuckDBPyConnection:
    c = duckdb.connect()
    c.execute(
        "CREATE TABLE sales AS SELECT * FROM (VALUES ('2026-09', 1), ('202609', 2), "
        "('2026-10', 4), ('202610', 8), (NULL, 16)) t(month, amt)"
    )
    c.execute(
        "CREATE TABLE cal AS SELECT * FROM (VALUES ('2026-09', 'Sep'), ('2026-10', 'Oct')) "
        "t(month, label)"
    )
    return c


@pytest.mark.parametrize(
    ("sql", "expected"),
    [
        pytest.param("SELECT sum(amt) FROM sales WHERE month = '2026-09'", [(3,)], id="filter"),
        pytest.param(
            "SELECT s.month, sum(s.amt) FROM sales s GROUP BY s.month ORDER BY 1",
            [("2026-09", 3), ("2026-10", 12), (None, 16)],
            id="group-by-alias",
        ),
        pytest.param(
            "SELECT c.label, sum(s.amt) FROM sales s JOIN cal c ON s.month = c.month "
            "GROUP BY c.label ORDER BY 1",
            [("Oct", 12), ("Sep", 3)],
            id="join",
        ),
        pytest.param("SELECT count(*) FROM sales WHERE month IN ('2026-10')", [(2,)], id="in-list"),
    ],
)
def test_rewrite_reads_both_forms(
    con: duckdb.DuckDBPyConnection, sql: str, expected: list[object]
) -> None:
    rewritten = canonicalize_formats(sql, MONTHS, dialect="duckdb")
    assert rewritten != sql
    assert con.execute(rewritten).fetchall() == expected


def test_untouched_when_nothing_applies() -> None:
    sql = "SELECT amt FROM sales"
    assert canonicalize_formats(sql, MONTHS, dialect="duckdb") == sql
    assert canonicalize_formats("SELECT month FROM other", MONTHS, dialect="duckdb") == (
        "SELECT month FROM other"
    )
    assert canonicalize_formats("SELEC nonsense (", MONTHS, dialect="duckdb") == "SELEC nonsense ("


def test_projection_keeps_its_name(con: duckdb.DuckDBPyConnection) -> None:
    rewritten = canonicalize_formats(
        "SELECT DISTINCT month FROM sales ORDER BY 1", MONTHS, dialect="duckdb"
    )
    cur = con.execute(rewritten)
    assert [d[0] for d in cur.description] == ["month"]
    assert cur.fetchall() == [("2026-09",), ("2026-10",), (None,)]


def test_only_dashed_and_compact_pairs_are_canonicalised() -> None:
    assert canonical_format(("YYYY-MM-DD", "YYYYMMDD")) == "YYYY-MM-DD"
    assert canonical_format(("YYYY-MM", "YYYY/MM")) is None


def test_rewritten_sql_sent_back_is_not_wrapped_again(con: duckdb.DuckDBPyConnection) -> None:
    # A repair prompt shows the model the rewritten SQL; it echoes it, with one change.
    once = canonicalize_formats(
        "SELECT s.month, sum(s.amt) FROM sales s WHERE s.month <> '2026-10' GROUP BY s.month",
        MONTHS,
        dialect="duckdb",
    )
    echoed = once.replace("<> '2026-10'", "= '2026-09'")
    again = canonicalize_formats(echoed, MONTHS, dialect="duckdb")
    assert again == echoed
    assert again.count("LENGTH(") == once.count("LENGTH(") == 3
    assert con.execute(again).fetchall() == [("2026-09", 3)]
    # a reference outside the canonical form is still rewritten
    mixed = canonicalize_formats(echoed + " HAVING max(s.month) > '2026'", MONTHS, dialect="duckdb")
    assert mixed.count("LENGTH(") == 4


@pytest.mark.parametrize(
    ("where", "expected"),
    [
        pytest.param(
            "month = CAST('2026-10-15' AS DATE) - INTERVAL '1' MONTH", [(3,)], id="date-minus"
        ),
        pytest.param("s.month = (DATE '2026-09-30')", [(3,)], id="date-literal-in-parens"),
        pytest.param(
            "month BETWEEN DATE '2026-09-01' AND DATE_TRUNC('month', DATE '2026-10-20')",
            [(15,)],
            id="between",
        ),
        pytest.param("month > CAST('2026-09-30 10:00' AS TIMESTAMP)", [(12,)], id="timestamp"),
    ],
)
def test_a_date_compared_with_a_month_text_column_is_written_in_its_format(
    con: duckdb.DuckDBPyConnection, where: str, expected: list[object]
) -> None:
    sql = f"SELECT sum(s.amt) FROM sales s WHERE {where}"
    with pytest.raises(duckdb.Error):  # as written: '2026-09' is not a date
        con.execute(sql).fetchall()
    rewritten = canonicalize_formats(sql, MONTHS, dialect="duckdb")
    assert "STRFTIME(" in rewritten
    assert con.execute(rewritten).fetchall() == expected
    assert canonicalize_formats(rewritten, MONTHS, dialect="duckdb") == rewritten


def test_dates_compared_with_other_columns_are_left_alone() -> None:
    sql = "SELECT amt FROM sales WHERE CAST('2026-10-01' AS DATE) = CURRENT_DATE"
    assert canonicalize_formats(sql, MONTHS, dialect="duckdb") == sql
    other = "SELECT 1 FROM cal WHERE label = CAST('2026-10-01' AS DATE)"
    assert canonicalize_formats(other, MONTHS, dialect="duckdb") == other
