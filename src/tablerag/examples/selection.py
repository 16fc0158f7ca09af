"""Which verified queries a question gets: the one it reuses, and the few its prompt shows.

DAIL-SQL's selection (Gao et al., 2023): candidates ranked by the similarity of the questions
with their literals masked, plus — when a draft query for the question exists (a repair round,
an evaluation) — the similarity of the SQL skeletons; among near-equal candidates the next one
shown has a skeleton the chosen ones lack, so three examples teach three shapes. The examples
are added while they fit the token budget.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import sqlglot
from sqlglot.errors import SqlglotError

from tablerag.examples.skeleton import (
    cosine,
    jaccard,
    literals,
    question_tokens,
    sql_skeleton,
)
from tablerag.lang.untrusted import clean_inline
from tablerag.store.examples import Example
from tablerag.tokens import count_tokens

MIN_SIMILARITY = 0.2
"""Below this question similarity an example teaches nothing about the question."""
SKELETON_WEIGHT = 0.5
"""Weight of the skeleton similarity beside the question's when a draft query exists."""
SAME_SHAPE_PENALTY = 0.15
"""Taken off a candidate whose skeleton a chosen example already shows."""
QUESTION_CHARS = 200
"""Longest question shown in a prompt's example."""
HEADER = "-- Verified examples (question → SQL people checked on these tables):"


@dataclass(frozen=True)
class Scored:
    """An example and how close it is to the question."""

    example: Example
    score: float


def similarity(question: str, example: Example) -> float:
    """Cosine of the two questions' words, literals masked (1.0: the same words)."""
    return cosine(question_tokens(question), question_tokens(example.question))


def closest(question: str, examples: Sequence[Example], threshold: float) -> Scored | None:
    """The verified query ``question`` reuses as it is: the most similar one at or above
    ``threshold`` whose question has the same literals (numbers, quoted words), else None.
    Literals are never adapted: a pair for 2025 does not answer 2026."""
    mine = literals(question)
    best: Scored | None = None
    for e in examples:
        score = similarity(question, e)
        better = best is None or score > best.score
        if score >= threshold and better and literals(e.question) == mine:
            best = Scored(e, score)
    return best


def choose(
    question: str,
    examples: Sequence[Example],
    *,
    k: int = 3,
    max_tokens: int = 300,
    draft_sql: str | None = None,
    dialect: str | None = None,
) -> list[Example]:
    """At most ``k`` examples for the prompt of ``question``, most useful first, within
    ``max_tokens`` (the block as :func:`prompt_block` writes it)."""
    draft = sql_skeleton(draft_sql, dialect) if draft_sql else ()
    ranked = []
    for e in examples:
        score = similarity(question, e)
        if score < MIN_SIMILARITY:
            continue
        if draft:
            score += SKELETON_WEIGHT * jaccard(draft, sql_skeleton(e.sql, dialect))
        ranked.append(Scored(e, score))
    chosen: list[Example] = []
    shapes: set[tuple[str, ...]] = set()
    used = count_tokens(HEADER)
    while ranked and len(chosen) < k:
        ranked.sort(
            key=lambda s: (
                -(s.score - (SAME_SHAPE_PENALTY if _shape(s.example, dialect) in shapes else 0)),
                s.example.id,
            )
        )
        best = ranked.pop(0)
        cost = count_tokens(_pair(best.example, dialect))
        if used + cost > max_tokens:
            continue
        chosen.append(best.example)
        shapes.add(_shape(best.example, dialect))
        used += cost
    return chosen


def prompt_block(examples: Sequence[Example], dialect: str | None = None) -> str:
    """The examples as SQL comments and statements, for the end of the prompt's schema text."""
    if not examples:
        return ""
    return "\n".join([HEADER, *(_pair(e, dialect) for e in examples)])


def _pair(example: Example, dialect: str | None = None) -> str:
    """One pair as the prompt shows it, on two lines: the question (from a user's feedback
    perhaps) cannot leave its comment nor hide characters."""
    question = clean_inline(example.question, limit=QUESTION_CHARS)
    return f"-- Q: {question}\n{_one_line(example.sql, dialect)};"


def _one_line(sql: str, dialect: str | None) -> str:
    """The SQL on one line, its comments dropped (a ``--`` comment would swallow the rest).

    Example:
        >>> _one_line("SELECT a -- the key\\nFROM t", "duckdb")
        'SELECT a FROM t'
        >>> _one_line("SELECT a\\nFROM t", None)
        'SELECT a FROM t'
    """
    if "--" not in sql and "/*" not in sql and "#" not in sql:
        return clean_inline(sql)  # as the reviewer wrote it
    try:
        tree = sqlglot.parse_one(sql, read=dialect or None)
    except SqlglotError:
        tree = None
    if tree is None:
        return clean_inline(sql)
    return clean_inline(tree.sql(dialect=dialect or None, comments=False))


def _shape(example: Example, dialect: str | None) -> tuple[str, ...]:
    return sql_skeleton(example.sql, dialect)
