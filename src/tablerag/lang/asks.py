"""What a question asks for, read from its words: a count or an amount, and the period it names.

The answer checks (:mod:`tablerag.nl2sql.checks`) compare this with the query that ran: on a
user's files the 1.5B model answered "How many warranty claims were filed in total?" with
``SUM(amount)`` and "… filed in March 2026?" with ``WHERE filed = '2026-03-31'``, both ``ok``
(issue 23). The words are data (``lang/asks.json``, the time words ``lang/time.json``, the
rate words ``lang/rates.json``); everything here is pure.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Literal

from tablerag.lang import rates
from tablerag.lang.time import asked_words
from tablerag.lang.time import months as time_months

Ask = Literal["count", "amount"]

_DAY = re.compile(r"\d{4}-\d{1,2}-\d{1,2}")
_ISO_MONTH = re.compile(r"(?<!\d)(\d{4})[-/.](\d{1,2})(?![-/.\d])")
_ZH_MONTH = re.compile(r"(?:(\d{4})\s*年\s*)?(\d{1,2})\s*月(?!\s*\d{1,2}\s*[日号])")
_ZH_DAY = re.compile(r"\d{1,2}\s*月\s*\d{1,2}\s*[日号]")
_EN_DAY = re.compile(
    r"\b\d{1,2}[/.-]\d{1,2}[/.-]\d{2,4}\b|\b\d{4}-\d{1,2}-\d{1,2}\b"
    r"|\b(?:the\s+)?\d{1,2}(?:st|nd|rd|th)\b"
)
_YEAR = re.compile(r"(?<!\d)(?:19|20)\d{2}(?!\d)")


@dataclass(frozen=True)
class AskWords:
    """The words of ``lang/asks.json``, compiled."""

    count: re.Pattern[str]
    amount: re.Pattern[str]
    quantity: re.Pattern[str]
    rate: re.Pattern[str]
    grouping: re.Pattern[str]
    labels: re.Pattern[str]
    listing: re.Pattern[str]
    negation: re.Pattern[str]
    threshold: re.Pattern[str]
    time: re.Pattern[str]
    exclusion: re.Pattern[str]
    share: re.Pattern[str]
    money: re.Pattern[str]
    money_words: frozenset[str]
    months: dict[str, int]
    en_month: re.Pattern[str]


def _alternation(zh: list[str], en: list[str]) -> re.Pattern[str]:
    words = [re.escape(w) for w in sorted(zh, key=len, reverse=True)]
    words += [rf"(?<![a-z]){re.escape(w)}(?![a-z])" for w in sorted(en, key=len, reverse=True)]
    return re.compile("|".join(words), re.I)


def _threshold(zh: list[str], en: list[str]) -> re.Pattern[str]:
    """A comparison word next to a number: before it (超过 10%, above $500) or, for 以上/以下,
    after it (10%以上)."""
    number = r"[$¥￥]?\s*\d[\d,.]*\s*(?:%|％|万|元|percent)?"
    words = _alternation(zh, en).pattern
    return re.compile(rf"(?:{words})\s*{number}|{number}\s*(?:以上|以下)", re.I)


@lru_cache(maxsize=1)
def ask_words() -> AskWords:
    """The packaged words, read once."""
    text = resources.files("tablerag.lang").joinpath("asks.json").read_text("utf-8")
    data = json.loads(text)
    months: dict[str, int] = time_months()
    names = "|".join(sorted(months, key=len, reverse=True))
    return AskWords(
        count=_alternation(data["count"]["zh"], data["count"]["en"]),
        amount=_alternation(data["amount"]["zh"], data["amount"]["en"]),
        quantity=_alternation(data["quantity"]["zh"], data["quantity"]["en"]),
        rate=_alternation(*rates.asked_words()),
        grouping=_alternation(data["grouping"]["zh"], data["grouping"]["en"]),
        labels=_alternation(data["labels"]["zh"], data["labels"]["en"]),
        listing=_alternation(data["listing"]["zh"], data["listing"]["en"]),
        negation=_alternation(data["negation"]["zh"], data["negation"]["en"]),
        threshold=_threshold(data["threshold"]["zh"], data["threshold"]["en"]),
        time=_alternation(*asked_words()),
        exclusion=_alternation(data["exclusion"]["zh"], data["exclusion"]["en"]),
        share=_alternation(*rates.share_words()),
        money=_alternation(data["money_columns"]["zh"], []),
        money_words=frozenset(w.lower().removesuffix("s") for w in data["money_columns"]["en"]),
        months=months,
        en_month=re.compile(rf"\b({names})\b\.?(?:\s+(\d{{4}}))?", re.I),
    )


def asked(question: str) -> Ask | None:
    """Whether the question asks how many things there are or for an amount (None: neither,
    or both, as in "How many claims, and what is their total amount?").

    Example:
        >>> asked("How many warranty claims were filed in total?")
        'count'
        >>> asked("What is the total amount of all warranty claims?")
        'amount'
        >>> asked("订单明细里一共有多少笔已支付订单？"), asked("员工的月薪总和是多少？")
        ('count', 'amount')
        >>> asked("How many claims were filed, and what is their total amount?") is None
        True
    """
    words = ask_words()
    count = bool(words.count.search(question))
    amount = bool(words.amount.search(question))
    if count == amount:
        return None
    return "count" if count else "amount"


def asks_quantity(question: str) -> bool:
    """Whether the question asks how many or how much (多少, 几个): its answer is a number.

    Example:
        >>> asks_quantity("每个教学班最多可以有多少名学员？"), asks_quantity("How much was paid?")
        (True, True)
        >>> asks_quantity("What is the name of the student with the greatest number of friends?")
        False
        >>> asks_quantity("Which teacher teaches PY101?"), asks_quantity("学员手册在哪里下载？")
        (False, False)
    """
    return bool(ask_words().quantity.search(question))


def asks_one_figure(question: str) -> bool:
    """Whether the question asks for one figure (a count, an amount, a rate) and no rows.

    Example:
        >>> asks_one_figure("订单的退款率是多少？"), asks_one_figure("What is the total amount?")
        (True, True)
        >>> asks_one_figure("各渠道的退款率是多少？"), asks_one_figure("Which claim is largest?")
        (False, False)
        >>> asks_one_figure("退货率超过10%的商品根据退货政策应该怎么处理")
        False
        >>> asks_one_figure("Products with a return rate above 10 percent?")
        False
        >>> asks_one_figure("How many orders were above $500?")
        True
    """
    if asks_over_rows(question):
        return False
    return asked(question) is not None or bool(ask_words().rate.search(question))


def label_word(question: str) -> str | None:
    """The words by which the question asks for names (``'哪'``, ``'each'``), None when it asks
    for none. A listing word (列出, list the, rank) asks for names only when the question asks
    for no number: "List the number of different series names" wants the counts; 'for all'
    and 分别 ("最大值和最小值分别是多少") are not asked for names at all.

    Example:
        >>> label_word("哪个城市最高？"), label_word("What was the highest order amount?") is None
        ('哪', True)
        >>> label_word("List the teams by size."), label_word("列出各渠道的销售额")
        ('List the', '各')
        >>> label_word("List the number of different series names and contents.") is None
        True
        >>> label_word("其中，排名第一的等级是多少？") is None, label_word("列出排名前三的品类")
        (True, '前三')
        >>> label_word("What is the average age for all French singers?") is None
        True
    """
    words = ask_words()
    if found := words.labels.search(question):
        return found.group(0)
    listing = words.listing.search(question)
    if listing is None or words.quantity.search(question) or words.count.search(question):
        return None
    return listing.group(0)


def negates(question: str) -> bool:
    """Whether the question asks for things with none of something (not, without, 没有).

    Example:
        >>> negates("Which countries are not playing any cartoon by Todd Casey?")
        True
        >>> negates("哪些学生没有宠物？"), negates("Which students don't own pets?")
        (True, True)
        >>> negates("Which countries play cartoons by Todd Casey?"), negates("注意事项")
        (False, False)
    """
    return bool(ask_words().negation.search(question))


def asks_over_rows(question: str) -> bool:
    """Whether the question asks about many rows: each, which, the highest, a list, a rank, or
    the things past a threshold.

    Example:
        >>> asks_over_rows("Which claim is largest?"), asks_over_rows("各渠道的退款率是多少？")
        (True, True)
        >>> asks_over_rows("退款多久到账？"), asks_over_rows("退货率超过10%的商品怎么处理？")
        (False, True)
    """
    words = ask_words()
    if words.grouping.search(question):
        return True
    # 退货率超过10%的商品: the rate picks rows, it is not the figure asked (a count still is)
    return asked(question) is None and bool(words.threshold.search(question))


def names_time(question: str) -> bool:
    """Whether the question says anything about time: a date, a year, a month, or a time word
    ("last month", "最近", "since").

    Example:
        >>> names_time("哪个渠道的客单价最高？"), names_time("上月华东的毛利是多少？")
        (False, True)
        >>> names_time("How many claims since 2025?"), names_time("How many claims?")
        (True, False)
    """
    if names_day(question) or named_months(question) or _YEAR.search(question):
        return True
    return bool(ask_words().time.search(question))


def asks_rate(question: str) -> bool:
    """Whether the question asks for a share of a whole (a rate, a ratio, a percentage).

    Example:
        >>> asks_rate("订单的退款率是多少？"), asks_rate("What share of sales came from promos?")
        (True, True)
        >>> asks_rate("What is the average order value?")
        False
    """
    return bool(ask_words().share.search(question))


def names_rate(column: str) -> bool:
    """Whether a result column's name says it is a rate (``退款率``, ``refund_rate``, ``pct``).

    Example:
        >>> names_rate("退款率"), names_rate("refund_rate"), names_rate("total")
        (True, True, False)
    """
    return bool(ask_words().share.search(column.replace("_", " ")))


def excludes(sentence: str) -> bool:
    """Whether a sentence of a definition says what it leaves out.

    Example:
        >>> excludes("已退款、已取消的订单不计入客单价。"), excludes("Refunds are excluded.")
        (True, True)
        >>> excludes("分母：status 为 PAID 或 REFUND 的订单")
        False
    """
    return bool(ask_words().exclusion.search(sentence))


def is_money_column(name: str) -> bool:
    """Whether a column's name says it holds money (so its SUM is an amount, not a count).

    Example:
        >>> is_money_column("amount"), is_money_column("net_amt"), is_money_column("月薪")
        (True, True, True)
        >>> is_money_column("qty"), is_money_column("units_sold"), is_money_column("数量")
        (False, False, False)
    """
    lowered = name.lower()
    words = ask_words()
    parts = {p.removesuffix("s") for p in re.split(r"[_\W]+", lowered) if p}
    return bool(parts & words.money_words) or bool(words.money.search(lowered))


def named_months(question: str) -> set[tuple[int | None, int]]:
    """The whole months the question names, as (year or None, month), when it names no day.

    Example:
        >>> sorted(named_months("How many claims were filed in March 2026?"))
        [(2026, 3)]
        >>> sorted(named_months("2026年2月一共有多少笔订单？"))
        [(2026, 2)]
        >>> named_months("How much was paid on 03/05/2026?"), named_months("2026年5月3日收到多少")
        (set(), set())
        >>> sorted(named_months("stat_month 2026-09 的销售额")), named_months("May I ask?")
        ([(2026, 9)], set())
    """
    if names_day(question):
        return set()
    words = ask_words()
    out: set[tuple[int | None, int]] = set()
    for m in words.en_month.finditer(question):
        name = m.group(1).lower()
        if name == "may" and not m.group(2):  # "May I …": the month only with a year
            continue
        year = int(m.group(2)) if m.group(2) else None
        out.add((year, words.months[name]))
    for m in _ISO_MONTH.finditer(question):
        if 1 <= int(m.group(2)) <= 12:
            out.add((int(m.group(1)), int(m.group(2))))
    for m in _ZH_MONTH.finditer(question):
        if 1 <= int(m.group(2)) <= 12:
            out.add((int(m.group(1)) if m.group(1) else None, int(m.group(2))))
    return out


_ZH_QUARTER = re.compile(r"((?:19|20)\d{2})\s*年\s*(?:的)?\s*第?\s*([一二三四1-4])\s*季度")
_EN_QUARTER = re.compile(
    r"\bQ([1-4])\s*(?:of\s+)?((?:19|20)\d{2})\b|\b((?:19|20)\d{2})\s*-?\s*Q([1-4])\b"
    r"|\b(first|second|third|fourth) quarter of ((?:19|20)\d{2})\b",
    re.I,
)
_ZH_YEAR = re.compile(
    r"((?:19|20)\d{2})\s*年(?!\s*(?:的)?\s*(?:第|\d{1,2}\s*月|[一二三四五六七八九十]+月|上半年|下半年|前|后))"
)
_EN_YEAR = re.compile(
    r"\b(?:in|during|for|of|throughout)\s+((?:19|20)\d{2})\b(?!\s*[-/]?\s*Q)", re.I
)
_QUARTER_NUMBER = {"一": 1, "二": 2, "三": 3, "四": 4, "first": 1, "second": 2, "third": 3,
                   "fourth": 4}  # fmt: skip


def named_span(question: str) -> tuple[dt.date, dt.date] | None:
    """The one whole year or quarter the question names, as [start, end) dates; None when it
    names none, more than one, a month or a day (months: :func:`named_months`).

    Example:
        >>> named_span("2026年第三季度已支付订单中，手机数码类商品一共卖出多少件？")
        (datetime.date(2026, 7, 1), datetime.date(2026, 10, 1))
        >>> named_span("2026年哪个门店的销售额最高？")
        (datetime.date(2026, 1, 1), datetime.date(2027, 1, 1))
        >>> named_span("What was the total refunded amount in 2026, in yuan?")
        (datetime.date(2026, 1, 1), datetime.date(2027, 1, 1))
        >>> named_span("Orders in Q4 2025?"), named_span("2025年和2026年的销售额")
        ((datetime.date(2025, 10, 1), datetime.date(2026, 1, 1)), None)
        >>> named_span("2026年3月的销售额"), named_span("2026年上半年"), named_span("销售额")
        (None, None, None)
    """
    if names_day(question) or named_months(question):
        return None
    quarters = set()
    for m in _ZH_QUARTER.finditer(question):
        n = m.group(2)
        quarters.add((int(m.group(1)), int(n) if n.isdigit() else _QUARTER_NUMBER[n]))
    for m in _EN_QUARTER.finditer(question):
        if m.group(1):
            quarters.add((int(m.group(2)), int(m.group(1))))
        elif m.group(3):
            quarters.add((int(m.group(3)), int(m.group(4))))
        else:
            quarters.add((int(m.group(6)), _QUARTER_NUMBER[m.group(5).lower()]))
    if quarters:
        if len(quarters) != 1:
            return None
        ((year, q),) = quarters
        start = dt.date(year, 3 * q - 2, 1)
        return start, (dt.date(year + 1, 1, 1) if q == 4 else dt.date(year, 3 * q + 1, 1))
    years = {int(m.group(1)) for m in (*_ZH_YEAR.finditer(question), *_EN_YEAR.finditer(question))}
    if len(years) != 1 or len(set(_YEAR.findall(question))) != 1:
        return None
    (year,) = years
    return dt.date(year, 1, 1), dt.date(year + 1, 1, 1)


def names_day(question: str) -> bool:
    """Whether the question names a single day (a date, "5th", "3月5日").

    Example:
        >>> names_day("paid on 03/05/2026"), names_day("3月5日"), names_day("in March 2026")
        (True, True, False)
    """
    return bool(_EN_DAY.search(question) or _ZH_DAY.search(question))


def names_period(question: str) -> bool:
    """Whether the question names a month or a year and no single day.

    Example:
        >>> names_period("in 2026"), names_period("in March"), names_period("on 2026-03-05")
        (True, True, False)
        >>> names_period("How many claims?")
        False
    """
    if names_day(question):
        return False
    return bool(named_months(question) or _YEAR.search(question))


def is_day(text: str) -> bool:
    """Whether a literal is one calendar day (``2026-03-31``).

    Example:
        >>> is_day("2026-03-31"), is_day("2026-03"), is_day("March")
        (True, False, False)
    """
    return bool(_DAY.fullmatch(text.strip()))
