"""The loop on the embedded local model over the sample corpus (slow: real model calls)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tablerag.errors import ConfigError
from tablerag.service import QA


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
