"""Does a query that ran compute the rate its question asks for?

"上个月退货率最高的三个品类" asks for a rate (refunded orders ÷ paid orders); the local model
counted refunds and ranked the categories by the count, and the answer called that the return
rate. A rate is a division (or an average of one); a query with neither, that reads no stored
rate column either, answers another question. :func:`missing_rate` says which word asked for
the rate, so that one repair round can ask for the division. A division can count the same rows
above and below the line (refunds ÷ refunded orders): every group's rate is then 1 (or 0), which
:func:`same_rate` notices. :func:`rate_problem` runs both and says what to ask and what to warn.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import sqlglot
from sqlglot import exp
from sqlglot.errors import ParseError, TokenError

from tablerag.answer import Answer, Finding
from tablerag.answer.confidence import confidence
from tablerag.answer.findings import composed
from tablerag.lang.rates import NAMED
from tablerag.linking.lexicon import equivalents

_ASKED = NAMED
#: Messages (``lang/messages.json``) of an answer whose rows are not the rate asked for.
RATE_CAVEAT = "nl2sql.rate_caveat"
SAME_CAVEAT = "nl2sql.same_caveat"
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


RATE_SAME = (
    "it ran, but the question asks for {word}, and {column} is {value} in every row, which no "
    "real rate is; divide the rows that have it by all the rows of each group"
)
"""Why a query whose rate is 1 everywhere (the division counts the same rows above and below
the line) or 0 everywhere (the rows above it never qualify) is asked again; short, so that the
definition quoted after it fits the repair message."""
MIN_SAME_ROWS = 2


@dataclass(frozen=True)
class RateProblem:
    """What is wrong with the rate a query computed: the question's word for the rate, the
    reason for the repair round, and the caveat (a finding) when the repair does not mend it."""

    word: str
    doubt: str
    caveat: Finding


def same_rate(
    question: str, columns: Sequence[str], rows: Sequence[Sequence[Any]]
) -> tuple[str, str, str] | None:
    """(the question's rate word, the column, its value) when the question asks for a rate and
    a rate column is the same 0 or 1 in each of at least :data:`MIN_SAME_ROWS` rows.

    Example:
        >>> q = "上个月退货率最高的三个品类"
        >>> same_rate(q, ["category", "refund_rate"], [["手机", 1.0], ["家电", 1.0]])
        ('退货率', 'refund_rate', '1')
        >>> same_rate(q, ["category", "refund_rate"], [["手机", 0.4], ["家电", 0.2]])
        >>> same_rate("各品类的退款数", ["category", "n"], [["手机", 1], ["家电", 1]])
    """
    asked = _ASKED.search(question)
    if asked is None or _NOT_ASKED.search(question) or len(rows) < MIN_SAME_ROWS:
        return None
    for i, name in enumerate(columns):
        values = {row[i] for row in rows}
        if not _STORED.search(name) or len(values) != 1:
            continue
        (value,) = values
        if isinstance(value, int | float) and not isinstance(value, bool) and value in (0, 1):
            return asked.group(0), name, str(int(value))
    return None


def rate_problem(
    question: str, sql: str, columns: Sequence[str], rows: Sequence[Sequence[Any]], *, dialect: str
) -> RateProblem | None:
    """The problem with the rate a query that ran computed for ``question``: none computed
    (:func:`missing_rate`) or the same 0 or 1 in every row (:func:`same_rate`); None if
    neither."""
    word = missing_rate(question, sql, dialect=dialect)
    if word is not None:
        caveat = _caveat("rate_missing", RATE_CAVEAT, {"word": word})
        return RateProblem(word, RATE_MISSING.format(word=word), caveat)
    same = same_rate(question, columns, rows)
    if same is None:
        return None
    word, column, value = same
    caveat = _caveat("rate_same", SAME_CAVEAT, {"word": word, "column": column, "value": value})
    return RateProblem(word, RATE_SAME.format(word=word, column=column, value=value), caveat)


def _caveat(code: str, key: str, values: dict[str, str]) -> Finding:
    return Finding(
        code=code, severity="caveat", message=key, values=values, stage="rate", placement="tail"
    )


def with_caveat(answer: Answer, problem: RateProblem) -> Answer:
    """``answer`` saying that its rows are not the rate the question asked for: the caveat
    among its findings and, in its language, under its text."""
    if answer.status != "ok":
        return answer
    return answer.model_copy(
        update={
            "answer": composed(answer.answer, [problem.caveat], answer.language),
            "findings": [*answer.findings, problem.caveat],
        }
    )


def caveated(answer: Answer, problem: RateProblem) -> Answer:
    """``answer`` (``ok`` or ``unsure``) with the caveat that its rows are not the rate asked
    for: ``unsure``, its confidence less the caveat's weight (``rate_caveat``)."""
    if answer.status not in ("ok", "unsure"):
        return answer
    said = with_caveat(answer.model_copy(update={"status": "ok"}), problem)
    lowered = confidence(answer.confidence, ["rate_caveat"])
    return said.model_copy(update={"status": "unsure", "confidence": lowered})


def definition_hint(word: str, notes: Sequence[str], pairs: Sequence[tuple[str, str]] = ()) -> str:
    """The schema note defining ``word`` (a metric glossary row), as a repair hint."""
    names = equivalents(word, pairs)
    note = next((n for n in notes if any(w in n for w in names)), None)
    return f" As defined: {note.removeprefix('-- ')}" if note else ""
