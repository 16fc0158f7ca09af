"""The mixed task end to end on a synthetic TAT-QA file with a scripted model."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Sequence
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tablerag.cli import app
from tablerag.evals.datasets.tatqa import load_tatqa
from tablerag.evals.mixed_task import (
    build_methods,
    loop_figures,
    predict_scale,
    prediction_of,
    tatqa_cases,
)
from tablerag.evals.runner import ResultLog, run
from tablerag.evals.tatqa_corpus import build_corpus, corpus_units, table_name
from tablerag.evals.tatqa_metric import tatqa_score
from tablerag.layout import DB_FILE
from tablerag.llm.base import Message
from tablerag.llm.testing import FunctionLLM
from tablerag.settings import Settings
from tablerag.store.workspace import Workspace
from tests.evals.test_tatqa_reader import write_tatqa


def reply(messages: Sequence[Message]) -> str:
    system = messages[0]["content"] if messages[0]["role"] == "system" else ""
    last = messages[-1]["content"]
    if system.startswith("You answer a question about an organisation's tables"):
        q = last.split("Question: ", 1)[1].split("\n", 1)[0]
        return f"NEXT: {q}" if "Answered so far" not in last else "ANSWER: 1.5"
    if "SELECT query" in system:
        table = table_name("aaaa1111-0")
        if "change" in last.rsplit("Question:", 1)[-1]:
            return (
                f"```sql\nSELECT col_2019 - col_2018 FROM {table} WHERE item = 'Cloud revenue'\n```"
            )
        return f"```sql\nSELECT col_2019 FROM {table} WHERE item = 'Cloud revenue'\n```"
    if "numbered passages" in system:
        return "NOT_FOUND"
    return "I think 7"  # direct answering guesses


def test_corpus_holds_every_table_as_sql_and_chunks_and_every_paragraph(tmp_path: Path) -> None:
    contexts = load_tatqa(write_tatqa(tmp_path / "data"))
    ws_path = build_corpus(contexts, tmp_path / "corpus", embedder="hashing")
    with Workspace.open(ws_path) as ws:
        tables = {t.name: t for t in ws.tables()}
        chunks = list(ws.chunks())
    name = table_name("aaaa1111-0")
    assert set(tables) == {name, table_name("bbbb2222-0")}
    assert "millions" in tables[name].description
    assert [c.name for c in tables[name].columns] == ["item", "col_2019", "col_2018"]
    assert {c.table for c in chunks if c.table} == set(tables)
    assert any("Mining costs fell sharply" in c.text and c.table is None for c in chunks)
    assert corpus_units(tmp_path / "corpus")[name] == "million"
    db = ws_path / DB_FILE
    stamp = db.stat().st_mtime_ns
    assert build_corpus(contexts, tmp_path / "corpus", embedder="hashing") == ws_path
    assert db.stat().st_mtime_ns == stamp  # the same corpus is not ingested again


def test_a_changed_table_is_ingested_again(tmp_path: Path) -> None:
    contexts = load_tatqa(write_tatqa(tmp_path / "data"))
    build_corpus(contexts, tmp_path / "corpus", embedder="hashing")
    first = contexts[0]
    table = [list(r) for r in first.table]
    table[-1][1] = "999.5"
    changed = [dataclasses.replace(first, table=tuple(map(tuple, table))), *contexts[1:]]
    ws_path = build_corpus(changed, tmp_path / "corpus", embedder="hashing")
    with Workspace.open(ws_path) as ws:
        rows = ws.con.execute(f"SELECT * FROM data.{table_name(first.uid)}").fetchall()
    assert any(999.5 in row for row in rows)


def test_methods_answer_and_score_with_the_official_metric(tmp_path: Path) -> None:
    contexts = load_tatqa(write_tatqa(tmp_path / "data"))
    ws_path = build_corpus(contexts, tmp_path / "corpus", embedder="hashing")
    llm = FunctionLLM(reply)
    settings = Settings(embedder="hashing", rag_min_score=0.0)
    built = build_methods(
        ["direct", "rag", "tablerag", "tablerag-loop", "tablerag-nosql"],
        llm,
        ws_path,
        corpus_units(tmp_path / "corpus"),
        settings,
    )
    cases = [c for c in tatqa_cases(contexts) if c.case_id.startswith("aaaa")]
    try:
        outcomes = run(cases, built.methods, ResultLog(tmp_path / "run"))
    finally:
        built.close()
    by = {(o.method, o.case_id): o for o in outcomes}
    span = by[("tablerag-loop", "aaaa1111-0-q1")]
    assert span.prediction == ["11.5", "million"] and span.correct, span.detail
    change = by[("tablerag-loop", "aaaa1111-0-q2")]
    assert change.correct and change.detail["steps"] == 1 and change.detail["finished"]
    assert change.llm_calls >= 2 and change.prompt_tokens > 0
    assert not by[("direct", "aaaa1111-0-q2")].correct
    assert by[("rag", "aaaa1111-0-q1")].error == "not_found"
    assert by[("tablerag-nosql", "aaaa1111-0-q1")].detail["sql"] == []
    figures = loop_figures(outcomes)["loop"]
    assert figures["tablerag-loop"] == {"finished_within_budget": 1.0, "mean_steps": 1.0, "n": 2}
    # the default method answers as `tablerag ask` does: the router chose its path
    for case in cases:
        product = by[("tablerag", case.case_id)]
        assert product.detail["route"] in ("data", "knowledge", "hybrid", "ambiguous")
        assert product.detail["path"] and product.llm_calls >= 1
    computed = by[("tablerag", "aaaa1111-0-q2")]
    assert computed.correct  # the data path computed the change
    # and its query is in the detail, as the loop's are (which table it read can be counted)
    assert computed.detail["path"] == "nl2sql", computed.detail
    assert len(computed.detail["sql"]) == 1 and "FROM" in computed.detail["sql"][0]


def test_prediction_and_scale_reading() -> None:
    q = "What was the percentage change in revenue from 2018 to 2019?"
    assert prediction_of("It rose by 12.5% [1].", q) == "12.5%"
    assert predict_scale(q, "It rose by 12.5% [1].", ["million"]) == "percent"
    assert predict_scale("What was revenue in 2019?", "1.2 billion", []) == "billion"


@pytest.mark.parametrize(
    ("question", "text", "units", "gold"),
    [
        # several values asked: the list of figures the question does not name, scaled by
        # the table's unit as the official metric scales each span
        (
            "What was the operating loss carryforward amount in 2019 and 2018 respectively?",
            "The carryforward was $73,260 in 2019 and $57,768 in 2018 [1].",
            ["thousand"],
            {"answer": ["73,260", "57,768"], "answer_type": "multi-span", "scale": "thousand"},
        ),
        # years are answers, never scaled, even beside a table of millions
        (
            "In which years was the total equity calculated?",
            "Total equity is given for 2019 and 2018 [2].",
            ["million"],
            {"answer": ["2019", "2018"], "answer_type": "multi-span", "scale": ""},
        ),
        (
            "In which year was the gross margin (%) higher?",
            "The gross margin was higher in 2019 [1].",
            ["percent"],
            {"answer": ["2019"], "answer_type": "span", "scale": ""},
        ),
    ],
    ids=["respectively", "which-years", "which-year"],
)
def test_several_values_and_years_are_read_as_the_metric_compares(
    question: str, text: str, units: list[str], gold: dict[str, object]
) -> None:
    pred = prediction_of(text, question)
    scale = predict_scale(question, text, units)
    assert tatqa_score(gold, pred, scale).em == 1.0, (pred, scale)


def test_cli_runs_resumes_and_prints_one_json_object(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = write_tatqa(tmp_path / "data")
    monkeypatch.setenv("TABLERAG_EMBEDDER", "hashing")
    monkeypatch.setenv("TABLERAG_RAG_MIN_SCORE", "0")
    dated: list[str] = []

    def recording(messages: Sequence[Message]) -> str:
        dated.extend(m["content"][:40] for m in messages if m["content"].startswith("Today is"))
        return reply(messages)

    monkeypatch.setattr("tablerag.cli.eval_common.load_llm", lambda *a, **k: FunctionLLM(recording))
    args = [
        "eval",
        "mixed",
        "--dataset",
        "tatqa",
        "--path",
        str(data),
        "--limit",
        "2",
        "--methods",
        "direct,tablerag",
        "--out",
        str(tmp_path / "runs" / "r"),
        "--json",
    ]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    assert set(summary["methods"]) == {"direct", "tablerag"}
    assert summary["methods"]["tablerag"]["n"] == 2
    assert summary["loop"]["tablerag"]["n"] == 2
    lines = (tmp_path / "runs" / "r" / "results.jsonl").read_text().splitlines()
    assert len(lines) == 4
    # every SQL prompt is written on the run's fixed date, whatever the day of the run
    assert dated and all(d.startswith("Today is 2026-11-30;") for d in dated)
    again = CliRunner().invoke(app, args)
    assert again.exit_code == 0
    assert len((tmp_path / "runs" / "r" / "results.jsonl").read_text().splitlines()) == 4


def test_the_unit_of_a_sql_answer_is_its_own_tables() -> None:
    from tablerag.answer import Answer, Step
    from tablerag.evals.mixed_task import unit_tables

    def answer(chosen: str) -> Answer:
        step = Step(
            n=1,
            action="sub-question",
            tables=["t_thousands", "t_rates"],  # retrieved; the SQL read only the rates
            sql="SELECT col_2017, col_2018 FROM data.t_rates WHERE item = 'Dividend yield'",
            chosen=chosen,  # type: ignore[arg-type]
        )
        return Answer(question="q", answer="4.1, 4.6", language="en", path="loop", steps=[step])

    units = {"t_thousands": "thousand", "t_rates": "percent", "t_rates_2": "million"}
    assert unit_tables(answer("sql"), units) == ["t_rates"]  # not t_rates_2 by prefix
    assert unit_tables(answer("document"), units) == ["t_thousands", "t_rates"]
