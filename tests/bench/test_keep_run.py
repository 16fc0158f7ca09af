"""bench/keep_run.py: a run kept in bench/runs has no dataset text and re-renders."""

from __future__ import annotations

import doctest
import json
from pathlib import Path

from tablerag.evals.runner import Outcome, ResultLog
from tests.bench import load_script

keep_run = load_script("keep_run")


def test_doctests() -> None:
    result = doctest.testmod(keep_run)
    assert result.attempted >= 1 and result.failed == 0


def test_a_kept_run_drops_answer_text_and_keeps_the_rest(tmp_path: Path) -> None:
    run = tmp_path / "eval-runs" / "mixed-x"
    log = ResultLog(run)
    quoted = "Revenue was $1,452.4m, as the report says [1]."
    for method, right in (("rag", True), ("tablerag", False)):
        log.append(
            Outcome(
                "c1",
                method,
                right,
                float(right),
                "" if right else "wrong_result",
                prediction=["1452.4", "million"],
                category="span",
                detail={"answer_text": quoted, "sql": ["SELECT 1"], "steps": 1},
            )
        )
    log.write_meta({"task": "mixed", "dataset": "tatqa", "command": "tablerag eval mixed ..."})
    dest = tmp_path / "kept"
    assert keep_run.keep(run, dest) == 2
    text = (dest / "results.jsonl").read_text(encoding="utf-8")
    assert quoted not in text
    rows = [json.loads(line) for line in text.splitlines()]
    assert rows[1]["detail"] == {"sql": ["SELECT 1"], "steps": 1}
    assert rows[0]["prediction"] == ["1452.4", "million"]
    assert json.loads((dest / "run.json").read_text())["command"] == "tablerag eval mixed ..."
    report = (dest / "report.md").read_text(encoding="utf-8")
    assert "| rag | 100.0% | 1 |" in report and (dest / "summary.json").is_file()


def test_a_folder_without_results_is_refused(tmp_path: Path) -> None:
    assert keep_run.main([str(tmp_path)]) == 2
