"""SQL extraction from replies the local model really wrote (CHASE, Chinese names)."""

from __future__ import annotations

import pytest
import sqlglot
from sqlglot import exp

from tablerag.linking.catalog import SchemaCatalog
from tablerag.llm.testing import ScriptedLLM
from tablerag.nl2sql.path import NL2SQLOptions, answer_with_sql
from tablerag.nl2sql.schema_context import schema_context
from tablerag.nl2sql.sqltext import extract_sql
from tablerag.sql.engines import SQLEngine


@pytest.mark.parametrize(
    ("reply", "tables"),
    [
        ("```sql\nSELECT演唱会名称, 主题 FROM演唱会;\n```", {"演唱会"}),
        ("SELECT唱片公司 FROM管弦乐队 WHERE成立年份 < 2003", {"管弦乐队"}),
        (
            "```sql\nSELECT S.名字 FROM歌手 S JOIN歌手举办演唱会 SP ON S.歌手ID = SP.歌手ID "
            "WHERE SP.演唱会ID IN (SELECT演唱会ID FROM演唱会 WHERE 年份 = '2014')\n```",
            {"歌手", "歌手举办演唱会", "演唱会"},
        ),
        ("SELECT国籍, COUNT(*) FROM歌手 GROUP BY国籍 ORDER BY COUNT(*) DESC LIMIT 1", {"歌手"}),
    ],
)
def test_keywords_written_against_chinese_names_are_read(reply: str, tables: set[str]) -> None:
    sql = extract_sql(reply, dialect="sqlite")
    assert sql is not None
    tree = sqlglot.parse_one(sql, read="sqlite")
    assert {t.name for t in tree.find_all(exp.Table)} == tables


def test_quoted_text_keeps_its_spelling() -> None:
    sql = extract_sql("SELECT 名字 FROM 歌手 WHERE 备注 = 'AND其他'", dialect="sqlite")
    assert sql == "SELECT 名字 FROM 歌手 WHERE 备注 = 'AND其他'"


@pytest.mark.parametrize(
    ("reply", "sql"),
    [
        ("SELECT 1; DROP TABLE customers", "SELECT 1; DROP TABLE customers"),
        ("```sql\nSELECT a FROM t;\nDELETE FROM t;\n```", "SELECT a FROM t;\nDELETE FROM t"),
        # a command sqlglot does not know runs to the end of the text, prose and all
        ("Run this:\nSELECT a FROM t; CALL wipe()\nThat is all.", "SELECT a FROM t; CALL wipe()"),
    ],
)
def test_several_statements_come_back_whole_for_the_gate_to_refuse(reply: str, sql: str) -> None:
    found = extract_sql(reply)
    assert found is not None and found.startswith(sql)


def test_prose_after_the_semicolon_and_alternative_blocks_still_give_one_query() -> None:
    assert extract_sql("SELECT a FROM t;\nExplanation") == "SELECT a FROM t"
    assert extract_sql("SELECT a FROM t;") == "SELECT a FROM t"
    options = "Either\n```sql\nSELECT a FROM t\n```\nor\n```sql\nSELECT b FROM t\n```"
    assert extract_sql(options) == "SELECT a FROM t"


def test_a_reply_nested_too_deeply_gives_no_sql_and_no_crash() -> None:
    deep = "SELECT " + "(" * 400 + "1" + ")" * 400
    assert extract_sql(f"```sql\n{deep}\n```") is None
    assert extract_sql("SELECT " + "CASE WHEN a THEN " * 400 + "1" + " END" * 400) is None


def _ask(question: str, llm: ScriptedLLM, parts: tuple[SQLEngine, SchemaCatalog], **opts: int):  # type: ignore[no-untyped-def]
    engine, catalog = parts
    return answer_with_sql(
        question,
        llm=llm,
        engine=engine,
        schema=schema_context(question, catalog),
        language="zh",
        options=NL2SQLOptions(**opts),  # type: ignore[arg-type]
    )


def test_a_multi_statement_reply_never_runs_its_first_statement(parts) -> None:  # type: ignore[no-untyped-def]
    reply = "```sql\nSELECT count(*) AS refunds FROM fact_refund; DROP TABLE fact_refund\n```"
    answer = _ask("一共有多少笔退款？", ScriptedLLM(replies=[reply]), parts, max_repairs=0)
    assert answer.status == "error" and answer.table is None
    (attempt,) = answer.sql_attempts
    assert attempt.error == "rejected by the SQL gate"
    assert any("Found 2 statements" in i for i in attempt.issues), attempt.issues
    # the refusal is what the repair prompt quotes; the repaired single query runs
    count = "```sql\nSELECT count(*) AS refunds FROM fact_refund\n```"
    llm = ScriptedLLM(replies=[reply, count])
    answer = _ask("一共有多少笔退款？", llm, parts)
    assert answer.status == "ok" and answer.table is not None
    assert answer.table.rows == [[152]]
    assert "Found 2 statements" in llm.history[1].messages[-1]["content"]


def test_a_deeply_nested_reply_is_no_sql_not_a_crash(parts) -> None:  # type: ignore[no-untyped-def]
    deep = "```sql\nSELECT " + "(" * 400 + "1" + ")" * 400 + "\n```"
    answer = _ask("一共有多少笔退款？", ScriptedLLM(replies=[deep]), parts, max_repairs=0)
    assert answer.status == "error" and answer.table is None
    (attempt,) = answer.sql_attempts
    assert attempt.sql == "" and (attempt.error or "").startswith("no SQL query found")
