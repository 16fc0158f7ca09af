"""Hybrid path: both paths run side by side; one fused answer, each fact labelled by source."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path

from tablerag.answer import Answer, Citation, Fact, ResultTable
from tablerag.answer.envelope import Finding as AnswerFinding
from tablerag.answer.hybrid import fuse, run_both
from tablerag.llm.base import Message
from tablerag.llm.testing import FunctionLLM
from tablerag.service import QA

HYBRID_Q = "退货率超过10%的商品根据退货政策应该怎么处理"


def _sql(status: str = "ok", text: str = "退货率最高的商品是 P1001。") -> Answer:
    return Answer(
        question="q",
        answer=text,
        language="zh",
        path="nl2sql",
        status=status,  # type: ignore[arg-type]
        error="boom" if status == "error" else None,
        sql="SELECT 1",
        table=ResultTable(columns=["p"], rows=[["P1001"]], row_count=1),
        facts=[Fact(text=text, source="sql")] if status == "ok" else [],
        confidence=0.8 if status == "ok" else 0.0,
        timings_ms={"llm": 10.0, "execution": 1.0},
    )


def _doc(status: str = "ok") -> Answer:
    cite = Citation(n=1, chunk_id="c1", source="退货政策.md", snippet="退货率超过10%的商品暂停促销")
    return Answer(
        question="q",
        answer="暂停促销并排查原因 [1]。" if status == "ok" else "文档中没有找到相关内容。",
        language="zh",
        path="rag",
        status=status,  # type: ignore[arg-type]
        citations=[cite] if status == "ok" else [],
        facts=[Fact(text="暂停促销并排查原因 [1]。", source="document", citation=1)]
        if status == "ok"
        else [],
        confidence=0.7 if status == "ok" else 0.0,
        timings_ms={"llm": 5.0, "retrieval": 2.0},
    )


def test_fusion_labels_every_fact_and_keeps_both_sides() -> None:
    fused = fuse(HYBRID_Q, "zh", _sql(), _doc())
    assert fused.path == "hybrid" and fused.status == "ok"
    assert fused.answer == "【数据】退货率最高的商品是 P1001。\n【文档】暂停促销并排查原因 [1]。"
    assert [(f.source, f.citation) for f in fused.facts] == [("sql", None), ("document", 1)]
    assert fused.sql == "SELECT 1" and fused.table is not None and len(fused.citations) == 1
    assert fused.timings_ms == {"llm": 15.0, "execution": 1.0, "retrieval": 2.0}


def test_one_side_failing_keeps_the_other_and_says_why() -> None:
    fused = fuse("q", "en", _sql("error", "Could not write SQL."), _doc())
    assert fused.status == "ok" and fused.answer.startswith("[data] Could not write SQL.")
    assert fused.error == "sql: boom" and fused.citations
    nothing = fuse("q", "en", _sql("no_data", "No matching data was found."), _doc("not_found"))
    assert nothing.status == "no_data" and nothing.facts == []


def test_both_paths_really_run_at_the_same_time() -> None:
    barrier = threading.Barrier(2, timeout=5)

    def side(answer: Answer) -> Answer:
        barrier.wait()  # deadlocks (and times out) unless the other side runs concurrently
        return answer

    sql, doc = run_both(lambda: side(_sql()), lambda: side(_doc()))
    assert (sql.path, doc.path) == ("nl2sql", "rag")


def test_hybrid_question_runs_both_paths_through_the_service(sample_ws: Path) -> None:
    def reply(messages: Sequence[Message]) -> str:
        system = messages[0]["content"]
        if "SELECT" in system:
            return (
                "```sql\nSELECT product_code, count(*) AS refunds FROM fact_refund r "
                "JOIN fact_sales s USING (order_id, line_no) GROUP BY product_code "
                "ORDER BY refunds DESC LIMIT 1\n```"
            )
        if "numbered passages" in system:
            return "退货率超过10%的商品会被列入观察名单并暂停促销 [1]。"
        return "退款最多的商品见结果表。"

    llm = FunctionLLM(reply)
    with QA.open(sample_ws, llm=llm) as qa:
        answer = qa.ask(HYBRID_Q)
    assert answer.route is not None and answer.route.intent == "hybrid"
    # the data side counts refunds, not the 退货率 asked for: the fused answer is unsure
    assert answer.path == "hybrid" and answer.status == "unsure"
    assert {f.source for f in answer.facts} == {"sql", "document"}
    assert answer.table is not None and answer.table.columns == ["product_code", "refunds"]
    assert answer.citations and answer.answer.startswith("【数据】")
    assert "\n【文档】退货率超过10%" in answer.answer
    # SQL, passages, explanation: the scripted query counts refunds for a 退货率 question;
    # 指标口径.md counts orders by distinct order_id: the query that ran is final (no repair
    # round, no rewrite) and the data side is doubted for it
    assert answer.llm.calls == 3
    (first,) = answer.sql_attempts
    assert "COUNT(*)" in first.sql and first.error is None
    # the 退货率 definition it does not follow is the data side's reason
    assert answer.answer.startswith("【数据】这个结果可能不对：《指标口径.md》规定退货率")
    assert "规定退货率 = 退货率" not in answer.answer  # the definition is not said twice


def test_a_side_the_checks_doubt_makes_the_fused_answer_unsure() -> None:
    doubt = "这个结果可能不对：查询没有读取任何表。\n查询结果：1 = 1。"
    unsure = _sql("unsure", doubt).model_copy(update={"confidence": 0.25})
    fused = fuse(HYBRID_Q, "zh", unsure, _doc())
    assert fused.status == "unsure" and fused.confidence == 0.25  # the doubtful side's
    assert fused.answer.startswith("【数据】这个结果可能不对：查询没有读取任何表。")
    assert len(fused.citations) == 1  # the document side still answers
    # with both sides passing, the better confidence; a side that failed does not count
    assert fuse(HYBRID_Q, "zh", _sql(), _doc()).confidence == 0.8
    alone = fuse(HYBRID_Q, "zh", unsure, _doc("not_found"))
    assert alone.status == "unsure" and alone.confidence == 0.25


def test_a_two_part_question_is_ok_only_when_both_parts_are_answered() -> None:
    both = fuse(HYBRID_Q, "zh", _sql(), _doc(), needs_both=True)
    assert both.status == "ok" and both.confidence == 0.8
    assert both.answer.startswith("【数据】")
    no_docs = fuse(HYBRID_Q, "zh", _sql(), _doc("not_found"), needs_both=True)
    assert no_docs.status == "unsure" and no_docs.confidence == 0.4  # half of the data side's
    assert no_docs.answer.split("\n")[0] == "问题的文档部分没有找到答案。"
    assert no_docs.table is not None  # the answered part is still shown
    no_data = fuse("q", "en", _sql("error", "Could not write SQL."), _doc(), needs_both=True)
    assert no_data.status == "unsure" and no_data.confidence == 0.35
    assert no_data.answer.split("\n")[0] == "The data part of the question was not answered."
    assert no_data.error == "sql: boom"
    # passages without an answer (degraded) do not answer the documents part either
    passages = _doc().model_copy(update={"status": "degraded", "confidence": 0.2})
    assert fuse("q", "en", _sql(), passages, needs_both=True).status == "unsure"
    assert fuse("q", "en", _sql(), passages).status == "ok"  # one good side is enough


def test_a_two_part_question_with_no_part_answered_keeps_the_failure() -> None:
    nothing = fuse("q", "en", _sql("no_data", "No data."), _doc("not_found"), needs_both=True)
    assert nothing.status == "no_data" and not nothing.answer.startswith("The ")


def test_the_fused_answer_keeps_each_sides_findings_and_definitions() -> None:
    """What the checks found travels as data on a hybrid answer too (the JSON, the harness and
    the fallback read ``findings``, not the text), and the definition the data part followed
    keeps its citation, numbered after the passages the document part's text names."""
    finding = AnswerFinding(
        code="all_zero", severity="doubt", message="checks.all_zero", stage="checks"
    )
    cited = AnswerFinding(
        code="definition_followed",
        severity="cite",
        message="checks.definition_followed",
        stage="checks",
        values={"document": "指标定义.md"},
    )
    definition = Citation(
        n=1, chunk_id="g1", source="指标定义.md", snippet="退货率 = 退货数 ÷ 订单数"
    )
    sql = _sql("unsure").model_copy(
        update={
            "checks": ["all_zero", "definition_followed"],
            "findings": [finding, cited],
            "citations": [definition],
            "facts": [Fact(text="0", source="sql"), Fact(text="d", source="document", citation=1)],
        }
    )
    fused = fuse(HYBRID_Q, "zh", sql, _doc())
    assert fused.status == "unsure"
    assert fused.checks == ["all_zero", "definition_followed"]
    assert [f.code for f in fused.findings] == ["all_zero", "definition_followed"]
    assert [(c.n, c.source) for c in fused.citations] == [(1, "退货政策.md"), (2, "指标定义.md")]
    assert [(f.source, f.citation) for f in fused.facts] == [
        ("sql", None),
        ("document", 2),
        ("document", 1),
    ]
