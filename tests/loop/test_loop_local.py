"""The loop on the embedded local model over the sample corpus (slow: real model calls)."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from tablerag.errors import ConfigError
from tablerag.service import QA
from tablerag.settings import load_settings


@pytest.mark.slow
def test_local_model_runs_the_loop_over_tables_and_text(sample_ws: Path) -> None:
    """Qwen2.5-Coder-1.5B: a count from SQL, within the budgets, with a full trace."""
    pytest.importorskip("llama_cpp")
    try:
        qa = QA.open(sample_ws, llm="local")
    except ConfigError as exc:
        pytest.skip(str(exc))
    with qa:
        answer = qa.loop("一共有多少笔退款？")
    trace = answer.model_dump_json(indent=1)
    subs = [s for s in answer.steps if s.action == "sub-question"]
    assert answer.path == "loop" and answer.language == "zh", trace
    assert 1 <= len(subs) <= qa.settings.loop_max_steps, trace
    assert answer.steps[-1].action == "answer" and answer.steps[-1].observation == answer.answer
    assert all(s.chunks for s in subs), trace
    assert any(s.tables for s in subs), trace
    assert any(s.result is not None and [152] in s.result.rows for s in subs), trace
    assert answer.status == "ok" and answer.budget_exhausted is None, trace
    assert "152" in answer.answer, trace


@pytest.mark.slow
def test_local_model_answers_the_two_part_question_with_sql_categories_and_the_policy(
    sample_ws: Path,
) -> None:
    """The issue's example: the categories come from SQL over the star (the gate joins the
    category table the model left out), the handling from the return policy, both kept."""
    pytest.importorskip("llama_cpp")
    settings = load_settings(sample_ws).model_copy(update={"today": dt.date(2026, 11, 15)})
    try:  # the sample data ends in November 2026: "last month" is October
        qa = QA.open(sample_ws, llm="local", settings=settings)
    except ConfigError as exc:
        pytest.skip(str(exc))
    with qa:
        names = qa.engine.execute("SELECT category_name, category_name_en FROM dim_category")
        categories = {str(v) for row in names.rows for v in row}
        answer = qa.loop("上个月退货率最高的三个品类，按退货政策分别应该怎么处理？")
    trace = answer.model_dump_json(indent=1)
    first = answer.steps[0]
    assert first.decision == "both", trace
    assert first.result is not None and first.result.rows, trace
    named = {str(v) for row in first.result.rows for v in row} & categories
    assert named, trace  # category names, read through dim_product -> dim_category
    assert any(c.source.endswith("退货政策.md") for c in answer.citations), trace
    assert any(n in answer.answer for n in named), trace
    assert answer.status == "ok" and answer.budget_exhausted is None, trace
