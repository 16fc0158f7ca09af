"""The type mends as pure functions: SQL a small model wrote on a PostgreSQL shop database (amounts
INTEGER in 分, order times TIMESTAMP), each answer marked ``ok`` and wrong; and what they leave
alone. The rewritten SQL also runs on a real SQLite database (its ``/`` truncates too), and the
issue's first query goes through the answer path on a SQLite file."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from tablerag.linking.catalog import SchemaCatalog
from tablerag.llm.testing import ScriptedLLM
from tablerag.nl2sql.typed import column_types, keep_fractions, whole_days, whole_periods
from tablerag.service import QA
from tablerag.service import Workspace as ServiceWorkspace
from tablerag.settings import Settings
from tablerag.sql.division import truncates
from tablerag.sqltypes import is_integer_type, is_timestamp_type
from tablerag.types import ColumnInfo, TableInfo

TYPES = {
    ("stores", "store_id"): "INTEGER",
    ("stores", "channel"): "VARCHAR",
    ("orders", "order_id"): "INTEGER",
    ("orders", "store_id"): "INTEGER",
    ("orders", "order_time"): "TIMESTAMP",
    ("orders", "paid_on"): "DATE",
    ("orders", "pay_amt"): "INTEGER",
    ("orders", "discount"): "DOUBLE PRECISION",
    ("refunds", "refund_id"): "INTEGER",
    ("refunds", "order_id"): "INTEGER",
    ("refunds", "refund_amt"): "INTEGER",
}
REFUNDED = (
    "SELECT SUM(refund_amt / 100) AS total_refunded_amount FROM refunds "
    "JOIN orders ON refunds.order_id = orders.order_id"
)
AVG_PRICE = (
    "SELECT stores.channel, AVG(pay_amt / 100) AS avg_order_price FROM orders "
    "JOIN stores ON orders.store_id = stores.store_id GROUP BY stores.channel"
)
RATE = (
    "SELECT COUNT(DISTINCT order_id) / COUNT(DISTINCT refund_id) * 100 AS refund_rate FROM refunds"
)
IN_2026 = (
    "SELECT COUNT(*) AS n FROM orders AS o WHERE o.order_time BETWEEN '2026-01-01' AND '2026-12-31'"
)


@pytest.mark.parametrize("dialect", ["postgres", "sqlite"])
@pytest.mark.parametrize(
    ("sql", "kept"),
    [
        (REFUNDED, "SUM(refund_amt * 1.0 / 100)"),
        (AVG_PRICE, "AVG(pay_amt * 1.0 / 100)"),
        (RATE, "COUNT(DISTINCT order_id) * 1.0 / NULLIF(COUNT(DISTINCT refund_id), 0) * 100"),
        (  # a rate of a CASE's ones and zeros
            "SELECT SUM(CASE WHEN r.refund_id IS NULL THEN 0 ELSE 1 END) / COUNT(*) FROM orders "
            "AS o LEFT JOIN refunds AS r ON r.order_id = o.order_id",
            "END) * 1.0 / NULLIF(COUNT(*), 0)",
        ),
        (  # a CTE's counts are whole numbers too
            "WITH c AS (SELECT COUNT(*) AS n, SUM(pay_amt) AS s FROM orders) SELECT s / n FROM c",
            "s * 1.0 / NULLIF(n, 0)",
        ),
    ],
)  # fmt: skip
def test_a_division_of_whole_numbers_keeps_its_fraction(sql: str, kept: str, dialect: str) -> None:
    fixed = keep_fractions(sql, TYPES, dialect=dialect)
    assert fixed is not None and kept in fixed.sql
    assert fixed.note.startswith("tablerag kept the fraction of ")
    assert keep_fractions(fixed.sql, TYPES, dialect=dialect) is None  # once is enough


@pytest.mark.parametrize(
    ("sql", "dialect"),
    [
        (REFUNDED, "duckdb"),  # its / keeps fractions
        (REFUNDED, "mysql"),
        ("SELECT AVG(discount / 100) FROM orders", "postgres"),  # a float column
        ("SELECT SUM(pay_amt) / 100.0 FROM orders", "postgres"),  # a decimal literal
        ("SELECT SUM(x) / 100 FROM t", "postgres"),  # a column the catalog does not type
        ("SELECT DIV(pay_amt, 100) FROM orders", "postgres"),  # integer division asked
        ("SELECT pay_amt // 100 FROM orders", "duckdb"),
        ("SELECT CAST(pay_amt / 100 AS INT) FROM orders", "postgres"),  # truncation asked
        ("SELECT pay_amt / 1000 AS k, COUNT(*) FROM orders GROUP BY pay_amt / 1000", "postgres"),
        ("SELECT pay_amt / 1000 AS k, COUNT(*) FROM orders GROUP BY k", "postgres"),  # buckets
        ("SELECT channel FROM stores", "postgres"),
        ("SELECT nonsense FROM (", "postgres"),
    ],
)  # fmt: skip
def test_what_the_fractions_mend_leaves_alone(sql: str, dialect: str) -> None:
    assert keep_fractions(sql, TYPES, dialect=dialect) is None


def test_a_date_only_upper_bound_on_a_timestamp_reads_the_whole_day() -> None:
    fixed = whole_days(IN_2026, TYPES, dialect="postgres")
    assert fixed is not None
    assert fixed.sql.endswith("WHERE o.order_time >= '2026-01-01' AND o.order_time < '2027-01-01'")
    assert (
        fixed.note == "tablerag read '2026-12-31' as the whole day: o.order_time holds times of day"
    )
    le = whole_days("SELECT * FROM orders WHERE order_time <= DATE '2026-02-28' OR pay_amt > 3",
                    TYPES, dialect="postgres")  # fmt: skip
    assert le is not None and "order_time < CAST('2026-03-01' AS DATE) OR" in le.sql
    negated = whole_days(IN_2026.replace("WHERE", "WHERE NOT"), TYPES, dialect="postgres")
    assert negated is not None and "NOT (o.order_time >= '2026-01-01' AND" in negated.sql
    assert whole_days(fixed.sql, TYPES, dialect="postgres") is None  # once is enough


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT * FROM orders WHERE paid_on BETWEEN '2026-01-01' AND '2026-12-31'",  # a DATE
        "SELECT * FROM orders WHERE order_time <= '2026-12-31 23:59:59'",  # a time given
        "SELECT * FROM orders WHERE order_time BETWEEN '2026-01-01' AND '2026-12-31T12:00'",
        "SELECT * FROM orders WHERE CAST(order_time AS DATE) <= '2026-12-31'",  # a day already
        "SELECT * FROM orders WHERE order_time <= '2026-02-30'",  # no such day
        "SELECT * FROM t WHERE stamp <= '2026-12-31'",  # a column the catalog does not type
    ],
)
def test_what_the_whole_days_mend_leaves_alone(sql: str) -> None:
    assert whole_days(sql, TYPES, dialect="postgres") is None


def test_types_and_dialects_are_read_by_sqlglot() -> None:
    assert [truncates(d) for d in ("postgres", "sqlite", "duckdb", "mysql")] == [
        True, True, False, False,
    ]  # fmt: skip
    assert is_integer_type("bigint") and not is_integer_type("numeric(12,2)")
    assert is_timestamp_type("timestamp without time zone") and not is_timestamp_type("date")
    table = TableInfo("public.Orders", "", (ColumnInfo("Pay_Amt", "integer"),), 0)
    catalog = SchemaCatalog({"public.Orders": table}, {}, None, None)  # type: ignore[arg-type]
    assert column_types(catalog) == {("orders", "pay_amt"): "integer"}


SQLITE_ROWS = [
    "CREATE TABLE orders (order_id INTEGER PRIMARY KEY, order_time TIMESTAMP, pay_amt INTEGER)",
    "CREATE TABLE refunds (refund_id INTEGER PRIMARY KEY, order_id INTEGER, refund_amt INTEGER)",
    "INSERT INTO orders VALUES (1, '2026-03-01 10:00:00', 1999), (2, '2026-12-31 18:30:00', 2550),"
    " (3, '2026-06-15 09:00:00', 1001), (4, '2025-12-31 23:00:00', 705)",
    "INSERT INTO refunds VALUES (1, 1, 1050), (2, 2, 999), (3, 3, 1)",
]


def test_the_mended_queries_give_the_exact_figures_on_sqlite() -> None:
    con = sqlite3.connect(":memory:")
    for statement in SQLITE_ROWS:
        con.execute(statement)

    def one(sql: str) -> object:
        return con.execute(sql).fetchone()[0]

    assert one(REFUNDED) == 19  # each row's fen dropped
    fixed = keep_fractions(REFUNDED, TYPES, dialect="sqlite")
    assert fixed is not None and one(fixed.sql) == pytest.approx(20.50)
    rate = (
        "SELECT COUNT(DISTINCT order_id) / COUNT(DISTINCT refund_id) * 100 FROM orders "
        "LEFT JOIN refunds USING (order_id)"
    )
    assert one(rate) == 100
    fixed = keep_fractions(rate, TYPES, dialect="sqlite")
    assert fixed is not None and one(fixed.sql) == pytest.approx(400 / 3)
    assert one(IN_2026) == 2  # 2026-12-31 18:30 left out
    fixed = whole_days(IN_2026, TYPES, dialect="sqlite")
    assert fixed is not None and one(fixed.sql) == 3


def test_the_answer_path_on_a_sqlite_database_gives_the_exact_sum(tmp_path: Path) -> None:
    """The issue's query 1 through the product's path on a SQLite file queried in place."""
    db = tmp_path / "shop.db"
    con = sqlite3.connect(db)
    for statement in SQLITE_ROWS:
        con.execute(statement)
    con.commit()
    con.close()
    settings = Settings(embedder="hashing", today="2026-12-31", semantic_model=False)  # type: ignore[arg-type]
    with ServiceWorkspace.open(tmp_path / "ws") as opened:
        reports = opened.ingest([f"sqlite:///{db}"], settings=settings)
    assert [r.error for r in reports if r.status == "failed"] == []
    llm = ScriptedLLM(replies=[f"```sql\n{REFUNDED}\n```"])
    with QA.open(tmp_path / "ws", llm=llm, settings=settings) as qa:
        answer = qa.ask("What is the total refunded amount?")
    assert answer.status == "ok" and answer.table is not None, answer.answer
    assert float(answer.table.rows[0][0]) == pytest.approx(20.50)
    assert "kept the fraction of refund_amt / 100" in (answer.sql_attempts[0].note or "")


def test_a_month_written_as_text_on_a_date_column_reads_the_whole_month(tmp_path: Path) -> None:
    """``day = '2026-05'`` and ``day LIKE '2026-05-%'`` on a DATE column: DuckDB refuses both
    (the local model wrote them again on every repair round); through the product's path on a
    CSV of the workspace each is read as May and counts May's rows."""
    (tmp_path / "files").mkdir()
    days = ["2026-04-30", "2026-05-01", "2026-05-17", "2026-05-31", "2026-06-01"]
    (tmp_path / "files" / "attendance.csv").write_text(
        "day,hours\n" + "".join(f"{d},{i + 1}\n" for i, d in enumerate(days)), encoding="utf-8"
    )
    settings = Settings(embedder="hashing", today="2026-12-31", semantic_model=False)  # type: ignore[arg-type]
    with ServiceWorkspace.open(tmp_path / "ws") as opened:
        opened.ingest([tmp_path / "files"], settings=settings)
    for sql in (
        "SELECT COUNT(*) AS n, SUM(hours) AS h FROM attendance WHERE day = '2026-05'",
        "SELECT COUNT(*) AS n, SUM(hours) AS h FROM attendance WHERE day LIKE '2026-05-%'",
    ):
        llm = ScriptedLLM(replies=[f"```sql\n{sql}\n```"])
        with QA.open(tmp_path / "ws", llm=llm, settings=settings) as qa:
            answer = qa.ask("How many attendance records in May 2026, and how many hours?")
        assert answer.status == "ok" and answer.table is not None, answer.answer
        assert answer.table.rows == [[3, 9]]
        assert "as the whole period: day holds dates" in (answer.sql_attempts[0].note or "")
    assert whole_periods("SELECT * FROM t WHERE day = '2026-05'", {}, dialect="duckdb") is None
