"""``eval sql --knowledge draft``: each database answered with the model ``tablerag knowledge
draft`` proposes from its catalog, on a small Spider-layout database with a scripted model."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import pytest

from tablerag.evals.drafted import metric_names
from tablerag.evals.runner import Case
from tablerag.evals.sql_task import SQLDataset, SQLTask, load_sql_dataset
from tablerag.llm.base import Message
from tablerag.llm.testing import FunctionLLM
from tests.evals.test_sql_task import EASY_TREE, QUESTIONS, make_spider, sql_reply

TOTAL_AGE = ("What is the total age of all singers?", "SELECT sum(age) FROM singer")
WRONG_SQL = "SELECT avg(age) FROM singer"
"""What the scripted model writes as free SQL for the metric question: a wrong reading."""


def spider_with_a_metric_question(root: Path) -> Path:
    """The Spider fixture plus a question that names a drafted metric (``total age``)."""
    make_spider(root, missing_db=False)
    records = json.loads((root / "dev.json").read_text(encoding="utf-8"))
    records.append(
        {"db_id": "concerts", "question": TOTAL_AGE[0], "query": TOTAL_AGE[1], "sql": EASY_TREE}
    )
    (root / "dev.json").write_text(json.dumps(records), encoding="utf-8")
    return root


def is_semantic_request(messages: Sequence[Message]) -> bool:
    return any("never write SQL" in m["content"] for m in messages)


def scripted() -> FunctionLLM:
    """Fills the semantic request with the drafted ``total_age`` metric; as free SQL, writes
    the gold query of the fixture's questions and a wrong one for the metric question."""

    def reply(messages: Sequence[Message]) -> str:
        if is_semantic_request(messages):
            return json.dumps({"expressible": True, "metrics": ["total_age"]})
        text = messages[-1]["content"]
        for question, sql in [*QUESTIONS, (TOTAL_AGE[0], WRONG_SQL)]:
            if question in text:
                return sql_reply(sql)
        return "I do not know."

    return FunctionLLM(reply)


@pytest.fixture
def data(tmp_path: Path) -> SQLDataset:
    return load_sql_dataset("spider", spider_with_a_metric_question(tmp_path / "spider"))


def case_of(data: SQLDataset, question: str) -> Case:
    return next(c for c in data.cases if c.question == question)


def test_each_database_gets_the_draft_of_its_catalog_once(data: SQLDataset) -> None:
    task = SQLTask(data, scripted(), knowledge="draft")
    try:
        drafted = task.semantic("concerts")
        assert drafted is task.semantic("concerts")  # drafted once per run
        # a row count per table, a SUM per measure column (keys and years are not measures)
        assert metric_names(drafted) == ["singer_count", "total_age", "concert_count"]
        model = drafted.semantic_model[0] if drafted is not None else None
        assert model is not None and model.name == "drafted"
        assert {m.status for m in model.metrics or []} == {"draft"}
        assert [r.name for r in model.relationships or []] == ["concert_singer_id"]
    finally:
        task.close()
    assert SQLTask(data, scripted()).semantic("concerts") is None  # the default: none


def test_a_question_naming_a_drafted_metric_is_answered_through_the_semantic_path(
    data: SQLDataset,
) -> None:
    llm = scripted()
    task = SQLTask(data, llm, knowledge="draft")
    try:
        (method,) = task.methods(["tablerag"])
        outcome = method(case_of(data, TOTAL_AGE[0]))
    finally:
        task.close()
    assert outcome.correct, outcome.detail
    assert outcome.detail["semantic"] == "answered"
    assert outcome.detail["path"] == "nl2sql"
    assert {"kind": "metric", "name": "total_age", "caliber": "default", "status": "draft"} in (
        outcome.detail["knowledge"]
    )
    asked = [c.messages for c in llm.history if is_semantic_request(c.messages)]
    assert len(asked) == 1 and "total_age" in asked[0][-1]["content"]
    assert "SUM" in (outcome.prediction or "").upper()


def test_without_knowledge_the_same_question_is_free_sql(data: SQLDataset) -> None:
    llm = scripted()
    task = SQLTask(data, llm)
    try:
        (method,) = task.methods(["tablerag"])
        outcome = method(case_of(data, TOTAL_AGE[0]))
    finally:
        task.close()
    assert not outcome.correct and "AVG(age)" in (outcome.prediction or "")
    assert "semantic" not in outcome.detail and "knowledge" not in outcome.detail
    assert not any(is_semantic_request(c.messages) for c in llm.history)


def test_a_question_naming_no_metric_keeps_the_free_sql_answer(data: SQLDataset) -> None:
    llm = scripted()
    task = SQLTask(data, llm, knowledge="draft")
    try:
        (method,) = task.methods(["tablerag"])
        outcome = method(case_of(data, QUESTIONS[0][0]))
    finally:
        task.close()
    assert outcome.correct and "'France'" in (outcome.prediction or "")
    assert outcome.detail["semantic"] is None and outcome.detail["knowledge"] == []
    assert "no_definition" not in outcome.detail["checks"]  # a draft alone was agreed by nobody
    assert not any(is_semantic_request(c.messages) for c in llm.history)
