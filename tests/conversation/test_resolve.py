"""Resolving a follow-up against its session: cues first, one constrained call, the orphan."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from tablerag.conversation import filter_values, resolve, said, sql_context
from tablerag.errors import ProviderError
from tablerag.lang.followups import dependency_cues, modifies_query
from tablerag.llm.testing import ScriptedLLM
from tablerag.store.sessions import Turn

FIRST = Turn(
    "华东的销售单有多少笔？",
    "华东的销售单有多少笔？",
    "a1",
    path="nl2sql",
    status="ok",
    sql="SELECT count(*) AS orders FROM fact_sales WHERE region_code = 'EAST'",
    columns=("orders",),
    row_count=1,
    filter_values=("EAST",),
    answer="共 812 笔。",
    n=1,
)


def _reply(**fields: object) -> str:
    return json.dumps(
        {"standalone_question": "华南的销售单有多少笔？", "refers_to_earlier": True, **fields},
        ensure_ascii=False,
    )


@pytest.mark.parametrize(
    ("question", "dependent"),
    [
        pytest.param("那华南呢？", True, id="zh-ellipsis"),
        pytest.param("按渠道拆开", True, id="zh-split"),
        pytest.param("和去年同期比呢？", True, id="zh-compare"),
        pytest.param("他们合计多少", True, id="zh-pronoun"),
        pytest.param("and for damaged goods?", True, id="en-and-for"),
        pytest.param("What about last year?", True, id="en-what-about"),
        pytest.param("Only their names", True, id="en-only-their"),
        pytest.param("上月华东的毛利是多少？", False, id="zh-alone"),
        pytest.param("What is the refund policy for damaged goods?", False, id="en-alone"),
        pytest.param("How many refunds are there in total?", False, id="en-count-alone"),
    ],
)
def test_cues_tell_follow_ups_from_questions_that_stand_alone(
    question: str, dependent: bool
) -> None:
    assert bool(dependency_cues(question)) is dependent


def test_a_change_of_the_query_is_told_from_a_new_topic() -> None:
    assert modifies_query("按渠道拆开") and modifies_query("only their names")
    assert not modifies_query("and for damaged goods?")


def test_a_question_without_cues_costs_no_model_call() -> None:
    llm = ScriptedLLM()
    res = resolve("上月华东的毛利是多少？", [FIRST], llm=llm, language="zh", timeout_s=5)
    assert res.kind == "alone" and res.standalone == "上月华东的毛利是多少？"
    assert llm.history == []


def test_a_follow_up_is_rewritten_with_one_constrained_call_showing_the_previous_sql() -> None:
    llm = ScriptedLLM(replies=[_reply(modifies_previous_query=True)])
    res = resolve("那华南呢？", [FIRST], llm=llm, language="zh", timeout_s=5)
    assert res.kind == "resolved" and res.standalone == "华南的销售单有多少笔？"
    assert res.base == FIRST  # its SQL is the SQL model's starting point
    (call,) = llm.history
    assert call.json_schema is not None and "standalone_question" in call.json_schema["properties"]
    prompt = call.messages[-1]["content"]
    assert FIRST.sql in prompt and "filtered on EAST" in prompt and "那华南呢？" in prompt


def test_a_follow_up_on_a_new_topic_keeps_no_sql_base() -> None:
    llm = ScriptedLLM(replies=[_reply(modifies_previous_query=False)])
    res = resolve("那华南呢？", [FIRST], llm=llm, language="zh", timeout_s=5)
    assert res.kind == "resolved" and res.base is None


def test_the_model_may_say_the_question_stands_alone() -> None:
    llm = ScriptedLLM(replies=[_reply(standalone_question="按月汇总", refers_to_earlier=False)])
    res = resolve("按月汇总", [FIRST], llm=llm, language="zh", timeout_s=5)
    assert res.kind == "alone" and res.standalone == "按月汇总"


def test_a_failed_call_answers_the_question_as_asked() -> None:
    llm = ScriptedLLM(replies=[ProviderError("down")])
    res = resolve("那华南呢？", [FIRST], llm=llm, language="zh", timeout_s=5)
    assert res.kind == "unresolved" and res.standalone == "那华南呢？"


def test_a_rewrite_that_is_sql_answers_the_question_as_asked() -> None:
    """The 1.5B resolver sometimes writes the follow-up's query as its "standalone question";
    that is no question to route, search or check: the follow-up is answered as worded (its
    SQL model still reads the conversation)."""
    sql = "SELECT count(*) FROM fact_sales WHERE region_code = 'SOUTH'"
    llm = ScriptedLLM(replies=[_reply(standalone_question=sql)])
    res = resolve("那华南呢？", [FIRST], llm=llm, language="zh", timeout_s=5)
    assert res.kind == "unresolved" and res.standalone == "那华南呢？"


def test_an_invalid_reply_is_asked_again_once() -> None:
    llm = ScriptedLLM(replies=["not json", _reply()])
    res = resolve("那华南呢？", [FIRST], llm=llm, language="zh", timeout_s=5)
    assert res.kind == "resolved" and len(llm.history) == 2


@pytest.mark.parametrize(
    ("question", "kind"),
    [
        pytest.param("那个呢", "orphan", id="zh-that-one"),
        pytest.param("他们合计多少", "orphan", id="zh-they"),
        pytest.param("what about them?", "orphan", id="en-them"),
        pytest.param("按月汇总销售额", "alone", id="zh-starts-but-complete"),
        pytest.param("and for damaged goods?", "alone", id="en-continuation-first"),
    ],
)
def test_a_first_turn_that_leans_on_nothing_is_an_orphan(question: str, kind: str) -> None:
    llm = ScriptedLLM()
    assert resolve(question, [], llm=llm, language="zh", timeout_s=5).kind == kind
    assert llm.history == []


def test_the_sql_context_holds_the_earlier_questions_and_the_last_query() -> None:
    policy = Turn("退货政策是什么？", "退货政策是什么？", "a2", path="rag", sql="SELECT 1")
    failed = Turn("按月呢？", "按月呢？", "a3", path="nl2sql", status="error", sql="SELECT 2")
    zh = sql_context([FIRST, policy, failed], "zh")
    lines = zh.splitlines()
    assert lines[:4] == ["之前的问题：", *(f"- {t.question}" for t in (FIRST, policy, failed))]
    # the last query that answered from the data and ran: not the documents', not a failure
    assert FIRST.sql in zh and "SELECT 1" not in zh and "SELECT 2" not in zh
    assert zh.endswith("当前问题：")
    assert sql_context([policy], "en") == (
        "Earlier questions:\n- 退货政策是什么？\nCurrent question: "
    )
    assert sql_context([], "en") == ""


def test_a_picked_choice_is_listed_as_the_question_it_picked() -> None:
    offered = (
        ("按净额", "华东10月的净额销售额是多少？"),
        ("按含税额", "华东10月的含税销售额是多少？"),
    )
    asked_back = replace(FIRST, question="华东10月的销售额是多少？", choices=offered, n=1)
    pick = Turn("2", "华东10月的含税销售额是多少？", "a2", path="nl2sql", sql="SELECT 2", n=2)
    lines = sql_context([asked_back, pick], "zh").splitlines()
    assert lines[1:3] == ["- 华东10月的销售额是多少？", "- 华东10月的含税销售额是多少？"]
    assert said([asked_back, pick], "那华南呢？").splitlines()[1:] == [
        "华东10月的含税销售额是多少？",
        "那华南呢？",
    ]


def test_filter_values_come_from_where_and_having_only() -> None:
    sql = (
        "SELECT region_code, count(*) FROM fact_sales WHERE status = 'PAID' AND "
        "region_code IN ('EAST', 'SOUTH') GROUP BY 1 HAVING count(*) > 10 LIMIT 5"
    )
    assert filter_values(sql) == ("PAID", "EAST", "SOUTH", "10")


OFFERED = (
    ("按净额", "2026年10月华东的净额销售额是多少？"),
    ("按含税额", "2026年10月华东的含税销售额是多少？"),
)
ASKED_BACK = Turn("华东上月卖了多少？", "华东上月卖了多少？", "a0", path="clarify", choices=OFFERED)


@pytest.mark.parametrize(
    ("reply", "picked"),
    [
        pytest.param("2", 1, id="number"),
        pytest.param("选1", 0, id="zh-pick-number"),
        pytest.param("第二个", 1, id="zh-ordinal"),
        pytest.param("the first one", 0, id="en-ordinal"),
        pytest.param("按含税额", 1, id="label"),
        pytest.param("2026年10月华东的净额销售额是多少", 0, id="question-text"),
        pytest.param("净额", 0, id="part-of-one-label"),
    ],
)
def test_a_reply_picks_a_choice_without_a_model_call(reply: str, picked: int) -> None:
    llm = ScriptedLLM()
    res = resolve(reply, [ASKED_BACK], llm=llm, language="zh", timeout_s=5)
    assert res.kind == "picked" and res.standalone == OFFERED[picked][1]
    assert llm.history == []


def test_a_number_no_choice_has_is_asked_back_with_the_choices() -> None:
    res = resolve("5", [ASKED_BACK], llm=ScriptedLLM(), language="zh", timeout_s=5)
    assert res.kind == "no_choice" and res.choices == OFFERED


def test_a_new_question_after_choices_is_not_taken_for_a_pick() -> None:
    llm = ScriptedLLM()
    res = resolve("上月华北的毛利是多少？", [ASKED_BACK], llm=llm, language="zh", timeout_s=5)
    assert res.kind == "alone" and res.standalone == "上月华北的毛利是多少？"
