"""Profiles of a database table queried in place, read through its read-only engine.

A table of a database ingested in place has no rows in the workspace, so its profile (distinct
counts, nulls, enums, samples) is read the way any question reads it: one bounded SELECT
through the engine, so the gate, the role's privileges, the time limit and the masking all
apply. Hidden columns are never named in the query. A column the role may not read is left
out (one query per column finds which), and the profile says so; nothing is cached, since
the database may change at any time.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from sqlglot import exp

from tablerag.errors import EngineError, QueryTimeout, SQLRejected
from tablerag.linking.catalog import bare_profiles, sample_table
from tablerag.linking.profile import ColumnProfile
from tablerag.sql.engines import SQLEngine
from tablerag.sql.policy import ExecutionPolicy
from tablerag.types import TableInfo

IN_PLACE_SAMPLE_ROWS = 5_000
"""Rows read from a database table to profile it (the first ones by primary key)."""


@dataclass(frozen=True)
class InPlaceProfile:
    """What profiling a database table found."""

    profiles: tuple[ColumnProfile, ...]
    """One per column of the table, in its order; unread columns keep their bare profile
    (``sampled_rows == 0``)."""
    unread: tuple[str, ...] = ()
    """Visible columns the role could not read."""
    reason: str = ""
    """Why nothing was read (the query timed out, the database refused it), or ``""``."""


class EngineRows:
    """Sample rows of a database table through its engine (see :class:`RowSource`)."""

    def __init__(self, engine: SQLEngine, policy: ExecutionPolicy, order_by: Sequence[str]) -> None:
        self.engine, self.policy, self.order_by = engine, policy, tuple(order_by)

    def sample(self, table: str, columns: Sequence[str], limit: int) -> list[tuple[object, ...]]:
        """At most ``limit`` rows of ``columns``, the first by ``order_by`` (else the engine's
        own order of the visible values).

        Raises:
            SQLRejected: the gate refused a column.
            EngineError: the database refused or stopped the read.
        """
        query = exp.select(*(exp.column(c, quoted=True) for c in columns)).from_(_table(table))
        if self.order_by and set(self.order_by) <= set(columns):
            query = query.order_by(*(exp.column(c, quoted=True) for c in self.order_by))
        sql = query.limit(limit).sql(dialect=self.engine.dialect)
        result = self.engine.execute(sql, replace(self.policy, max_rows=limit))
        return [tuple(r) for r in result.rows]


def profile_in_place(
    info: TableInfo,
    engine: SQLEngine,
    policy: ExecutionPolicy,
    *,
    hidden: set[str],
    limit: int = IN_PLACE_SAMPLE_ROWS,
) -> InPlaceProfile:
    """Profile ``info`` from at most ``limit`` of its rows, read through ``engine``.

    Args:
        info: the table as the workspace's catalog records it.
        engine: the read-only engine of its database.
        policy: the limits of the read (its time limit bounds each query).
        hidden: columns never to read (their profiles stay bare, without values).
        limit: rows to read.
    """
    bare = bare_profiles(info)
    own_schema, _, own_name = info.name.rpartition(".")
    exposed = engine.catalog.table(own_name, schema=own_schema or None)
    shown = {c.lower() for c in exposed.columns} if exposed is not None else set()
    wanted = [c.name for c in info.columns if c.name not in hidden and c.name.lower() in shown]
    if not wanted:
        return InPlaceProfile(tuple(bare), reason="the role may read none of its columns")
    rows = EngineRows(engine, policy, order_by=info.primary_key)
    readable, reason = _readable(info, rows, wanted)
    if not readable:
        return InPlaceProfile(tuple(bare), tuple(wanted), reason)
    part = replace(info, columns=tuple(c for c in info.columns if c.name in readable))
    try:
        sample = sample_table(part, rows, limit)
    except QueryTimeout:
        return InPlaceProfile(tuple(bare), reason=f"reading {limit:,} rows took too long")
    except (EngineError, SQLRejected) as exc:
        return InPlaceProfile(tuple(bare), reason=_first_line(exc))
    read = {p.column: p for p in sample.profiles}
    unread = tuple(c for c in wanted if c not in read)
    return InPlaceProfile(tuple(read.get(p.column, p) for p in bare), unread, "")


def _readable(info: TableInfo, rows: EngineRows, wanted: list[str]) -> tuple[list[str], str]:
    """The wanted columns one row can be read from: all in one query when it works, else
    each column tried alone (a column grant, a column the gate refuses)."""
    try:
        rows.sample(info.name, wanted, 1)
        return wanted, ""
    except QueryTimeout:
        return [], "the first row took too long to read"
    except (EngineError, SQLRejected) as exc:
        first = _first_line(exc)
    ok = []
    for column in wanted:
        try:
            rows.sample(info.name, [column], 1)
        except QueryTimeout:
            return [], "the first row took too long to read"
        except (EngineError, SQLRejected):
            continue
        ok.append(column)
    return ok, "" if ok else first


def _table(name: str) -> exp.Table:
    schema, _, table = name.rpartition(".")
    return exp.table_(table, db=schema or None, quoted=True)


def _first_line(exc: BaseException) -> str:
    if isinstance(exc, SQLRejected) and exc.issues:
        return exc.issues[0].message
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0]
