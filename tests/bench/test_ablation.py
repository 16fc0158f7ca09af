"""bench/ablation.py: runs compared case by case on their shared cases."""

from __future__ import annotations

import doctest
import json
from pathlib import Path

from tests.bench import load_script

ablation = load_script("ablation")


def test_doctests() -> None:
    assert doctest.testmod(ablation).failed == 0


def _run(folder: Path, outcomes: dict[str, tuple[bool, str, int]]) -> Path:
    folder.mkdir()
    rows = [
        {"case_id": k, "method": "tablerag", "correct": ok, "prediction": sql, "llm_calls": calls,
         "prompt_tokens": 100 * calls, "completion_tokens": 10}
        for k, (ok, sql, calls) in outcomes.items()
    ]  # fmt: skip
    rows.append({**rows[0], "method": "naive", "correct": False})  # another method: ignored
    (folder / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    return folder


def test_a_variant_counts_wins_losses_and_changes_on_shared_cases_only(tmp_path: Path) -> None:
    base = _run(tmp_path / "base", {"a": (True, "x", 1), "b": (False, "y", 1), "c": (True, "z", 1)})
    off = _run(tmp_path / "off", {"a": (False, "x2", 2), "b": (True, "y2", 1)})
    comparison = ablation.compare(
        "off", ablation.outcomes(base, "tablerag"), ablation.outcomes(off, "tablerag")
    )
    assert (comparison.cases, comparison.base_right, comparison.right) == (2, 1, 1)
    assert (comparison.wins, comparison.losses, comparison.changed) == (1, 1, ("a", "b"))
    assert (comparison.base_calls, comparison.calls) == (1.0, 1.5)
    (line,) = ablation.table(base, [comparison])[4:]
    assert line.startswith("| off | 2 | 50.0 % (baseline 50.0 %) | +0.0 | 1 | 1 | 2 | 1.500")
