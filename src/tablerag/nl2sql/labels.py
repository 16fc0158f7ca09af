"""Label notes: every row label of a small report table, read through the engine.

A report table (one row per line item) is read through its label column, and the schema shows
three samples of it cut to 30 characters; the model then filters on a label it can see rather
than the one the question means.
"""

from __future__ import annotations

from collections.abc import Sequence

from tablerag.linking.catalog import SchemaCatalog, is_text_column
from tablerag.nl2sql.lookup import literal, quote, rows
from tablerag.sql.engines.base import SQLEngine
from tablerag.sql.sensitive import sanitize_sample

NOTED_TABLES = 2
"""Tables noted, the first retrieved ones."""
LABEL_ROWS = 20
LABEL_CHARS = 60


def label_notes(catalog: SchemaCatalog, tables: Sequence[str], engine: SQLEngine) -> list[str]:
    """Every row label of the first :data:`NOTED_TABLES` small retrieved tables, as a note.

    A report table (one row per line item: ``Statutory federal income tax rate``, …,
    ``Effective income tax rate``) is read through its label column, and the schema shows three
    samples of it cut to 30 characters; the model then filters on a label it can see rather
    than the one the question means. Tables of at most :data:`LABEL_ROWS` rows whose first text
    column holds a different value in every row get the whole list (values cut to 60
    characters and sanitised like every sample; columns whose values the schema already lists
    are skipped).
    """
    notes: list[str] = []
    for name in tables[:NOTED_TABLES]:
        info = catalog.tables[name]
        if not 0 < info.row_count <= LABEL_ROWS:
            continue
        column = next((c.name for c in info.columns if is_text_column(c)), None)
        profile = catalog.profile(name, column) if column else None
        if column is None or profile is None or profile.enum_values or not profile.is_unique:
            continue
        got = rows(engine, f"SELECT {quote(column)} FROM {quote(name)} LIMIT {LABEL_ROWS}")
        labels = [
            sanitize_sample(str(r[0]), limit=LABEL_CHARS) for r in got or () if r[0] is not None
        ]
        if labels:
            notes.append(f"-- {name}.{column} (all rows): " + ", ".join(literal(v) for v in labels))
    return notes
