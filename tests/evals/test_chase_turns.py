"""CHASE through the product's conversation path (issue 34): an interaction's turns asked in
order in one session (the follow-up resolved, the previous SQL its starting point), against
each turn asked alone; on a tiny CHASE-shaped folder with a scripted model."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import pytest

from tablerag.evals.report import render_markdown
from tablerag.evals.runner import summarise
from tablerag.evals.sql_task import SQLTask, load_sql_dataset
from tablerag.llm.base import Message
from tablerag.llm.testing import FunctionLLM
from tests.evals.test_sql_task import TABLES_RECORD, make_db, sql_reply

NAMES = "SELECT name FROM singer WHERE country = 'France'"
AGES = "SELECT age FROM singer WHERE country = 'France'"
COUNT = "SELECT count(*) FROM singer"
RESOLVER = "You rewrite the last question"
STANDALONE = "法国歌手的年龄分别是多少？"


def _reply(messages: Sequence[Message]) -> str:
    system, user = messages[0]["content"], messages[-1]["content"]
    if RESOLVER in system:
        return json.dumps(
            {
                "standalone_question": STANDALONE,
                "modifies_previous_query": True,
                "refers_to_earlier": True,
            },
            ensure_ascii=False,
        )
    if "SELECT" in system:
        # read as worded, after the earlier question, from the previous SQL
        if "- 法国有哪些歌手？\n" in user and NAMES in user and "当前问题：他们的年龄呢？" in user:
            return sql_reply(AGES)
        if "法国有哪些歌手" in user:
            return sql_reply(NAMES)
        if "How many singers" in user:
            return sql_reply(COUNT)
        return sql_reply("SELECT age FROM singer")  # "their age" with nothing before it
    return "结果如上表。"


def make_chase(root: Path) -> Path:
    """A CHASE-format folder: two interactions on one database."""
    make_db(root / "database" / "concerts" / "concerts.sqlite")
    (root / "tables.json").write_text(json.dumps([TABLES_RECORD]), encoding="utf-8")
    interactions = [
        {
            "database_id": "concerts",
            "interaction": [
                {"utterance": "法国有哪些歌手？", "query": NAMES},
                {"utterance": "他们的年龄呢？", "query": AGES},
            ],
        },
        {
            "database_id": "concerts",
            "interaction": [{"utterance": "How many singers are there?", "query": COUNT}],
        },
    ]
    (root / "chase_dev.json").write_text(json.dumps(interactions), encoding="utf-8")
    return root


@pytest.fixture
def chase(tmp_path: Path) -> Path:
    return make_chase(tmp_path / "chase")


def _resolver_calls(llm: FunctionLLM) -> int:
    return sum(RESOLVER in c.messages[0]["content"] for c in llm.history)


def test_the_turns_are_asked_in_one_session(chase: Path) -> None:
    data = load_sql_dataset("chase", chase)
    llm = FunctionLLM(_reply)
    task = SQLTask(data, llm)
    try:
        (method,) = task.methods(["tablerag"])
        outcomes = [method(c) for c in data.cases]
    finally:
        task.close()
    assert [o.correct for o in outcomes] == [True, True, True]
    first, second, other = (o.detail for o in outcomes)
    assert first["session"] == second["session"] != other["session"]
    assert first["standalone"] is None and second["standalone"] == STANDALONE
    assert _resolver_calls(llm) == 1
    report = render_markdown(summarise(outcomes), outcomes, {"task": "sql"})
    assert "| tablerag | 100.0% | 2 |" in report  # interaction accuracy: both interactions right


def test_each_turn_alone_is_the_baseline(chase: Path) -> None:
    data = load_sql_dataset("chase", chase)
    llm = FunctionLLM(_reply)
    task = SQLTask(data, llm, turns="alone")
    try:
        (method,) = task.methods(["tablerag"])
        outcomes = [method(c) for c in data.cases]
    finally:
        task.close()
    assert [o.correct for o in outcomes] == [True, False, True]
    assert all(o.detail["session"] is None for o in outcomes)
    report = render_markdown(summarise(outcomes), outcomes, {"task": "sql"})
    assert "| tablerag | 50.0% | 2 |" in report
    assert _resolver_calls(llm) == 0
    asked = [c.messages[-1]["content"] for c in llm.history if "SELECT" in c.messages[0]["content"]]
    assert not any("之前的问题" in text for text in asked)  # no history written by the harness


def test_a_turn_asked_first_asks_its_earlier_turns_before_it(chase: Path) -> None:
    data = load_sql_dataset("chase", chase)
    llm = FunctionLLM(_reply)
    task = SQLTask(data, llm)
    try:
        (method,) = task.methods(["tablerag"])
        second = method(data.cases[1])  # a resumed or sampled run starts mid-interaction
        calls = len(llm.history)
        first = method(data.cases[0])  # kept: not asked again
        assert len(llm.history) == calls
        again = method(data.cases[1])  # asked again: a new session, its first turn first
    finally:
        task.close()
    assert second.correct and first.correct and again.correct
    assert first.detail["session"] == second.detail["session"] != again.detail["session"]
    assert first.case_id.endswith("/0/0") and second.case_id.endswith("/0/1")
