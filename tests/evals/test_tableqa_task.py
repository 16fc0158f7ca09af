"""The table-QA task: markdown baseline and tablerag's NL2SQL path on a tiny WikiTQ dataset."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest

from tablerag.errors import ConfigError, ProviderError
from tablerag.evals.datasets.wikitq import load_wikitq
from tablerag.evals.runner import Case, ResultLog, run, summarise
from tablerag.evals.tableqa_task import (
    WORKSPACES_DIR,
    answer_items,
    build_methods,
    markdown_table,
    parse_answer,
)
from tablerag.llm.base import Message
from tablerag.llm.testing import FunctionLLM
from tests.evals.test_wikitq_reader import write_wikitq

SQL = {
    "which team won in 1991?": "SELECT team FROM {t} WHERE year = 1991",
    "how many seasons are listed?": "SELECT COUNT(*) AS n FROM {t}",
    "which years did the lions win?": "SELECT year FROM {t} WHERE team = 'Lions'",
    "what is the population of city 7?": "SELECT city, population FROM {t} WHERE rank = 7",
    "which band is named ac/dc?": "I am not sure.",
}
MARKDOWN = {
    "which team won in 1991?": "Tigers",
    "how many seasons are listed?": "Answer: 3.0",
    "which years did the lions win?": "1990 | 1992",
    "what is the population of city 7?": "7,000",
    "which band is named ac/dc?": "I don't know.",
}


def _question(messages: Sequence[Message]) -> str:
    found = re.search(r"Question: (.*)", "\n".join(m["content"] for m in messages))
    assert found is not None
    return found.group(1).strip()


def _reply(messages: Sequence[Message]) -> str:
    text = messages[-1]["content"]
    whole = "\n".join(m["content"] for m in messages)
    if "CREATE TABLE" not in whole and not text.rstrip().endswith("Answer:"):
        return "The answer is in the rows."  # the product explains the rows it found
    question = _question(messages)
    if text.rstrip().endswith("Answer:"):
        return MARKDOWN[question]
    table = re.search(r"CREATE TABLE (\w+)", "\n".join(m["content"] for m in messages))
    assert table is not None
    sql = SQL[question].format(t=table.group(1))
    return sql if not sql.startswith("SELECT") else f"```sql\n{sql}\n```"


@pytest.fixture
def cases(tmp_path: Path) -> list[Case]:
    return load_wikitq(write_wikitq(tmp_path / "wikitq"))


def _run(cases: list[Case], run_dir: Path, reply: Callable[[Sequence[Message]], str]) -> tuple:
    llm = FunctionLLM(reply)
    built = build_methods(["markdown", "tablerag-direct"], llm, run_dir)
    try:
        outcomes = run(cases, built.methods, ResultLog(run_dir))
    finally:
        built.close()
    return outcomes, llm


def test_both_methods_scored_by_denotation(cases: list[Case], tmp_path: Path) -> None:
    outcomes, _ = _run(cases, tmp_path / "run", _reply)
    got = {(o.method, o.case_id): o for o in outcomes}
    # markdown: 3.0 == 3, sets compare unordered, "7,000" is a string, a refusal is counted
    assert [got[("markdown", f"nu-{i}")].correct for i in range(5)] == [
        True,
        True,
        True,
        False,
        False,
    ]
    assert got[("markdown", "nu-3")].error == "wrong_result"
    assert got[("markdown", "nu-4")].error == "refusal"
    # tablerag: the result cells are the answer (one column -> its values)
    assert got[("tablerag-direct", "nu-0")].prediction == ["Tigers"]
    assert (
        got[("tablerag-direct", "nu-1")].prediction == ["3"]
        and got[("tablerag-direct", "nu-1")].correct
    )
    assert got[("tablerag-direct", "nu-2")].correct  # two rows of one column = a two-item answer
    assert got[("tablerag-direct", "nu-3")].prediction == ["City 7", "7000"]  # one row: its cells
    assert got[("tablerag-direct", "nu-3")].error == "wrong_result"
    assert got[("tablerag-direct", "nu-4")].error == "no_sql"
    summary = summarise(outcomes)
    assert summary["markdown"].accuracy == 0.6 and summary["tablerag-direct"].accuracy == 0.6
    assert set(summary["tablerag-direct"].by_category) == {"rows<=20", "rows<=100"}


def test_tokens_latency_and_sql_are_recorded(cases: list[Case], tmp_path: Path) -> None:
    outcomes, _ = _run(cases[:1], tmp_path / "run", _reply)
    for o in outcomes:
        assert o.llm_calls == 1 and o.prompt_tokens > 0 and o.completion_tokens > 0
        assert o.latency_ms["total"] >= 0
    tablerag = next(o for o in outcomes if o.method == "tablerag-direct")
    assert "WHERE year = 1991" in tablerag.detail["sql"]
    assert "llm" in tablerag.latency_ms and "schema" in tablerag.latency_ms
    markdown = next(o for o in outcomes if o.method == "markdown")
    assert markdown.detail["rows_shown"] == 3


def test_each_table_is_ingested_once_and_reused_on_resume(
    cases: list[Case], tmp_path: Path
) -> None:
    run_dir = tmp_path / "run"
    outcomes, llm = _run(cases, run_dir, _reply)
    tablerag = [o for o in outcomes if o.method == "tablerag-direct"]
    assert sum("prepare_ms" in o.detail for o in tablerag) == 2  # two tables
    assert len(list((run_dir / WORKSPACES_DIR).iterdir())) == 2
    calls = len(llm.history)
    again, llm2 = _run(cases, run_dir, _reply)  # same folder: everything is resumed
    assert len(llm2.history) == 0 and len(again) == len(outcomes)
    assert calls == 12  # 5 markdown + 5 SQL + 2 repairs of the reply without SQL


def test_gate_and_model_failures_have_their_error_kind(cases: list[Case], tmp_path: Path) -> None:
    def bad(messages: Sequence[Message]) -> str:
        question = _question(messages)
        if question.startswith("which team"):
            return "```sql\nDROP TABLE t_0\n```"
        if question.startswith("how many"):
            raise ProviderError("the server is down", provider="test")
        return "```sql\nSELECT nope FROM missing_table\n```"

    outcomes, _ = _run(cases[:3], tmp_path / "run", bad)
    errors = {(o.method, o.case_id): o.error for o in outcomes}
    assert errors[("tablerag-direct", "nu-0")] == "invalid_sql"
    assert errors[("tablerag-direct", "nu-1")] == "llm_error"
    assert errors[("markdown", "nu-1")] == "llm_error"
    assert errors[("tablerag-direct", "nu-2")] in ("invalid_sql", "execution_error")


def test_unknown_method_and_case_without_table(cases: list[Case], tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="Unknown table-QA method"):
        build_methods(["oracle"], FunctionLLM(_reply), tmp_path)
    built = build_methods(["tablerag-direct"], FunctionLLM(_reply), tmp_path)
    outcome = built.methods[0](Case("x", "how many?", ("1",)))
    assert outcome.error == "execution_error" and "--workspace" in outcome.detail["error"]


def test_markdown_table_is_cut_to_the_budget() -> None:
    rows = [[str(i), "x" * 50] for i in range(100)]
    text, shown = markdown_table(["n", "text"], rows, budget_chars=1000)
    assert 0 < shown < 100 and len(text) <= 1000
    assert text.splitlines()[2] == "| 0 | " + "x" * 50 + " |"


def test_answer_parsing_and_result_cells() -> None:
    assert parse_answer("Answer: 1990 | 1992") == ["1990", "1992"]
    assert parse_answer("\n\nTigers\nexplanation") == ["Tigers"]
    assert answer_items(["a"], [[1.0], [2.5]]) == ["1", "2.5"]
    assert answer_items(["a", "b"], []) == []


def test_the_tablerag_method_answers_as_ask_does(cases: list[Case], tmp_path: Path) -> None:
    llm = FunctionLLM(_reply)
    built = build_methods(["tablerag", "tablerag-direct"], llm, tmp_path / "run")
    try:
        outcomes = run(cases[:4], built.methods, ResultLog(tmp_path / "run"))
    finally:
        built.close()
    got = {(o.method, o.case_id): o for o in outcomes}
    for case_id in ("nu-0", "nu-1", "nu-2"):
        product, direct = got[("tablerag", case_id)], got[("tablerag-direct", case_id)]
        assert (product.correct, product.prediction) == (direct.correct, direct.prediction)
        assert product.detail["route"] == "data" and product.detail["path"] == "nl2sql"
        assert "route" not in direct.detail
    # several rows: the product asks the model to explain them, the direct ablation does not
    assert (
        got[("tablerag", "nu-2")].llm_calls == 2 and got[("tablerag-direct", "nu-2")].llm_calls == 1
    )
