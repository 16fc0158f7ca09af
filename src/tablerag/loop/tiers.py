"""The rule of each row: a policy's threshold tiers matched to the rates SQL computed.

"退货率最高的三个品类，按退货政策分别应该怎么处理？" — SQL finds three categories and their rates,
the passages give the policy's tiers ("超过 5% 但不超过 10% 的商品列入观察名单…超过 10% 的
商品列入《高退货率商品清单》…超过 20% 的商品…下架"). The local model composing the two kept the
category names and left the matching to the reader (issue 23: "服装鞋帽, 手机数码, 家居日用"
then the whole policy). Which tier a rate falls in is arithmetic, not language: each row gets
the rule of the highest threshold its rate is above (and not above the tier's own ceiling).
A crutch of the weak model, switched by the ``tiers`` stage (off in the ``lean`` profile).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

from tablerag.answer import Language, ResultTable
from tablerag.lang.messages import message
from tablerag.lang.rates import COLUMN

_SENTENCE = re.compile(r"(?<=[。！？!?\n])|(?<=\.)\s+")
_RATE_COLUMN = COLUMN
_NUMBER = r"\s*(\d+(?:\.\d+)?)\s*%"


@dataclass(frozen=True)
class Tier:
    """One rule of a policy: for figures above ``low`` percent (and at most ``high``)."""

    low: float
    high: float | None
    rule: str
    """The rule's sentences, as the passage answer wrote them."""


@lru_cache(maxsize=1)
def _words() -> tuple[re.Pattern[str], re.Pattern[str]]:
    """The 'above' and 'at most' threshold patterns, from ``lang/thresholds.json``."""
    text = resources.files("tablerag.lang").joinpath("thresholds.json").read_text("utf-8")
    data = json.loads(text)

    def pattern(words: Sequence[str]) -> re.Pattern[str]:
        longest = sorted(words, key=len, reverse=True)
        return re.compile("(?:" + "|".join(map(re.escape, longest)) + ")" + _NUMBER, re.I)

    return pattern(data["above"]), pattern(data["at_most"])


def tiers(text: str) -> list[Tier]:
    """The threshold tiers a policy text states, lowest first.

    A sentence that names an 'above' threshold opens a tier (an 'at most' one in the same
    sentence closes it); a sentence without one belongs to the tier before it.

    Example:
        >>> text = ("超过 5% 但不超过 10% 的商品列入观察名单。超过 10% 的商品暂停促销；"
        ...         "客服登记原因。超过 20% 的商品下架。")
        >>> [(t.low, t.high) for t in tiers(text)]
        [(5.0, 10.0), (10.0, None), (20.0, None)]
        >>> tiers(text)[1].rule
        '超过 10% 的商品暂停促销；客服登记原因。'
        >>> tiers("Products above 10% are reviewed [2]. Others are not.")[0].rule
        'Products above 10% are reviewed [2]. Others are not.'
    """
    above, at_most = _words()
    out: list[Tier] = []
    for sentence in (s.strip() for s in _SENTENCE.split(text)):
        if not sentence:
            continue
        ceilings = list(at_most.finditer(sentence))
        inside = [m.span() for m in ceilings]
        floors = [
            m for m in above.finditer(sentence) if not any(a <= m.start() < b for a, b in inside)
        ]
        if floors:
            high = float(ceilings[0].group(1)) if ceilings else None
            out.append(Tier(float(floors[0].group(1)), high, sentence))
        elif out:
            last = out[-1]
            joiner = "" if _is_han(last.rule[-1:]) or _is_han(sentence[:1]) else " "
            out[-1] = Tier(last.low, last.high, last.rule + joiner + sentence)
    return sorted(out, key=lambda t: t.low)


def _is_han(ch: str) -> bool:
    return bool(ch) and ("\u3400" <= ch <= "\u9fff" or ch in "。；，：！？")


def tier_lines(table: ResultTable, text: str, language: Language) -> list[str]:
    """One line per row of ``table`` naming the rule of ``text`` its rate falls under.

    The row's label is its first text cell, its rate the column whose name says it holds one
    (as a fraction when every rate is at most 1, else in percent). No lines when the table has
    no such column or the text no tiers.

    Example:
        >>> table = ResultTable(columns=["category", "n", "return_rate"],
        ...                     rows=[["服装鞋帽", 54, 0.117], ["手机数码", 34, 0.064],
        ...                           ["食品饮料", 9, 0.016]], row_count=3)
        >>> text = "超过 5% 但不超过 10% 的列入观察名单。超过 10% 的暂停促销。"
        >>> print("\\n".join(tier_lines(table, text, "zh")))
        服装鞋帽（11.7%）：超过 10% 的暂停促销。
        手机数码（6.4%）：超过 5% 但不超过 10% 的列入观察名单。
        食品饮料（1.6%）：未超过 5%，以上规定均不适用。
    """
    found = tiers(text)
    column = next((i for i, c in enumerate(table.columns) if _RATE_COLUMN.search(c)), None)
    if not found or column is None:
        return []
    rates = [row[column] for row in table.rows]
    if not all(isinstance(r, int | float) and not isinstance(r, bool) for r in rates):
        return []
    scale = 100.0 if all(abs(float(r)) <= 1 for r in rates) else 1.0
    lines = []
    for row, rate in zip(table.rows, rates, strict=True):
        label = next((v for v in row if isinstance(v, str) and v.strip()), None)
        if label is None:
            return []
        value = float(rate) * scale
        shown = f"{value:.1f}"
        held = [t for t in found if value > t.low and (t.high is None or value <= t.high)]
        if held:
            rule = max(held, key=lambda t: t.low).rule
            lines.append(message("loop.tier_row", language, label=label, value=shown, rule=rule))
        else:
            low = f"{found[0].low:g}"
            lines.append(message("loop.tier_none", language, label=label, value=shown, low=low))
    return lines
