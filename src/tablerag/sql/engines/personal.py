"""Which readable columns hold personal data, judged from rows sampled through the engine.

Results masking hides e-mails, phone, ID and card numbers inside text as it finds them; a
function over such a column (``reverse(notes)``, ``hex(notes)``) would turn them into text the
patterns no longer see. The gate therefore allows a column that holds personal data only where
the mask holds (:data:`tablerag.sql.functions.MASK_SAFE_PARENTS`), and this module finds those
columns: the first :data:`SAMPLE_ROWS` rows of every exposed table, read through the engine's
own read-only path as generated SQL is (gate, exposure layer, limits), every value tested with
:func:`~tablerag.sql.pii.holds_personal_data`. Nothing sampled here is kept or shown.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlglot import exp

from tablerag.sql.exposed import ExposedTable
from tablerag.sql.pii import holds_personal_data
from tablerag.sql.sensitive import SensitiveRules

SAMPLE_ROWS = 200
"""Rows read from each table to decide which of its columns hold personal data."""

SAMPLE_TIME_LIMIT_MS = 2000
"""Time one table's sample may take at most (a slow view must not hold up the first query)."""

MAX_TABLES = 500
"""Tables sampled at most (a database with more is judged on its first ones and their samples
recorded at ingest)."""


def sample_query(table: ExposedTable, dialect: str) -> str:
    """The query that samples ``table``'s readable columns, in ``dialect``.

    Example:
        >>> print(sample_query(ExposedTable("t", ("id", "Notes"), schema="data"), "duckdb"))
        SELECT "id", "Notes" FROM "data"."t" LIMIT 200
    """
    select = (
        exp.select(*(exp.column(c, quoted=True) for c in table.columns))
        .from_(exp.table_(table.name, db=table.schema, quoted=True))
        .limit(SAMPLE_ROWS)
    )
    return select.sql(dialect=dialect)


def personal_columns(
    table: ExposedTable, rows: Sequence[Sequence[Any]], rules: SensitiveRules
) -> tuple[str, ...]:
    """The columns of ``table`` (rows of :func:`sample_query`, in its column order) with a
    value that holds personal data, except those ``rules.allow`` names.

    Example:
        >>> t = ExposedTable("t", ("id", "notes", "phone"))
        >>> personal_columns(t, [(1, "call 13812345678", "13812345678")], SensitiveRules())
        ('notes', 'phone')
        >>> personal_columns(t, [(1, "call 13812345678", "x")], SensitiveRules(allow=("notes",)))
        ()
    """
    return tuple(
        c
        for i, c in enumerate(table.columns)
        if not rules.allows(table.qualified, c)
        and any(i < len(r) and holds_personal_data(r[i]) for r in rows)
    )
