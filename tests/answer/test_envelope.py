"""The answer envelope: its JSON shape, its checks, language detection and the rich renderer."""

from __future__ import annotations

import json
from typing import Any

import pytest
from pydantic import ValidationError
from rich.console import Console

from tablerag.answer import (
    STAGES,
    Answer,
    Citation,
    Fact,
    Fallback,
    ResultTable,
    RouteInfo,
    SQLAttempt,
    Step,
    detect_language,
)
from tablerag.cli.render import MAX_ROWS_SHOWN, render_answer

TOP_LEVEL_KEYS = [
    "question",
    "answer",
    "language",
    "path",
    "route",
    "table",
    "sql",
    "sql_attempts",
    "reading",
    "citations",
    "facts",
    "confidence",
    "status",
    "checks",
    "error",
    "clarifications",
    "timings_ms",
    "llm",
    "steps",
    "budget_exhausted",
    "fallback",
    "knowledge",
    "findings",
    "standalone_question",
]


def _hybrid(**changes: Any) -> Answer:
    base: dict[str, Any] = {
        "question": "退货率超过10%的商品根据退货政策应该怎么处理",
        "answer": "P3001 的退货率为 12.5% [SQL]；按政策须列入高退货率清单并暂停促销 [1]。",
        "language": "zh",
        "path": "hybrid",
        "route": RouteInfo(intent="hybrid", confidence=0.83, reasons=["data cues: 超过"]),
        "table": ResultTable(
            columns=["product_code", "return_rate"], rows=[["P3001", 0.125]], row_count=1
        ),
        "sql": "SELECT product_code, return_rate FROM r WHERE return_rate > 0.1 LIMIT 100",
        "sql_attempts": [SQLAttempt(sql="SELECT 1")],
        "citations": [
            Citation(
                n=1,
                chunk_id="0ceb700613b5eb03",
                source="退货政策.md",
                heading_path=["退货与退款政策", "第四章 高退货率商品的管理"],
                snippet="11.2 退货率超过 10% 的商品列入《高退货率商品清单》",
            )
        ],
        "facts": [
            Fact(text="P3001 退货率 12.5%", source="sql"),
            Fact(text="超过 10% 须暂停促销", source="document", citation=1),
        ],
        "confidence": 0.8,
        "timings_ms": {"routing": 0.4, "retrieval": 12.0, "llm": 900.0, "total": 1300.0},
        "llm": {"calls": 2, "prompt_tokens": 1500, "completion_tokens": 120},
    }
    base.update(changes)
    return Answer(**base)


def test_json_has_exactly_the_documented_keys_in_order() -> None:
    data = json.loads(_hybrid().model_dump_json())
    assert list(data) == TOP_LEVEL_KEYS
    assert set(data["route"]) == {"intent", "confidence", "reasons"}
    assert set(data["table"]) == {"columns", "rows", "row_count", "truncated"}
    assert set(data["citations"][0]) == {
        "n",
        "chunk_id",
        "source",
        "page",
        "heading_path",
        "snippet",
        "table",
    }
    assert set(data["facts"][0]) == {"text", "source", "citation"}
    assert set(data["sql_attempts"][0]) == {"sql", "error", "issues", "note"}
    assert data["llm"] == {"calls": 2, "prompt_tokens": 1500, "completion_tokens": 120}


def test_json_schema_snapshot_of_enumerations() -> None:
    schema = Answer.model_json_schema()
    props = schema["properties"]
    assert list(props) == TOP_LEVEL_KEYS
    assert sorted(schema["required"]) == ["answer", "language", "path", "question"]
    assert props["path"]["enum"] == [
        "rag",
        "nl2sql",
        "hybrid",
        "loop",
        "chitchat",
        "clarify",
        "none",
    ]
    assert props["status"]["enum"] == [
        "ok",
        "unsure",
        "no_data",
        "not_found",
        "clarify",
        "error",
        "degraded",
    ]
    assert props["language"]["enum"] == ["zh", "en"]
    assert schema["$defs"]["Fact"]["properties"]["source"]["enum"] == ["sql", "document"]
    assert schema["$defs"]["RouteInfo"]["properties"]["intent"]["enum"] == [
        "knowledge",
        "data",
        "hybrid",
        "chitchat",
        "ambiguous",
    ]
    fallback = schema["$defs"]["Fallback"]["properties"]
    assert list(fallback) == [
        "from_path",
        "from_status",
        "to_path",
        "to_status",
        "outcome",
        "reason",
    ]
    assert fallback["outcome"]["enum"] == ["answered", "no_answer", "no_time"]


def test_round_trip_through_json_is_lossless() -> None:
    answer = _hybrid()
    assert Answer.model_validate_json(answer.model_dump_json()) == answer


def test_minimal_answer_has_safe_defaults() -> None:
    answer = Answer(question="hi", answer="Hello!", language="en", path="chitchat")
    assert answer.status == "ok" and answer.table is None and answer.sql is None
    assert answer.citations == [] and answer.steps == [] and answer.llm.calls == 0


def test_frozen_and_strict() -> None:
    answer = _hybrid()
    with pytest.raises(ValidationError):
        answer.status = "error"
    with pytest.raises(ValidationError, match="extra"):
        Answer(question="q", answer="a", language="en", path="rag", sources=[])  # type: ignore[call-arg]
    with pytest.raises(ValidationError):
        Answer(question="q", answer="a", language="fr", path="rag")  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        pytest.param({"timings_ms": {"thinking": 1.0}}, "unknown timing stages", id="stage"),
        pytest.param({"timings_ms": {"total": -1.0}}, "negative", id="negative-time"),
        pytest.param({"status": "error"}, "needs an error message", id="error-without-message"),
        pytest.param({"confidence": 1.5}, "less than or equal to 1", id="confidence"),
        pytest.param(
            {"facts": [Fact(text="x", source="document", citation=7)]},
            "no such citation",
            id="dangling-citation",
        ),
    ],
)
def test_inconsistent_envelopes_are_refused(changes: dict[str, Any], message: str) -> None:
    with pytest.raises(ValidationError, match=message):
        _hybrid(**changes)


def _fallback(**changes: Any) -> Fallback:
    base: dict[str, Any] = {
        "from_path": "nl2sql",
        "from_status": "unsure",
        "to_path": "rag",
        "to_status": "ok",
        "outcome": "answered",
        "reason": "the query reads no table",
    }
    return Fallback(**{**base, **changes})


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        pytest.param({"to_path": "nl2sql"}, "goes to the other path", id="same-path"),
        pytest.param({"to_status": None}, "exactly when the fallback was not tried", id="none"),
        pytest.param({"outcome": "no_time"}, "exactly when the fallback was not tried", id="time"),
        pytest.param({"to_status": "not_found"}, "answered exactly when", id="not-ok"),
        pytest.param({"outcome": "no_answer"}, "answered exactly when", id="ok-no-answer"),
    ],
)
def test_inconsistent_fallbacks_are_refused(changes: dict[str, Any], message: str) -> None:
    with pytest.raises(ValidationError, match=message):
        _fallback(**changes)


def test_the_answers_path_is_the_path_that_answered_after_a_fallback() -> None:
    answered = _fallback()
    stood = _fallback(to_status="not_found", outcome="no_answer")
    assert _hybrid(path="rag", fallback=answered).fallback == answered
    assert _hybrid(path="nl2sql", fallback=stood).fallback == stood
    with pytest.raises(ValidationError, match="the path that answered"):
        _hybrid(path="nl2sql", fallback=answered)
    with pytest.raises(ValidationError, match="the path that answered"):
        _hybrid(path="rag", fallback=stood)


def test_result_table_checks_its_shape() -> None:
    with pytest.raises(ValidationError, match="every row must have 2 values"):
        ResultTable(columns=["a", "b"], rows=[[1]], row_count=1)
    with pytest.raises(ValidationError, match="row_count"):
        ResultTable(columns=["a"], rows=[[1], [2]], row_count=1)


def test_stages_cover_the_pipeline() -> None:
    assert STAGES == ("routing", "retrieval", "schema", "llm", "validation", "execution", "total")


@pytest.mark.parametrize(
    ("text", "language"),
    [
        ("上月华东的毛利是多少？", "zh"),
        ("What is the refund policy for damaged goods?", "en"),
        ("fact_sales 表里 PAID 的订单有多少", "zh"),
        ("What does 毛利 mean in the monthly report?", "en"),
        ("毛利", "zh"),
        ("", "en"),
        ("2026-09", "en"),
    ],
)
def test_detect_language(text: str, language: str) -> None:
    assert detect_language(text) == language


def _render(answer: Answer, **kwargs: Any) -> str:
    console = Console(record=True, width=110, color_system=None)
    render_answer(answer, console, **kwargs)
    return console.export_text()


def test_render_shows_answer_table_sql_citations_and_footer() -> None:
    out = _render(_hybrid())
    assert "P3001 的退货率为 12.5%" in out
    assert "product_code" in out and "0.125" in out and "1 row" in out
    assert "SQL ▸" in out and "return_rate > 0.1" in out
    assert "[1]" in out and "退货政策.md › 退货与退款政策 › 第四章 高退货率商品的管理" in out
    assert "[SQL] P3001 退货率 12.5%" in out and "[doc] 超过 10% 须暂停促销 [1]" in out
    assert "path hybrid · route hybrid (0.83) · confidence 0.80 · 1.30 s" in out
    assert "2 LLM calls · 1620 tokens" in out
    assert "SQL ▸" not in _render(_hybrid(), show_sql=False)


def test_render_failed_sql_and_long_results() -> None:
    rows = [[f"P{i}", i] for i in range(50)]
    answer = _hybrid(
        status="error",
        error="The SQL failed validation 3 times.",
        table=ResultTable(columns=["p", "n"], rows=rows, row_count=500, truncated=True),
        sql="SELECT nope FROM fact_sales",
        sql_attempts=[
            SQLAttempt(sql="SELECT x", error="unknown column x"),
            SQLAttempt(sql="SELECT nope FROM fact_sales", issues=["unknown column 'nope'"]),
        ],
    )
    out = _render(answer)
    assert "error: The SQL failed validation 3 times." in out
    assert "SQL ▸ (attempt 2 of 2)" in out
    assert "last attempt failed: unknown column 'nope'" in out
    assert f"500 rows, first {MAX_ROWS_SHOWN} shown (result capped)" in out
    assert f"P{MAX_ROWS_SHOWN - 1}" in out and f"P{MAX_ROWS_SHOWN} " not in out


def test_render_says_what_tablerag_mended_in_the_sql() -> None:
    note = "tablerag wrote p.name for o.name (only p has that column)"
    answer = _hybrid(
        sql_attempts=[
            SQLAttempt(sql="SELECT o.name", error="rejected by the SQL gate", issues=["…"]),
            SQLAttempt(sql="SELECT p.name", note=note),
        ]
    )
    out = _render(answer)
    assert note in out and "last attempt failed" not in out


def test_render_says_which_path_answered_after_which() -> None:
    out = _render(_hybrid(path="rag", fallback=_fallback()))
    line = "answered by the documents after the data query (unsure: the query reads no table)"
    assert line in out and "answered by" not in _render(_hybrid())
    late = _fallback(to_status=None, outcome="no_time")
    assert "did not try the documents after the data query" in _render(
        _hybrid(path="nl2sql", fallback=late)
    )


def test_render_prose_answer_without_sql() -> None:
    answer = Answer(
        question="What is the refund policy for damaged goods?",
        answer="Report damage within 48 hours [1].",
        language="en",
        path="rag",
        status="ok",
        citations=[
            Citation(n=1, chunk_id="c", source="refund_policy.md", page=2, snippet="x" * 400)
        ],
        timings_ms={"total": 42.0},
    )
    out = _render(answer)
    assert "SQL" not in out and "row" not in out
    assert "refund_policy.md, p. 2" in out
    assert out.count("x") == 160 and "…" in out  # the snippet is cut, wrapped over lines
    assert "path rag" in out and "42 ms" in out


def test_render_loop_shows_each_step_and_names_the_step_of_the_sql() -> None:
    sql = "SELECT sum(amount) FROM report_2019 WHERE item = 'Revenue'"
    steps = [
        Step(
            n=1,
            action="sub-question",
            input="What was the revenue in 2019?",
            observation="1200",
            chunks=["a", "b", "c"],
            sql=sql,
            decision="agree",
            chosen="sql",
        ),
        Step(
            n=2,
            action="sub-question",
            input="Why did revenue grow?",
            observation="new stores",
            sql="SELECT why FROM report_2019",
            sql_error="unknown column 'why'",
            decision="sql_failed",
            chosen="document",
            note="The SQL failed (unknown column 'why'); answered from the text.",
        ),
        Step(
            n=3,
            action="sub-question",
            input="How many stores opened?",
            observation="4",
            decision="conflict",
            chosen="document",
            note="Conflict: the SQL result says '2' but the text says '4'; took the text answer.",
        ),
        Step(
            n=4,
            action="sub-question",
            input="Which store grew most, and why?",
            observation="SQL: Oslo | Text: a new mall [1]",
            decision="both",
            chosen="sql",
        ),
        Step(n=5, action="answer", input="q", observation="x", note="Not found in sources: 7."),
    ]
    answer = _hybrid(
        path="loop",
        sql=sql,
        sql_attempts=[SQLAttempt(sql=sql), SQLAttempt(sql="SELECT why", error="unknown column")],
        steps=steps,
    )
    out = _render(answer)
    assert "Steps" in out and "1." in out and "What was the revenue in 2019?" in out
    assert "→ 1200  (SQL and text agree; 3 chunks)" in out
    assert "SQL failed, text used" in out and "SQL failed: unknown column 'why'" in out
    assert "answered from the text" not in out  # the note only repeats the failure shown
    assert "SQL and text disagree, took SQL" not in out
    assert "SQL and text disagree, took the text; 0 chunks" in out
    assert "Conflict: the SQL result says '2' but the text says '4'" in out
    assert "SQL and text answer different parts, both kept" in out
    assert "5." in out and "Not found in sources: 7." in out
    # The panel names the step its SQL answered; another step's failure is not its own.
    assert "SQL ▸ (step 1)" in out and "last attempt failed" not in out
    assert "Steps" not in _render(_hybrid())
