"""A verified query's SQL through the gate of its source: what is wrong with it now.

Three strengths: :func:`gate_problem` only asks the gate (cheap; answering uses it once per
source and session, so a pair whose SQL writes, reads a hidden column or names a column the
schema no longer has is never shown nor reused); :func:`run_problem` runs it too (``check``,
``add``, ``import``: a query that no longer runs is named); :func:`tables_of` names the tables
it reads.
"""

from __future__ import annotations

import sqlglot
from sqlglot import exp
from sqlglot.errors import SqlglotError

from tablerag.errors import EngineError, SQLRejected
from tablerag.sql.engines.base import SQLEngine
from tablerag.sql.policy import ExecutionPolicy
from tablerag.sql.result import ResultSet
from tablerag.sql.validate import gate


def gate_problem(sql: str, engine: SQLEngine, policy: ExecutionPolicy | None = None) -> str | None:
    """Why the gate of ``engine`` refuses ``sql`` (one sentence per issue), None when it passes."""
    result = gate(
        sql,
        dialect=engine.dialect,
        catalog=engine.catalog,
        policy=policy or engine.policy,
        exposure=engine.exposure,
    )
    if result.issues or result.sql is None:
        return "; ".join(i.message for i in result.issues) or "the gate refused it"
    return None


def run(sql: str, engine: SQLEngine, policy: ExecutionPolicy | None = None) -> ResultSet:
    """Gate and run ``sql``.

    Raises:
        SQLRejected: the gate refused it.
        EngineError: it did not run.
    """
    return engine.execute(sql, policy)


def run_problem(sql: str, engine: SQLEngine, policy: ExecutionPolicy | None = None) -> str | None:
    """Why ``sql`` does not pass the gate or does not run now, None when it runs."""
    try:
        run(sql, engine, policy)
    except SQLRejected as exc:
        return f"the gate refuses it: {exc}"
    except EngineError as exc:
        return f"it no longer runs: {exc}"
    return None


def tables_of(sql: str, dialect: str) -> tuple[str, ...]:
    """The tables ``sql`` reads (CTE names left out), sorted.

    Example:
        >>> tables_of("WITH t AS (SELECT * FROM a) SELECT * FROM t JOIN b ON t.x = b.x", "duckdb")
        ('a', 'b')
    """
    try:
        tree = sqlglot.parse_one(sql, read=dialect)
    except SqlglotError:
        return ()
    if tree is None:
        return ()
    ctes = {c.alias_or_name.lower() for c in tree.find_all(exp.CTE)}
    names = {t.name for t in tree.find_all(exp.Table) if t.name.lower() not in ctes}
    return tuple(sorted(names))
