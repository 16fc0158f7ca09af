"""Units on the free-SQL path: the sample stores ``fact_sales.cost_amt`` in 分 (its description
says so) and every other amount in 元; an answer in 元 converts it, or is ``unsure`` saying why."""

from __future__ import annotations

import datetime as dt

import pytest

from tablerag.linking.catalog import SchemaCatalog
from tablerag.llm.testing import ScriptedLLM
from tablerag.nl2sql.path import NL2SQLOptions, answer_with_sql
from tablerag.nl2sql.schema_context import schema_context
from tablerag.nl2sql.stages import switches
from tablerag.nl2sql.units import in_major_units, unit_problems
from tablerag.sql.engines import SQLEngine
from tablerag.sql.units import table_units

TODAY = dt.date(2026, 11, 30)
PAID_OCT = "status = 'PAID' AND order_date >= '2026-10-01' AND order_date < '2026-11-01'"


def _ask(question: str, sql: str, parts: tuple[SQLEngine, SchemaCatalog], **stages: bool):  # type: ignore[no-untyped-def]
    engine, catalog = parts
    opts = NL2SQLOptions(today=TODAY, stages=switches((), stages), max_repairs=0)
    return answer_with_sql(
        question,
        llm=ScriptedLLM(replies=[f"```sql\n{sql}\n```"]),
        engine=engine,
        schema=schema_context(question, catalog),
        language="zh",
        options=opts,
    )


def _one(engine: SQLEngine, sql: str) -> float:
    return float(engine.execute(sql).rows[0][0])


def test_the_catalog_says_which_columns_are_in_fen(parts) -> None:  # type: ignore[no-untyped-def]
    units = table_units(parts[1].tables.values())
    assert units[("fact_sales", "cost_amt")] == "分"
    assert units.get(("fact_sales", "net_amt")) in (None, "元")
    assert ("fact_sales", "qty") not in units and ("fact_sales", "order_id") not in units


def test_an_amount_in_fen_asked_in_yuan_is_converted(parts) -> None:  # type: ignore[no-untyped-def]
    engine = parts[0]
    answer = _ask(
        "2026年10月已支付订单的总成本是多少元？",
        f"SELECT SUM(cost_amt) AS cost FROM fact_sales WHERE {PAID_OCT}",
        parts,
    )
    truth = _one(engine, f"SELECT SUM(cost_amt) / 100.0 FROM fact_sales WHERE {PAID_OCT}")
    assert answer.status == "ok", answer.answer
    assert answer.table is not None and float(answer.table.rows[0][0]) == pytest.approx(truth)
    assert "cost from 分 into 元" in (answer.sql_attempts[0].note or "")
    assert answer.reading is not None and answer.reading.units == ["cost: 元"]


def test_yuan_minus_fen_converts_the_fen_column_only(parts) -> None:  # type: ignore[no-untyped-def]
    engine = parts[0]
    answer = _ask(
        "2026年10月的毛利是多少？",
        f"SELECT SUM(net_amt) - SUM(cost_amt) AS gp FROM fact_sales WHERE {PAID_OCT}",
        parts,
    )
    truth = _one(
        engine, f"SELECT SUM(net_amt) - SUM(cost_amt) / 100.0 FROM fact_sales WHERE {PAID_OCT}"
    )
    assert answer.status == "ok", answer.answer
    assert answer.table is not None and float(answer.table.rows[0][0]) == pytest.approx(truth)
    assert "cost_amt / 100.0" in (answer.sql or "")


def test_without_the_mend_the_answer_is_unsure_and_says_why(parts) -> None:  # type: ignore[no-untyped-def]
    minor = _ask(
        "2026年10月已支付订单的总成本是多少元？",
        f"SELECT SUM(cost_amt) AS cost FROM fact_sales WHERE {PAID_OCT}",
        parts,
        units=False,
    )
    assert minor.status == "unsure" and "minor_unit" in minor.checks
    assert "cost 是以分计的金额（该列按分存储），问题要的是元" in minor.answer
    mixed = _ask(
        "2026年10月的毛利是多少？",
        f"SELECT SUM(net_amt) - SUM(cost_amt) AS gp FROM fact_sales WHERE {PAID_OCT}",
        parts,
        units=False,
    )
    assert mixed.status == "unsure" and "mixed_units" in mixed.checks


def test_a_question_in_fen_keeps_fen(parts) -> None:  # type: ignore[no-untyped-def]
    answer = _ask(
        "2026年10月已支付订单的总成本是多少（以分为单位）？",
        f"SELECT SUM(cost_amt) AS cost FROM fact_sales WHERE {PAID_OCT}",
        parts,
    )
    truth = _one(parts[0], f"SELECT SUM(cost_amt) FROM fact_sales WHERE {PAID_OCT}")
    assert answer.status == "ok" and answer.table is not None
    assert float(answer.table.rows[0][0]) == pytest.approx(truth)


def test_a_figure_in_yuan_compared_with_a_fen_column_is_written_in_fen(parts) -> None:  # type: ignore[no-untyped-def]
    where = "status = 'PAID' AND cost_amt > {}"
    answer = _ask(
        "成本超过50元的已支付订单行有多少？",
        f"SELECT COUNT(*) AS n FROM fact_sales WHERE {where.format(50)}",
        parts,
    )
    truth = _one(parts[0], f"SELECT COUNT(*) FROM fact_sales WHERE {where.format(5000)}")
    assert answer.table is not None and answer.table.rows[0][0] == truth
    assert truth != _one(parts[0], f"SELECT COUNT(*) FROM fact_sales WHERE {where.format(50)}")


UNITS = {("o", "pay_fen"): "分", ("o", "paid_yuan"): "元", ("i", "price_fen"): "分"}


@pytest.mark.parametrize(
    ("sql", "want"),
    [
        ("SELECT SUM(i.qty * i.price_fen) AS s FROM i",
         "SELECT SUM(i.qty * i.price_fen) / 100.0 AS s FROM i"),
        ("SELECT SUM(pay_fen) / COUNT(DISTINCT id) AS aov FROM o",
         "SELECT (SUM(pay_fen) / COUNT(DISTINCT id)) / 100.0 AS aov FROM o"),
        ("SELECT SUM(pay_fen) / 100 AS s FROM o", None),  # already in 元
        ("SELECT SUM(pay_fen) * 1.0 / SUM(pay_fen) AS share FROM o", None),  # a ratio: no unit
        ("SELECT COUNT(pay_fen) FROM o", None),
        ("SELECT x.pay_fen FROM o AS x", "SELECT x.pay_fen / 100.0 AS pay_fen FROM o AS x"),
    ],
)  # fmt: skip
def test_which_projections_are_converted(sql: str, want: str | None) -> None:
    fixed = in_major_units("多少元", sql, UNITS, dialect="duckdb")
    assert (fixed.sql if fixed else None) == want


def test_the_check_names_what_the_mend_would_convert() -> None:
    import sqlglot

    sql = (
        "SELECT SUM(pay_fen) - SUM(paid_yuan) AS m, SUM(pay_fen) AS s, SUM(pay_fen) - 1 AS t FROM o"
    )
    assert unit_problems("多少元", sqlglot.parse_one(sql), UNITS) == [
        ("m", "mixed"), ("s", "分"), ("t", "分"),
    ]  # fmt: skip
    assert unit_problems("多少分钱", sqlglot.parse_one(sql), UNITS) == [("m", "mixed")]
    fixed = in_major_units("多少元", sql, UNITS, dialect="duckdb")
    assert fixed is not None and unit_problems("多少元", sqlglot.parse_one(fixed.sql), UNITS) == []
