"""The verified-query hook in ``Work.sql``: a matching question reuses the pair's SQL with no
model call; others get the closest pairs in the SQL prompt; a pair the gate refuses is never
used."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from tablerag.examples.reuse import CHECK
from tablerag.llm.base import Message
from tablerag.llm.testing import FunctionLLM
from tablerag.request import Request
from tablerag.service import QA
from tablerag.settings import Settings
from tablerag.store.examples import Example, add_examples
from tablerag.store.workspace import Workspace

SETTINGS = Settings(today="2026-11-15", embedder="hashing")  # type: ignore[arg-type]
REFUNDS = Example(
    "How many refunds are there in total?",
    "SELECT count(*) AS refunds FROM fact_refund",
    "files",
    verified_by="li",
)
BY_REASON = Example(
    "How many refunds are there per reason code?",
    "SELECT reason_code, count(*) AS n FROM fact_refund GROUP BY reason_code",
    "files",
)
BROKEN = Example(  # reads a hidden column: the gate refuses it
    "How many refunds are there per employee mobile?",
    "SELECT mobile, count(*) FROM dim_employee GROUP BY mobile",
    "files",
)


def _store(ws: Path, *pairs: Example) -> None:
    with Workspace.open(ws) as w, w.transaction() as con:
        add_examples(con, pairs)


def _sql_model(sql: str) -> FunctionLLM:
    def reply(messages: Sequence[Message]) -> str:
        if "SELECT" in messages[0]["content"]:
            return f"```sql\n{sql}\n```"
        return "There are refunds."

    return FunctionLLM(reply)


def test_a_matching_question_reuses_the_verified_sql_without_a_model_call(ws: Path) -> None:
    _store(ws, REFUNDS, BY_REASON)
    llm = _sql_model("SELECT 1")
    with QA.open(ws, llm=llm, settings=SETTINGS) as qa:
        rq = Request.make("how many refunds are there in total", max_seconds=60)
        answer = qa.answer(rq)
    sql_events = [e.data["note"] for e in rq.trace.events if e.kind == "sql"]
    assert sql_events == [f"verified query {REFUNDS.id}"]  # the event stream shows it
    assert answer.status == "ok" and answer.llm.calls == 0 and not llm.history
    assert answer.table is not None and answer.table.rows == [[152]]
    assert [(k.kind, k.name) for k in answer.knowledge] == [("example", REFUNDS.id)]
    assert CHECK in answer.checks
    assert "Answered with a verified query" in answer.answer and "li" in answer.answer
    assert answer.sql_attempts[0].note == f"verified query {REFUNDS.id}"


def test_other_questions_see_the_closest_pairs_and_never_a_refused_one(ws: Path) -> None:
    _store(ws, REFUNDS, BY_REASON, BROKEN)
    llm = _sql_model("SELECT count(*) AS refunds FROM fact_refund WHERE reason_code = 'R02'")
    with QA.open(ws, llm=llm, settings=SETTINGS) as qa:
        answer = qa.ask("How many refunds are there for reason code R02?")
        # the refused pair is as close as the others, and the same question reuses nothing
        reused = qa.ask("How many refunds are there per employee mobile?")
    assert answer.status == "ok" and not answer.knowledge
    prompt = llm.history[0].messages[-1]["content"]
    assert "-- Verified examples" in prompt
    assert "-- Q: How many refunds are there in total?" in prompt
    assert BY_REASON.sql in prompt
    assert "mobile" not in prompt
    assert not reused.knowledge and CHECK not in reused.checks


def test_the_setting_turns_verified_queries_off(ws: Path) -> None:
    _store(ws, REFUNDS)
    llm = _sql_model("SELECT count(*) AS refunds FROM fact_refund")
    off = SETTINGS.model_copy(update={"examples": False})
    with QA.open(ws, llm=llm, settings=off) as qa:
        answer = qa.ask("How many refunds are there in total?")
    assert answer.llm.calls >= 1 and not answer.knowledge
    assert "Verified examples" not in llm.history[0].messages[-1]["content"]


def test_a_pair_that_passes_the_gate_but_no_longer_runs_is_dropped(ws: Path) -> None:
    fails = Example(  # reason codes are 'R01'...: the cast fails when it runs
        "How many refunds are there per reason number?",
        "SELECT CAST(reason_code AS INTEGER) AS n FROM fact_refund",
        "files",
    )
    _store(ws, fails, REFUNDS)
    llm = _sql_model("SELECT DISTINCT reason_code FROM fact_refund")
    with QA.open(ws, llm=llm, settings=SETTINGS) as qa:
        answer = qa.ask("How many refunds are there per reason number?")
    assert not answer.knowledge and answer.llm.calls >= 1
    prompt = llm.history[0].messages[-1]["content"]
    assert "CAST(reason_code" not in prompt and "-- Q: How many refunds" in prompt


def test_a_reused_answer_goes_through_the_answer_checks(ws: Path) -> None:
    """A verified pair for 上海 matched by a question about 广东 (close enough at a low reuse
    threshold): the checks find 广东 named but not filtered on, so the SQL is not reused; the
    model writes the query, with the pair among its examples."""
    east = Example(
        "上海的已支付订单有多少笔？",
        "SELECT count(DISTINCT s.order_id) AS orders FROM fact_sales s JOIN dim_region r "
        "ON s.region_code = r.region_code WHERE r.region_name = '上海' AND s.status = 'PAID'",
        "files",
    )
    _store(ws, east)
    south = east.sql.replace("上海", "广东")
    llm = _sql_model(south)
    loose = SETTINGS.model_copy(update={"examples_reuse_min_similarity": 0.5})
    with QA.open(ws, llm=llm, settings=loose) as qa:
        reused = qa.ask("上海的已支付订单有多少笔？")
        other = qa.ask("广东的已支付订单有多少笔？")
    assert [k.kind for k in reused.knowledge] == ["example"] and reused.llm.calls == 0, (
        reused.answer,
        reused.checks,
    )
    assert not other.knowledge and other.llm.calls >= 1, other.answer
    assert "广东" in (other.sql or "")
    assert "-- Q: 上海的已支付订单有多少笔？" in llm.history[0].messages[-1]["content"]


REASONS = Example(
    "What reasons do customers give for refunds?",
    "SELECT reason_name FROM dim_refund_reason ORDER BY reason_code",
    "files",
)


def test_a_verified_question_is_reused_where_the_router_sends_it_elsewhere(ws: Path) -> None:
    """The router calls this question hybrid (documents and data); a person verified its SQL,
    so it is answered from that SQL, as on the data path."""
    _store(ws, REASONS)
    llm = FunctionLLM(lambda messages: "The documents list several reasons [1].")
    with QA.open(ws, llm=llm, settings=SETTINGS) as qa:
        rq = Request.make(REASONS.question, max_seconds=60)
        answer = qa.answer(rq)
    assert answer.route is not None and answer.route.intent == "hybrid"
    assert [(k.kind, k.name) for k in answer.knowledge] == [("example", REASONS.id)]
    assert answer.status == "ok" and answer.table is not None
    assert answer.table.rows[0] == ["七天无理由退货"]
    assert [e.data["note"] for e in rq.trace.events if e.kind == "sql"] == [
        f"verified query {REASONS.id}"
    ]
    off = SETTINGS.model_copy(update={"examples": False})
    with QA.open(ws, llm=llm, settings=off) as qa:
        plain = qa.ask(REASONS.question)
    assert not [k for k in plain.knowledge if k.kind == "example"]
