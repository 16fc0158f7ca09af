"""Does a query that ran compute the rate its question asks for?

"上个月退货率最高的三个品类" asks for a rate (refunded orders ÷ paid orders); the local model
counted refunds and ranked the categories by the count, and the answer called that the return
rate. A rate is a division (or an average of one); a query with neither, that reads no stored
rate column either, answers another question. :func:`missing_rate` says which word asked for
the rate, so that one repair round can ask for the division.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import sqlglot
from sqlglot import exp
from sqlglot.errors import ParseError, TokenError

from tablerag.answer import Answer
from tablerag.linking.lexicon import equivalents

_ASKED = re.compile(
    r"[\u4e00-\u9fff]{2}率|占比|比例|百分比|比率"
    r"|\b(?:\w+ )?(?:rate|ratio|percentage|proportion)s?\b|\bshare of\b|\bper ?cent\b",
    re.IGNORECASE,
)
RATE_CAVEAT = {
    "zh": "（注意：问题问的是{word}，这个查询没有计算比率，结果不是{word}。）",
    "en": "(Note: the question asks for {word}; this query computes no rate, so these rows "
    "are not {word}.)",
}


RATE_MISSING = (
    "it ran, but the question asks for {word}, a rate, and the query divides nothing: "
    "compute the numerator divided by the denominator"
)
"""Why a query that ran is questioned, for the repair round (a rate asked, nothing divided)."""
_NOT_ASKED = re.compile(
    r"\b(?:exchange|interest|tax|coupon|discount) rates?\b|汇率|利率|税率"
    r"|^\s*how many\b|几个|多少个",
    re.IGNORECASE,
)
"""A rate that is a stored quantity (exchange, interest, tax), or a question counting things."""
_STORED = re.compile(r"rate|ratio|pct|percent|share|率|比", re.IGNORECASE)


def missing_rate(question: str, sql: str, *, dialect: str) -> str | None:
    """The words of ``question`` asking for a rate that ``sql`` does not compute, else None.

    ``sql`` computes a rate when it divides, averages, or reads one that is stored: a column
    whose name says it holds one (``tax_rate``, ``Pixel_aspect_ratio_PAR``, ``毛利率``) or a
    row it picks by such a label (``WHERE item = 'Effective income tax rate'``, the way a
    report table stores its rates). SQL that does not parse is not judged.

    Example:
        >>> q = "上个月退货率最高的三个品类"
        >>> missing_rate(q, "SELECT c, COUNT(*) AS n FROM t GROUP BY c", dialect="duckdb")
        '退货率'
        >>> missing_rate(q, "SELECT c, SUM(r) / COUNT(*) FROM t GROUP BY c", dialect="duckdb")
        >>> missing_rate("What is the pixel aspect ratio?", "SELECT Pixel_aspect_ratio_PAR FROM t",
        ...              dialect="sqlite")
        >>> missing_rate("What was the effective rate in 2019?",
        ...              "SELECT col_2019 FROM t WHERE item = 'Effective rate'", dialect="duckdb")
        >>> missing_rate("How many orders?", "SELECT COUNT(*) FROM t", dialect="duckdb")
    """
    asked = _ASKED.search(question)
    if asked is None or _NOT_ASKED.search(question):
        return None
    try:
        tree = sqlglot.parse_one(sql, read=dialect)
    except (ParseError, TokenError):
        return None
    if tree.find(exp.Div, exp.Avg) is not None:
        return None
    names = [c.name for c in tree.find_all(exp.Column)]
    labels = [v.this for v in tree.find_all(exp.Literal) if v.is_string]
    if any(_STORED.search(text) for text in (*names, *labels)):
        return None
    return asked.group(0)


def with_caveat(answer: Answer, rate: str) -> Answer:
    """``answer`` saying that its rows are not the rate the question asked for."""
    if answer.status != "ok":
        return answer
    caveat = RATE_CAVEAT[answer.language].format(word=rate)
    return answer.model_copy(update={"answer": f"{answer.answer}\n{caveat}"})


def definition_hint(word: str, notes: Sequence[str]) -> str:
    """The schema note defining ``word`` (a metric glossary row), as a repair hint."""
    names = equivalents(word)
    note = next((n for n in notes if any(w in n for w in names)), None)
    return f" As defined: {note.removeprefix('-- ')}" if note else ""


def caveats(text: str) -> list[str]:
    """The caveat lines an NL2SQL answer carries (a rate the query did not compute), which an
    answer composed from it must keep.

    Example:
        >>> note = RATE_CAVEAT["en"].format(word="return rate")
        >>> caveats("Result: 3 rows." + chr(10) + note) == [note]
        True
    """
    heads = tuple(c.split("{")[0] for c in RATE_CAVEAT.values())
    return [line for line in text.splitlines() if line.startswith(heads)]
