"""The checks of what the model writes around the SQL: its reply, and its explanation of the rows.

A reply cut off at its length limit inside its SQL block holds a query cut short: it is not
run (the model is asked again). An explanation of the rows that was cut off, that quotes
nothing from the result, or that states a number the rows and the question do not hold, is
replaced by a template built from the rows (every number of which is grounded). Each is a
registered step (:data:`tablerag.nl2sql.stages.REPLY_CHECKS`, ``EXPLANATION_CHECKS``).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from tablerag.answer.grounding import ungrounded_numbers


@dataclass(frozen=True)
class Reply:
    """The model's reply to the SQL prompt."""

    text: str
    truncated: bool
    """Cut off at its length limit."""


@dataclass(frozen=True)
class Explanation:
    """The model's explanation of the rows, and what it must be grounded in."""

    text: str
    truncated: bool
    question: str
    cells: Sequence[Any]
    """The cells of the rows the model was shown."""
    rows: int
    """How many rows the query found."""


def cut_in_sql(reply: Reply) -> bool:
    """Whether the reply was cut off before its SQL block closed (its query is cut short).

    Example:
        >>> cut_in_sql(Reply("```sql\\nSELECT a, b FROM t WHERE", True))
        True
        >>> cut_in_sql(Reply("```sql\\nSELECT 1\\n```\\nThis query", True))
        False
    """
    return reply.truncated and reply.text.count("```") < 2


def ungrounded(x: Explanation) -> bool:
    """Whether the explanation cannot stand: cut off mid-sentence, hardly text, holding SQL,
    stating a number from nowhere, or quoting nothing of the result.

    Example:
        >>> ok = Explanation("P3001 的退货率最高。", False, "退货率最高的商品", ["P3001", 0.254], 3)
        >>> ungrounded(ok), ungrounded(Explanation("约 40% 的商品。", False, "q", [0.254], 3))
        (False, True)
    """
    if x.truncated:
        return True
    text = x.text.strip()
    # the row count may be quoted ("3 regions"), but 1 would excuse any stray "1"
    counts = [x.rows] if x.rows > 1 else []
    return (
        sum(ch.isalpha() for ch in text) < 2
        or "```" in text
        or bool(ungrounded_numbers(text, [*x.cells, x.question, *counts]))
        or not quotes_result(text, x.cells, x.question)
    )


def quotes_result(text: str, cells: Sequence[Any], question: str) -> bool:
    """Whether an explanation says something from the result: a text cell, or a number the
    question does not hold (an explanation that only restates the question explains nothing).

    Example:
        >>> cells = ["P3001", 0.254]
        >>> quotes_result("退货率超过10%的商品应按政策处理。", cells, "退货率超过10%的商品")
        False
        >>> quotes_result("P3001 的退货率最高。", cells, "退货率超过10%的商品")
        True
        >>> quotes_result("最高为 25.4%。", cells, "退货率超过10%的商品")
        True
    """
    labels = (str(v).strip() for v in cells if isinstance(v, str | dt.date))
    return any(label and label in text for label in labels) or bool(
        ungrounded_numbers(text, [question])
    )


__all__ = ["Explanation", "Reply", "cut_in_sql", "quotes_result", "ungrounded"]
