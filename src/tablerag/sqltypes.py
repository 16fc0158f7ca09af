"""What a column's SQL type holds, read by sqlglot's :class:`~sqlglot.exp.DataType`.

The catalog records each column's type as its engine or reader wrote it (``HUGEINT``,
``DECIMAL(18,3)``, ``number`` in Spider, ``TIMESTAMP WITH TIME ZONE``, ``character varying``).
Matching prefixes of those names disagreed from module to module (one counted ``NUMERIC`` as a
number and another did not, ``INTERVAL`` started like ``INT``); sqlglot's parser knows every
dialect's spelling, so the type's family is asked of it, once per spelling.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Literal

from sqlglot import exp
from sqlglot.errors import ParseError, TokenError

TypeFamily = Literal["number", "boolean", "time", "text", "other"]
"""``number``: integers, decimals, floats; ``boolean``; ``time``: dates, times, timestamps;
``text``: strings (and a type nobody recorded); ``other``: binary, intervals, arrays, JSON,
UUIDs, types of a user's own."""

_DT = exp.DataType
_NUMBER = frozenset(_DT.NUMERIC_TYPES) - {_DT.Type.BIT}
_INTEGER = frozenset(_DT.INTEGER_TYPES) - {_DT.Type.BIT}
_TIMESTAMP = frozenset(_DT.TEMPORAL_TYPES) - {
    _DT.Type.DATE,
    _DT.Type.DATE32,
    _DT.Type.TIME,
    _DT.Type.TIMETZ,
}


@lru_cache(maxsize=1024)
def _kind(sql_type: str) -> exp.DType | None:
    try:
        kind = _DT.build(sql_type, dialect="duckdb", udt=True).this
    except (ParseError, TokenError, ValueError):
        return None
    return kind if isinstance(kind, exp.DType) else None


@lru_cache(maxsize=1024)
def type_family(sql_type: str) -> TypeFamily:
    """The family of values a column of ``sql_type`` holds.

    Example:
        >>> [type_family(t) for t in ("HUGEINT", "DECIMAL(18,3)", "number", "double precision")]
        ['number', 'number', 'number', 'number']
        >>> [type_family(t) for t in ("BOOL", "TIMESTAMP WITH TIME ZONE", "DATE", "VARCHAR")]
        ['boolean', 'time', 'time', 'text']
        >>> [type_family(t) for t in ("INTERVAL", "INTEGER[]", "BLOB", "", "no such type!")]
        ['other', 'other', 'other', 'text', 'other']
    """
    if not sql_type.strip():
        return "text"
    kind = _kind(sql_type)
    if kind in _NUMBER:
        return "number"
    if kind == _DT.Type.BOOLEAN:
        return "boolean"
    if kind in _DT.TEMPORAL_TYPES:
        return "time"
    if kind in _DT.TEXT_TYPES:
        return "text"
    return "other"


def is_number_type(sql_type: str, *, booleans: bool = False) -> bool:
    """Whether ``sql_type`` holds numbers (and booleans, which sum, when ``booleans``).

    Example:
        >>> is_number_type("NUMERIC"), is_number_type("BOOLEAN")
        (True, False)
        >>> is_number_type("BOOL", booleans=True)
        True
    """
    family = type_family(sql_type)
    return family == "number" or (booleans and family == "boolean")


def is_integer_type(sql_type: str) -> bool:
    """Whether ``sql_type`` holds whole numbers only (a ``/`` of two of them truncates on
    PostgreSQL and SQLite).

    Example:
        >>> [is_integer_type(t) for t in ("INTEGER", "int8", "HUGEINT", "INT UNSIGNED")]
        [True, True, True, True]
        >>> [is_integer_type(t) for t in ("NUMERIC(10,0)", "DOUBLE PRECISION", "BIT", "")]
        [False, False, False, False]
    """
    return bool(sql_type.strip()) and _kind(sql_type) in _INTEGER


def is_timestamp_type(sql_type: str) -> bool:
    """Whether ``sql_type`` holds a day and a time of day (not a date alone, not a time alone).

    Example:
        >>> [is_timestamp_type(t) for t in ("TIMESTAMP", "timestamp with time zone", "DATETIME")]
        [True, True, True]
        >>> [is_timestamp_type(t) for t in ("DATE", "TIME", "VARCHAR", "")]
        [False, False, False, False]
    """
    return bool(sql_type.strip()) and _kind(sql_type) in _TIMESTAMP
