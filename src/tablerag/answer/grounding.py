"""Check that every number in an answer comes from the SQL result, a cited passage or the question.

Numbers are read with thousands separators (``1,234.5``), signs, decimals and percents. An
answer number is grounded when some source number equals it once rounded to the answer's own
precision (``12.35`` is grounded by ``12.3456``), when it is a percent of a source ratio
(``12.3%`` by ``0.123``), or when the source number in units of ten thousand / hundred million
equals it (``1.2万`` by ``12000``). Citation markers like ``[2]`` are not numbers of the answer.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation

_NUMBER = re.compile(
    r"(?<![A-Za-z0-9_.])(?<!\d,)[-+−]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:\s*(?P<pct>%|％))?"
    r"(?:\s*(?P<unit>万|亿))?"
)
_CITATION = re.compile(r"\[\d+(?:\s*[,，]\s*\d+)*\]")
_ENUMERATOR = re.compile(r"(?m)^[ \t]*(?:\(?\d{1,2}[.、)）]|[-*•])[ \t]+")
_SCALE = {"万": Decimal(10_000), "亿": Decimal(100_000_000)}


@dataclass(frozen=True)
class Number:
    """One number found in a text: its text, its value, and its decimal places as written."""

    text: str
    value: Decimal
    places: int
    percent: bool = False
    scale: Decimal = Decimal(1)


def strip_enumerators(text: str) -> str:
    """``text`` without list markers at line starts ("1. ", "2、", "- "): not facts, not numbers.

    Example:
        >>> strip_enumerators("如下：\\n1. 七天内退货\\n2、 破损 1.5 天内报告")
        '如下：\\n七天内退货\\n破损 1.5 天内报告'
    """
    return _ENUMERATOR.sub("", text)


def numbers_in(text: str) -> list[Number]:
    """Every number written in ``text`` (citation markers and list markers excluded).

    Example:
        >>> [n.text for n in numbers_in("净额 1,234.50 元，增长 12%，见 [2]")]
        ['1,234.50', '12%']
        >>> [n.text for n in numbers_in("规则：\\n1. 退货率超过 10%\\n2. 见 11.2")]
        ['10%', '11.2']
        >>> numbers_in("up 3.5%")[0].value, numbers_in("共 1.2万 元")[0].scale
        (Decimal('3.5'), Decimal('10000'))
        >>> [n.text for n in numbers_in("总和为70,000元，共152笔，Q3 与 v2")]  # next to Chinese too
        ['70,000', '152']
    """
    found: list[Number] = []
    for match in _NUMBER.finditer(_CITATION.sub(" ", strip_enumerators(text))):
        raw = match.group(0).strip()
        digits = match.group(0)
        for mark in ("%", "％", "万", "亿"):
            digits = digits.replace(mark, "")
        digits = digits.replace(",", "").replace("−", "-").strip()
        try:
            value = Decimal(digits)
        except InvalidOperation:
            continue
        places = len(digits.partition(".")[2])
        unit = match.group("unit")
        found.append(
            Number(raw, value, places, bool(match.group("pct")), _SCALE.get(unit or "", Decimal(1)))
        )
    return found


def source_values(values: Iterable[object]) -> list[Decimal]:
    """Numbers of result cells or texts: numeric cells as they are, texts parsed.

    Example:
        >>> source_values([3, 2.5, "2026-10", None, True])
        [Decimal('3'), Decimal('2.5'), Decimal('2026'), Decimal('10')]
    """
    out: list[Decimal] = []
    for value in values:
        if value is None or isinstance(value, bool):
            continue
        if isinstance(value, int | float | Decimal):
            try:
                out.append(Decimal(str(value)))
            except InvalidOperation:
                continue
        else:
            out.extend(n.value * n.scale for n in numbers_in(str(value)))
    return out


def _matches(number: Number, source: Decimal) -> bool:
    quantum = Decimal(1).scaleb(-number.places)
    candidates = [source / number.scale]
    if number.percent:
        candidates.append(source * 100)
    for candidate in candidates:
        try:
            if abs(candidate.quantize(quantum) - number.value) <= quantum / 2:
                return True
        except InvalidOperation:
            continue
    return False


def ungrounded_numbers(answer: str, sources: Iterable[object]) -> list[str]:
    """The numbers of ``answer`` that no source value supports, as written in the answer.

    Args:
        answer: the text to check.
        sources: result cells, passage texts and the question (texts are parsed for numbers).

    Returns:
        Texts of the unsupported numbers, in order of appearance (empty when all are grounded).

    Example:
        >>> ungrounded_numbers("华东毛利 1,234.57 元，占 12.3%。", [1234.5678, 0.1234])
        []
        >>> ungrounded_numbers("Revenue was 5,000 in 2026.", ["revenue 4,999", "year 2026"])
        ['5,000']
    """
    values = source_values(sources)
    return [n.text for n in numbers_in(answer) if not any(_matches(n, v) for v in values)]
