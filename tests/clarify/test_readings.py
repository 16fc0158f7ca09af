"""Clarification as a turn (issue 34): the readings found on the sample workspace (with its
semantic model), asked back with choices and no model call, and a pick answered as it stands."""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Sequence
from pathlib import Path

import pytest

from tablerag.clarify import find_readings, names_period
from tablerag.llm.base import Message
from tablerag.llm.testing import FunctionLLM
from tablerag.request import Request
from tablerag.sample import MODEL_NAME
from tablerag.semantic.library import import_document, read_file
from tablerag.service import QA, Workspace
from tablerag.settings import Settings
from tests.plugins.answering import build_sample_workspace

TODAY = dt.date(2026, 11, 15)
SETTINGS = Settings(embedder="hashing", today=TODAY)
REQUEST = "metrics"  # the semantic request's schema names its fields


@pytest.fixture(scope="module")
def ws(sample_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = build_sample_workspace(sample_dir, tmp_path_factory.mktemp("clarify") / "ws")
    with Workspace.open(root) as opened:
        import_document(
            opened.con, read_file(sample_dir / MODEL_NAME), opened.tables(), origin=MODEL_NAME
        )
    return root


def _reply(messages: Sequence[Message]) -> str:
    """A semantic request for net sales in 2026-10; SQL for anything else."""
    system = messages[0]["content"]
    if "SELECT" in system and "JSON" not in system:
        return "```sql\nSELECT count(*) AS n FROM fact_sales\n```"
    return json.dumps({"metrics": ["net_sales"], "time_range": {"period": "last_month"}})


@pytest.fixture(scope="module")
def qa(ws: Path, tmp_path_factory: pytest.TempPathFactory) -> QA:
    home = tmp_path_factory.mktemp("home")
    opened = QA.open(ws, settings=SETTINGS, llm=FunctionLLM(_reply), home=home)
    yield opened
    opened.close()


def _readings(qa: QA, question: str):  # type: ignore[no-untyped-def]
    work = qa.work(Request.make(question, max_seconds=60))
    place = work.place(question, "nl2sql")
    assert not hasattr(place, "answer")
    source, engine = place  # type: ignore[misc]
    return find_readings(
        question,
        language=work.language,  # type: ignore[arg-type]
        today=TODAY,
        catalog=qa.sources.catalog_of(source),
        linked=work.linked(question, source, engine).linked,
        knowledge=work.usable(source, engine),
    )


@pytest.mark.parametrize(
    ("question", "kind", "places"),
    [
        pytest.param("销售额是多少？", "period", 3, id="metric-without-period-zh"),
        pytest.param("What is net revenue?", "period", 3, id="metric-without-period-en"),
        pytest.param("华东的毛利是多少？", "period", 3, id="gross-profit-no-period"),
        pytest.param("华东第三季度是多少？", "value", 2, id="value-in-two-tables"),
        pytest.param("上月华东的金额是多少？", "column", 3, id="amount-columns-alike"),
    ],
)
def test_a_question_with_readings_that_differ_gets_choices(
    qa: QA, question: str, kind: str, places: int
) -> None:
    found = _readings(qa, question)
    assert found is not None and found.kind == kind
    assert len(found.choices) == places and 2 <= places <= 4
    for choice in found.choices:
        again = _readings(qa, choice.question)  # a choice's question has one reading
        assert again is None, (choice.question, again)


@pytest.mark.parametrize(
    "question",
    [
        "上月华东的销售额是多少？",  # metric and period: one reading (the default caliber)
        "毛利率是多少？",  # a ratio needs no period
        "各大区的退货率",
        "How many orders were paid in 2026-09?",
        "按月的订单数",  # over time
        "华北区有多少名销售员工？",  # a value one table holds
        "列出价格最高的5个商品",
        "2026年10月华东的毛利是多少？",
    ],
)
def test_a_question_with_one_reading_gets_none(qa: QA, question: str) -> None:
    assert _readings(qa, question) is None


def test_the_all_time_choice_names_its_period() -> None:
    assert names_period("不限时间，销售额是多少？") and names_period("Net sales over all time?")


def test_asked_back_with_no_model_call_and_a_pick_is_answered(ws: Path, tmp_path: Path) -> None:
    llm = FunctionLLM(_reply)
    with QA.open(ws, settings=SETTINGS, llm=llm, home=tmp_path) as opened:
        rq = Request.make("销售额是多少？", max_seconds=60, session="c")
        asked = opened.answer(rq)
        assert llm.history == []  # found from the semantic model alone
        picked = opened.answer(Request.make("1", max_seconds=60, session="c"))
        # a new question later in the session, not rewritten: asked back all the same
        again = opened.answer(Request.make("销售额是多少？", max_seconds=60, session="c"))
        opened.answer(Request.make("销售额是多少？", max_seconds=60, session="t"))
        by_text = opened.answer(Request.make("全部数据", max_seconds=60, session="t"))
    assert asked.status == "clarify" and asked.path == "clarify"
    assert "销售额" in asked.answer and "时间" in asked.answer
    labels = [c.label for c in asked.clarifications]
    assert labels[0] == "上月（2026-10）的销售额" and "2026 年至今" in labels[1]
    assert asked.clarifications[0].question == "2026年10月销售额是多少？"
    assert [e.data for e in rq.trace.events if e.kind == "clarify"] == [
        {"reading": "period", "choices": 3}
    ]
    assert picked.standalone_question == "2026年10月销售额是多少？"
    assert picked.status == "ok" and picked.sql is not None and "net_amt" in picked.sql
    assert picked.knowledge and picked.knowledge[0].name == "net_sales"
    # answered with the default caliber; the other one is offered as the next turn's choice
    (other,) = picked.clarifications
    assert other.label.startswith("销售额：应收口径")
    assert other.question.startswith("2026年10月销售额是多少（销售额按“应收口径")
    assert by_text.standalone_question == "不限时间，销售额是多少？"  # picked by its text
    assert again.status == "clarify" and again.clarifications == asked.clarifications
    assert by_text.status == "ok"


def test_a_text_pick_and_the_setting_off(ws: Path, tmp_path: Path) -> None:
    with QA.open(ws, settings=SETTINGS, llm=FunctionLLM(_reply), home=tmp_path) as opened:
        opened.answer(Request.make("华东第三季度是多少？", max_seconds=60, session="v"))
        picked = opened.answer(Request.make("区域销售制度_table_1", max_seconds=60, session="v"))
    assert picked.standalone_question == "华东第三季度是多少（华东 指 区域销售制度_table_1.大区）"
    assert picked.status != "clarify"
    off = SETTINGS.model_copy(update={"ask_back": False})
    with QA.open(ws, settings=off, llm=FunctionLLM(_reply), home=tmp_path) as opened:
        answered = opened.answer(Request.make("销售额是多少？", max_seconds=60))
    assert answered.status != "clarify" and answered.sql is not None


def test_an_english_question_gets_english_choices(qa: QA) -> None:
    answer = qa.answer(Request.make("What is net revenue?", max_seconds=60))
    assert answer.status == "clarify" and answer.answer.startswith("“net sales” is computed")
    assert answer.route is not None and answer.route.intent == "hybrid"
    assert answer.llm.calls == 0  # asked back before the documents path ran
    assert [c.question for c in answer.clarifications] == [
        "What is net revenue in 2026-10?",
        "What is net revenue in 2026?",
        "What is net revenue over all time?",
    ]


def test_a_metric_over_data_long_past_is_answered_over_all_of_it(qa: QA) -> None:
    """The sample's data ends in 2026-10: asked in 2028 it is a record of the past, and a
    metric named without a period means all of it (no ask-back); in 2026-11 it is asked."""
    question = "销售额是多少？"
    work = qa.work(Request.make(question, max_seconds=60))
    source, engine = work.place(question, "nl2sql")  # type: ignore[misc]

    def readings(today: dt.date):  # type: ignore[no-untyped-def]
        return find_readings(
            question,
            language="zh",
            today=today,
            catalog=qa.sources.catalog_of(source),
            linked=work.linked(question, source, engine).linked,
            knowledge=work.usable(source, engine),
        )

    assert readings(TODAY) is not None
    assert readings(dt.date(2028, 1, 10)) is None
