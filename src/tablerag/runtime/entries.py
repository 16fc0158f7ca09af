"""The query log's entry of one request: what the answer did, as data (codes, ids, counts)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import sqlglot

from tablerag.answer import Answer
from tablerag.request import Request
from tablerag.store import querylog


def record_answer(
    workspace: Path,
    rq: Request,
    answer: Answer | None,
    *,
    status: str | None = None,
    error: str | None = None,
    token_id: str | None = None,
    generation: int | None = None,
    writer: querylog.Writer | None = None,
) -> None:
    """Write the log entry of ``rq`` (one transaction): its answer, or ``status`` and
    ``error`` when there is none (``failed``, ``cancelled``); through ``writer`` (a server's
    kept connection) when given.

    Raises:
        WorkspaceError: the service file cannot be written.
    """
    entry = querylog.Entry(
        id=rq.id,
        asked_at=querylog.now(),
        origin=rq.origin,
        question=rq.question,
        status=status or (answer.status if answer is not None else "failed"),
        session=rq.session,
        token_id=token_id,
        error=error if error is not None else (answer.error if answer is not None else None),
        timings_ms={"total": round(rq.trace.elapsed_ms(), 3)},
        llm_calls=rq.usage.calls,
        prompt_tokens=rq.usage.prompt_tokens,
        completion_tokens=rq.usage.completion_tokens,
        generation=generation,
    )
    if answer is not None:
        entry = replace(
            entry,
            intent=answer.route.intent if answer.route else None,
            confidence=answer.route.confidence if answer.route else None,
            path=answer.path,
            tables=linked_tables(answer),
            sql_attempts=[a.model_dump(mode="json") for a in answer.sql_attempts],
            row_count=answer.table.row_count if answer.table is not None else None,
            chunk_ids=[c.chunk_id for c in answer.citations],
            answer=answer.answer,
            findings=list(answer.checks),
            timings_ms=dict(answer.timings_ms),
        )
    if writer is not None:
        writer.record(entry)
    else:
        querylog.record(workspace, entry)


def linked_tables(answer: Answer) -> list[str]:
    """The tables an answer used: those its SQL reads, its loop steps mapped and its citations
    came from, in order of first use."""
    found: list[str] = []
    queries = [a.sql for a in answer.sql_attempts] + ([answer.sql] if answer.sql else [])
    for sql in queries:
        try:
            tree = sqlglot.parse_one(sql)
        except sqlglot.errors.SqlglotError:
            continue
        found += [t.name for t in tree.find_all(sqlglot.exp.Table) if t.name]
    for step in answer.steps:
        found += step.tables
    found += [c.table for c in answer.citations if c.table]
    return list(dict.fromkeys(found))
