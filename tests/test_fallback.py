"""Fallback between the paths through ``QA.ask`` (issue 23): data → documents, documents → data.

The route is fixed in these tests (``tablerag.service.route`` replaced): what is tested is what
the service does after a route, not the router's weights, which change on their own.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tablerag.answer import Answer
from tablerag.answer.fallback import MIN_SECONDS
from tablerag.cli import app
from tablerag.llm.base import Message
from tablerag.llm.testing import FunctionLLM
from tablerag.router.router import Intent, Route
from tablerag.service import QA
from tablerag.settings import Settings

REFUSED = "```sql\nDROP TABLE fact_sales\n```"
CONSTANT = "```sql\nSELECT 1\n```"
COUNT = "```sql\nSELECT count(DISTINCT order_id) AS orders FROM fact_sales\n```"
REFUNDS = "```sql\nSELECT count(*) AS refunds FROM fact_refund\n```"
DAMAGE = "What is the refund policy for damaged goods?"
POLICY_EN = "Damaged goods are refunded in part or in full [1]."


def _model(sql: str, passages: str) -> FunctionLLM:
    """A model that writes ``sql`` for the SQL path and ``passages`` for the document path."""

    def reply(messages: Sequence[Message]) -> str:
        system = messages[0]["content"]
        if "numbered passages" in system:
            return passages
        if "SELECT" in system:
            return sql
        return "explained"

    return FunctionLLM(reply)


def _asked(llm: FunctionLLM) -> list[str]:
    """Which path each model call served, in order (a question translated for searching the
    documents in their other language serves retrieval, not a path: left out)."""
    return [
        "documents" if "numbered passages" in c.messages[0]["content"] else "sql"
        for c in llm.history
        if not c.messages[0]["content"].startswith("Translate the question")
    ]


@pytest.fixture
def routed(monkeypatch: pytest.MonkeyPatch) -> Callable[..., None]:
    """``routed("data")``: every question goes to that intent (``needs_both=`` as given)."""

    def fix(intent: Intent, *, needs_both: bool = False) -> None:
        def fixed(question: str, context: object = None) -> Route:
            return Route(intent, 0.9, ("test: fixed route",), {intent: 1.0}, needs_both=needs_both)

        monkeypatch.setattr("tablerag.service.route", fixed)

    return fix


def _ask(ws: Path, llm: FunctionLLM, question: str, **settings: float) -> Answer:
    config = Settings(embedder="hashing", **settings)  # type: ignore[arg-type]
    with QA.open(ws, llm=llm, settings=config) as qa:
        answer = qa.ask(question)
    Answer.model_validate_json(answer.model_dump_json())  # a valid envelope, fallback included
    return answer


def test_refused_sql_falls_back_to_the_documents_and_keeps_the_sql_in_sight(
    sample_ws: Path, routed: Callable[..., None]
) -> None:
    routed("data")
    llm = _model(REFUSED, POLICY_EN)
    answer = _ask(sample_ws, llm, DAMAGE)
    assert answer.path == "rag" and answer.status == "ok" and answer.citations
    lead, rest = answer.answer.split("\n", 1)
    assert lead == (
        "The data query gave no reliable result (Could not write a SQL query that runs for "
        "this question (2 attempts)); this answer comes from the documents:"
    )
    assert rest == POLICY_EN
    # the model repeats its refused query: the repairs end there (2 attempts, not 3)
    assert len(answer.sql_attempts) == 2 and answer.sql == "DROP TABLE fact_sales"
    assert answer.table is None and answer.error is not None
    assert answer.error.startswith("sql: The SQL failed 2 times; last problem: rejected by the")
    fb = answer.fallback
    assert fb is not None and (fb.from_path, fb.from_status) == ("nl2sql", "error")
    assert (fb.to_path, fb.to_status, fb.outcome) == ("rag", "ok", "answered")
    assert _asked(llm) == ["sql", "sql", "documents"]
    assert answer.llm.calls == 3 and {"retrieval", "validation", "total"} <= set(answer.timings_ms)


def test_a_doubted_sql_answer_falls_back_to_the_documents(
    sample_ws: Path, routed: Callable[..., None]
) -> None:
    """``SELECT 1`` runs but reads no table (the ``constant_query`` check): ``unsure``."""
    routed("data")
    answer = _ask(sample_ws, _model(CONSTANT, "毛利 = 销售额 - 成本 [1]。"), "毛利是怎么定义的？")
    assert answer.path == "rag" and answer.status == "ok"
    lead, rest = answer.answer.split("\n", 1)
    assert lead.startswith("查询没有得到可靠结果（查询没有读取任何表")  # the checks' own words
    assert lead.endswith("），以下答案来自文档：") and rest == "毛利 = 销售额 - 成本 [1]。"
    assert answer.fallback is not None and answer.fallback.from_status == "unsure"
    assert answer.fallback.reason.startswith("查询没有读取任何表")
    assert answer.sql is not None and "SELECT 1" in answer.sql


def test_documents_without_an_answer_fall_back_to_the_tables_the_question_names(
    sample_ws: Path, routed: Callable[..., None]
) -> None:
    routed("knowledge")
    llm = _model(COUNT, "NOT_FOUND")
    answer = _ask(sample_ws, llm, "How many orders were placed in total?")
    assert answer.path == "nl2sql" and answer.status == "ok"
    assert answer.table is not None and answer.table.rows[0][0] > 0
    lead, rest = answer.answer.split("\n", 1)
    assert lead == (
        "The documents hold no answer; the question names 'orders' from the tables, "
        "so this answer comes from the data:"
    )
    assert rest.startswith("Result: orders = ")
    fb = answer.fallback
    assert fb is not None and (fb.from_path, fb.from_status, fb.to_path) == (
        "rag",
        "not_found",
        "nl2sql",
    )
    # the document path may stop before its model call (no passage scores high enough)
    assert fb.outcome == "answered" and _asked(llm)[-1] == "sql"


def test_a_follow_up_the_documents_cannot_answer_is_asked_of_the_tables_with_the_conversation(
    sample_ws: Path, routed: Callable[..., None], tmp_path: Path
) -> None:
    routed("knowledge")
    llm = _model(COUNT, "NOT_FOUND")
    with QA.open(sample_ws, llm=llm, settings=Settings(embedder="hashing"), home=tmp_path) as qa:
        qa.ask("How many orders were placed in total?", session="s")
        second = qa.ask("How many refunds were made in total?", session="s")
    assert second.path == "nl2sql" and second.fallback is not None
    sql_prompts = [
        c.messages[-1]["content"] for c in llm.history if "SELECT" in c.messages[0]["content"]
    ]
    assert "- How many orders were placed in total?" in sql_prompts[-1]
    assert sql_prompts[-1].rstrip().endswith("How many refunds were made in total?")


def test_a_question_naming_no_table_is_not_sent_to_the_sql_model(
    sample_ws: Path, routed: Callable[..., None]
) -> None:
    routed("knowledge")
    llm = _model(COUNT, "NOT_FOUND")
    answer = _ask(sample_ws, llm, "火星上的天气怎么样？")
    assert answer.status == "not_found" and answer.path == "rag" and answer.fallback is None
    assert "sql" not in _asked(llm)


@pytest.mark.parametrize(
    ("intent", "question", "sql", "path", "calls"),
    [
        pytest.param(
            "data", "How many orders were placed in total?", COUNT, "nl2sql", ["sql"], id="data"
        ),
        pytest.param("knowledge", DAMAGE, COUNT, "rag", ["documents"], id="documents"),
    ],
)
def test_no_fallback_when_the_first_path_is_ok(
    sample_ws: Path,
    routed: Callable[..., None],
    intent: Intent,
    question: str,
    sql: str,
    path: str,
    calls: list[str],
) -> None:
    routed(intent)
    llm = _model(sql, POLICY_EN)
    answer = _ask(sample_ws, llm, question)
    assert answer.path == path and answer.status == "ok" and answer.fallback is None
    assert _asked(llm) == calls
    assert "comes from" not in answer.answer


def test_no_fallback_is_started_when_the_question_has_too_little_time_left(
    sample_ws: Path, routed: Callable[..., None]
) -> None:
    routed("data")
    llm = _model(REFUSED, POLICY_EN)
    answer = _ask(sample_ws, llm, DAMAGE, answer_max_seconds=MIN_SECONDS - 1)
    assert answer.path == "nl2sql" and answer.status == "error"
    assert "documents" not in _asked(llm)
    fb = answer.fallback
    assert fb is not None and fb.outcome == "no_time" and fb.to_status is None
    last = answer.answer.splitlines()[-1]
    assert last.startswith("(The documents were not tried: only ") and "time was left" in last


@pytest.mark.parametrize(
    ("intent", "question", "sql", "passages", "status", "path", "to_status", "last"),
    [
        pytest.param(
            "data",
            DAMAGE,
            REFUSED,
            "NOT_FOUND",
            "error",
            "nl2sql",
            "not_found",
            "(The documents were searched too and gave no reliable answer.)",
            id="data-error-then-documents-not-found",
        ),
        pytest.param(
            "data",
            "How many orders were placed in total?",
            CONSTANT,
            "NOT_FOUND",
            "unsure",
            "nl2sql",
            "not_found",
            "(The documents were searched too and gave no reliable answer.)",
            id="data-unsure-then-documents-not-found",
        ),
        pytest.param(
            "knowledge",
            "How many orders were placed in total?",
            CONSTANT,
            "NOT_FOUND",
            "not_found",
            "rag",
            "unsure",
            "(The tables were queried too and gave no reliable result: the query reads no table.)",
            id="documents-not-found-then-data-unsure",
        ),
    ],
)
def test_a_fallback_never_makes_a_failed_pair_ok(
    sample_ws: Path,
    routed: Callable[..., None],
    intent: Intent,
    question: str,
    sql: str,
    passages: str,
    status: str,
    path: str,
    to_status: str,
    last: str,
) -> None:
    routed(intent)
    answer = _ask(sample_ws, _model(sql, passages), question)
    assert answer.status == status and answer.path == path
    fb = answer.fallback
    assert fb is not None and fb.outcome == "no_answer" and fb.to_status == to_status
    assert answer.answer.splitlines()[-1] == last


def test_a_two_part_question_with_one_part_missing_is_unsure(
    sample_ws: Path, routed: Callable[..., None]
) -> None:
    question = "How many refunds are there, and how are damaged goods refunded?"
    routed("hybrid", needs_both=True)
    half = _ask(sample_ws, _model(REFUSED, POLICY_EN), question)
    assert half.path == "hybrid" and half.status == "unsure"
    assert half.answer.splitlines()[0] == "The data part of the question was not answered."
    assert half.fallback is None  # both paths ran already: nothing to fall back to
    whole = _ask(sample_ws, _model(REFUNDS, POLICY_EN), question)
    assert whole.status == "ok" and half.confidence < whole.confidence
    routed("hybrid", needs_both=False)  # both ran because the router was unsure: one is enough
    either = _ask(sample_ws, _model(REFUSED, POLICY_EN), question)
    assert either.status == "ok"


def test_ask_json_has_the_fallback_record(
    sample_ws: Path, routed: Callable[..., None], monkeypatch: pytest.MonkeyPatch
) -> None:
    routed("data")
    llm = _model(REFUSED, POLICY_EN)
    monkeypatch.setattr("tablerag.service.load_llm", lambda spec=None, **kw: llm)
    res = CliRunner().invoke(app, ["ask", DAMAGE, "-w", str(sample_ws), "--json"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    assert data["path"] == "rag" and data["status"] == "ok"
    assert data["fallback"] == {
        "from_path": "nl2sql",
        "from_status": "error",
        "to_path": "rag",
        "to_status": "ok",
        "outcome": "answered",
        "reason": "Could not write a SQL query that runs for this question (2 attempts)",
    }
    assert len(data["sql_attempts"]) == 2
    shown = CliRunner().invoke(app, ["ask", DAMAGE, "-w", str(sample_ws)])
    assert "answered by the documents after the data query (error: " in shown.stdout


def test_a_document_figure_for_a_doubted_data_figure_is_not_ok() -> None:
    """The data path computed a figure it doubts (a region the question names was dropped);
    the documents answered with a number of their own (a worked example's 27.6 元, as the
    demo's first question did on the local model): the answer cannot be ``ok``."""
    from tablerag.answer.fallback import fall_back
    from tablerag.deadline import Deadline

    first = Answer(
        question="上月华东的毛利是多少？", language="zh", path="nl2sql", status="unsure",
        answer="这个结果可能不对：查询没有用到问题里的'华东'。\n查询结果：gross_profit = 70660.27",
        sql="SELECT SUM(net_amt) - SUM(cost_amt) / 100.0 AS gross_profit FROM fact_sales",
        table={"columns": ["gross_profit"], "rows": [[70660.27]], "row_count": 1},
        confidence=0.5,
    )  # fmt: skip
    documents = Answer(
        question=first.question, language="zh", path="rag", status="ok", confidence=0.8,
        answer="根据[2]中的信息，华东大区的毛利为27.6元。",
    )  # fmt: skip
    answer = fall_back(first, lambda: documents, deadline=Deadline.after(60))
    assert answer.path == "rag" and answer.fallback is not None
    assert answer.answer.splitlines()[0].startswith("查询没有得到可靠结果")  # the doubt first
    assert answer.status == "unsure" and answer.confidence <= 0.4
    # a definition asked after a query that computed nothing keeps the documents' ok
    nothing = first.model_copy(update={"sql": "SELECT 1", "table": None})
    assert fall_back(nothing, lambda: documents, deadline=Deadline.after(60)).status == "ok"
