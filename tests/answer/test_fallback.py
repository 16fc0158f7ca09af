"""``fall_back``: when the other path runs, what the answer says, and what the envelope records."""

from __future__ import annotations

from typing import Any

import pytest

from tablerag.answer import Answer, Citation, Fact, ResultTable, SQLAttempt
from tablerag.answer.fallback import REASON_CHARS, as_written, fall_back, reason, wants_fallback
from tablerag.deadline import Deadline
from tablerag.nl2sql.checks import Finding

NEVER = Deadline.never()


def _sql(status: str = "unsure", **changes: Any) -> Answer:
    base: dict[str, Any] = {
        "question": "一线城市出差每晚住宿最多能报销多少？",
        "answer": "这个结果可能不对：查询读取的 sales 不是问题所关联的表（travel）。\n结果：1200",
        "language": "zh",
        "path": "nl2sql",
        "status": status,
        "error": "boom" if status == "error" else None,
        "sql": "SELECT max(amount) FROM sales",
        "sql_attempts": [SQLAttempt(sql="SELECT max(amount) FROM sales")],
        "table": ResultTable(columns=["m"], rows=[[1200]], row_count=1),
        "facts": [Fact(text="1200", source="sql")],
        "confidence": 0.3,
        "timings_ms": {"llm": 10.0, "execution": 1.0},
        "findings": [Finding("unrelated_table", (("tables", "sales"), ("linked", "travel"))).data()]
        if status == "unsure"
        else [],
    }
    return Answer(**{**base, **changes})


def _doc(status: str = "ok") -> Answer:
    cite = Citation(n=1, chunk_id="c1", source="差旅制度.docx", snippet="一线城市每晚 600 元")
    found = status == "ok"
    return Answer(
        question="一线城市出差每晚住宿最多能报销多少？",
        answer="一线城市每晚住宿最多报销 600 元 [1]。" if found else "文档中没有找到相关内容。",
        language="zh",
        path="rag",
        status=status,  # type: ignore[arg-type]
        citations=[cite] if found else [],
        facts=[Fact(text="600 元 [1]", source="document", citation=1)] if found else [],
        confidence=0.8 if found else 0.0,
        timings_ms={"llm": 5.0, "retrieval": 2.0},
    )


class Other:
    """The other path, counting its runs."""

    def __init__(self, answer: Answer) -> None:
        self.answer, self.runs = answer, 0

    def __call__(self) -> Answer:
        self.runs += 1
        return self.answer


def test_a_doubted_sql_answer_gives_way_to_the_documents() -> None:
    other = Other(_doc())
    answer = fall_back(_sql(), other, deadline=NEVER)
    assert other.runs == 1 and answer.path == "rag" and answer.status == "ok"
    assert answer.answer == (
        "查询没有得到可靠结果（查询读取的 sales 不是问题所关联的表（travel）），"
        "以下答案来自文档：\n"
        "一线城市每晚住宿最多报销 600 元 [1]。"
    )
    assert answer.sql == "SELECT max(amount) FROM sales" and len(answer.sql_attempts) == 1
    assert answer.table is None and answer.citations and answer.confidence == 0.8
    assert answer.timings_ms == {"llm": 15.0, "execution": 1.0, "retrieval": 2.0}
    fb = answer.fallback
    assert fb is not None and fb.reason == "查询读取的 sales 不是问题所关联的表（travel）"
    assert Answer.model_validate_json(answer.model_dump_json()) == answer


@pytest.mark.parametrize("status", ["unsure", "error", "degraded", "no_data"])
def test_every_sql_answer_that_is_not_ok_tries_the_documents(status: str) -> None:
    assert wants_fallback(_sql(status))
    answer = fall_back(_sql(status), Other(_doc()), deadline=NEVER)
    assert answer.path == "rag" and answer.fallback is not None
    assert answer.fallback.from_status == status
    assert answer.error == ("sql: boom" if status == "error" else None)  # why the SQL failed


def test_an_ok_answer_is_kept_and_the_other_path_never_runs() -> None:
    other = Other(_doc())
    first = _sql("ok")
    assert fall_back(first, other, deadline=NEVER) is first and other.runs == 0
    found = _doc()
    assert fall_back(found, Other(_sql("ok")), deadline=NEVER) is found


@pytest.mark.parametrize("status", ["unsure", "degraded", "error"])
def test_documents_fall_back_only_when_no_passage_answers(status: str) -> None:
    doc = _doc().model_copy(update={"status": status, "error": "x"})
    other = Other(_sql("ok"))
    assert fall_back(doc, other, deadline=NEVER) is doc and other.runs == 0


def test_the_data_answers_when_the_documents_hold_nothing() -> None:
    data = _sql("ok", answer="结果：1200")
    answer = fall_back(_doc("not_found"), Other(data), deadline=NEVER, terms=["住宿", "城市"])
    assert answer.path == "nl2sql" and answer.status == "ok" and answer.table is not None
    assert answer.answer == (
        "文档中没有找到答案；问题里的'住宿、城市'是数据表中的词，以下答案来自数据查询：\n结果：1200"
    )
    fb = answer.fallback
    assert fb is not None and (fb.from_path, fb.to_path, fb.outcome) == (
        "rag",
        "nl2sql",
        "answered",
    )


@pytest.mark.parametrize(
    ("first", "second", "last"),
    [
        pytest.param(
            _sql("error"), _doc("not_found"), "（也查了文档，文档中也没有可靠的答案。）", id="sql"
        ),
        pytest.param(
            _doc("not_found"),
            _sql("unsure"),
            "（也查了数据表，查询没有得到可靠结果："
            "查询读取的 sales 不是问题所关联的表（travel）。）",
            id="documents",
        ),
    ],
)
def test_a_failed_pair_keeps_the_first_answer_and_its_status(
    first: Answer, second: Answer, last: str
) -> None:
    answer = fall_back(first, Other(second), deadline=NEVER)
    assert answer.status == first.status and answer.path == first.path
    assert answer.answer == f"{first.answer}\n{last}"
    assert answer.citations == first.citations and answer.table == first.table
    fb = answer.fallback
    assert fb is not None and fb.outcome == "no_answer" and fb.to_status == second.status


def test_a_documents_answer_that_is_unsure_does_not_replace_the_sql_answer() -> None:
    unsure_doc = _doc().model_copy(update={"status": "unsure"})
    answer = fall_back(_sql("error"), Other(unsure_doc), deadline=NEVER)
    assert answer.path == "nl2sql" and answer.status == "error"


def test_with_too_little_time_left_the_other_path_is_not_started() -> None:
    other = Other(_doc())
    answer = fall_back(_sql("no_data"), other, deadline=Deadline.after(1.0))
    assert other.runs == 0 and answer.status == "no_data" and answer.path == "nl2sql"
    assert answer.answer.splitlines()[-1].startswith("（没有再查文档：问题的时间只剩 ")
    fb = answer.fallback
    assert fb is not None and fb.outcome == "no_time" and fb.to_status is None


def test_reason_reads_the_checks_findings_else_the_first_line() -> None:
    assert reason(_sql()) == "查询读取的 sales 不是问题所关联的表（travel）"
    long = _sql(answer="x" * 500, findings=[])
    assert len(reason(long)) == REASON_CHARS and reason(long).endswith("…")


def test_terms_are_shown_as_the_question_writes_them() -> None:
    assert as_written("How many Refunds?", ["refund", "refund"]) == ["Refunds"]
    assert as_written("华东的退款", ["华东", "退款"]) == ["华东", "退款"]
