"""The answer from a verified query a question matches: its SQL run again through the gate,
no model call (issue 33).

The rows are said by the template explanation (every number in it is from the rows), after one
line naming the verified query; ``Answer.knowledge`` lists it (kind ``example``).
"""

from __future__ import annotations

import time

from tablerag.answer import Answer, Fact, KnowledgeUse, Language, ResultTable, SQLAttempt
from tablerag.errors import EngineError, SQLRejected
from tablerag.examples.selection import Scored
from tablerag.lang.messages import message
from tablerag.nl2sql.literals import found_nothing
from tablerag.nl2sql.path import jsonable, template_explanation
from tablerag.sql.engines.base import SQLEngine
from tablerag.sql.policy import ExecutionPolicy

REUSED_CONFIDENCE = 0.9
"""A person checked this SQL for this question; the rows are today's."""
CHECK = "verified_query"
"""The check code of an answer that reused a verified query."""


def answer_from_example(
    question: str,
    match: Scored,
    *,
    engine: SQLEngine,
    language: Language,
    policy: ExecutionPolicy | None = None,
) -> Answer | None:
    """The answer from ``match``'s SQL, or None when it no longer passes the gate or runs
    (the caller then writes SQL as if there were no match)."""
    example = match.example
    started = time.perf_counter()
    try:
        result = engine.execute(example.sql, policy)
    except (SQLRejected, EngineError):
        return None
    ms = round((time.perf_counter() - started) * 1000, 3)
    rows = [[jsonable(v) for v in row] for row in result.rows]
    table = ResultTable(
        columns=list(result.columns), rows=rows, row_count=len(rows), truncated=result.truncated
    )
    said = message(
        "examples.reused",
        language,
        question=example.question,
        verified_by=example.verified_by or "?",
        verified_at=example.verified_at[:10],
        id=example.id,
    )
    empty = found_nothing(rows)
    body = (
        message("nl2sql.no_data", language)
        if empty
        else template_explanation(result.columns, rows, language, truncated=result.truncated)
    )
    return Answer(
        question=question,
        answer=f"{body}\n{said}",
        language=language,
        path="nl2sql",
        table=table,
        sql=result.sql_executed,
        sql_attempts=[SQLAttempt(sql=example.sql, note=f"verified query {example.id}")],
        facts=[Fact(text=body, source="sql")],
        confidence=0.6 if empty else REUSED_CONFIDENCE,
        status="no_data" if empty else "ok",
        checks=[CHECK],
        timings_ms={"execution": ms},
        knowledge=[KnowledgeUse(kind="example", name=example.id, status="confirmed")],
    )
