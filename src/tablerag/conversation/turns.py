"""What a session keeps of one answer: the shape of its result, never its rows."""

from __future__ import annotations

import sqlglot
from sqlglot import exp
from sqlglot.errors import SqlglotError

from tablerag.answer import Answer
from tablerag.store.sessions import Turn

MAX_ANSWER_CHARS = 400
"""Characters of an answer's text kept for the next follow-up's prompt."""
MAX_VALUES = 12


def filter_values(sql: str) -> tuple[str, ...]:
    """The literal values a query filters its rows on (``WHERE`` and ``HAVING``), in order.

    Example:
        >>> filter_values("SELECT sum(x) FROM t WHERE region = '华东' AND month IN ('2026-10')")
        ('华东', '2026-10')
        >>> filter_values("SELECT count(*) FROM t"), filter_values("not sql (")
        ((), ())
    """
    try:
        tree = sqlglot.parse_one(sql)
    except SqlglotError:
        return ()
    if tree is None:
        return ()
    found: list[str] = []
    for clause in (*tree.find_all(exp.Where), *tree.find_all(exp.Having)):
        found += [str(lit.this) for lit in clause.find_all(exp.Literal)]
    return tuple(dict.fromkeys(found))[:MAX_VALUES]


def turn_of(question: str, standalone: str, answer: Answer, answer_id: str) -> Turn:
    """The turn a session keeps of ``answer`` to ``question`` (resolved to ``standalone``)."""
    table = answer.table
    return Turn(
        question=question,
        standalone=standalone,
        answer_id=answer_id,
        path=answer.path,
        status=answer.status,
        sql=answer.sql,
        columns=tuple(table.columns) if table is not None else (),
        row_count=table.row_count if table is not None else None,
        filter_values=filter_values(answer.sql) if answer.sql else (),
        chunk_ids=tuple(c.chunk_id for c in answer.citations),
        answer=answer.answer[:MAX_ANSWER_CHARS],
        choices=tuple((c.label, c.question) for c in answer.clarifications),
    )
