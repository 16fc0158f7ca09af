"""Compare evaluation runs of one method case by case: a baseline run against variants of it.

For the stage ablations of the text-to-SQL path: the same ``tablerag eval`` command with and
without ``--stages FAMILY=off`` (or before and after a refactor), each into its own run folder
beside the others, so they share the response cache and only the prompts a change altered are
asked again. For each variant the table gives the accuracy on the cases both runs answered, the
cases it gets right that the baseline gets wrong (wins) and the other way (losses), how many
predictions differ at all, and LLM calls and tokens (prompt + completion) per question.

Usage::

    .venv/bin/python bench/ablation.py eval-runs/sql-spider-n200-s0-after \\
        nonotes=eval-runs/sql-spider-n200-s0-abl-nonotes \\
        nomends=eval-runs/sql-spider-n200-s0-abl-nomends --append bench/RESULTS.md

A variant is ``LABEL=FOLDER`` (or a folder, labelled by its name). ``--method`` picks the method
(default ``tablerag``); ``--changed`` also lists the cases whose prediction differs.
"""

from __future__ import annotations

import argparse
import json
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class Comparison:
    """One variant against the baseline, on the cases both answered."""

    label: str
    cases: int
    base_right: int
    right: int
    wins: int
    losses: int
    changed: tuple[str, ...]
    base_calls: float
    calls: float
    base_tokens: float
    tokens: float


def outcomes(folder: Path, method: str) -> dict[str, dict[str, Any]]:
    """The run's lines of ``method`` by case id (the last line of a case wins, as on resume)."""
    out: dict[str, dict[str, Any]] = {}
    with (folder / "results.jsonl").open(encoding="utf-8") as lines:
        for line in lines:
            row = json.loads(line)
            if row.get("method") == method:
                out[str(row["case_id"])] = row
    return out


def compare(
    label: str, base: dict[str, dict[str, Any]], other: dict[str, dict[str, Any]]
) -> Comparison:
    """``other`` against ``base`` on their shared cases.

    Example:
        >>> a = {"1": {"correct": True, "prediction": "x", "llm_calls": 1, "prompt_tokens": 9,
        ...            "completion_tokens": 1}}
        >>> b = {"1": {"correct": False, "prediction": "y", "llm_calls": 2, "prompt_tokens": 20,
        ...            "completion_tokens": 2}}
        >>> c = compare("v", a, b)
        >>> (c.cases, c.right, c.losses, c.changed, c.calls, c.tokens)
        (1, 0, 1, ('1',), 2.0, 22.0)
    """
    shared = [k for k in base if k in other]
    n = max(len(shared), 1)

    def per_case(rows: dict[str, dict[str, Any]], key: str) -> float:
        return sum(float(rows[k][key]) for k in shared) / n

    def tokens(rows: dict[str, dict[str, Any]]) -> float:
        return per_case(rows, "prompt_tokens") + per_case(rows, "completion_tokens")

    return Comparison(
        label=label,
        cases=len(shared),
        base_right=sum(1 for k in shared if base[k]["correct"]),
        right=sum(1 for k in shared if other[k]["correct"]),
        wins=sum(1 for k in shared if other[k]["correct"] and not base[k]["correct"]),
        losses=sum(1 for k in shared if base[k]["correct"] and not other[k]["correct"]),
        changed=tuple(k for k in shared if base[k]["prediction"] != other[k]["prediction"]),
        base_calls=per_case(base, "llm_calls"),
        calls=per_case(other, "llm_calls"),
        base_tokens=tokens(base),
        tokens=tokens(other),
    )


def table(base: Path, rows: list[Comparison]) -> list[str]:
    """The Markdown table of the comparisons."""
    lines = [
        f"Baseline `{base}`.",
        "",
        "| variant | cases | accuracy | Δ points | wins | losses | predictions changed | "
        "LLM calls/q | tokens/q |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for c in rows:
        n = max(c.cases, 1)
        delta = 100 * (c.right - c.base_right) / n
        lines.append(
            f"| {c.label} | {c.cases} | {100 * c.right / n:.1f} % "
            f"(baseline {100 * c.base_right / n:.1f} %) | {delta:+.1f} | {c.wins} | {c.losses} | "
            f"{len(c.changed)} | {c.calls:.3f} ({c.calls - c.base_calls:+.3f}) | "
            f"{c.tokens:.0f} ({c.tokens - c.base_tokens:+.0f}) |"
        )
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("base", type=Path, help="the baseline run folder")
    parser.add_argument("variants", nargs="+", help="LABEL=FOLDER or FOLDER")
    parser.add_argument("--method", default="tablerag")
    parser.add_argument("--changed", action="store_true", help="list the changed cases too")
    parser.add_argument("--append", type=Path, help="append the report to this markdown file")
    args = parser.parse_args()
    base = outcomes(args.base, args.method)
    rows = []
    for spec in args.variants:
        label, sep, folder = spec.partition("=")
        path = Path(folder if sep else label)
        rows.append(compare(label if sep else path.name, base, outcomes(path, args.method)))
    lines = table(args.base, rows)
    if args.changed:
        for c in rows:
            lines.append(f"\n{c.label}: {', '.join(c.changed) or 'none'}")
    report = "\n".join(lines)
    print(report)
    if args.append:
        stamp = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
        with args.append.open("a", encoding="utf-8") as out:
            out.write(f"\n<!-- bench/ablation.py, {stamp} -->\n{report}\n")


if __name__ == "__main__":
    main()
