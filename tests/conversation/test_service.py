"""A conversation through ``QA.answer``: follow-ups resolved before routing, the previous SQL
as the SQL model's starting point, turns kept in the workspace, the orphan asked back."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import pytest

from tablerag.llm.base import Message
from tablerag.llm.testing import FunctionLLM
from tablerag.request import Request
from tablerag.service import QA
from tablerag.settings import Settings
from tablerag.store import sessions
from tests.conversation.helpers import EAST_SQL, RESOLVER, SOUTH_SQL, reply
from tests.plugins.answering import build_sample_workspace


@pytest.fixture(scope="module")
def ws(sample_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_sample_workspace(sample_dir, tmp_path_factory.mktemp("conv") / "ws")


@pytest.fixture
def llm() -> FunctionLLM:
    return FunctionLLM(reply)


def _ask(qa: QA, question: str, session: str | None) -> tuple[Request, object]:
    rq = Request.make(question, max_seconds=60, session=session, origin="cli")
    return rq, qa.answer(rq)


def test_a_follow_up_starts_from_the_previous_sql_and_is_kept(
    ws: Path, tmp_path: Path, llm: FunctionLLM
) -> None:
    with QA.open(ws, settings=Settings(embedder="hashing"), llm=llm, home=tmp_path) as qa:
        rq1 = Request.make("How many refunds are there in total?", max_seconds=60, session="s1")
        first = qa.answer(rq1)
        rq2 = Request.make("and for reason R02?", max_seconds=60, session="s1")
        second = qa.answer(rq2)
    assert first.sql is not None and first.standalone_question is None
    assert "fact_refund" in first.sql and "R02" not in first.sql
    assert second.question == "and for reason R02?"
    assert second.standalone_question == "How many refunds are there for reason R02?"
    assert second.sql is not None and "reason_code = 'R02'" in second.sql
    assert second.timings_ms["total"] >= second.timings_ms["routing"] > 0
    resolver = [c for c in llm.history if RESOLVER in c.messages[0]["content"]]
    assert len(resolver) == 1  # the first question had no cue: no call
    sql_prompt = next(
        c.messages[-1]["content"]
        for c in llm.history
        if "SELECT" in c.messages[0]["content"] and "R02?" in c.messages[-1]["content"]
    )
    assert first.sql in sql_prompt  # the previous query, offered as the starting point
    found = sessions.get(tmp_path, "s1")  # kept where the conversations live (home)
    assert found is not None
    assert [(t.n, t.answer_id) for t in found.turns] == [(1, rq1.id), (2, rq2.id)]
    assert found.turns[1].standalone == "How many refunds are there for reason R02?"
    assert found.turns[1].filter_values == ("R02",) and found.turns[1].columns == ("refunds",)
    assert found.turns[1].row_count == 1
    assert not (ws / "service.sqlite").exists() or sessions.get(ws, "s1") is None


def test_a_chinese_follow_up_changes_the_region(ws: Path, tmp_path: Path, llm: FunctionLLM) -> None:
    with QA.open(ws, settings=Settings(embedder="hashing"), llm=llm, home=tmp_path) as qa:
        first = qa.answer(Request.make("华东的销售单有多少笔？", max_seconds=60, session="zh"))
        second = qa.answer(Request.make("那华南呢？", max_seconds=60, session="zh"))
    assert second.standalone_question == "华南的销售单有多少笔？"
    assert first.path == "nl2sql" and first.sql is not None
    assert second.sql is not None and "'SOUTH'" in second.sql
    assert second.question == "那华南呢？" and second.path == "nl2sql"


def test_a_follow_up_without_a_cue_still_reads_the_conversation(
    ws: Path, tmp_path: Path, llm: FunctionLLM
) -> None:
    """ "用什么语言播放？" after "Sky Radio播放什么？" has no cue word: it is not rewritten (no
    resolver call), but its SQL model reads the earlier question and query all the same."""
    with QA.open(ws, settings=Settings(embedder="hashing"), llm=llm, home=tmp_path) as qa:
        first = qa.answer(Request.make("华东的销售单有多少笔？", max_seconds=60, session="nc"))
        qa.answer(Request.make("退款一共有多少笔？", max_seconds=60, session="nc"))
    assert first.sql is not None
    assert not any(RESOLVER in c.messages[0]["content"] for c in llm.history)
    prompts = [
        c.messages[-1]["content"] for c in llm.history if "SELECT" in c.messages[0]["content"]
    ]
    assert "之前的问题" not in prompts[0]  # the first turn has nothing before it
    assert "- 华东的销售单有多少笔？\n" in prompts[-1] and first.sql in prompts[-1]
    assert prompts[-1].rstrip().endswith("当前问题：退款一共有多少笔？")


def test_a_period_an_earlier_question_named_is_not_doubted_as_unasked(
    ws: Path, tmp_path: Path
) -> None:
    """The resolver's rewrite of "那华南呢？" drops the month the first question named; the
    SQL model keeps it from the previous query, and the checks read what the user said, so
    the answer is not doubted for "a period the question does not name". Outside a
    conversation the same question and query are (there the documents' fallback answers)."""
    period = " AND s.order_date BETWEEN '2026-10-01' AND '2026-10-31'"
    first_q, follow = "2026年10月华东的销售单有多少笔？", "那华南呢？"

    def model(messages: Sequence[Message]) -> str:
        system, user = messages[0]["content"], messages[-1]["content"]
        if RESOLVER in system:
            return json.dumps(
                {
                    "standalone_question": "查询华南的销售单数量",
                    "modifies_previous_query": True,
                    "refers_to_earlier": True,
                },
                ensure_ascii=False,
            )
        if "SELECT" in system:
            south = f"当前问题：{follow}" in user or "查询华南的销售单数量" in user
            return f"```sql\n{(SOUTH_SQL if south else EAST_SQL) + period}\n```"
        return "The count is as the result shows."

    settings = Settings(embedder="hashing")
    with QA.open(ws, settings=settings, llm=FunctionLLM(model), home=tmp_path) as qa:
        first = qa.answer(Request.make(first_q, max_seconds=60, session="p"))
        second = qa.answer(Request.make(follow, max_seconds=60, session="p"))
        alone = qa.answer(Request.make("查询华南的销售单数量", max_seconds=60))
    assert first.status == "ok", first.answer
    assert second.standalone_question == "查询华南的销售单数量"
    assert second.sql is not None and "'SOUTH'" in second.sql and "2026-10-01" in second.sql
    assert second.status == "ok", second.answer
    assert not any(f.code == "unasked_period" for f in second.findings)
    assert alone.sql == second.sql  # asked alone, the same query is doubted
    doubted = alone.fallback
    assert doubted is not None and doubted.from_status == "unsure"
    assert "没有限定时间" in doubted.reason and second.fallback is None


def test_a_follow_up_the_router_cannot_place_continues_where_the_conversation_was(
    ws: Path, tmp_path: Path, llm: FunctionLLM
) -> None:
    """ "这个呢？" asked outside a session is asked back with example questions; after a data
    answer in its session it goes to the data, its SQL model reading the conversation."""
    with QA.open(ws, settings=Settings(embedder="hashing"), llm=llm, home=tmp_path) as qa:
        _, alone = _ask(qa, "这个呢？", None)
        _ask(qa, "How many refunds are there in total?", "vague")
        rq, follow = _ask(qa, "这个呢？", "vague")
    assert alone.status == "clarify" and alone.route is not None
    assert alone.route.intent == "ambiguous"
    assert follow.path == "nl2sql" and follow.sql is not None and follow.route is not None
    assert follow.route.intent == "data"
    assert "continues the previous turn (nl2sql)" in follow.route.reasons[0]
    routes = [e.data["intent"] for e in rq.trace.events if e.kind == "route"]
    assert routes == ["ambiguous", "data"]  # both decisions are in the trace


def test_a_document_follow_up_keeps_the_documents_in_view(
    ws: Path, tmp_path: Path, llm: FunctionLLM
) -> None:
    with QA.open(ws, settings=Settings(embedder="hashing"), llm=llm, home=tmp_path) as qa:
        qa.answer(Request.make("What is the refund policy?", max_seconds=60, session="d"))
        second = qa.answer(Request.make("and for damaged goods?", max_seconds=60, session="d"))
    assert second.standalone_question == "What is the refund policy for damaged goods?"
    assert second.path == "rag" and second.citations
    turns = sessions.get(tmp_path, "d")
    assert turns is not None and turns.turns[1].chunk_ids


def test_a_first_turn_with_nothing_to_follow_is_asked_back(
    ws: Path, tmp_path: Path, llm: FunctionLLM
) -> None:
    with QA.open(ws, settings=Settings(embedder="hashing"), llm=llm, home=tmp_path) as qa:
        rq = Request.make("那个呢", max_seconds=60, session="new-one")
        answer = qa.answer(rq)
    assert (
        answer.status == "clarify" and "那个呢" in answer.answer and "第一个问题" in answer.answer
    )
    assert llm.history == []  # no model call, no SQL
    assert (
        rq.trace.events[0].kind == "followup" and rq.trace.events[0].data["resolution"] == "orphan"
    )


def test_without_a_session_nothing_is_resolved_or_kept(
    ws: Path, tmp_path: Path, llm: FunctionLLM
) -> None:
    with QA.open(ws, settings=Settings(embedder="hashing"), llm=llm, home=tmp_path) as qa:
        answer = qa.answer(Request.make("and for reason R02?", max_seconds=60))
    assert answer.standalone_question is None
    assert not any(RESOLVER in c.messages[0]["content"] for c in llm.history)
    assert sessions.listed(tmp_path) == []


def test_a_pick_continues_a_question_that_was_asked_back(
    ws: Path, tmp_path: Path, llm: FunctionLLM
) -> None:
    with QA.open(ws, settings=Settings(embedder="hashing"), llm=llm, home=tmp_path) as qa:
        vague = qa.answer(Request.make("帮我看看", max_seconds=60, session="pick"))
        wrong = qa.answer(Request.make("5", max_seconds=60, session="pick"))
        picked = qa.answer(Request.make("2", max_seconds=60, session="pick"))
    assert vague.status == "clarify" and len(vague.clarifications) == 2
    assert wrong.status == "clarify" and "1–2" in wrong.answer
    assert wrong.clarifications == vague.clarifications  # offered again: a later pick works
    assert picked.standalone_question == vague.clarifications[1].question
    assert picked.question == "2" and picked.path == "rag" and picked.citations
    turns = sessions.get(tmp_path, "pick")
    assert (
        turns is not None and [t.standalone for t in turns.turns][-1] == picked.standalone_question
    )


def test_a_question_pointing_back_with_nothing_before_it_is_unsure(
    ws: Path, tmp_path: Path, llm: FunctionLLM
) -> None:
    """ "它们一共有多少笔？" asked alone: the query answers some reading of "它们", not one the
    asker can be known to mean, so the answer is not ``ok`` and says which word it cannot
    place; the same kind of pronoun in a follow-up whose SQL model read the earlier turn is
    not doubted."""
    with QA.open(ws, settings=Settings(embedder="hashing"), llm=llm, home=tmp_path) as qa:
        _, alone = _ask(qa, "它们一共有多少笔？", None)
        _, first = _ask(qa, "How many refunds are there in total?", "s-ref")
        _, follow = _ask(qa, "它们里原因是 R02 的呢？", "s-ref")
    assert alone.status == "unsure" and "unresolved_reference" in alone.checks, alone.answer
    assert "“它们”" in alone.answer.splitlines()[0]
    assert "unresolved_reference" in [f.code for f in alone.findings if f.severity == "doubt"]
    assert first.status == "ok"
    assert follow.sql is not None and "R02" in follow.sql
    assert "unresolved_reference" not in follow.checks, follow.answer
