"""Whether a question speaks of time relative to today ("last month", "上月", "近30天").

Only such questions get today's date in the NL2SQL prompt: given the date, the local model added
``created >= '2026-11-01'`` to a Spider question that names no time at all.
"""

from __future__ import annotations

import re

_UNIT_EN = r"(?:days?|weeks?|months?|quarters?|years?)"
_UNIT_ZH = r"(?:天|日|周|星期|个?月|季度?|年)"
_RELATIVE = re.compile(
    "|".join(
        (
            # English
            r"\b(?:today|yesterday|tomorrow|tonight|now|currently|current|recent(?:ly)?)\b",
            r"\b(?:ytd|mtd|qtd|year[- ]to[- ]date|to date|so far|ago)\b",
            rf"\b(?:this|last|next|past|previous|prior|coming)\s+(?:\d+\s+|few\s+)?{_UNIT_EN}\b",
            # Chinese
            r"今天|今日|昨天|昨日|前天|明天|目前|当前|现在|至今|迄今|截至目前|最近|近期|本周|上周|下周|这周",
            r"本月|上月|上个月|这个月|下月|下个月|本季度?|上季度?|下季度?|今年|去年|前年|明年|本年|上半月",
            rf"(?:近|过去|最近|前)\s*(?:\d+|[一二两三四五六七八九十半]+)\s*{_UNIT_ZH}",
        )
    ),
    re.IGNORECASE,
)


def mentions_relative_time(question: str) -> bool:
    """True when ``question`` needs today's date to be read.

    Example:
        >>> mentions_relative_time("上月华东的毛利是多少？"), mentions_relative_time("近30天的订单")
        (True, True)
        >>> mentions_relative_time("Sales in the past 3 months"), mentions_relative_time("today")
        (True, True)
        >>> mentions_relative_time("2026年9月已付款订单有多少？")
        False
        >>> mentions_relative_time("Which contestant got the fewest votes?")
        False
    """
    return _RELATIVE.search(question) is not None
