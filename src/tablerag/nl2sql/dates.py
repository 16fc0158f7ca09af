"""Relative dates in a question, read against today by the product, not by the model.

The NL2SQL prompt states today's date and what "last month" is; the 1.5B local model still
wrote ``stat_month = '2026-11'`` for "last month" on 2026-11-15, and kept it through a repair
round. A date written next to the words that mean it is copied far more reliably, so the
question the SQL model reads says it: "上个月（2026-10）", "last month (2026-10)". Only the
SQL prompt gets the dated question; the answer and its trace keep the user's words. The words
and what they stand for are data (``lang/time.json``, ``relative``).
"""

from __future__ import annotations

import datetime as dt

from tablerag.lang.time import RELATIVE, Unit


def _month_before(day: dt.date) -> dt.date:
    return day.replace(day=1) - dt.timedelta(days=1)


def _resolve(day: dt.date, unit: Unit, offset: int) -> str:
    """The date ``offset`` ``unit`` s from ``day``, as the question says it (month: YYYY-MM)."""
    if unit == "year":
        return str(day.year + offset)
    if unit == "day":
        return (day + dt.timedelta(days=offset)).isoformat()
    month = day.replace(day=1)
    for _ in range(-offset):
        month = _month_before(month).replace(day=1)
    return f"{month:%Y-%m}"


def dated(question: str, today: dt.date) -> str:
    """``question`` with the date each relative time word stands for written after it.

    Example:
        >>> day = dt.date(2026, 11, 15)
        >>> dated("上个月退货率最高的三个品类", day)
        '上个月（2026-10）退货率最高的三个品类'
        >>> dated("Sales last month vs this month?", day)
        'Sales last month (2026-10) vs this month (2026-11)?'
        >>> dated("去年和今年的毛利", dt.date(2026, 1, 3))
        '去年（2025）和今年（2026）的毛利'
        >>> dated("How many singers are there?", day)
        'How many singers are there?'
    """
    spans: list[tuple[int, int, str]] = []
    for pattern, unit, offset in RELATIVE:
        for m in pattern.finditer(question):
            if not any(s < m.end() and m.start() < e for s, e, _ in spans):
                spans.append((m.start(), m.end(), _resolve(today, unit, offset)))
    out, last = [], 0
    for start, end, date in sorted(spans):
        han = "\u4e00" <= question[start] <= "\u9fff"
        out.append(question[last:end] + (f"（{date}）" if han else f" ({date})"))
        last = end
    return "".join(out) + question[last:]
