"""Two documents, two figures: the answer's figure beside another document's different figure
for the same words.

A workspace of several reports, or of two versions of a policy, answers "How much is the cash
provided by financing activities in 2019?" from whichever passage ranks first. When a passage of
another document says the same words with another figure (another company's report, last
year's policy), the answer cannot be ``ok``: which document the question means is not settled,
and the user must see both. On TAT-QA's open corpus of 278 reports the documents path answered
"$1.4 million" from one report while another's passage said "$96.9 million" for the same words.

Only prose passages are compared (a table's chunk is the SQL path's business), only passages
of different source files (one document repeats and breaks down its own figures), and only
sentences holding every word of the question that the answer's own sentence holds (at least
:data:`MIN_SHARED`): "一线城市住宿每晚 600 元" does not differ from "二线城市住宿每晚 400 元"
for a question about 一线城市. Years, days of a month and the question's own numbers are not
figures.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal

from tablerag.answer.grounding import Number, numbers_in
from tablerag.lang.tokenize import tokenize
from tablerag.types import Hit, source_label

MIN_SHARED = 2
"""Least words of the question the answer's sentence and the other sentence must both hold."""
_SENTENCE = re.compile(r"(?<=[。！？；])|(?<=[!?;])\s+|(?<=\.)\s+(?=[A-Z(\"“])|\n+")
_MONTHS = (
    "january|february|march|april|may|june|july|august|september|october|november|december|"
    "jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec"
)
_DATE_PART = re.compile(
    rf"(?:\b(?:{_MONTHS})\.?\s+(?P<day>\d{{1,2}})\b)|(?P<zh>\d{{1,4}})\s*[年月日号]", re.I
)


@dataclass(frozen=True)
class Differing:
    """The answer's figure, the other document's figure, and that document's name."""

    figure: str
    other: str
    source: str


@dataclass(frozen=True)
class _Sentence:
    """One sentence of a prose passage, read once: its file, its words and its figures."""

    source: str
    words: frozenset[str]
    figures: tuple[Number, ...]


def differing_figure(question: str, answer: str, hits: Sequence[Hit]) -> Differing | None:
    """The first figure of ``answer`` that a passage of another document contradicts, or None.

    Example:
        >>> def hit(source, text):
        ...     return Hit(source, source, 1, text, (), None, None, 1.0, 1)
        >>> a = hit("a.md", "Net cash provided by financing activities was $1.4 million in 2019.")
        >>> b = hit("b.md", "Net cash provided by financing activities was $96.9 million for "
        ...         "fiscal 2019, driven by notes.")
        >>> q = "How much is the cash provided by financing activities in 2019?"
        >>> differing_figure(q, "$1.4 million [1]", [a, b])
        Differing(figure='1.4', other='96.9', source='b.md')
        >>> differing_figure(q, "$1.4 million [1]", [a, hit("a.md", b.text)]) is None  # one file
        True
        >>> c = hit("c.md", "二线城市住宿每晚不超过 400 元。")
        >>> d = hit("d.md", "一线城市住宿每晚不超过 600 元。")
        >>> differing_figure("一线城市出差每晚住宿最多能报销多少？", "600 元 [1]", [d, c]) is None
        True
    """
    asked = {_value(n) for n in numbers_in(question)}
    words = frozenset(tokenize(question))
    sentences = [
        _Sentence(h.source, frozenset(tokenize(text)), tuple(_figures(text)))
        for h in hits
        if h.table is None
        for text in _SENTENCE.split(h.text)
        if text.strip()
    ]
    for figure in _figures(answer):
        value = _value(figure)
        if value in asked:
            continue
        for own in (s for s in sentences if any(_value(n) == value for n in s.figures)):
            shared = words & own.words
            if len(shared) < MIN_SHARED:
                continue
            other = next(
                (
                    (n, s.source)
                    for s in sentences
                    if s.source != own.source and shared <= s.words
                    for n in s.figures
                    if _value(n) not in asked and _value(n) != value
                ),
                None,
            )
            if other is not None:
                return Differing(figure.text, other[0].text, source_label(other[1]))
    return None


def _figures(text: str) -> list[Number]:
    """The numbers of ``text`` that state an amount: not a year, not a day or month of a date.

    Example:
        >>> [n.text for n in _figures("For the year ended December 31, 2019, it was 5,798.")]
        ['5,798']
        >>> [n.text for n in _figures("2026年3月5日起，每晚 600 元，12.5%")]
        ['600', '12.5%']
    """
    dated = {m.group("day") or m.group("zh") for m in _DATE_PART.finditer(text)}
    return [n for n in numbers_in(text) if not _is_year(n) and n.text not in dated]


def _is_year(n: Number) -> bool:
    return n.places == 0 and not n.percent and "," not in n.text and 1900 <= n.value <= 2100


def _value(n: Number) -> Decimal:
    return n.value * n.scale
