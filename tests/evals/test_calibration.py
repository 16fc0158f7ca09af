"""Calibration figures: coverage of ok, accuracy of ok, wrong-but-ok share, confidence buckets.

Computed from a run's per-question records: the tablerag method of the table-QA task records
each answer's status and confidence, and the report turns them into the figures of issue 23.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from pathlib import Path

from tablerag.evals.calibration import calibration, calibration_markdown
from tablerag.evals.datasets.wikitq import load_wikitq
from tablerag.evals.report import SUMMARY_FILE, write_report
from tablerag.evals.runner import Outcome, ResultLog, run
from tablerag.evals.tableqa_task import build_methods
from tablerag.llm.base import Message
from tablerag.llm.testing import FunctionLLM
from tests.evals.test_wikitq_reader import write_wikitq

SQL = {
    "which team won in 1991?": "SELECT team FROM {t} WHERE year = 1991",  # right, ok
    "how many seasons are listed?": "SELECT 4 AS n",  # a constant query (wrong): unsure
    "which years did the lions win?": "SELECT year FROM {t} WHERE team = 'Lions'",  # right, ok
    "what is the population of city 7?": "SELECT city, population FROM {t} WHERE rank = 7",
    "which band is named ac/dc?": "I am not sure.",  # no SQL: an error
}


def _reply(messages: Sequence[Message]) -> str:
    text = "\n".join(m["content"] for m in messages)
    question = re.search(r"Question: (.*)", text)
    table = re.search(r"CREATE TABLE (\w+)", text)
    if table is None:  # the product explains the rows it found
        return "The answer is in the rows."
    assert question is not None
    sql = SQL[question.group(1).strip()].format(t=table.group(1))
    return f"```sql\n{sql}\n```" if sql.startswith("SELECT") else sql


def test_a_tableqa_run_reports_how_far_ok_can_be_trusted(tmp_path: Path) -> None:
    cases = load_wikitq(write_wikitq(tmp_path / "wikitq"))
    folder = tmp_path / "run"
    built = build_methods(["tablerag"], FunctionLLM(_reply), folder)
    try:
        outcomes = run(cases, built.methods, ResultLog(folder))
    finally:
        built.close()
    got = {o.case_id: o for o in outcomes}
    assert [got[f"nu-{i}"].detail["status"] for i in range(5)] == [
        "ok",
        "unsure",
        "ok",
        "ok",
        "error",
    ]
    assert not got["nu-1"].correct and got["nu-1"].detail["confidence"] < 0.5
    assert not got["nu-3"].correct  # wrong, and marked ok: what the figures must show
    c = calibration(outcomes)["tablerag"]
    assert (c.n, c.ok, c.ok_correct) == (5, 3, 2)
    assert c.wrong_but_ok == 0.2 and c.coverage == 0.6
    report = write_report(folder).read_text(encoding="utf-8")
    assert "## Confidence" in report
    # without the checks the constant query's answer was ok too: two wrong of five
    assert "| tablerag | 5 | 60.0% | 66.7% | 20.0% | 40.0% |" in report
    assert "| [0.8, 1.0] | 3 | 66.7% |" in report  # the three ok answers at 0.85
    summary = json.loads((folder / SUMMARY_FILE).read_text(encoding="utf-8"))
    figures = summary["methods"]["tablerag"]["confidence"]
    assert figures["coverage"] == 0.6 and figures["wrong_but_ok"] == 0.2
    assert figures["wrong_but_ok_without_checks"] == 0.4
    assert sum(b["n"] for b in figures["buckets"]) == 5


def test_records_without_a_status_have_no_figures() -> None:
    plain = [Outcome("1", "naive", True, 1.0), Outcome("2", "naive", False, 0.0)]
    assert calibration(plain) == {} and calibration_markdown({}) == []


def test_buckets_hold_their_lower_edge_and_the_last_its_upper_edge() -> None:
    def at(case: str, value: float, correct: bool) -> Outcome:
        detail = {"status": "ok", "confidence": value}
        return Outcome(case, "m", correct, float(correct), detail=detail)

    c = calibration([at("1", 0.0, False), at("2", 0.2, True), at("3", 1.0, True)])["m"]
    assert [b.n for b in c.buckets] == [1, 1, 0, 0, 1]
    assert c.buckets[0].accuracy == 0.0 and c.buckets[2].accuracy is None
    # the latest outcome of a case wins (a resumed run re-answers it)
    again = calibration([at("1", 0.9, False), at("1", 0.9, True)])["m"]
    assert again.n == 1 and again.ok_accuracy == 1.0
