"""Calibrate the answer checks' confidence weights from evaluation runs, and check them held out.

Each run folder's ``results.jsonl`` records, per answer, whether it was right, its status, its
confidence and the codes of the checks that fired (``detail.checks``; issue 23). From the
*fit* runs this script estimates:

- ``FIRST_CONFIDENCE``: the accuracy of answers no check doubted;
- each finding's weight: how much less often an answer it fired on was right than a clean
  one (shrunk towards the current weight with ``--prior`` pseudo-answers, so a finding seen
  twice does not swing to 0 or 1), at least ``--min-weight`` (a doubt must make ``unsure``).

Then it moves every SQL answer's recorded confidence by the change of the base and of its
findings' weights (the formula of :func:`tablerag.nl2sql.checks.verdict`) and prints, for the
fit runs and for the *held-out* runs separately, the calibration table of the answers that
state a result (confidence bucket → answers, accuracy) and the expected calibration error
(ECE: answer-weighted gap between a bucket's mean confidence and its accuracy), before (the
recorded confidence) and after.

Usage::

    .venv/bin/python bench/calibrate_checks.py \\
        --fit eval-runs/sql-spider-n200-s0-a eval-runs/sql-chase-n200-s0-a \\
        --held-out eval-runs/tableqa-wikitq-n200-s0-a eval-runs/userdata-local-a \\
        --append bench/RESULTS.md
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from tablerag.nl2sql.checks import FIRST_CONFIDENCE, MIN_CONFIDENCE, UNSURE_FLOOR, WEIGHTS

BUCKETS = (0.0, 0.2, 0.4, 0.6, 0.8, 1.0)


@dataclass(frozen=True)
class Record:
    """One answer of a run: right or not, status, confidence, the checks that fired."""

    run: str
    correct: bool
    status: str
    confidence: float
    checks: tuple[str, ...]
    path: str = ""
    """The path that answered ("" when the task records none: every answer is SQL)."""


def read_runs(folders: Iterable[Path]) -> list[Record]:
    """The answers of the ``tablerag`` method that record a status (the latest per case)."""
    out: list[Record] = []
    for folder in folders:
        latest: dict[tuple[str, str], dict[str, object]] = {}
        for line in (folder / "results.jsonl").read_text("utf-8").splitlines():
            row = json.loads(line)
            latest[(row["method"], row["case_id"])] = row
        for (method, _), row in sorted(latest.items()):
            detail = row.get("detail") or {}
            assert isinstance(detail, dict)
            status = detail.get("status")
            if method not in ("tablerag", "loop") or not isinstance(status, str):
                continue
            checks = detail.get("checks")
            out.append(
                Record(
                    folder.name,
                    bool(row["correct"]),
                    status,
                    float(detail.get("confidence") or 0.0),
                    tuple(checks) if isinstance(checks, list) else (),
                    str(detail.get("path") or ""),
                )
            )
    return out


def stated(records: Sequence[Record]) -> list[Record]:
    """The answers that state a result (the ones the checks judge)."""
    return [r for r in records if r.status in ("ok", "unsure")]


def fit(
    records: Sequence[Record], prior: float, min_weight: float
) -> tuple[float, dict[str, float], dict[str, tuple[int, int]]]:
    """The base confidence, each finding's weight, and (answers, right) per finding."""
    answered = [r for r in stated(records) if r.path in ("", "nl2sql", "loop")]
    doubting = {code for code, w in WEIGHTS.items() if w > 0}
    clean = [r for r in answered if not set(r.checks) & doubting]
    base = sum(r.correct for r in clean) / len(clean) if clean else FIRST_CONFIDENCE
    seen: dict[str, tuple[int, int]] = {}
    weights: dict[str, float] = {}
    for code in sorted(doubting):
        fired = [r for r in answered if code in r.checks]
        right = sum(r.correct for r in fired)
        seen[code] = (len(fired), right)
        prior_acc = max(0.0, base - WEIGHTS[code])  # type: ignore[index]
        acc = (right + prior * prior_acc) / (len(fired) + prior)
        weights[code] = round(max(min_weight, base - acc), 2)
    return round(base, 2), weights, seen


def confidence(r: Record, base: float, weights: Mapping[str, float]) -> float:
    """The answer's confidence under ``base`` and ``weights``: the recorded one moved by the
    change of the base and of its findings' weights (so the cost of repair rounds stays).
    Answers the SQL checks did not judge (the documents path's, failures) keep theirs."""
    if r.status not in ("ok", "unsure") or r.path not in ("", "nl2sql", "loop"):
        return r.confidence
    doubts = [c for c in r.checks if WEIGHTS.get(c, 0) > 0]  # type: ignore[call-overload]
    moved = r.confidence + (base - FIRST_CONFIDENCE)
    moved -= sum(weights[c] - WEIGHTS[c] for c in doubts)  # type: ignore[index]
    return round(min(1.0, max(UNSURE_FLOOR, moved) if doubts else max(MIN_CONFIDENCE, moved)), 3)


def table(pairs: Sequence[tuple[float, bool]]) -> tuple[list[tuple[str, int, str]], float]:
    """Calibration rows (bucket, n, accuracy) and the ECE of (confidence, right) pairs."""
    rows, gap = [], 0.0
    for i, (low, high) in enumerate(zip(BUCKETS, BUCKETS[1:], strict=False)):
        last = i == len(BUCKETS) - 2
        inside = [(c, ok) for c, ok in pairs if low <= c < high or (last and c == high)]
        if not inside:
            rows.append((f"[{low:.1f}, {high:.1f}{']' if last else ')'}", 0, "—"))
            continue
        acc = sum(ok for _, ok in inside) / len(inside)
        mean = sum(c for c, _ in inside) / len(inside)
        gap += len(inside) * abs(acc - mean)
        rows.append((f"[{low:.1f}, {high:.1f}{']' if last else ')'}", len(inside), f"{acc:.0%}"))
    return rows, gap / len(pairs) if pairs else 0.0


def summary(records: Sequence[Record]) -> str:
    """Coverage, accuracy of ok and wrong-but-ok share of ``records``."""
    n = len(records)
    ok = [r for r in records if r.status == "ok"]
    right = sum(r.correct for r in ok)
    acc = f"{right / len(ok):.1%}" if ok else "—"
    wrong_ok = (len(ok) - right) / n if n else 0.0
    return f"n {n}, coverage {len(ok) / n:.1%}, accuracy of ok {acc}, wrong but ok {wrong_ok:.1%}"


def report(
    name: str, records: Sequence[Record], base: float, weights: Mapping[str, float]
) -> list[str]:
    """The before/after calibration section of one group of runs."""
    judged = stated(records)  # a failure's 0 says nothing of a result's chance to be right
    before, ece_before = table([(r.confidence, r.correct) for r in judged])
    after, ece_after = table([(confidence(r, base, weights), r.correct) for r in judged])
    runs = ", ".join(sorted({r.run for r in records}))
    lines = [f"**{name}** ({runs}): {summary(records)}.", ""]
    lines += [
        "| confidence | n (recorded) | accuracy | n (fitted) | accuracy |",
        "|---|---|---|---|---|",
    ]
    for (bucket, n1, a1), (_, n2, a2) in zip(before, after, strict=True):
        lines.append(f"| {bucket} | {n1} | {a1} | {n2} | {a2} |")
    lines += [
        "",
        f"Answers that state a result: {len(judged)}. ECE: recorded {ece_before:.3f}, "
        f"fitted {ece_after:.3f}.",
        "",
    ]
    return lines


def main() -> None:
    """Fit, print the tables, append them when asked."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--fit", type=Path, nargs="+", required=True, help="runs to fit on")
    parser.add_argument("--held-out", type=Path, nargs="*", default=[], help="runs to check on")
    parser.add_argument("--prior", type=float, default=5.0, help="pseudo-answers per finding")
    parser.add_argument("--min-weight", type=float, default=0.15, help="least weight of a doubt")
    parser.add_argument("--append", type=Path, help="append the summary to this markdown file")
    args = parser.parse_args()
    fitted = read_runs(args.fit)
    held = read_runs(args.held_out)
    base, weights, seen = fit(fitted, args.prior, args.min_weight)
    lines = [f"Base (no doubt): {FIRST_CONFIDENCE} → **{base}**.", ""]
    lines += ["| finding | answers (fit) | right | weight now | fitted |", "|---|---|---|---|---|"]
    for code, (n, right) in sorted(seen.items(), key=lambda kv: -kv[1][0]):
        lines.append(f"| {code} | {n} | {right} | {WEIGHTS[code]} | {weights[code]} |")  # type: ignore[index]
    lines.append("")
    fired = Counter(c for r in fitted + held for c in r.checks)
    lines += [f"Findings seen in all runs: {dict(fired.most_common())}.", ""]
    lines += report("Fit runs", fitted, base, weights)
    if held:
        lines += report("Held-out runs", held, base, weights)
    text = "\n".join(lines)
    print(text)
    if args.append:
        stamp = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
        cmd = " ".join(
            ["`.venv/bin/python bench/calibrate_checks.py --fit", *map(str, args.fit)]
            + (["--held-out", *map(str, args.held_out)] if args.held_out else [])
            + [f"--prior {args.prior} --min-weight {args.min_weight}`"]
        )
        head = f"\n## Calibration of the answer checks' weights (issue 23) — {stamp}\n\n{cmd}\n\n"
        with args.append.open("a", encoding="utf-8") as out:
            out.write(head + text + "\n")


if __name__ == "__main__":
    main()
