"""What each answer check is worth, read from evaluation runs: each check switched off in turn.

An answer check changes no query: the query that ran is final and the checks only judge it
(``nl2sql.checks.verdict``: the answer is ``ok`` exactly when no finding doubts it). So a run
with one check switched off differs from the run with all of them in one way only: the
answers that check alone doubted become ``ok``. This reads that off a run's ``results.jsonl``
(``detail.checks``: the codes of the findings, ``correct``) instead of running the model
again, for every check and every run at once:

- *fires*: answers with a finding of the check (right / wrong);
- *alone*: answers no other check doubted; switched off, these become ``ok``: the wrong ones
  are the wrong-but-``ok`` answers the check saves, the right ones the ``ok`` it costs. A
  question the data cannot answer (the user-data sets' ``unanswerable`` kind) is judged by
  what the answer says: a doubted figure counts as declining it, the same figure ``ok`` as
  answering it, so there the doubt is counted as a catch whatever the run recorded.

Which finding codes a check emits is read from the check's source (the ``Finding("code")``
calls in its function and the module's helpers it calls), so the table follows the code.
A run on the semantic path is not read this way (a doubted compiled answer is answered again
by free SQL there); `tablerag eval … --stages NAME=off` measures that case.

Usage::

    .venv/bin/python bench/check_worth.py spider=RUN chase=RUN wikitq=RUN v3=RUN \\
        --append bench/RESULTS.md
"""

from __future__ import annotations

import argparse
import ast
import inspect
import sys
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ablation import outcomes  # the run's lines of one method (the same reading)
from tablerag.nl2sql import checks
from tablerag.nl2sql.checks import WEIGHTS, Finding
from tablerag.nl2sql.stages import ANSWER_CHECKS

UNANSWERABLE = "unanswerable"
"""The user-data question kind whose answer is right when it states no figure (or doubts it)."""


def codes_by_check() -> dict[str, frozenset[str]]:
    """Each answer check's name → the finding codes its function (and the private helpers of
    :mod:`tablerag.nl2sql.checks` it calls, transitively) can emit."""
    tree = ast.parse(inspect.getsource(checks))
    functions = {f.name: f for f in tree.body if isinstance(f, ast.FunctionDef)}

    def emitted(name: str, seen: set[str]) -> set[str]:
        if name in seen or name not in functions:
            return set()
        seen.add(name)
        out: set[str] = set()
        for node in ast.walk(functions[name]):
            if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name):
                continue
            if node.func.id == Finding.__name__ and node.args:
                first = node.args[0]
                if isinstance(first, ast.Constant) and isinstance(first.value, str):
                    out.add(first.value)
            else:
                out |= emitted(node.func.id, seen)
        return out

    return {s.name: frozenset(emitted(s.run.__name__, set())) for s in ANSWER_CHECKS}


def doubting(code: str) -> bool:
    """Whether a finding of ``code`` doubts the answer (a cited definition does not; codes of
    other steps than the answer checks are not theirs)."""
    return WEIGHTS.get(code, 0.0) > 0


def worth(
    rows: Iterable[Mapping[str, Any]], codes: Mapping[str, frozenset[str]]
) -> dict[str, Counter[str]]:
    """Per check: answers it fired on and answers it alone doubted, right and wrong.

    Example:
        >>> rows = [{"correct": False, "detail": {"status": "unsure", "checks": ["all_zero"]}},
        ...         {"correct": True, "detail": {"status": "unsure",
        ...                                      "checks": ["all_zero", "weak_link"]}}]
        >>> got = worth(rows, {"plausibility": frozenset({"all_zero"}),
        ...                    "relevance": frozenset({"weak_link"})})
        >>> dict(got["plausibility"]), dict(got["relevance"])
        ({'fires_wrong': 1, 'alone_wrong': 1, 'fires_right': 1}, {'fires_right': 1})
    """
    out: dict[str, Counter[str]] = {name: Counter() for name in codes}
    for row in rows:
        detail = row.get("detail") or {}
        doubts = {c for c in detail.get("checks") or () if doubting(c)}
        if detail.get("status") != "unsure" or not doubts:
            continue
        right = "right" if row.get("correct") and detail.get("kind") != UNANSWERABLE else "wrong"
        for name, own in codes.items():
            if doubts & own:
                out[name][f"fires_{right}"] += 1
                if doubts <= own:
                    out[name][f"alone_{right}"] += 1
    return out


def table(runs: Sequence[tuple[str, list[dict[str, Any]]]]) -> str:
    """The Markdown table: one row per check, per run "fires r/w · off: +w wrong-ok, +r ok"."""
    codes = codes_by_check()
    per_run = [(label, worth(rows, codes), rows) for label, rows in runs]
    head = "| check | " + " | ".join(label for label, _, _ in per_run) + " |"
    lines = [head, "|" + "---|" * (1 + len(per_run))]
    for name in codes:
        cells = []
        for _, got, _ in per_run:
            c = got[name]
            if not c["fires_right"] + c["fires_wrong"]:
                cells.append("—")
                continue
            cells.append(
                f"{c['fires_right']}/{c['fires_wrong']} · off: wrong-ok +{c['alone_wrong']}, "
                f"right ok +{c['alone_right']}"
            )
        lines.append(f"| `{name}` | " + " | ".join(cells) + " |")
    totals = []
    for _, _, rows in per_run:
        ok = [r for r in rows if (r.get("detail") or {}).get("status") == "ok"]
        wrong_ok = sum(1 for r in ok if not r.get("correct"))
        totals.append(f"{len(rows)} answers, {len(ok)} ok, {wrong_ok} wrong-ok")
    lines.append("| (the run) | " + " | ".join(totals) + " |")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("runs", nargs="+", help="LABEL=FOLDER (or a folder, labelled by name)")
    parser.add_argument("--method", default="tablerag")
    parser.add_argument("--append", type=Path, help="append the table to this Markdown file")
    args = parser.parse_args(argv)
    runs = []
    for spec in args.runs:
        label, _, folder = spec.rpartition("=") if "=" in spec else ("", "", spec)
        path = Path(folder)
        if not (path / "results.jsonl").is_file():
            print(f"{path} has no results.jsonl: give a run folder of `tablerag eval`.")
            return 2
        runs.append((label or path.name, list(outcomes(path, args.method).values())))
    text = table(runs)
    print(text)
    if args.append:
        stamp = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
        command = "python bench/check_worth.py " + " ".join(args.runs)
        with args.append.open("a", encoding="utf-8") as out:
            out.write(f"\n## Answer checks, each off in turn, from the runs — {stamp}\n\n")
            out.write(f"`{command}`\n\n{text}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
