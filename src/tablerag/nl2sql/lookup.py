"""Small read-only lookups that enrich the schema text with facts about the question's values.

The schema notes (:mod:`tablerag.nl2sql.rollup`, :mod:`tablerag.nl2sql.definitions`) read a few
rows of the tables the question's values were found in. They go through the same engine as
generated SQL (gate, read-only connection, row cap, time limit), so they can never write or read
a hidden column; a lookup the engine refuses just gives no note.
"""

from __future__ import annotations

from collections.abc import Sequence

from tablerag.errors import EngineError, SQLRejected
from tablerag.linking.values import ValueMatch
from tablerag.sql.engines.base import SQLEngine
from tablerag.sql.policy import ExecutionPolicy

LOOKUP_POLICY = ExecutionPolicy(max_rows=200, time_limit_ms=2_000)
"""Limits of one lookup: notes are small, and a slow lookup is not worth waiting for."""

Row = tuple[object, ...]


def quote(name: str) -> str:
    """An identifier in double quotes (DuckDB, PostgreSQL and SQLite all read them).

    Example:
        >>> quote("dim_region"), quote('odd"name')
        ('"dim_region"', '"odd""name"')
    """
    return '"' + name.replace('"', '""') + '"'


def literal(value: object) -> str:
    """A SQL literal for a key or label read from the database.

    Example:
        >>> literal("华东"), literal("O'Brien"), literal(7), literal(2.5)
        ("'华东'", "'O''Brien'", '7', '2.5')
    """
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, int | float):
        return repr(value)
    return "'" + str(value).replace("'", "''") + "'"


def rows(engine: SQLEngine, sql: str) -> tuple[Row, ...] | None:
    """The rows of one lookup, or None when the gate or the database refused it."""
    try:
        return engine.execute(sql, LOOKUP_POLICY).rows
    except (SQLRejected, EngineError):
        return None


def specific_matches(question: str, matches: Sequence[ValueMatch]) -> list[ValueMatch]:
    """Exact value matches in the order the question says them, without those only found
    inside a longer match ("毛利率" holds "毛利" too: the question means the longer value).

    Example:
        >>> ms = [ValueMatch("t", "c", v, 1.0, "exact") for v in ("毛利", "毛利率", "华东")]
        >>> [m.value for m in specific_matches("华东的毛利率", ms)]
        ['华东', '毛利率']
        >>> [m.value for m in specific_matches("毛利和毛利率", ms[:2])]
        ['毛利', '毛利率']
        >>> [m.value for m in specific_matches("Net losses of 华东", [ValueMatch("t", "c",
        ...     "net losses", 1.0, "exact"), ms[2]])]
        ['net losses', '华东']
    """
    text = question.lower()  # the index holds values lower-cased
    exact = [m for m in matches if m.how == "exact" and m.value]
    values = {m.value for m in exact}
    out = []
    for m in exact:
        rest = text
        for longer in sorted((v for v in values if m.value in v and v != m.value), key=len):
            rest = rest.replace(longer, " ")
        if m.value in rest:
            out.append(m)
    return sorted(out, key=lambda m: text.find(m.value))
