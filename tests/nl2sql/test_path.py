"""NL2SQL path: one call, gate + read-only run, repair loop, empty results, explanation check."""

from __future__ import annotations

import datetime as dt
from dataclasses import replace

import pytest

from tablerag.errors import ProviderError, ProviderTimeout
from tablerag.linking.catalog import SchemaCatalog
from tablerag.linking.linker import link
from tablerag.linking.render import render_linked
from tablerag.llm.testing import ScriptedLLM
from tablerag.nl2sql.path import (
    NL2SQLOptions,
    answer_with_sql,
    dialect_name,
    template_explanation,
)
from tablerag.nl2sql.schema_context import WHOLE_TABLE_MAX_COLUMNS, SchemaContext, schema_context
from tablerag.nl2sql.stages import switches
from tablerag.prompts import render
from tablerag.sql.engines import SQLEngine

COUNT_REFUNDS = "```sql\nSELECT count(*) AS refunds FROM fact_refund\n```"
REFUND_TOTALS = (
    "```sql\nSELECT count(*) AS refunds, sum(refund_amt) AS amount FROM fact_refund\n```"
)
TODAY = dt.date(2026, 11, 30)


def _ask(
    question: str, llm: ScriptedLLM, parts: tuple[SQLEngine, SchemaCatalog], **options: object
):  # type: ignore[no-untyped-def]
    engine, catalog = parts
    schema = schema_context(question, catalog)
    opts = NL2SQLOptions(today=TODAY, **options)  # type: ignore[arg-type]
    lang = "zh" if any("\u4e00" <= c <= "\u9fff" for c in question) else "en"
    return answer_with_sql(
        question, llm=llm, engine=engine, schema=schema, language=lang, options=opts
    )


def test_happy_path_runs_the_sql_and_explains_with_result_numbers(parts) -> None:  # type: ignore[no-untyped-def]
    llm = ScriptedLLM(replies=[REFUND_TOTALS, "152 refunds, 89,761.90 yuan in all."])
    answer = _ask("How many refunds are there, for how much?", llm, parts)
    assert answer.status == "ok" and answer.path == "nl2sql"
    assert answer.table is not None and answer.table.rows == [[152, 89761.9]]
    assert answer.answer == "152 refunds, 89,761.90 yuan in all."
    assert "fact_refund" in (answer.sql or "") and len(answer.sql_attempts) == 1
    assert [f.source for f in answer.facts] == ["sql"]
    first = llm.history[0]
    assert first.temperature == 0.0
    assert "CREATE TABLE fact_refund" in first.messages[-1]["content"]
    assert "this month is 2026-11, last month 2026-10." in first.messages[-1]["content"]
    assert first.messages[-1]["content"].endswith(
        "Question: How many refunds are there, for how much?"
    )
    assert set(answer.timings_ms) >= {"llm", "validation", "execution"}


def test_gate_rejection_is_fed_back_and_the_repair_runs(parts) -> None:  # type: ignore[no-untyped-def]
    llm = ScriptedLLM(replies=["```sql\nDELETE FROM fact_refund\n```", COUNT_REFUNDS])
    answer = _ask("一共有多少笔退款？", llm, parts)
    assert answer.status == "ok" and answer.answer == "查询结果：refunds = 152。"
    rejected, ok = answer.sql_attempts
    assert rejected.error == "rejected by the SQL gate" and rejected.issues
    assert ok.error is None
    repair = llm.history[1].messages
    assert repair[-2] == {"role": "assistant", "content": "```sql\nDELETE FROM fact_refund\n```"}
    assert rejected.issues[0] in repair[-1]["content"]


def test_a_column_under_the_wrong_alias_is_mended_without_another_model_call(parts) -> None:  # type: ignore[no-untyped-def]
    wrong = (
        "```sql\nSELECT r.reason_name, count(*) AS n FROM fact_refund AS f "
        "JOIN dim_refund_reason AS r ON f.reason_code = r.reason_code "
        "GROUP BY f.reason_name ORDER BY n DESC LIMIT 1\n```"
    )
    llm = ScriptedLLM(replies=[wrong])
    answer = _ask("Which refund reason is the most common?", llm, parts, explain=False)
    assert answer.status == "ok" and len(llm.history) == 1
    refused, mended = answer.sql_attempts
    assert (
        refused.error == "rejected by the SQL gate" and "write r.reason_name" in refused.issues[0]
    )
    assert mended.error is None
    assert mended.note == "tablerag wrote r.reason_name for f.reason_name (only r has that column)"
    assert "GROUP BY r.reason_name" in (answer.sql or "")
    assert answer.confidence == 0.85  # the model's first query, mended: no repair round


def test_mends_follow_one_another_a_date_function_then_a_join_the_gate_names(parts) -> None:  # type: ignore[no-untyped-def]
    # the local model's 退货率 query: a MySQL date function, and the category name read from
    # the product table (the category table is one key further)
    query = (
        "```sql\nSELECT p.category_name, count(*) AS n FROM fact_sales AS s "
        "JOIN dim_product AS p ON s.product_code = p.product_code "
        "WHERE s.stat_month = DATE_SUB(CURDATE(), INTERVAL 1 MONTH) "
        "GROUP BY p.category_name ORDER BY n DESC, 1\n```"
    )
    llm = ScriptedLLM(replies=[query])
    answer = _ask("Order lines per category in the last month?", llm, parts, explain=False)
    assert answer.status == "ok" and len(llm.history) == 1
    refused, dated, joined = answer.sql_attempts
    assert refused.issues[0].startswith("The function 'date_sub' is not on the allowlist")
    assert dated.error == "rejected by the SQL gate"
    assert dated.issues == [
        "Unknown column 'category_name'. It is a column of dim_category, not of the tables in "
        "FROM: add JOIN dim_category ON dim_category.category_code = p.category_code and read "
        "the column there."
    ]
    assert joined.error is None and joined.note == (
        "tablerag added JOIN dim_category AS dim_category ON dim_category.category_code = "
        "p.category_code for category_name"
    )
    engine, _ = parts
    expected = engine.execute(
        "SELECT c.category_name, count(*) AS n FROM fact_sales s JOIN dim_product p "
        "ON s.product_code = p.product_code JOIN dim_category c ON c.category_code = "
        "p.category_code WHERE replace(s.stat_month, '-', '') = '202610' "
        "GROUP BY 1 ORDER BY n DESC, 1"
    )
    # the mended query reads the mixed-format month column as one format, as the model's does
    assert "STRFTIME(" in (answer.sql or "") and len(expected.rows) > 3
    assert answer.table is not None and answer.table.rows == [list(r) for r in expected.rows]


RATE_Q = "上个月退货率最高的三个品类"
COUNTS = (
    "```sql\nSELECT c.category_name, count(*) AS n FROM fact_refund f JOIN fact_sales s "
    "ON f.order_id = s.order_id AND f.line_no = s.line_no JOIN dim_product p "
    "ON s.product_code = p.product_code JOIN dim_category c ON c.category_code = p.category_code "
    "GROUP BY 1 ORDER BY n DESC, 1 LIMIT 3\n```"
)
RATES = (
    "```sql\nSELECT c.category_name, count(DISTINCT CASE WHEN s.status = 'REFUND' THEN "
    "s.order_id END) * 1.0 / count(DISTINCT s.order_id) AS rate FROM fact_sales s "
    "JOIN dim_product p ON s.product_code = p.product_code JOIN dim_category c "
    "ON c.category_code = p.category_code WHERE s.status IN ('PAID', 'REFUND') "
    "GROUP BY 1 ORDER BY rate DESC, 1 LIMIT 3\n```"
)


def test_a_rate_question_answered_by_counts_is_final_and_unsure(parts) -> None:  # type: ignore[no-untyped-def]
    # the query that ran is the answer (no repair round): the 退货率 definition it does not
    # follow makes it unsure, the reason first
    llm = ScriptedLLM(replies=[COUNTS])
    answer = _ask(RATE_Q, llm, parts, explain=False)
    assert len(llm.history) == 1 and len(answer.sql_attempts) == 1
    assert answer.sql_attempts[0].error is None
    assert answer.table is not None and answer.table.columns == ["category_name", "n"]
    assert answer.status == "unsure" and "definition_ignored" in answer.checks
    assert answer.answer.startswith("这个结果可能不对：《指标口径.md》规定退货率")
    # asked in English, the Chinese definition of the same metric judges it too
    english = "Which three categories had the highest return rate last month?"
    asked = _ask(english, ScriptedLLM(replies=[COUNTS]), parts, explain=False)
    assert asked.status == "unsure" and "definition_ignored" in asked.checks
    # the query that divides passes
    llm = ScriptedLLM(replies=[RATES])
    divided = _ask(RATE_Q, llm, parts, explain=False)
    assert len(llm.history) == 1 and divided.status == "ok", divided.checks
    assert divided.table is not None and all(0 < row[1] < 1 for row in divided.table.rows)
    # a question without a rate, counted: ok
    plain = _ask("每个品类有多少笔退款？", ScriptedLLM(replies=[COUNTS]), parts, explain=False)
    assert plain.status == "ok" and len(plain.sql_attempts) == 1


def test_a_month_past_the_data_is_final_and_doubted(parts) -> None:  # type: ignore[no-untyped-def]
    wrong = "```sql\nSELECT count(*) AS n FROM fact_sales WHERE stat_month = '2026-11'\n```"
    llm = ScriptedLLM(replies=[wrong])
    answer = _ask("How many sales lines were there last month?", llm, parts, explain=False)
    # counted 0 past the data's last month: no repair round; the count of 0 is doubted
    assert len(llm.history) == 1 and answer.table is not None and answer.table.rows == [[0]]
    assert answer.status == "unsure" and "all_zero" in answer.checks


def test_issues_of_two_kinds_are_mended_one_kind_after_the_other(parts) -> None:  # type: ignore[no-untyped-def]
    # r.status is a column of s (wrong alias); category_name is one key away (a missing join)
    sql = (
        "```sql\nSELECT p.category_name, SUM(CASE WHEN r.status = 'REFUND' THEN 1 ELSE 0 END) "
        "AS n FROM fact_refund AS r JOIN fact_sales AS s ON r.order_id = s.order_id "
        "AND r.line_no = s.line_no JOIN dim_product AS p ON s.product_code = p.product_code "
        "GROUP BY p.category_name ORDER BY n DESC\n```"
    )
    llm = ScriptedLLM(replies=[sql])
    answer = _ask("各品类的退款行数", llm, parts, explain=False)
    assert answer.status == "ok" and len(llm.history) == 1
    refused, *mended = answer.sql_attempts
    assert len(refused.issues) == 2 and [a.note for a in mended] == [
        "tablerag added JOIN dim_category AS dim_category ON dim_category.category_code = "
        "p.category_code for category_name",
        "tablerag wrote s.status for r.status (only s has that column)",
    ]
    assert answer.table is not None and answer.table.columns == ["category_name", "n"]


ONES = (
    "```sql\nSELECT c.category_name, count(f.refund_id) * 1.0 / count(f.order_id) AS refund_rate "
    "FROM fact_refund f JOIN fact_sales s ON f.order_id = s.order_id AND f.line_no = s.line_no "
    "JOIN dim_product p ON s.product_code = p.product_code JOIN dim_category c "
    "ON c.category_code = p.category_code GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT 3\n```"
)


def test_a_rate_that_is_1_in_every_row_is_final_and_doubted_by_its_definition(parts) -> None:  # type: ignore[no-untyped-def]
    engine, catalog = parts
    llm = ScriptedLLM(replies=[ONES])
    schema = schema_context(RATE_Q, catalog, engine=engine)
    options = NL2SQLOptions(today=TODAY, explain=False)
    answer = answer_with_sql(
        RATE_Q, llm=llm, engine=engine, schema=schema, language="zh", options=options
    )
    # 指标口径.md's 退货率 counts distinct orders and divides by those whose status is PAID or
    # REFUND: the query that ran is final (no model call, no rewrite) and the answer checks
    # say what it does not follow
    assert len(llm.history) == 1 and len(answer.sql_attempts) == 1
    assert answer.table is not None and {row[1] for row in answer.table.rows} == {1}
    assert answer.status == "unsure" and answer.checks == ["definition_ignored"]
    (ignored,) = [f for f in answer.findings if f.code == "definition_ignored"]
    missing = dict(ignored.values)["missing"]
    assert "DISTINCT" in missing and "'PAID', 'REFUND'" in missing, missing


def test_a_join_no_key_supports_is_routed_through_the_bridge_where_it_can_be(parts) -> None:  # type: ignore[no-untyped-def]
    engine, catalog = parts
    question = "Order lines per category name in 2026-10"
    schema = schema_context(question, catalog, engine=engine)
    assert {"fact_sales", "dim_product", "dim_category"} <= set(schema.tables)
    options = NL2SQLOptions(today=TODAY, explain=False)
    expected = engine.execute(
        "SELECT c.category_name, count(*) AS n FROM fact_sales AS s JOIN dim_product AS p "
        "ON s.product_code = p.product_code JOIN dim_category AS c "
        "ON c.category_code = p.category_code GROUP BY 1 ORDER BY 1"
    ).rows
    # the English 退货率 question's join: the gate routes it through dim_product itself
    skipped = (
        "```sql\nSELECT c.category_name, count(*) AS n FROM dim_category AS c JOIN fact_sales AS s "
        "ON c.category_code = s.product_code GROUP BY 1 ORDER BY 1\n```"
    )
    llm = ScriptedLLM(replies=[skipped])
    answer = answer_with_sql(
        question, llm=llm, engine=engine, schema=schema, language="en", options=options
    )
    assert answer.status == "ok" and len(llm.history) == 1
    empty, bridged = answer.sql_attempts
    assert bridged.note == (
        "tablerag joined dim_category and fact_sales through dim_product "
        "(no key joins them directly)"
    )
    assert answer.table is not None and answer.table.rows == [list(r) for r in expected]
    # the same join written in WHERE is not routed (rebridge mends a JOIN's ON): nothing found,
    # and no repair round follows a query that ran
    implicit = (
        "```sql\nSELECT c.category_name, count(*) AS n FROM dim_category AS c, fact_sales AS s "
        "WHERE c.category_code = s.product_code GROUP BY 1 ORDER BY 1\n```"
    )
    stuck = ScriptedLLM(replies=[implicit])
    same = answer_with_sql(
        question, llm=stuck, engine=engine, schema=schema, language="en", options=options
    )
    assert same.status == "no_data" and len(stuck.history) == 1


def test_a_literal_copied_from_a_cut_sample_is_read_as_a_prefix(parts) -> None:  # type: ignore[no-untyped-def]
    cut = "```sql\nSELECT count(*) AS n FROM dim_region WHERE region_name = '华…'\n```"
    llm = ScriptedLLM(replies=[cut])
    answer = _ask("How many regions start with 华?", llm, parts, explain=False)
    assert answer.status == "ok" and len(llm.history) == 1
    (attempt,) = answer.sql_attempts
    assert attempt.note == "tablerag read '华…' as a prefix (the schema cuts long sample values)"
    assert "SUBSTRING(region_name, 1, 1) = '华'" in (answer.sql or "")
    assert answer.table is not None and answer.table.rows[0][0] == 3


def test_a_mysql_date_function_is_translated_and_current_date_is_the_today_setting(parts) -> None:  # type: ignore[no-untyped-def]
    mysql = (
        "```sql\nSELECT count(*) AS n FROM fact_refund "
        "WHERE refund_date >= DATE_SUB(CURDATE(), INTERVAL 3 MONTH)\n```"
    )
    llm = ScriptedLLM(replies=[mysql])
    answer = _ask("How many refunds in the last three months?", llm, parts, explain=False)
    assert answer.status == "ok" and len(llm.history) == 1
    refused, mended = answer.sql_attempts
    assert refused.error == "rejected by the SQL gate"
    assert refused.issues == [
        "The function 'date_sub' is not on the allowlist of duckdb; use ordinary SQL functions "
        "only.",
        "The function 'curdate' is not on the allowlist of duckdb; use ordinary SQL functions "
        "only.",
    ]
    assert mended.note is not None and mended.note.startswith("tablerag wrote CURRENT_DATE")
    # CURRENT_DATE is the day the prompt called today (the setting), not the machine's date
    assert "CAST('2026-11-30' AS DATE) - INTERVAL '3' MONTH" in (answer.sql or "")
    engine, _ = parts
    expected = engine.execute(
        "SELECT count(*) FROM fact_refund WHERE refund_date >= DATE '2026-08-30'"
    )
    assert answer.table is not None and answer.table.rows == [list(expected.rows[0])]


@pytest.mark.parametrize(
    ("written", "stored"),
    [
        ("alipay", "ALIPAY"),  # the same but for case
        ("Beauty", "Beauty & Personal Care"),  # the one stored value it begins
        ("Beauty & Personal Care:", "Beauty & Personal Care"),  # a stray colon
    ],
)
def test_a_label_the_column_does_not_store_is_read_as_the_stored_one(  # type: ignore[no-untyped-def]
    parts, written: str, stored: str
) -> None:
    column, table = (
        ("pay_method", "fact_sales")
        if written == "alipay"
        else ("category_name_en", "dim_category")
    )
    sql = f"```sql\nSELECT {column} FROM {table} WHERE {column} = '{written}'\n```"
    llm = ScriptedLLM(replies=[sql])
    answer = _ask("How many?", llm, parts, explain=False)
    # "How many?" answered by labels, not a number: the answer checks doubt it, no repair round
    assert answer.status == "unsure" and len(llm.history) == 1
    ran, mended = answer.sql_attempts
    assert ran.error is None and mended.note == (
        f"tablerag read '{stored}' for '{written}' (the stored value it stands for)"
    )
    engine, _ = parts
    expected = engine.execute(f"SELECT {column} FROM {table} WHERE {column} = '{stored}'")
    assert answer.table is not None and answer.table.row_count == len(expected.rows) > 0
    assert {r[0] for r in answer.table.rows} == {stored}


@pytest.mark.parametrize(
    "where",
    [
        "category_name_en = 'Home'",  # begins two stored values: no guess
        "category_name_en = 'Toys'",  # begins none
        "category_name_en = 'Home & Living' AND category_code = 'nope'",  # stored: not the label
    ],
)
def test_no_label_is_guessed_when_it_is_not_one_stored_value(parts, where: str) -> None:  # type: ignore[no-untyped-def]
    sql = f"```sql\nSELECT category_code FROM dim_category WHERE {where}\n```"
    answer = _ask("How many?", ScriptedLLM(replies=[sql]), parts, explain=False)
    assert answer.status == "no_data" and len(answer.sql_attempts) == 1


def test_the_gate_names_each_problem_once(parts) -> None:  # type: ignore[no-untyped-def]
    twice = "```sql\nSELECT pg_sleep(1), pg_sleep(2) FROM fact_refund\n```"
    llm = ScriptedLLM(replies=[twice, COUNT_REFUNDS])
    answer = _ask("How many refunds are there?", llm, parts, explain=False)
    refused = answer.sql_attempts[0]
    assert len(refused.issues) == len(set(refused.issues)) == 1


def test_a_mended_query_that_still_fails_goes_back_to_the_model_as_mended(parts) -> None:  # type: ignore[no-untyped-def]
    wrong = (
        "```sql\nSELECT CAST(f.region_name AS INTEGER) AS n FROM fact_refund AS f "
        "CROSS JOIN dim_region AS r\n```"
    )
    llm = ScriptedLLM(replies=[wrong, COUNT_REFUNDS])
    answer = _ask("How many refunds are there?", llm, parts)
    assert answer.status == "ok" and len(llm.history) == 2
    assert [a.note is not None for a in answer.sql_attempts] == [False, True, False]
    assert answer.sql_attempts[1].error is not None
    assert answer.sql_attempts[1].error.startswith("the database refused it")
    shown = llm.history[1].messages[-2]["content"]
    assert "CAST(r.region_name AS INT" in shown and "f.region_name" not in shown


def test_engine_error_is_fed_back_and_the_repair_runs(parts) -> None:  # type: ignore[no-untyped-def]
    bad = "```sql\nSELECT CAST(region_name AS INTEGER) AS n FROM dim_region\n```"
    llm = ScriptedLLM(replies=[bad, COUNT_REFUNDS])
    answer = _ask("How many refunds are there?", llm, parts)
    assert answer.status == "ok"
    assert answer.sql_attempts[0].error is not None
    assert answer.sql_attempts[0].error.startswith("the database refused it")
    assert "refused" in llm.history[1].messages[-1]["content"]


def test_three_failures_end_in_an_error_envelope_with_every_attempt(parts) -> None:  # type: ignore[no-untyped-def]
    replies = [
        "```sql\nSELECT nope FROM fact_refund\n```",
        "I am not sure which table to use.",
        "```sql\nDROP TABLE fact_refund\n```",
    ]
    llm = ScriptedLLM(replies=replies)
    answer = _ask("How many refunds are there?", llm, parts)
    assert answer.status == "error" and len(llm.history) == 3
    assert [bool(a.error) for a in answer.sql_attempts] == [True, True, True]
    assert answer.sql_attempts[1].error is not None
    assert "no SQL query found" in answer.sql_attempts[1].error
    assert answer.sql == "DROP TABLE fact_refund"
    assert answer.error is not None and "3 times" in answer.error
    assert "3 attempts" in answer.answer


def test_a_repeated_failing_query_ends_the_repairs(parts) -> None:  # type: ignore[no-untyped-def]
    """Told why its query failed, the model writes the same query again: asked a third time it
    repeats it once more (124 of 125 in stored runs), so the repairs stop there."""
    bad = "```sql\nSELECT nope FROM fact_refund\n```"
    llm = ScriptedLLM(replies=[bad, "```sql\nSELECT nope\n  FROM fact_refund\n```", bad])
    answer = _ask("How many refunds are there?", llm, parts)
    assert answer.status == "error" and len(llm.history) == 2
    assert len(answer.sql_attempts) == 2 and "2 attempts" in answer.answer
    # a different query after a failure is still run
    llm = ScriptedLLM(replies=[bad, COUNT_REFUNDS, "152 refunds."])
    assert _ask("How many refunds are there?", llm, parts).status == "ok"


def test_max_repairs_bounds_the_llm_calls(parts) -> None:  # type: ignore[no-untyped-def]
    llm = ScriptedLLM(replies=["no sql"] * 5)
    answer = _ask("How many refunds are there?", llm, parts, max_repairs=0)
    assert answer.status == "error" and len(llm.history) == 1


def test_empty_result_says_no_matching_data_in_the_question_language(parts) -> None:  # type: ignore[no-untyped-def]
    sql = "```sql\nSELECT region_code FROM dim_region WHERE region_name = '火星'\n```"
    answer = _ask("火星大区的编码是什么？", ScriptedLLM(replies=[sql]), parts)
    assert answer.status == "no_data" and answer.answer == "没有找到匹配的数据。"
    assert answer.table is not None and answer.table.rows == []


def test_an_aggregate_over_nothing_is_no_data(parts) -> None:  # type: ignore[no-untyped-def]
    sql = "```sql\nSELECT sum(refund_amt) AS total FROM fact_refund WHERE reason_code = 'R99'\n```"
    answer = _ask("What is the refund total for reason R99?", ScriptedLLM(replies=[sql]), parts)
    assert answer.status == "no_data" and answer.answer == "No matching data was found."


def test_explanation_with_a_foreign_number_falls_back_to_the_template(parts) -> None:  # type: ignore[no-untyped-def]
    llm = ScriptedLLM(replies=[REFUND_TOTALS, "There are about 200 refunds."])
    answer = _ask("How many refunds are there, for how much?", llm, parts)
    assert answer.status == "ok" and len(llm.history) == 2
    assert answer.answer == "Result: refunds = 152, amount = 89761.90."


def test_explanation_that_only_restates_the_question_falls_back_to_the_template(parts) -> None:  # type: ignore[no-untyped-def]
    sql = (
        "```sql\nSELECT reason_code, count(*) AS n FROM fact_refund GROUP BY reason_code "
        "HAVING count(*) > 30 ORDER BY n DESC\n```"
    )
    llm = ScriptedLLM(replies=[sql, "超过30笔退款的原因应按政策处理。"])
    answer = _ask("退款超过30笔的原因有哪些，应该怎么处理", llm, parts)
    assert answer.status == "ok" and len(llm.history) == 2 and answer.table is not None
    assert answer.answer.startswith(f"查询返回 {len(answer.table.rows)} 行：reason_code = ")
    llm = ScriptedLLM(replies=[sql, f"最多的是 {answer.table.rows[0][0]}。"])
    assert _ask("退款超过30笔的原因有哪些，应该怎么处理", llm, parts).answer == (
        f"最多的是 {answer.table.rows[0][0]}。"
    )


def test_explanation_failure_falls_back_to_the_template(parts) -> None:  # type: ignore[no-untyped-def]
    llm = ScriptedLLM(replies=[REFUND_TOTALS, ProviderTimeout("slow", provider="scripted")])
    answer = _ask("How many refunds are there, for how much?", llm, parts)
    assert answer.status == "ok" and answer.answer == "Result: refunds = 152, amount = 89761.90."


def test_a_single_value_is_explained_by_the_template_without_a_call(parts) -> None:  # type: ignore[no-untyped-def]
    llm = ScriptedLLM(replies=[COUNT_REFUNDS])
    answer = _ask("How many refunds are there?", llm, parts)
    assert answer.answer == "Result: refunds = 152." and len(llm.history) == 1


@pytest.mark.parametrize("failure", [ProviderTimeout("timed out"), ProviderError("HTTP 503")])
def test_llm_failure_gives_an_error_envelope_not_an_exception(parts, failure) -> None:  # type: ignore[no-untyped-def]
    answer = _ask("How many refunds are there?", ScriptedLLM(replies=[failure]), parts)
    assert answer.status == "error" and answer.error == str(failure)
    assert answer.sql_attempts == [] and answer.sql is None


def test_rows_are_capped_by_the_policy_and_flagged(parts) -> None:  # type: ignore[no-untyped-def]
    from tablerag.sql.policy import ExecutionPolicy

    sql = "```sql\nSELECT order_id FROM fact_sales\n```"
    llm = ScriptedLLM(replies=[sql, "x"])
    answer = _ask("List the order ids", llm, parts, policy=ExecutionPolicy(max_rows=5))
    assert answer.table is not None and answer.table.truncated and len(answer.table.rows) == 5


def test_template_explanation_lists_the_first_rows() -> None:
    text = template_explanation(["m", "n"], [["a", 1], ["b", 2], ["c", 3], ["d", 4]], "zh")
    assert text == "查询返回 4 行：m = a，n = 1; m = b，n = 2; m = c，n = 3；更多行见结果表。"


def test_nl2sql_prompts_match_the_golden_files(golden) -> None:  # type: ignore[no-untyped-def]
    schema = "CREATE TABLE t (\n  n BIGINT  -- count\n);"
    chat = render(
        "nl2sql",
        dialect="DuckDB",
        today="2026-11-30",
        this_month="2026-11",
        last_month="2026-10",
        schema=schema,
        question="How many rows?",
    )
    repair = render("nl2sql_repair", error="rejected by the SQL gate: unknown column x")
    explain = render("explain", language="Chinese", question="有多少行？", rows="1", result="n\n3")
    for name, messages in (("nl2sql", chat), ("nl2sql_repair", repair), ("explain", explain)):
        text = "\n".join(f"## {m['role']}\n{m['content']}" for m in messages) + "\n"
        golden(f"prompts/{name}.txt", text)


def test_schema_context_fits_the_budget_and_keeps_the_fact_table(parts) -> None:  # type: ignore[no-untyped-def]
    _, catalog = parts
    full = schema_context("每个商品的退款金额合计是多少？", catalog, max_tokens=100_000)
    small = schema_context("每个商品的退款金额合计是多少？", catalog, max_tokens=150)
    assert "fact_refund" in full.tables and full.samples
    assert isinstance(small, SchemaContext) and not small.samples
    assert small.tables == full.tables[: len(small.tables)] and small.tables
    assert small.tokens <= max(150, small.tokens if len(small.tables) == 1 else 150)
    assert set(small.dropped) == set(full.tables) - set(small.tables)


def test_over_the_budget_low_ranked_tables_become_compact_lines_before_they_are_dropped(
    parts,  # type: ignore[no-untyped-def]
) -> None:
    _, catalog = parts
    question = "上个月退货率最高的三个品类"  # refunds, sales, and the category names
    linked = link(question, catalog)
    names = linked.table_names
    assert names[:2] == ("fact_refund", "fact_sales") and "dim_category" in names
    full = schema_context(question, catalog, max_tokens=100_000)
    first_two = render_linked(catalog, replace(linked, tables=linked.tables[:2]), samples=False)
    budget = first_two.tokens + 60
    tight = schema_context(question, catalog, max_tokens=budget)
    assert tight.tokens <= budget < full.tokens
    assert tight.dropped == () and set(tight.tables) == set(full.tables)
    lines = [line for line in tight.text.splitlines() if line.startswith("-- also: ")]
    assert [line.split("(")[0][len("-- also: ") :] for line in lines] == list(names[2:])
    category = next(line for line in lines if "dim_category(" in line)
    assert "category_code" in category and "category_name" in category  # key and label
    assert "CREATE TABLE dim_category" not in tight.text
    # with no room even for the lines, the lowest-ranked tables are dropped as before
    first = render_linked(catalog, replace(linked, tables=linked.tables[:1]), samples=False)
    bare = schema_context(question, catalog, max_tokens=first.tokens)
    assert "-- also: " not in bare.text and bare.tables == ("fact_refund",)
    assert set(bare.dropped) == set(names[1:])


def test_narrow_linked_tables_are_shown_whole_when_they_fit(parts) -> None:  # type: ignore[no-untyped-def]
    _, catalog = parts
    question = "各品类的商品数量"  # dim_product, shown in full: 3 of its 6 columns linked
    linked = link(question, catalog)
    roomy = schema_context(question, catalog, max_tokens=100_000)
    assert len(linked.table("dim_product").columns) < len(catalog.tables["dim_product"].columns)  # type: ignore[union-attr]
    for table in linked.tables:
        info = catalog.tables[table.name]
        shown = roomy_columns(roomy.text, table.name)
        if len(info.columns) <= WHOLE_TABLE_MAX_COLUMNS:
            assert shown == [c.name for c in info.columns]
        else:
            assert shown == [c.name for c in table.columns]  # wide tables keep the linker's cut
    tight = schema_context(question, catalog, max_tokens=150)
    assert tight.tokens < roomy.tokens


def roomy_columns(text: str, table: str) -> list[str]:
    """Column names of ``CREATE TABLE table`` in rendered schema text."""
    block = text.split(f"CREATE TABLE {table} (", 1)[1].split("\n);", 1)[0]
    lines = [line.strip() for line in block.splitlines()[1:]]
    return [
        line.split()[0] for line in lines if line and not line.startswith(("PRIMARY", "FOREIGN"))
    ]


def test_the_prompt_names_the_engines_dialect(parts) -> None:  # type: ignore[no-untyped-def]
    engine, catalog = parts
    llm = ScriptedLLM(replies=["```sql\nSELECT 1 AS n\n```", "x"])
    answer_with_sql(
        "How many?",
        llm=llm,
        engine=engine,
        schema=schema_context("How many?", catalog),
        language="en",
        options=NL2SQLOptions(today=TODAY, explain=False),
    )
    assert "one DuckDB SELECT query" in llm.history[0].messages[0]["content"]
    assert dialect_name("sqlite") == "SQLite"


def test_a_table_joined_on_a_column_it_lacks_is_joined_through_the_bridge(parts) -> None:  # type: ignore[no-untyped-def]
    """Issue 23's flagship SQL: ``JOIN dim_category AS d ON s.product_code = d.product_code``.
    The gate said "write s.product_code" (a column compared with itself) and the local model
    sent the same query three times; the gate now names the bridge and mends the join."""
    engine, catalog = parts
    question = "退款最多的三个品类"
    schema = schema_context(question, catalog, engine=engine)
    wrong = (
        "```sql\nSELECT d.category_name, COUNT(DISTINCT f.refund_id) AS refunds "
        "FROM fact_refund f JOIN fact_sales s ON f.order_id = s.order_id "
        "AND f.line_no = s.line_no JOIN dim_category d ON s.product_code = d.product_code "
        "GROUP BY d.category_name ORDER BY refunds DESC LIMIT 3\n```"
    )
    expected = engine.execute(
        "SELECT c.category_name, COUNT(DISTINCT f.refund_id) AS refunds FROM fact_refund f "
        "JOIN fact_sales s ON f.order_id = s.order_id AND f.line_no = s.line_no "
        "JOIN dim_product p ON p.product_code = s.product_code "
        "JOIN dim_category c ON c.category_code = p.category_code "
        "GROUP BY 1 ORDER BY 2 DESC LIMIT 3"
    ).rows
    options = NL2SQLOptions(today=TODAY, explain=False)
    llm = ScriptedLLM(replies=[wrong])
    answer = answer_with_sql(
        question, llm=llm, engine=engine, schema=schema, language="zh", options=options
    )
    assert answer.status in ("ok", "unsure") and len(llm.history) == 1  # no repair round
    refused, mended = answer.sql_attempts
    assert refused.issues == [
        "Unknown column 'd.product_code': d has no column 'product_code'; dim_category cannot "
        "be joined on it; join it through dim_product: JOIN dim_product ON "
        "dim_product.product_code = s.product_code JOIN dim_category AS d ON "
        "d.category_code = dim_product.category_code."
    ]
    assert mended.note == "tablerag joined d through dim_product (dim_category has no product_code)"
    assert answer.table is not None and answer.table.rows == [list(r) for r in expected]
    # switched off, the refusal goes to the model with the gate's hint that names the bridge
    off = replace(options, stages=switches((), {"rejoin": False}), max_repairs=1)
    llm = ScriptedLLM(replies=[wrong, wrong])
    answer = answer_with_sql(
        question, llm=llm, engine=engine, schema=schema, language="zh", options=off
    )
    assert answer.status == "error" and len(llm.history) == 2
    assert "join it through dim_product" in llm.history[1].messages[-1]["content"]
