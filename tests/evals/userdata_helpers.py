"""Shared checks of the user-data sets' tests: stored answers against recomputed truths, and a
scripted ``tablerag eval userdata`` run (no model)."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from tablerag.cli import app
from tablerag.evals.userdata.questions import Question
from tablerag.llm.testing import FunctionLLM

runner = CliRunner()


def assert_truths_match(
    questions: Sequence[Question], truth: Mapping[str, Callable[[Any], tuple[Any, ...]]], data: Any
) -> int:
    """Every answerable question's stored figures and facts equal its recomputed truth; a rate's
    group holds the percentage and the fraction. Returns how many were checked."""
    checked = 0
    for q in questions:
        if not q.answerable:
            assert q.qid not in truth or not q.numbers, q.qid
            continue
        got = truth[q.qid](data)
        stored = [g for g in q.numbers] + [f for f in q.facts]
        assert len(got) == len(stored), (q.qid, got, stored)
        for value, group in zip(got, stored, strict=True):
            if isinstance(value, str):
                assert value == group[0], (q.qid, value, group)
                continue
            assert abs(float(value) - group[0]) <= max(0.006, 1e-9), (q.qid, value, group)
            if len(group) == 2:  # a rate: percentage and fraction
                assert abs(float(value) / 100 - group[1]) < 1e-4, (q.qid, value, group)
        checked += 1
    return checked


def run_eval(folder: Path, args: Sequence[str], reply: str = "NOT_FOUND") -> dict[str, Any]:
    """``tablerag eval userdata ARGS --json`` with a scripted model that always says ``reply``."""
    mp = pytest.MonkeyPatch()
    llm = FunctionLLM(lambda _: reply)
    mp.setattr("tablerag.cli.eval_common.load_llm", lambda *a, **k: llm)
    try:
        res = runner.invoke(
            app,
            ["eval", "userdata", *args, "--embedder", "hashing", "--no-cache", "--out", str(folder)]
            + ["--json"],
        )
    finally:
        mp.undo()
    assert res.exit_code == 0, res.output
    summary: dict[str, Any] = json.loads(res.stdout)
    return summary


def results(folder: Path) -> list[dict[str, Any]]:
    """The run's per-case records."""
    lines = (folder / "results.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines]
