"""``eval sql --examples leave-one-out``: each question sees the verified queries of the other
questions on its database (never its own, nor one with its gold SQL), through ``QA.ask``; the
reuse path is reported apart (issue 33)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tablerag.cli import app
from tablerag.evals.heldout import REUSED, LeaveOneOut, reuse_figures
from tablerag.evals.sql_task import SQLTask, load_sql_dataset
from tablerag.llm.base import Message
from tablerag.llm.testing import FunctionLLM
from tablerag.settings import Settings
from tests.evals.test_sql_task import EASY_TREE, make_db, sql_reply

runner = CliRunner()
FRANCE = "SELECT count(*) FROM singer WHERE country = 'France'"
TOTAL = "SELECT count(*) FROM singer"
QUESTIONS = [
    ("How many singers are from France?", FRANCE),
    ("Count the singers from France.", "select COUNT(*) from singer where country='France'"),
    ("How many singers are there in total?", TOTAL),
    ("How many singers are there?", "SELECT count(singer_id) FROM singer"),
    ("List the names of singers ordered by age.", "SELECT name FROM singer ORDER BY age"),
    ("What is the average age of all singers?", "SELECT avg(age) FROM singer"),
    ("Which concerts were held in 2014?", "SELECT concert_name FROM concert WHERE year = 2014"),
]  # fmt: skip


@pytest.fixture
def spider(tmp_path: Path) -> Path:
    from tests.evals.test_sql_task import TABLES_RECORD

    root = tmp_path / "spider"
    make_db(root / "database" / "concerts" / "concerts.sqlite")
    (root / "tables.json").write_text(json.dumps([TABLES_RECORD]), encoding="utf-8")
    records = [
        {"db_id": "concerts", "question": q, "query": s, "sql": EASY_TREE} for q, s in QUESTIONS
    ]
    (root / "dev.json").write_text(json.dumps(records), encoding="utf-8")
    return root


def _model(prompts: list[str]) -> FunctionLLM:
    """Right SQL for every question (the last user message names it); records each SQL prompt."""

    def reply(messages: Sequence[Message]) -> str:
        text = messages[-1]["content"]
        if "SELECT" not in messages[0]["content"] and "sql" not in messages[0]["content"].lower():
            return "Done."
        prompts.append("\n".join(m["content"] for m in messages))
        for question, sql in QUESTIONS:
            if question in text.rsplit("Question:", 1)[-1] or text.strip().endswith(question):
                return sql_reply(sql)
        return sql_reply(TOTAL)

    return FunctionLLM(reply)


def test_a_case_never_sees_its_own_question_nor_its_gold_sql(spider: Path) -> None:
    data = load_sql_dataset("spider", spider)
    pools = LeaveOneOut(data.cases)
    task = SQLTask(data, FunctionLLM(lambda m: "x"))
    try:
        engine = task.executor.engine("concerts")
        seen = pools.for_case(data.cases[0], engine)
        assert seen is not None
        questions = {e.question for e in seen.examples}
        assert QUESTIONS[0][0] not in questions  # its own question
        assert QUESTIONS[1][0] not in questions  # another question with the same gold SQL
        assert questions == {q for q, _ in QUESTIONS[2:]}
        assert {e.source for e in seen.examples} == {"concerts"}
        assert len(seen.usable("concerts", engine)) == 5  # every pair passes the gate
    finally:
        task.close()


def test_the_product_path_shows_at_most_three_held_out_pairs(spider: Path) -> None:
    data = load_sql_dataset("spider", spider)
    prompts: list[str] = []
    task = SQLTask(data, _model(prompts), Settings(examples_reuse_min_similarity=1.0))
    try:
        (method,) = task.methods(["tablerag-examples"])
        case = data.cases[4]  # names ordered by age
        outcome = method(case)
    finally:
        task.close()
    assert outcome.correct and outcome.detail[REUSED] is None
    shown = [line for line in prompts[0].splitlines() if line.startswith("-- Q: ")]
    assert 1 <= len(shown) <= 3
    assert f"-- Q: {case.question}" not in shown


def test_a_close_question_reuses_another_question_s_pair_and_is_reported_apart(
    spider: Path,
) -> None:
    data = load_sql_dataset("spider", spider)
    prompts: list[str] = []
    settings = Settings(examples_reuse_min_similarity=0.8)
    task = SQLTask(data, _model(prompts), settings)
    try:
        with_examples, without = task.methods(["tablerag-examples", "tablerag"])
        case = data.cases[3]  # "How many singers are there?": its gold SQL is not the pair's
        reused = with_examples(case)
        plain = without(case)
    finally:
        task.close()
    assert reused.detail[REUSED] == data.cases[2].case_id  # "... there in total?"
    assert reused.correct and (reused.prediction or "").startswith("SELECT COUNT(*) FROM singer")
    assert reused.llm_calls <= 1 < plain.llm_calls + 1  # no SQL call: at most an explanation
    assert REUSED not in plain.detail
    figures = reuse_figures([reused, plain])["reuse"]
    assert figures == {
        "tablerag-examples": {
            "n": 1,
            "reused": 1,
            "reuse_rate": 1.0,
            "reused_accuracy": 1.0,
            "other_accuracy": None,
        }
    }


def test_the_cli_runs_with_and_without_and_prints_the_reuse_figures(
    spider: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    prompts: list[str] = []
    llm = _model(prompts)
    monkeypatch.setattr("tablerag.cli.eval_common.load_llm", lambda spec=None, **kw: llm)
    out = tmp_path / "run"
    args = ["eval", "sql", "--dataset", "spider", "--path", str(spider), "--llm", "scripted",
            "--examples", "leave-one-out", "--out", str(out), "--json"]  # fmt: skip
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert set(data["methods"]) == {"naive", "tablerag", "tablerag-examples"}
    reuse = data["reuse"]["tablerag-examples"]
    accuracy = data["methods"]["tablerag-examples"]["accuracy"]
    assert (reuse["n"], reuse["reused"]) == (len(QUESTIONS), 0)  # none as close as 0.9
    assert reuse["other_accuracy"] == pytest.approx(accuracy, abs=1e-3)
    bad = runner.invoke(app, [*args[:-3], "--examples", "all"])
    assert bad.exit_code != 0 and "use none or leave-one-out" in str(bad.exception)
