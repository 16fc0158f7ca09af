"""Whether an answer's status and confidence mean something, from a run's per-question records.

The figures issue 23 asks for, per method, over the outcomes whose ``detail`` records the
answer's ``status`` and ``confidence`` (the ``sql`` and ``tableqa`` tasks' tablerag method):

- *coverage*: the share of answers marked ``ok``;
- *accuracy of ok*: the share of ``ok`` answers that are right;
- *wrong but ok*: the share of all answers that are wrong and yet marked ``ok`` (target ≤ 5 %);
  beside it the same share had every answer that states a result been ``ok`` (``ok`` or
  ``unsure``: what the status said before the checks), so one run shows before and after;
- a *calibration table*: confidence bucket → answers and their accuracy. A calibrated
  confidence has each bucket's accuracy inside the bucket.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from tablerag.evals.runner import Outcome

BUCKETS: tuple[float, ...] = (0.0, 0.2, 0.4, 0.6, 0.8, 1.0)
"""Bucket edges; the last bucket holds its upper edge."""


@dataclass(frozen=True)
class Bucket:
    """Answers whose confidence is in ``[low, high)`` (``[low, high]`` for the last)."""

    low: float
    high: float
    n: int
    correct: int

    @property
    def accuracy(self) -> float | None:
        """Share right, None for an empty bucket."""
        return self.correct / self.n if self.n else None


@dataclass(frozen=True)
class Calibration:
    """The calibration figures of one method."""

    n: int
    """Answers with a recorded status."""
    ok: int
    ok_correct: int
    buckets: tuple[Bucket, ...]
    answered: int = 0
    """Answers that state a result (``ok`` or ``unsure``)."""
    answered_correct: int = 0

    @property
    def coverage(self) -> float:
        """Share of answers marked ``ok``."""
        return self.ok / self.n if self.n else 0.0

    @property
    def ok_accuracy(self) -> float | None:
        """Share of ``ok`` answers that are right (None without any)."""
        return self.ok_correct / self.ok if self.ok else None

    @property
    def wrong_but_ok(self) -> float:
        """Share of all answers wrong and marked ``ok``."""
        return (self.ok - self.ok_correct) / self.n if self.n else 0.0

    @property
    def wrong_but_answered(self) -> float:
        """Share of all answers wrong that state a result (``ok`` before the checks)."""
        return (self.answered - self.answered_correct) / self.n if self.n else 0.0

    def as_dict(self) -> dict[str, Any]:
        """The JSON form (``summary.json``)."""
        return {
            "n": self.n,
            "coverage": round(self.coverage, 4),
            "ok_accuracy": None if self.ok_accuracy is None else round(self.ok_accuracy, 4),
            "wrong_but_ok": round(self.wrong_but_ok, 4),
            "wrong_but_ok_without_checks": round(self.wrong_but_answered, 4),
            "buckets": [
                {"low": b.low, "high": b.high, "n": b.n, "correct": b.correct} for b in self.buckets
            ],
        }


def calibration(outcomes: Sequence[Outcome]) -> dict[str, Calibration]:
    """Per method, the calibration of the outcomes that record a status (latest per case).

    Example:
        >>> o = [Outcome("1", "m", True, 1.0, detail={"status": "ok", "confidence": 0.85}),
        ...      Outcome("2", "m", False, 0.0, detail={"status": "ok", "confidence": 0.85}),
        ...      Outcome("3", "m", False, 0.0, detail={"status": "unsure", "confidence": 0.3}),
        ...      Outcome("4", "m", True, 1.0, detail={"status": "unsure", "confidence": 0.5}),
        ...      Outcome("5", "naive", True, 1.0)]
        >>> c = calibration(o)
        >>> sorted(c), c["m"].coverage, c["m"].ok_accuracy, c["m"].wrong_but_ok
        (['m'], 0.5, 0.5, 0.25)
        >>> [(b.low, b.n, b.accuracy) for b in c["m"].buckets if b.n]
        [(0.2, 1, 0.0), (0.4, 1, 1.0), (0.8, 2, 0.5)]
    """
    latest = {(o.method, o.case_id): o for o in outcomes}
    per: dict[str, list[tuple[str, float, bool]]] = {}
    for o in latest.values():
        status = o.detail.get("status") if isinstance(o.detail, Mapping) else None
        if not isinstance(status, str):
            continue
        confidence = o.detail.get("confidence", 0.0)
        value = float(confidence) if isinstance(confidence, int | float) else 0.0
        per.setdefault(o.method, []).append((status, value, o.correct))
    return {method: _calibrate(records) for method, records in per.items()}


def _calibrate(records: Sequence[tuple[str, float, bool]]) -> Calibration:
    ok = [correct for status, _, correct in records if status == "ok"]
    answered = [correct for status, _, correct in records if status in ("ok", "unsure")]
    buckets = []
    for i, (low, high) in enumerate(zip(BUCKETS, BUCKETS[1:], strict=False)):
        last = i == len(BUCKETS) - 2
        inside = [c for _, v, c in records if low <= v < high or (last and v == high)]
        buckets.append(Bucket(low, high, len(inside), sum(inside)))
    return Calibration(len(records), len(ok), sum(ok), tuple(buckets), len(answered), sum(answered))


def calibration_markdown(calibrations: Mapping[str, Calibration]) -> list[str]:
    """The report's section: the figures per method, then each method's calibration table.

    Example:
        >>> o = [Outcome("1", "m", True, 1.0, detail={"status": "ok", "confidence": 0.85})]
        >>> print("\\n".join(calibration_markdown(calibration(o))[:5]))
        ## Confidence
        <BLANKLINE>
        | method | n | coverage (ok) | accuracy of ok | wrong but ok | without the checks |
        |---|---|---|---|---|---|
        | m | 1 | 100.0% | 100.0% | 0.0% | 0.0% |
    """
    if not calibrations:
        return []
    lines = [
        "## Confidence",
        "",
        "| method | n | coverage (ok) | accuracy of ok | wrong but ok | without the checks |",
        "|---|---|---|---|---|---|",
    ]
    for method, c in calibrations.items():
        acc = "—" if c.ok_accuracy is None else _pct(c.ok_accuracy)
        lines.append(
            f"| {method} | {c.n} | {_pct(c.coverage)} | {acc} | {_pct(c.wrong_but_ok)} | "
            f"{_pct(c.wrong_but_answered)} |"
        )
    lines += [
        "",
        "Coverage is the share of answers marked `ok`; *wrong but ok* is the share of all "
        "answers that are wrong and marked `ok`; *without the checks* is that share had every "
        "answer that states a result been `ok` (`ok` or `unsure`), as before the checks.",
        "",
    ]
    for method, c in calibrations.items():
        lines += [
            f"Calibration of {method} (confidence bucket → accuracy):",
            "",
            "| confidence | n | accuracy |",
            "|---|---|---|",
        ]
        for b in c.buckets:
            acc = "—" if b.accuracy is None else _pct(b.accuracy)
            close = "]" if b.high == BUCKETS[-1] else ")"
            lines.append(f"| [{b.low:.1f}, {b.high:.1f}{close} | {b.n} | {acc} |")
        lines.append("")
    return lines


def _pct(x: float) -> str:
    return f"{100 * x:.1f}%"
