"""Relative dates in a question, read against today by the product, not by the model.

The NL2SQL prompt states today's date and what "last month" is; the 1.5B local model still
wrote ``stat_month = '2026-11'`` for "last month" on 2026-11-15, and kept it through a repair
round. A date written next to the words that mean it is copied far more reliably, so the
question the SQL model reads says it: "上个月（2026-10）", "last month (2026-10)". Only the
SQL prompt gets the dated question; the answer and its trace keep the user's words.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable

_Resolve = Callable[[dt.date], str]


def _month_before(day: dt.date) -> dt.date:
    return day.replace(day=1) - dt.timedelta(days=1)


_RULES: tuple[tuple[re.Pattern[str], _Resolve], ...] = (
    (
        re.compile(r"上个月|上月|\blast month\b|\bprevious month\b", re.I),
        lambda d: f"{_month_before(d):%Y-%m}",
    ),
    (re.compile(r"本月|这个月|\bthis month\b|\bcurrent month\b", re.I), lambda d: f"{d:%Y-%m}"),
    (re.compile(r"去年|\blast year\b|\bprevious year\b", re.I), lambda d: str(d.year - 1)),
    (re.compile(r"今年|本年|\bthis year\b|\bcurrent year\b", re.I), lambda d: str(d.year)),
    (re.compile(r"昨天|\byesterday\b", re.I), lambda d: (d - dt.timedelta(days=1)).isoformat()),
    (re.compile(r"今天|\btoday\b", re.I), lambda d: d.isoformat()),
)


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
    for pattern, resolve in _RULES:
        for m in pattern.finditer(question):
            if not any(s < m.end() and m.start() < e for s, e, _ in spans):
                spans.append((m.start(), m.end(), resolve(today)))
    out, last = [], 0
    for start, end, date in sorted(spans):
        han = "\u4e00" <= question[start] <= "\u9fff"
        out.append(question[last:end] + (f"（{date}）" if han else f" ({date})"))
        last = end
    return "".join(out) + question[last:]
