"""WikiTableQuestions denotation accuracy, with the official evaluator's normalisation.

A re-implementation (no code copied) of the behaviour documented in ``evaluator.py`` of
ppasupat/WikiTableQuestions (dataset release 1.0.2):

* every answer item becomes a *value*: a number when Python's ``int``/``float`` parse it, a
  date when it reads ``yyyy-mm-dd`` (``xx`` for unknown parts; a year alone is a number), else
  a string;
* strings are normalised: accents removed, smart quotes and dashes made ASCII, trailing
  citations (``[1]``, ``*``, ``†``...) and trailing ``(details)`` removed, outer quotes
  removed, a final ``.`` removed, whitespace collapsed, lower-cased;
* a target item matches a predicted item when their normalised strings are equal, or both are
  numbers within 1e-6, or both are the same date;
* the prediction is correct when, as sets, it has as many items as the target and every target
  item matches some predicted item.

The official script reads the targets' CoreNLP canonical forms (``targetCanon``) from the tagged
dataset, which this repository does not ship; like most re-implementations, the targets here are
parsed from their raw strings (so a target ``"17 years"`` is a string, not the number 17).
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

Kind = Literal["string", "number", "date"]

_QUOTES_SINGLE = re.compile("[\u2018\u2019\u00b4`]")
_QUOTES_DOUBLE = re.compile("[\u201c\u201d]")
_DASHES = re.compile("[\u2010\u2011\u2012\u2013\u2014\u2212]")
_CITATIONS = re.compile(r"((?<!^)\[[^\]]*\]|\[\d+\]|[\u2022\u2666\u2020\u2021*#+])*$")
_PARENTHESES = re.compile(r"(?<!^)( \([^)]*\))*$")
_OUTER_QUOTES = re.compile(r'^"([^"]*)"$')
_SPACES = re.compile(r"\s+")


def normalize(text: str) -> str:
    """The official string normalisation of an answer item.

    Example:
        >>> normalize("Café “Noir” [1]")
        'cafe "noir"'
        >>> normalize('"Rock  Music" (band)'), normalize('Rock (band).')
        ('rock music', 'rock (band)')
        >>> normalize("1990–1995")
        '1990-1995'
    """
    x = "".join(c for c in unicodedata.normalize("NFKD", text) if unicodedata.category(c) != "Mn")
    x = _QUOTES_SINGLE.sub("'", x)
    x = _QUOTES_DOUBLE.sub('"', x)
    x = _DASHES.sub("-", x)
    while True:
        before = x
        x = _CITATIONS.sub("", x.strip())
        x = _PARENTHESES.sub("", x.strip())
        x = _OUTER_QUOTES.sub(r"\1", x.strip())
        if x == before:
            break
    if x.endswith("."):
        x = x[:-1]
    return _SPACES.sub(" ", x).lower().strip()


@dataclass(frozen=True)
class Value:
    """One answer item as the evaluator sees it.

    Attributes:
        kind: ``string``, ``number`` or ``date``.
        normalized: the normalised original string.
        amount: the number (ints kept as ints), for numbers.
        ymd: (year, month, day) with -1 for unknown parts, for dates.
    """

    kind: Kind
    normalized: str
    amount: float | None = None
    ymd: tuple[int, int, int] | None = None

    def key(self) -> tuple[str, object]:
        """What makes two values the same set member (the official ``__eq__``/``__hash__``)."""
        if self.kind == "number":
            return ("number", self.amount)
        if self.kind == "date":
            return ("date", self.ymd)
        return ("string", self.normalized)

    def matches(self, other: Value) -> bool:
        """Whether this (target) value matches ``other`` (a predicted value).

        Example:
            >>> to_value("2").matches(to_value("2.0")), to_value("2").matches(to_value("two"))
            (True, False)
        """
        if self.normalized == other.normalized:
            return True
        if self.kind == "number" and other.kind == "number":
            assert self.amount is not None and other.amount is not None
            return abs(self.amount - other.amount) < 1e-6
        if self.kind == "date" and other.kind == "date":
            return self.ymd == other.ymd
        return False


def parse_number(text: str) -> float | None:
    """The number ``text`` holds for Python's ``int()``/``float()``, else None.

    Underscores are refused, as Python 2 (the evaluator's language) did; NaN and infinities
    are not numbers.

    Example:
        >>> parse_number(" 12 "), parse_number("2.50"), parse_number("1e3"), parse_number("1,000")
        (12, 2.5, 1000.0, None)
    """
    if "_" in text:
        return None
    try:
        return int(text)
    except ValueError:
        pass
    try:
        amount = float(text)
    except ValueError:
        return None
    return None if math.isnan(amount) or math.isinf(amount) else amount


def parse_date(text: str) -> tuple[int, int, int] | None:
    """``yyyy-mm-dd`` with ``xx`` for unknown parts as (year, month, day), -1 for unknown.

    Example:
        >>> parse_date("2010-07-xx"), parse_date("xx-01-02"), parse_date("2010-13-01")
        ((2010, 7, -1), (-1, 1, 2), None)
    """
    parts = text.lower().split("-")
    if len(parts) != 3:
        return None
    try:
        year = -1 if parts[0] in ("xx", "xxxx") else int(parts[0])
        month = -1 if parts[1] == "xx" else int(parts[1])
        day = -1 if parts[2] == "xx" else int(parts[2])
    except ValueError:
        return None
    if year == month == day == -1:
        return None
    if month != -1 and not 1 <= month <= 12:
        return None
    if day != -1 and not 1 <= day <= 31:
        return None
    return year, month, day


def to_value(text: str) -> Value:
    """An answer item as a number, a date or a string (in that order of preference).

    Example:
        >>> to_value("3.0").kind, to_value("2010-xx-xx").kind, to_value("2010-07-xx").kind
        ('number', 'number', 'date')
        >>> to_value("Italy")
        Value(kind='string', normalized='italy', amount=None, ymd=None)
    """
    normalized = normalize(text)
    amount = parse_number(text)
    if amount is not None:
        return Value("number", normalized, amount=_integral(amount))
    ymd = parse_date(text)
    if ymd is not None:
        if ymd[1] == ymd[2] == -1:
            return Value("number", normalized, amount=ymd[0])
        return Value("date", normalized, ymd=ymd)
    return Value("string", normalized)


def _integral(amount: float) -> float:
    return int(round(amount)) if abs(amount - round(amount)) < 1e-6 else float(amount)


def to_value_list(items: Iterable[str]) -> list[Value]:
    """The items as a set of values (duplicates under the value identity removed, first kept).

    Example:
        >>> [v.normalized for v in to_value_list(["2", "2.0", "b", "B"])]
        ['2', 'b']
    """
    seen: dict[tuple[str, object], Value] = {}
    for item in items:
        value = to_value(item)
        seen.setdefault(value.key(), value)
    return list(seen.values())


def check_denotation(target: Sequence[Value], predicted: Sequence[Value]) -> bool:
    """Same size, and every target value matches some predicted value."""
    if len(target) != len(predicted):
        return False
    return all(any(t.matches(p) for p in predicted) for t in target)


def denotation_match(predicted: Sequence[str], target: Sequence[str]) -> bool:
    """Whether the predicted answer items are correct for the target items.

    Args:
        predicted: the answer items (cells, or the model's ``|``-separated values).
        target: the gold items (``targetValue`` split on ``|`` and unescaped).

    Returns:
        True when the two denote the same set under the official matching rules.

    Example:
        >>> denotation_match(["2.0"], ["2"]), denotation_match(["ITALY."], ["Italy"])
        (True, True)
        >>> denotation_match(["b", "a"], ["a", "b"]), denotation_match(["a"], ["a", "b"])
        (True, False)
        >>> denotation_match(["2012-07-04"], ["2012-07-04"]), denotation_match(["17"], ["17 years"])
        (True, False)
    """
    return check_denotation(to_value_list(target), to_value_list(predicted))


def tsv_unescape(text: str) -> str:
    r"""Undo the dataset TSV escapes: ``\n`` newline, ``\p`` a literal ``|``, ``\\`` backslash.

    Example:
        >>> tsv_unescape(r"a\pb\\c\nd") == "a|b\\c\nd"
        True
    """
    return text.replace(r"\n", "\n").replace(r"\p", "|").replace("\\\\", "\\")


def split_target(target_value: str) -> list[str]:
    r"""The answer items of a ``targetValue`` field (``|``-separated, each unescaped).

    Example:
        >>> split_target(r"Italy|Spain"), split_target(r"AC\pDC")
        (['Italy', 'Spain'], ['AC|DC'])
    """
    return [tsv_unescape(item) for item in target_value.split("|")]
