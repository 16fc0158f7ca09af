"""Answer checks: each flag fires on the bad query and not on the right one (issue 23).

The model is scripted: each test hands the path one query, as a model might write it, over a
small workspace (a warranty table, a payroll sheet whose 合计 row was stored as data, an
unrelated orders table) or the sample corpus (whose metric document defines 客单价 and 毛利).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
import sqlglot

from tablerag.answer import Answer
from tablerag.linking.catalog import SchemaCatalog
from tablerag.linking.values import ValueMatch
from tablerag.llm.testing import ScriptedLLM
from tablerag.nl2sql.checks import (
    FIRST_CONFIDENCE,
    WEIGHTS,
    Definition,
    Evidence,
    invented,
    quantity,
    verdict,
)
from tablerag.nl2sql.path import NL2SQLOptions, answer_with_sql
from tablerag.nl2sql.schema_context import schema_context
from tablerag.sql.engines import SQLEngine
from tablerag.types import ColumnInfo, Hit, TableInfo
from tests.plugins.answering import duckdb_parts

Parts = tuple[SQLEngine, SchemaCatalog]

CLAIMS = [
    (1, "TV", "North", 1200.0, "2026-03-02"),
    (2, "TV", "South", 800.0, "2026-03-31"),
    (3, "Phone", "North", 300.0, "2026-03-15"),
    (4, "Phone", "North", 450.0, "2026-04-01"),
    (5, "Laptop", "South", 1500.0, "2026-04-09"),
    (6, "Laptop", "North", 990.0, "2026-04-20"),
    (7, "TV", "South", 640.0, "2026-05-05"),
    (8, "Phone", "South", 210.0, "2026-05-30"),
]
PAY = [("张三", "销售部", 20000), ("李四", "销售部", 15000), ("王五", "财务部", 35000)]
ORDERS = [(100 + i, 10.0 * i) for i in range(1, 13)]


@pytest.fixture(scope="module")
def mine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Parts]:
    """A user's own files: warranty claims, a payroll sheet with its 合计 row, orders."""
    tables = [
        TableInfo(
            "warranty_claims",
            "warranty_claims.csv",
            (
                ColumnInfo("claim_id", "INTEGER"),
                ColumnInfo("product", "VARCHAR"),
                ColumnInfo("region", "VARCHAR"),
                ColumnInfo("claim_amount", "DOUBLE"),
                ColumnInfo("filed", "DATE"),
            ),
            len(CLAIMS),
            description="Warranty claims filed by customers",
        ),
        TableInfo(
            "staff_pay",
            "工资表.xlsx",
            (
                ColumnInfo("name", "VARCHAR", original="姓名"),
                ColumnInfo("dept", "VARCHAR", original="部门"),
                ColumnInfo("salary", "INTEGER", original="月薪"),
            ),
            len(PAY) + 1,
            description="员工月薪表",
        ),
        TableInfo(
            "orders",
            "orders.csv",
            (ColumnInfo("order_id", "INTEGER"), ColumnInfo("order_total", "DOUBLE")),
            len(ORDERS),
            description="Orders and their totals",
        ),
    ]
    data = [
        (
            "CREATE TABLE warranty_claims (claim_id INTEGER, product VARCHAR, region VARCHAR, "
            "claim_amount DOUBLE, filed DATE)",
            CLAIMS,
        ),
        (
            "CREATE TABLE staff_pay (name VARCHAR, dept VARCHAR, salary INTEGER)",
            [*PAY, ("合计", "", 70000)],
        ),
        ("CREATE TABLE orders (order_id INTEGER, order_total DOUBLE)", ORDERS),
    ]
    folder = tmp_path_factory.mktemp("checks")
    with duckdb_parts(Path(folder) / "mine.duckdb", tables, data) as parts:
        yield parts


def _ask(question: str, sql: str, parts: Parts, said: str = "") -> Answer:
    engine, catalog = parts
    schema = schema_context(question, catalog, engine=engine)
    options = NL2SQLOptions(explain=False, max_repairs=0, said=said)
    lang = "zh" if any("\u4e00" <= c <= "\u9fff" for c in question) else "en"
    llm = ScriptedLLM(replies=[f"```sql\n{sql}\n```"])
    return answer_with_sql(
        question, llm=llm, engine=engine, schema=schema, language=lang, options=options
    )


def _ok(answer: Answer) -> None:
    assert answer.status == "ok", answer.answer
    assert answer.confidence == FIRST_CONFIDENCE
    assert "may be wrong" not in answer.answer and "可能不对" not in answer.answer


def _unsure(answer: Answer, *said: str) -> None:
    assert answer.status == "unsure", answer.answer
    assert answer.confidence < FIRST_CONFIDENCE
    first = answer.answer.splitlines()[0]
    assert first.startswith(("This result may be wrong: ", "这个结果可能不对："))
    for text in said:
        assert text in first


CLAIMS_Q = "How many warranty claims were filed in total, and what is their total amount?"


def test_a_query_over_an_unrelated_table_is_unsure_and_names_the_table_it_should_read(
    mine: Parts,
) -> None:
    wrong = _ask(
        CLAIMS_Q, "SELECT count(*) AS claims, sum(order_total) AS amount FROM orders", mine
    )
    _unsure(wrong, "warranty_claims", "warranty")
    assert wrong.table is not None and wrong.table.rows == [[12, 780.0]]  # the rows are kept
    right = _ask(
        CLAIMS_Q,
        "SELECT count(*) AS claims, sum(claim_amount) AS amount FROM warranty_claims",
        mine,
    )
    _ok(right)
    assert right.table is not None and right.table.rows == [[8, 6090.0]]


def test_a_constant_query_is_unsure(mine: Parts) -> None:
    answer = _ask("保修索赔一共有多少笔？", "SELECT 1", mine)
    _unsure(answer, "查询没有读取任何表")
    assert answer.confidence == pytest.approx(FIRST_CONFIDENCE - WEIGHTS["constant_query"])


def test_a_filter_value_the_question_names_must_be_used(mine: Parts) -> None:
    question = "How many warranty claims came from North?"
    ignored = _ask(question, "SELECT count(*) FROM warranty_claims", mine)
    _unsure(ignored, "'north'", "warranty_claims.region")
    _ok(_ask(question, "SELECT count(*) FROM warranty_claims WHERE region = 'North'", mine))
    # a value shown in the rows (grouped by, not filtered) is used too
    grouped = "SELECT region, count(*) FROM warranty_claims GROUP BY region ORDER BY region"
    _ok(_ask(question, grouped, mine))


def test_a_totals_row_stored_as_data_is_flagged_when_summed(mine: Parts) -> None:
    question = "员工的月薪总和是多少？"
    summed = _ask(question, "SELECT sum(salary) AS total FROM staff_pay", mine)
    _unsure(summed, "staff_pay.name", "合计")
    assert summed.table is not None and summed.table.rows == [[140000]]
    _ok(_ask(question, "SELECT sum(salary) AS total FROM staff_pay WHERE name <> '合计'", mine))


def test_a_totals_row_in_the_result_is_flagged(mine: Parts) -> None:
    question = "每个员工的月薪是多少？"
    listed = _ask(question, "SELECT name, salary FROM staff_pay", mine)
    _unsure(listed, "结果里有合计行'合计'")
    _ok(_ask(question, "SELECT name, salary FROM staff_pay WHERE name <> '合计'", mine))


def test_a_count_larger_than_the_table_is_flagged(mine: Parts) -> None:
    fanned = (
        "SELECT count(*) AS claims FROM warranty_claims a "
        "JOIN warranty_claims b ON a.region = b.region"
    )
    _unsure(_ask(CLAIMS_Q, fanned, mine), "larger than the 8 rows of warranty_claims")
    _ok(_ask(CLAIMS_Q, "SELECT count(*) AS claims FROM warranty_claims", mine))


def test_an_all_zero_result_is_flagged(mine: Parts) -> None:
    question = "How many warranty claims were for more than 5000?"
    zero = _ask(question, "SELECT count(*) FROM warranty_claims WHERE claim_amount > 5000", mine)
    _unsure(zero, "every value of the result is 0 or empty")
    _ok(_ask(question, "SELECT count(*) FROM warranty_claims WHERE claim_amount > 1000", mine))


def test_a_figure_a_thousand_times_its_column_is_flagged(mine: Parts) -> None:
    question = "What is the average warranty claim amount?"
    scaled = _ask(
        question, "SELECT avg(claim_amount) * 10000 AS avg_amount FROM warranty_claims", mine
    )
    _unsure(scaled, "avg_amount")
    _ok(_ask(question, "SELECT avg(claim_amount) AS avg_amount FROM warranty_claims", mine))


AOV_Q = "Which sales channel has the highest average order value?"


def test_a_metric_averaged_per_line_against_its_definition_is_flagged(parts: Parts) -> None:
    per_line = (
        "SELECT c.channel_name, avg(s.net_amt) AS aov FROM fact_sales s "
        "JOIN dim_channel c ON s.channel_code = c.channel_code GROUP BY 1 ORDER BY 2 DESC LIMIT 1"
    )
    answer = _ask(AOV_Q, per_line, parts)
    _unsure(answer, "指标口径.md defines 客单价", "order_id", "'PAID'", "COUNT(DISTINCT")
    assert answer.table is not None and answer.table.rows[0][0] == "京东自营"
    assert not answer.citations


def test_a_metric_computed_as_its_definition_says_is_cited(parts: Parts) -> None:
    per_order = (
        "SELECT c.channel_name, sum(s.net_amt) / count(DISTINCT s.order_id) AS aov "
        "FROM fact_sales s JOIN dim_channel c ON s.channel_code = c.channel_code "
        "WHERE s.status = 'PAID' GROUP BY 1 ORDER BY 2 DESC LIMIT 1"
    )
    answer = _ask(AOV_Q, per_order, parts)
    _ok(answer)
    assert answer.table is not None and answer.table.rows[0][0] == "经销商"
    (cited,) = answer.citations
    assert cited.source == "指标口径.md" and "订单数" in cited.snippet
    assert answer.answer.splitlines()[-1].startswith(
        "(客单价 follows the definition in 指标口径.md"
    )
    assert [(f.source, f.citation) for f in answer.facts] == [("sql", None), ("document", 1)]


def test_gross_profit_without_the_paid_filter_is_flagged_and_with_it_cited(parts: Parts) -> None:
    question = "华东上月的毛利是多少？"
    east = "region_code IN ('EAST', 'JS', 'SH', 'ZJ') AND replace(stat_month, '-', '') = '202610'"
    unpaid = _ask(
        question, f"SELECT sum(net_amt) - sum(cost_amt) / 100 FROM fact_sales WHERE {east}", parts
    )
    _unsure(unpaid, "《指标口径.md》规定毛利", "status, 'PAID'")
    paid = _ask(
        question,
        "SELECT sum(net_amt) - sum(cost_amt) / 100 FROM fact_sales "
        f"WHERE status = 'PAID' AND {east}",
        parts,
    )
    _ok(paid)
    assert paid.answer.endswith("）") and "（毛利按《指标口径.md》的口径计算" in paid.answer


def test_a_weakly_linked_table_holding_none_of_the_questions_words_is_flagged(
    parts: Parts,
) -> None:
    # the sample has no warranty table: the linker's best guess is a document's target table
    question = "保修索赔一共有多少笔？"
    guessed = _ask(question, 'SELECT count(*) AS n FROM "区域销售制度_table_1"', parts)
    _unsure(guessed, "查询没有用到问题里的'保修', '索赔'相关表", "区域销售制度_table_1")
    # the same table for a question whose words it holds
    targets = _ask(
        "各大区第一季度的销售目标是多少？", 'SELECT * FROM "区域销售制度_table_1"', parts
    )
    _ok(targets)


def test_a_question_in_another_language_than_the_names_is_not_judged_word_by_word(
    mine: Parts,
) -> None:
    # 保修/索赔 are no words of warranty_claims, but its names are English: no judgement
    _ok(_ask("保修索赔一共有多少笔？", "SELECT count(*) FROM warranty_claims", mine))
    # a query over a table the question did not link to is still flagged, in any language
    other = _ask("保修索赔一共有多少笔？", "SELECT count(*) FROM orders", mine)
    _unsure(other, "查询读取的 orders 不是问题所关联的表（warranty_claims）")


def test_a_count_asked_but_an_amount_summed_is_flagged(mine: Parts) -> None:
    question = "How many warranty claims were filed in total?"
    summed = _ask(question, "SELECT sum(claim_amount) AS total FROM warranty_claims", mine)
    _unsure(summed, "asks how many", "claim_amount")
    _ok(_ask(question, "SELECT count(*) AS claims FROM warranty_claims", mine))


def test_an_amount_asked_but_rows_counted_is_flagged(mine: Parts) -> None:
    question = "员工的月薪总和是多少？"
    counted = _ask(question, "SELECT count(*) FROM staff_pay WHERE name <> '合计'", mine)
    _unsure(counted, "问的是金额")
    _ok(_ask(question, "SELECT sum(salary) FROM staff_pay WHERE name <> '合计'", mine))


def test_a_month_narrowed_to_one_day_is_flagged(mine: Parts) -> None:
    question = "How many warranty claims were filed in March 2026?"
    one_day = "SELECT count(*) FROM warranty_claims WHERE filed = '2026-03-31'"
    _unsure(_ask(question, one_day, mine), "2026-03-31")
    month = (
        "SELECT count(*) FROM warranty_claims WHERE filed >= '2026-03-01' AND filed < '2026-04-01'"
    )
    _ok(_ask(question, month, mine))
    # a question that names the day may filter on it
    _ok(_ask("How many warranty claims were filed on 2026-03-31?", one_day, mine))


def test_a_period_the_question_does_not_name_is_flagged(mine: Parts) -> None:
    question = "How many warranty claims came from North?"
    dated = (
        "SELECT count(*) FROM warranty_claims WHERE region = 'North' "
        "AND filed BETWEEN '2026-04-01' AND '2026-05-31'"
    )
    _unsure(_ask(question, dated, mine), "names no period", "2026-04-01")
    _ok(_ask(question, "SELECT count(*) FROM warranty_claims WHERE region = 'North'", mine))
    # a question that says when may filter by date
    since = "How many warranty claims came from North since April?"
    _ok(_ask(since, "SELECT count(*) FROM warranty_claims WHERE region = 'North' "
             "AND filed >= '2026-04-01'", mine))  # fmt: skip


def test_one_figure_asked_but_many_rows_returned_is_flagged(mine: Parts) -> None:
    question = "What is the average warranty claim amount?"
    rows = _ask(question, "SELECT claim_amount / claim_amount AS ratio FROM warranty_claims", mine)
    _unsure(rows, "row by row (8 rows)")
    _ok(_ask(question, "SELECT avg(claim_amount) FROM warranty_claims", mine))
    # rows asked for are fine, and so is a plain listing (a column named like the ask word)
    _ok(_ask("List each warranty claim amount", "SELECT claim_amount FROM warranty_claims", mine))
    listed = "SELECT claim_id FROM warranty_claims WHERE claim_amount > 500"
    _ok(_ask("Find the claims whose amount is above the average", listed, mine))


@pytest.fixture(scope="module")
def shop(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Parts]:
    """Orders of a user's CSV: one row per order, with its status."""
    table = TableInfo(
        "订单明细",
        "订单明细.csv",
        (
            ColumnInfo("订单号", "VARCHAR"),
            ColumnInfo("渠道", "VARCHAR"),
            ColumnInfo("订单金额", "DOUBLE"),
            ColumnInfo("订单状态", "VARCHAR"),
        ),
        6,
        description="订单明细",
    )
    rows = [
        ("O1", "京东自营", 100.0, "已支付"),
        ("O2", "京东自营", 300.0, "已支付"),
        ("O3", "京东自营", 900.0, "已退款"),
        ("O4", "天猫旗舰店", 200.0, "已支付"),
        ("O5", "天猫旗舰店", 50.0, "已取消"),
        ("O6", "天猫旗舰店", 400.0, "已支付"),
    ]
    ddl = "CREATE TABLE 订单明细 (订单号 VARCHAR, 渠道 VARCHAR, 订单金额 DOUBLE, 订单状态 VARCHAR)"
    folder = tmp_path_factory.mktemp("shop")
    with duckdb_parts(Path(folder) / "shop.duckdb", [table], [(ddl, rows)]) as parts:
        yield parts


AOV_PROSE = Hit(
    "metrics-1",
    "/files/指标口径.md",
    1,
    "客单价 = 已支付订单的订单金额合计 ÷ 已支付订单数。已退款、已取消的订单不计入客单价。",
    ("客单价",),
    None,
    None,
    3.0,
    1,
)


def _ask_with(question: str, sql: str, parts: Parts, passages: list[Hit]) -> Answer:
    engine, catalog = parts
    schema = schema_context(question, catalog, engine=engine, passages=passages)
    llm = ScriptedLLM(replies=[f"```sql\n{sql}\n```"])
    options = NL2SQLOptions(explain=False, max_repairs=0)
    return answer_with_sql(
        question, llm=llm, engine=engine, schema=schema, language="zh", options=options
    )


def test_a_definition_in_a_passage_is_quoted_checked_and_cited(shop: Parts) -> None:
    """The user-data metric document defines 客单价 in prose; the model averaged every order
    line over all statuses, status ok (issue 23)."""
    question = "京东自营的客单价是多少？"
    engine, catalog = shop
    schema = schema_context(question, catalog, engine=engine, passages=[AOV_PROSE])
    assert any("客单价 = 已支付订单的订单金额合计" in n for n in schema.notes)
    per_line = "SELECT avg(订单金额) FROM 订单明细 WHERE 渠道 = '京东自营'"
    _unsure(_ask_with(question, per_line, shop, [AOV_PROSE]), "指标口径.md", "'已支付'")
    # the refunded orders the definition leaves out, selected beside the paid ones
    both = (
        "SELECT avg(订单金额) FROM 订单明细 WHERE 渠道 = '京东自营' "
        "AND 订单状态 IN ('已支付', '已退款')"
    )
    _unsure(_ask_with(question, both, shop, [AOV_PROSE]), "only '已支付', not '已退款'")
    paid = "SELECT avg(订单金额) FROM 订单明细 WHERE 渠道 = '京东自营' AND 订单状态 = '已支付'"
    followed = _ask_with(question, paid, shop, [AOV_PROSE])
    assert followed.status == "ok", followed.answer
    assert [c.chunk_id for c in followed.citations] == ["metrics-1"]
    assert followed.citations[0].table is None and "definition_followed" in followed.checks
    # without the passage nothing is known of the definition: no doubt, no citation
    alone = _ask_with(question, per_line, shop, [])
    assert alone.status == "ok" and not alone.citations


def test_one_figure_asked_but_many_groups_returned_is_flagged(shop: Parts) -> None:
    question = "订单的退款率是多少？"
    grouped = "SELECT 订单金额 / count(订单号) AS r FROM 订单明细 GROUP BY 订单金额"
    _unsure(_ask_with(question, grouped, shop, []), "分组返回了 6 行")
    rate = (
        "SELECT count(CASE WHEN 订单状态 = '已退款' THEN 1 END) * 1.0 / count(*) AS r FROM 订单明细"
    )
    _ok(_ask_with(question, rate, shop, []))
    by_channel = rate.replace("FROM 订单明细", "FROM 订单明细 GROUP BY 渠道")
    _ok(_ask_with("各渠道的退款率是多少？", by_channel, shop, []))


def test_an_amount_summed_for_how_many_is_final_and_unsure_with_the_checks_reason(
    mine: Parts,
) -> None:
    """The model summed amounts for "how many": the query that ran is the answer (no repair
    round follows a query that ran), unsure with the reason; a count is ok."""
    engine, catalog = mine
    question = "How many warranty claims were filed in total?"
    summed = "```sql\nSELECT sum(claim_amount) FROM warranty_claims\n```"
    schema = schema_context(question, catalog, engine=engine)
    llm = ScriptedLLM(replies=[summed])
    answer = answer_with_sql(
        question, llm=llm, engine=engine, schema=schema, language="en",
        options=NL2SQLOptions(explain=False),
    )  # fmt: skip
    assert len(llm.history) == 1 and len(answer.sql_attempts) == 1
    _unsure(answer, "asks how many", "claim_amount")
    _ok(_ask(question, "SELECT count(*) AS claims FROM warranty_claims", mine))


def test_a_query_of_literals_over_a_table_is_a_constant_query(mine: Parts) -> None:
    question = "Which product has the most warranty claims?"
    _unsure(_ask(question, "SELECT 'TV' AS product FROM warranty_claims", mine), "reads no")
    _ok(
        _ask(
            question,
            "SELECT product FROM warranty_claims GROUP BY product ORDER BY count(*) DESC LIMIT 1",
            mine,
        )
    )


def test_a_rate_over_100_and_a_group_picked_without_order_are_flagged(shop: Parts) -> None:
    """A repair round's answer to '订单的退款率是多少？' kept one arbitrary group with LIMIT 1
    and called 1838 a rate, status ok (issue 23)."""
    question = "订单的退款率是多少？"
    picked = "SELECT 订单金额 / count(订单号) AS 退款率 FROM 订单明细 GROUP BY 订单金额 LIMIT 1"
    _unsure(_ask_with(question, picked, shop, []), "没有 ORDER BY")
    amount = "SELECT sum(订单金额) / count(*) AS 退款率 FROM 订单明细"
    _unsure(_ask_with(question, amount, shop, []), "问题问的是比率，退款率 = 325 却超过了 100")
    rate = (
        "SELECT count(CASE WHEN 订单状态 = '已退款' THEN 1 END) * 100.0 / count(*) AS 退款率 "
        "FROM 订单明细"
    )
    _ok(_ask_with(question, rate, shop, []))


def test_the_latest_day_the_question_does_not_ask_for_is_an_unasked_period(mine: Parts) -> None:
    """The user-data run's last wrong-but-ok answer kept only the claims of the latest filing
    day: 'Which warranty claim has the largest amount?' (issue 23)."""
    question = "Which warranty claim has the largest amount?"
    latest = (
        "SELECT claim_id, claim_amount FROM warranty_claims "
        "WHERE filed = (SELECT max(filed) FROM warranty_claims)"
    )
    _unsure(_ask(question, latest, mine), "names no period", "MAX(filed)")
    top = "SELECT claim_id, claim_amount FROM warranty_claims ORDER BY claim_amount DESC LIMIT 1"
    _ok(_ask(question, top, mine))


def test_a_term_defined_twice_is_cited_once_when_followed() -> None:
    """The demo's 退货率 answer quoted the definitions table's row and the passage's prose,
    both saying the same definition (issue 36: each fact once)."""
    import sqlglot

    from tablerag.nl2sql.checks import Definition, Evidence, definitions

    row = Definition(
        "退货率",
        "退款订单数 ÷ 已支付订单数",
        "指标口径.md",
        "指标口径_table_1",
        columns=("order_id",),
        distinct=True,
    )
    prose = Definition(
        "退货率",
        "发生退款的订单数 ÷ 已支付订单数",
        "指标口径.md",
        "",
        columns=("order_id",),
        distinct=True,
        chunk="c7",
    )
    other = Definition("客单价", "SUM(net_amt) ÷ 订单数", "指标口径.md", "", columns=("net_amt",))
    tree = sqlglot.parse_one("SELECT COUNT(DISTINCT order_id), SUM(net_amt) FROM s")
    found = definitions(Evidence("q", tree, ("x",), ((1, 2),), definitions=(row, prose, other)))
    assert [(f.code, dict(f.values)["term"]) for f in found] == [
        ("definition_followed", "退货率"),
        ("definition_followed", "客单价"),
    ]
    # neither is followed: the lack is said once (the demo's doubt named the same missing
    # COUNT(DISTINCT …) twice, once per place defining 退货率); a lack only the second place
    # names is still said
    ignored = sqlglot.parse_one("SELECT COUNT(order_id) FROM s")
    missed = definitions(Evidence("q", ignored, ("x",), ((1,),), definitions=(row, prose)))
    assert [(f.code, dict(f.values)["missing"]) for f in missed] == [
        ("definition_ignored", "COUNT(DISTINCT …)")
    ]
    stricter = Definition(
        "退货率", "发生退款的订单数 ÷ 已支付订单数", "指标口径.md", "",
        columns=("order_id", "refund_date"), distinct=True, chunk="c7",
    )  # fmt: skip
    missed = definitions(Evidence("q", ignored, ("x",), ((1,),), definitions=(row, stricter)))
    assert [dict(f.values)["missing"] for f in missed] == ["COUNT(DISTINCT …)", "refund_date"]


def _evidence(
    question: str, sql: str, columns: tuple[str, ...], rows: tuple[tuple[object, ...], ...],
    **known: Any,
) -> Evidence:  # fmt: skip
    return Evidence(question, sqlglot.parse_one(sql), columns, rows, **known)


def test_how_many_answered_by_the_max_of_an_identifier_is_no_quantity() -> None:
    """A training school's set: "how many students per class at most" (a rule of the handbook)
    answered by MAX(学员编号), S125, marked ok (issue 29)."""
    e = _evidence(
        "每个教学班最多可以有多少名学员？",
        "SELECT 课程代码, MAX(学员编号) AS 最多学员数 FROM data.报名记录 GROUP BY 课程代码",
        ("课程代码", "最多学员数"),
        (("PY101", "S125"), ("BK202", "S093")),
    )
    (found,) = quantity(e)
    assert found.code == "no_quantity"
    assert "最多学员数 = S125" in found.says("zh") and "MAX(学员编号)" in found.says("en")
    assert verdict([found]).status == "unsure"
    # a figure of its own in the same answer is the quantity asked: nothing to doubt
    counted = _evidence(
        "每个教学班最多可以有多少名学员？",
        "SELECT 课程代码, COUNT(学员编号) AS n FROM data.报名记录 GROUP BY 课程代码",
        ("课程代码", "n"),
        (("PY101", 25),),
    )
    assert quantity(counted) == []
    # SUM over an identifier is no quantity either, though it is a number
    summed = _evidence("How many students?", "SELECT SUM(student_id) FROM s", ("x",), ((903,),))
    assert [f.code for f in quantity(summed)] == ["no_quantity"]


def test_a_filter_on_a_code_the_question_never_names_is_invented() -> None:
    """ "How many students live in the school dormitory?" answered over attendance with
    course = 'BK202': the data cannot answer it (issue 29)."""
    sql = "SELECT COUNT(DISTINCT student) FROM data.attendance_2026h1 WHERE course = 'BK202'"
    e = _evidence("How many students live in the school dormitory?", sql, ("n",), ((14,),))
    (found,) = invented(e)
    assert found.code == "invented_filter"
    assert "course = 'BK202'" in found.says("en") and "'BK202'" in found.says("zh")
    # the question naming the code (in another case) is not an invention
    named_q = "How many students attended PY101 in 2026?"
    assert invented(_evidence(named_q, sql.replace("BK202", "py101"), ("n",), ((14,),))) == []


def test_a_handbook_filter_for_a_question_its_table_holds_no_word_of_is_invented() -> None:
    """ "What was the school's rent expense in April 2026?" answered from the handbook's table
    with 课程类别 = '电工': an English question, a Han value, but the table read holds no word
    of the question, so the value is judged too (issue 29)."""
    table = "学员手册_2026版_table_1"
    e = _evidence(
        "What was the school's rent expense in April 2026?",
        f"SELECT 补贴标准_元_人 FROM data.{table} WHERE 课程类别 = '电工'",
        ("补贴标准_元_人",),
        ((300,),),
        question_words=(("school", "school's"), ("rent", "rent"), ("expens", "expense")),
        table_words={table.lower(): frozenset({"补贴标准", "元", "人", "课程类别", "学员手册"})},
        document_tables=frozenset({table.lower()}),
    )
    assert [(f.code, dict(f.values)["value"]) for f in invented(e)] == [("invented_filter", "电工")]
    # the same value from a table that holds the question's words, or from a data table, is
    # left to the data's language: an English question's data may store Chinese values
    held = replace(e, table_words={table.lower(): frozenset({"rent", "expens", "课程类别"})})
    assert invented(held) == []
    assert invented(replace(e, document_tables=frozenset())) == []
    # a mostly English question with a Han name in it is English
    mixed = _evidence(
        "How many dental (口腔科) visits were completed?",
        "SELECT COUNT(*) FROM visits WHERE dept = '口腔科' AND status = '已就诊'",
        ("n",),
        ((23,),),
    )
    assert invented(mixed) == []


def test_values_the_index_a_definition_or_a_passage_name_are_not_invented() -> None:
    sql = "SELECT COUNT(*) FROM students WHERE status = '退学'"
    dropped = _evidence("How many students dropped out?", sql, ("n",), ((3,),))
    assert invented(dropped) == []  # another script: not judged
    # a Chinese question whose value the index matched fuzzily (退学 for 已退学)
    zh = "SELECT COUNT(*) FROM students WHERE status = '已退学'"
    fuzzy = _evidence("有多少学员中途离校？", zh, ("n",), ((3,),))
    assert [f.code for f in invented(fuzzy)] == ["invented_filter"]
    assert invented(replace(fuzzy, value_words=frozenset({"已退学"}))) == []
    # an English question whose Han value the index matched, though the (document's) table
    # read holds none of its words
    matched = replace(
        dropped,
        question_words=(("drop", "dropped"),),
        table_words={"students": frozenset({"学员", "状态"})},
        document_tables=frozenset({"students"}),
    )
    assert [f.code for f in invented(matched)] == ["invented_filter"]
    value = ValueMatch("students", "status", "退学", 0.9, "fuzzy")
    assert invented(replace(matched, values=(value,))) == []
    # a definition the question uses names 'PAID'
    paid = _evidence(
        "What is the average order value?",
        "SELECT SUM(amount) / COUNT(*) FROM orders WHERE status = 'PAID'",
        ("aov",),
        ((52.5,),),
    )
    assert [f.code for f in invented(paid)] == ["invented_filter"]
    d = Definition("average order value", "SUM(amount) ÷ orders", "metrics.md", "",
                   literals=("PAID",))  # fmt: skip
    assert invented(replace(paid, definitions=(d,))) == []
    # a passage the prompt showed names it
    shown = replace(paid, passages=("Only orders with status PAID count as sales.",))
    assert invented(shown) == []


def test_a_made_up_filter_on_a_users_table_is_doubted_on_the_path(mine: Parts) -> None:
    """The check runs on the path (registered with the answer checks): a value of the table
    the question does not mention makes the answer unsure, one it names does not."""
    made_up = _ask(
        "How many warranty claims were filed?",
        "SELECT count(*) FROM warranty_claims WHERE product = 'Laptop'",
        mine,
    )
    _unsure(made_up, "product = 'Laptop'")
    _ok(_ask("How many Laptop warranty claims were filed?",
             "SELECT count(*) FROM warranty_claims WHERE product = 'Laptop'", mine))  # fmt: skip


def test_a_documents_passage_naming_the_value_exempts_it_a_tables_rows_do_not(
    mine: Parts,
) -> None:
    """A value the prompt's prose passage names (a policy on laptops) is the documents', not
    the model's; one that only the table's rows cut into passages show is every stored value."""
    engine, catalog = mine
    question = "How many warranty claims were filed?"
    sql = "SELECT count(*) FROM warranty_claims WHERE product = 'Laptop'"
    prose = replace(AOV_PROSE, text="Warranty claims count only Laptop repairs.", chunk_id="p1")
    rows = replace(
        prose, text="Table warranty_claims | 5 | Laptop | South |", table="warranty_claims"
    )

    def ask(passage: Hit) -> Answer:
        schema = schema_context(question, catalog, engine=engine, passages=[passage])
        llm = ScriptedLLM(replies=[f"```sql\n{sql}\n```"])
        options = NL2SQLOptions(explain=False, max_repairs=0)
        return answer_with_sql(
            question, llm=llm, engine=engine, schema=schema, language="en", options=options
        )

    assert "invented_filter" not in ask(prose).checks
    assert "invented_filter" in ask(rows).checks


def test_a_dropped_grouping_is_flagged_but_figures_asked_for_all_rows_are_not(
    mine: Parts,
) -> None:
    # "which"/"each"/各 ask for names: one row of figures has dropped the grouping
    _unsure(_ask("Which region filed the most claims?", "SELECT count(*) FROM warranty_claims",
                 mine), "'Which'")  # fmt: skip
    _unsure(_ask("各地区的索赔金额是多少？", "SELECT sum(claim_amount) FROM warranty_claims",
                 mine), "各")  # fmt: skip
    # "for all", 分别 and a listing word next to a number ask for figures, not names
    for question, sql in (
        ("What is the average and maximum claim amount for all claims?",
         "SELECT avg(claim_amount), max(claim_amount) FROM warranty_claims"),
        ("索赔金额的最大值和最小值分别是多少？",
         "SELECT max(claim_amount), min(claim_amount) FROM warranty_claims"),
        ("List the number of different products and regions in the claims.",
         "SELECT count(DISTINCT product), count(DISTINCT region) FROM warranty_claims"),
    ):  # fmt: skip
        _ok(_ask(question, sql, mine))
    # the word asked by is the column shown: "the claim rank" → claim_rank, "which filed" → filed
    ranked = "SELECT claim_id AS claim_rank FROM warranty_claims ORDER BY claim_amount DESC LIMIT 1"
    _ok(_ask("What is the claim rank of the largest claim?", ranked, mine))


@pytest.fixture(scope="module")
def channels(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Parts]:
    """Channels and the cartoons they play: Italy's channel plays Todd Casey's and another."""
    tables = [
        TableInfo(
            "channel",
            "channel.csv",
            (ColumnInfo("id", "INTEGER"), ColumnInfo("country", "VARCHAR")),
            3,
            description="TV channels",
        ),
        TableInfo(
            "cartoon",
            "cartoon.csv",
            (
                ColumnInfo("title", "VARCHAR"),
                ColumnInfo("written_by", "VARCHAR"),
                ColumnInfo("channel_id", "INTEGER"),
            ),
            4,
            description="Cartoons and the channel that plays them",
        ),
    ]
    data = [
        ("CREATE TABLE channel (id INTEGER, country VARCHAR)",
         [(1, "Italy"), (2, "Spain"), (3, "Poland")]),
        ("CREATE TABLE cartoon (title VARCHAR, written_by VARCHAR, channel_id INTEGER)",
         [("A", "Todd Casey", 1), ("B", "Joseph Kuhr", 1), ("C", "Joseph Kuhr", 2),
          ("D", "Todd Casey", 3)]),
    ]  # fmt: skip
    folder = tmp_path_factory.mktemp("channels")
    with duckdb_parts(Path(folder) / "channels.duckdb", tables, data) as parts:
        yield parts


def test_none_asked_but_an_inequality_across_a_join_answered_is_flagged(channels: Parts) -> None:
    question = "Which countries' channels are not playing any cartoon written by Todd Casey?"
    unequal = (
        "SELECT DISTINCT c.country FROM cartoon AS t JOIN channel AS c ON t.channel_id = c.id "
        "WHERE t.written_by <> 'Todd Casey' ORDER BY 1"
    )
    wrong = _ask(question, unequal, channels)
    _unsure(wrong, "NOT IN", "'Todd Casey'")
    assert wrong.table is not None and wrong.table.rows == [["Italy"], ["Spain"]]  # Italy: wrong
    right = _ask(
        question,
        "SELECT country FROM channel WHERE id NOT IN "
        "(SELECT channel_id FROM cartoon WHERE written_by = 'Todd Casey')",
        channels,
    )
    _ok(right)
    assert right.table is not None and right.table.rows == [["Spain"]]
    # the cartoons themselves, filtered on their own column across the join, are a plain filter
    own = (
        "SELECT t.title, c.country FROM cartoon AS t JOIN channel AS c ON t.channel_id = c.id "
        "WHERE t.written_by <> 'Todd Casey'"
    )
    _ok(_ask("Which cartoons were not written by Todd Casey, and where do they play?", own,
             channels))  # fmt: skip
    _unsure(_ask("哪些国家的频道没有播放 Todd Casey 写的动画？", unequal, channels), "NOT IN")


def test_a_month_asked_and_its_last_day_left_out() -> None:
    """A request's range read as inclusive ([2026-09-01, 2026-09-30) compiled): 156 orders
    for September's 160, `ok`. The named month must be covered to its last day."""
    from tablerag.nl2sql.checks import asked_for

    def codes(question: str, where: str) -> list[str]:
        e = _evidence(question, f"SELECT COUNT(*) FROM o WHERE {where}", ("n",), ((156,),))
        return [f.code for f in asked_for(e)]

    for question in (
        "2026年9月已支付的订单有多少？",
        "How many orders were paid in September 2026?",
    ):
        assert codes(question, "d >= '2026-09-01' AND d < '2026-09-30'") == ["other_period"]
        assert codes(question, "d > '2026-09-01' AND d <= '2026-09-29'") == ["other_period"]
        assert codes(question, "d >= '2026-09-01' AND d < '2026-10-01'") == []
        assert codes(question, "d >= DATE '2026-09-01' AND d <= DATE '2026-09-30'") == []
        assert codes(question, "d BETWEEN '2026-09-01' AND '2026-09-30'") == []
        assert codes(question, "d < '2026-09-30 23:59:59' AND d >= '2026-09-01'") == []
        assert codes(question, "m = '2026-09'") == []


@pytest.mark.parametrize(
    ("question", "sql", "said"),
    [
        # the rows can only repeat the value its WHERE sets (WikiTQ's "who came immediately
        # after Sebastian Porto?" as rider = 'Sebastian Porto')
        ("Which product was claimed right after the first Phone claim?",
         "SELECT product FROM warranty_claims WHERE product = 'Phone' ORDER BY filed LIMIT 1",
         ("product = 'Phone'",)),
        # "after Phone" as product > 'Phone': the alphabet's order, not the claims'
        ("Which product was claimed after the Phone claims?",
         "SELECT product FROM warranty_claims WHERE product > 'Phone' ORDER BY product LIMIT 1",
         ("product", "'Phone'", "alphabetical")),
        ("哪个产品在 Phone 之后被索赔？",
         "SELECT product FROM warranty_claims WHERE product > 'Phone' LIMIT 1", ("字母顺序",)),
        # two rows' amounts meant, one column against itself: 0 on every row
        ("How much more was claim 5 than claim 3?",
         "SELECT claim_amount - claim_amount FROM warranty_claims WHERE claim_id IN (3, 5)",
         ("claim_amount - claim_amount",)),
    ],
)  # fmt: skip
def test_a_query_whose_result_the_data_cannot_change_is_doubted(
    question: str, sql: str, said: tuple[str, ...], mine: Parts
) -> None:
    """Queries that answer the same whatever the table holds (issue 29)."""
    _unsure(_ask(question, sql, mine), *said)


@pytest.mark.parametrize(
    ("question", "sql"),
    [
        # a column the filter does not set is an answer the data gives
        ("Which region filed claim 3?", "SELECT region FROM warranty_claims WHERE claim_id = 3"),
        # a date written as digits compares in the rows' order
        ("How many claims were filed after 2026-04-01?",
         "SELECT count(*) FROM warranty_claims WHERE filed > '2026-04-01'"),
    ],
)  # fmt: skip
def test_a_query_the_data_answers_is_not_doubted_as_an_echo(
    question: str, sql: str, mine: Parts
) -> None:
    _ok(_ask(question, sql, mine))


SHOPS: list[tuple[str, str, list[ColumnInfo], list[tuple[object, ...]]]] = [
    ("商店", "商店",
     [ColumnInfo("商店ID", "INTEGER"), ColumnInfo("名称", "VARCHAR"),
      ColumnInfo("城市", "VARCHAR")],
     [(1, "东门店", "上海"), (2, "西湖店", "杭州"), (3, "南山店", "深圳"), (4, "北站店", "上海")]),
    ("员工", "员工",
     [ColumnInfo("员工ID", "INTEGER"), ColumnInfo("姓名", "VARCHAR", sensitive=True),
      ColumnInfo("年龄", "INTEGER")],
     [(10, "CANARY-喵喵", 25), (11, "CANARY-汪汪", 31), (12, "CANARY-咕咕", 40)]),
    ("雇佣", "雇佣记录",
     [ColumnInfo("商店ID", "INTEGER"), ColumnInfo("员工ID", "INTEGER"),
      ColumnInfo("品种代码", "VARCHAR")],
     [(1, 10, "BUL"), (1, 11, "ESK"), (3, 12, "HUS")]),
    ("评分", "顾客给商店的评分",
     [ColumnInfo("商店ID", "VARCHAR"), ColumnInfo("分数", "INTEGER")],
     [("1", 5), ("2", 3), ("4", 5)]),
    ("订单", "订单",
     [ColumnInfo("订单ID", "INTEGER"), ColumnInfo("客户姓名", "VARCHAR"),
      ColumnInfo("金额", "DOUBLE")],
     [(7, "赵一", 80.0), (8, "钱二", 120.0), (9, "孙三", 300.0)]),
]  # fmt: skip
"""Shops with names, staff whose names are hidden (a canary in them), hirings, breeds keyed by
a code of letters, ratings that store the shop's number as text, and orders that keep their
customer's name but none of their own: (table, description, columns, rows)."""


@pytest.fixture(scope="module")
def shops(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Parts]:
    """The :data:`SHOPS` tables in a DuckDB file."""
    tables = [
        TableInfo(name, f"{name}.csv", tuple(columns), len(rows), description=description)
        for name, description, columns, rows in SHOPS
    ]
    data = [
        (f"CREATE TABLE {name} ({', '.join(f'{c.name} {c.type}' for c in columns)})", rows)
        for name, _, columns, rows in SHOPS
    ]
    folder = tmp_path_factory.mktemp("shops")
    with duckdb_parts(Path(folder) / "shops.duckdb", tables, data) as parts:
        yield parts


def test_things_answered_by_their_identifiers_alone_are_doubted(shops: Parts) -> None:
    question = "哪些商店没有雇人？"
    ids = _ask(question, "SELECT 商店ID FROM 商店 EXCEPT SELECT 商店ID FROM 雇佣", shops)
    _unsure(ids, "商店ID", "商店.名称")
    assert [f.code for f in ids.findings] == ["ids_only"]
    assert ids.table is not None and sorted(ids.table.rows) == [[2], [4]]  # the rows are kept
    ranked = "SELECT 商店ID, COUNT(*) AS n FROM 雇佣 GROUP BY 商店ID ORDER BY n DESC LIMIT 1"
    _unsure(_ask("Which shop hired the most people?", ranked, shops), "商店ID", "商店.名称")
    named = "SELECT 名称 FROM 商店 WHERE 商店ID NOT IN (SELECT 商店ID FROM 雇佣)"
    _ok(_ask(question, named, shops))
    both = "SELECT 商店ID, 名称 FROM 商店 WHERE 商店ID NOT IN (SELECT 商店ID FROM 雇佣)"
    _ok(_ask(question, both, shops))
    asked = "SELECT 商店ID FROM 商店 WHERE 商店ID NOT IN (SELECT 商店ID FROM 雇佣)"
    _ok(_ask("列出没有雇人的商店的ID。", asked, shops))  # the identifier is what was asked
    _ok(_ask("列出没有雇人的商店编号。", asked, shops))
    # an earlier question of the conversation asked for the identifiers
    rewrite = "雇佣记录里每个商店有几条？"
    counted = "SELECT 商店ID, COUNT(*) AS n FROM 雇佣 GROUP BY 商店ID"
    _unsure(_ask(rewrite, counted, shops), "商店ID")
    _ok(_ask(rewrite, counted, shops, said="列出所有商店的编号。\n每个雇了多少人？"))
    # identifiers stored as text are identifiers still
    stored = "SELECT 商店ID FROM 评分 WHERE 分数 = 5"
    _unsure(_ask("哪些商店得过满分？", stored, shops), "商店ID", "商店.名称")
    # an order has no name of its own (客户姓名 names its customer): its number is the answer
    _ok(_ask("哪些订单超过100元？", "SELECT 订单ID FROM 订单 WHERE 金额 > 100", shops))
    # a code of letters reads as a name already
    _ok(_ask("雇佣记录里有哪些品种？", "SELECT DISTINCT 品种代码 FROM 雇佣", shops))


def test_a_hidden_name_is_never_offered_for_an_identifier(shops: Parts) -> None:
    """员工 keeps its names in a hidden column: the check does not name it, so no channel of
    the answer carries the column or its values."""
    answer = _ask("哪些员工被雇佣了？", "SELECT DISTINCT 员工ID FROM 雇佣", shops)
    _ok(answer)
    said = answer.model_dump_json()
    assert "CANARY" not in said and "姓名" not in said
