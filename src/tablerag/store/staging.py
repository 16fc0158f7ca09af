"""The hand-off between a table reader and the store: rows staged in DuckDB, not yet typed."""

from __future__ import annotations

from dataclasses import dataclass, field

from tablerag.types import Problem

STAGE_PREFIX = "_tablerag_stage_"
"""Names of staging tables start with this (a stray one in ``data`` is dropped on open)."""


@dataclass
class StagedTable:
    """Rows of one table read from a source, held in a DuckDB temp table until stored.

    Attributes:
        name: suggested SQL name (file stem, sheet name, ``<stem>_table_<n>`` for a table found in
            a document); the store sanitises it and makes it unique.
        relation: the DuckDB table (same connection) that holds the rows, in source order: a temp
            table, or with ``final`` a table in the ``data`` schema.
        originals: the original header text of each column, in order; the relation's own column
            names are already cleaned and unique.
        rows_read: data rows found in the source (header excluded), for reconciliation.
        typed: False when every column is VARCHAR and types must still be inferred;
            True when the source already carried types (Parquet, JSON) or the reader typed
            the rows itself (the CSV fast path).
        units: column name -> unit (``%``, ``¥``...) for columns a reader typed itself.
        final: the reader built the stored table itself (typed, formula cells reported):
            ``relation`` is a table of the ``data`` schema that the store renames instead of
            copying (the CSV fast path). Such a relation must be stored or dropped by the
            caller's transaction, or it stays in the ``data`` schema.
        notes: the text of the notes found under the table (``注：…``, ``Source: …``), left out
            of its rows and kept as its description.
    """

    name: str
    relation: str
    originals: tuple[str, ...]
    rows_read: int
    origin: str = ""
    page: int | None = None
    problems: list[Problem] = field(default_factory=list)
    typed: bool = False
    units: dict[str, str] = field(default_factory=dict)
    final: bool = False
    notes: list[str] = field(default_factory=list)

    @property
    def sql(self) -> str:
        """The relation as a quoted SQL reference (``data."<relation>"`` when ``final``).

        Example:
            >>> StagedTable("t", "_stage_1", ("a",), 1, final=True).sql
            'data."_stage_1"'
        """
        quoted = '"' + self.relation.replace('"', '""') + '"'
        return f"data.{quoted}" if self.final else quoted
