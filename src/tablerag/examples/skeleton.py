"""Pure similarity measures of verified-query selection (DAIL-SQL, Gao et al. 2023).

Two views of a pair: the question's words (literals masked, so "2025" and "2026" read alike),
and the SQL's skeleton (literals and identifiers masked, so the shape of the query counts, not
the table it reads). Both are token bags compared by cosine or Jaccard.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence

import sqlglot
from sqlglot import exp
from sqlglot.errors import SqlglotError

from tablerag.lang.tokenize import tokenize

_NUMBER = re.compile(r"^[+-]?\d+(?:[.,]\d+)*%?$")
_QUOTED = re.compile(r"[\"'“”‘’「」『』]([^\"'“”‘’「」『』]{1,40})[\"'“”‘’「」『』]")
LITERAL = "<v>"
NAME = "<n>"


def question_tokens(question: str) -> list[str]:
    """The question's words with numbers masked (DAIL-SQL's masked question, for literals).

    Example:
        >>> question_tokens("How many refunds in 2026?")
        ['mani', 'refund', '<v>']
    """
    return [LITERAL if _NUMBER.match(t) else t for t in tokenize(question)]


def literals(question: str) -> tuple[str, ...]:
    """The question's literals: its numbers and quoted words, sorted. A verified query is
    reused as it is only for a question with exactly these (its SQL holds them).

    Example:
        >>> literals("Orders of 'East' in 2026 and 2025?")
        ('2025', '2026', 'east')
    """
    numbers = [t for t in tokenize(question) if _NUMBER.match(t)]
    quoted = [m.lower() for m in _QUOTED.findall(question)]
    return tuple(sorted({*numbers, *quoted}))


def sql_skeleton(sql: str, dialect: str | None = None) -> tuple[str, ...]:
    """The query's skeleton: its tokens with every literal and identifier masked.

    Example:
        >>> " ".join(sql_skeleton("SELECT region, SUM(amt) FROM sales WHERE y = 2026 GROUP BY 1"))
        'SELECT <n> , SUM ( <n> ) FROM <n> WHERE <n> = <v> GROUP BY <v>'
        >>> sql_skeleton("SELECT FROM WHERE (")
        ()
    """
    try:
        tree = sqlglot.parse_one(sql, read=dialect or None)
    except SqlglotError:
        return ()
    if tree is None:
        return ()
    tree = tree.copy()
    for node in list(tree.walk()):
        if isinstance(node, exp.Literal):
            node.replace(exp.Placeholder(this="v"))
        elif isinstance(node, exp.Identifier):
            node.set("this", "n")
            node.set("quoted", False)
    text = tree.sql(dialect=dialect or None)
    text = text.replace(":v", LITERAL).replace("n.n.n", "n").replace("n.n", "n")
    spaced = re.sub(r"([(),])", r" \1 ", text)
    return tuple(NAME if t == "n" else t for t in spaced.split())


def cosine(a: Sequence[str], b: Sequence[str]) -> float:
    """Cosine similarity of two token bags (0 when either is empty).

    Example:
        >>> round(cosine(["a", "b"], ["a", "c"]), 2), cosine([], ["a"]), cosine(["x"], ["x"])
        (0.5, 0.0, 1.0)
    """
    ca, cb = Counter(a), Counter(b)
    if not ca or not cb:
        return 0.0
    dot = sum(ca[t] * cb[t] for t in ca)
    norm = math.sqrt(sum(v * v for v in ca.values())) * math.sqrt(sum(v * v for v in cb.values()))
    return min(1.0, dot / norm)


def jaccard(a: Sequence[str], b: Sequence[str]) -> float:
    """Jaccard similarity of two token bags, counts included (0 when both are empty).

    Example:
        >>> jaccard(["SELECT", "<n>", "<n>"], ["SELECT", "<n>"])
        0.6666666666666666
    """
    ca, cb = Counter(a), Counter(b)
    union = sum((ca | cb).values())
    return sum((ca & cb).values()) / union if union else 0.0
