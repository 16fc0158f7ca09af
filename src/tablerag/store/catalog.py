"""The catalog rows ingestion writes: one row per table in ``tablerag.tables``, one per column
in ``tablerag.columns``.

:meth:`Workspace.tables() <tablerag.store.workspace.Workspace.tables>` reads them back as
:class:`~tablerag.types.TableInfo`, merged with what people described (annotations).
"""

from __future__ import annotations

import json
from dataclasses import asdict
from typing import Any

import duckdb

from tablerag.types import ColumnInfo, TableInfo


def record_table(
    con: duckdb.DuckDBPyConnection,
    info: TableInfo,
    source_id: str,
    *,
    stored: bool,
    rows_read: int | None,
) -> None:
    """Add a table and its columns to the catalog (inside the caller's transaction).

    Args:
        con: the workspace connection.
        info: the table as ingestion found it (name, origin, page, counts, keys, columns).
        source_id: the source it came from.
        stored: True for a table stored in schema ``data``; False for one of a database that
            is queried in place.
        rows_read: data rows read from the source, for reconciliation; None when not read.
    """
    con.execute(
        "INSERT INTO tablerag.tables VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [
            info.name,
            source_id,
            stored,
            info.origin,
            info.page,
            info.row_count,
            rows_read,
            info.description,
            list(info.primary_key),
            json.dumps([asdict(fk) for fk in info.foreign_keys], ensure_ascii=False),
            json.dumps(list(info.checks), ensure_ascii=False),
        ],
    )
    if not info.columns:  # a database table the role sees but may read no column of
        return  # (executemany refuses an empty list)
    con.executemany(
        "INSERT INTO tablerag.columns VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [
            [
                source_id,
                info.name,
                i,
                c.name,
                c.type,
                c.original,
                c.unit,
                list(c.samples),
                c.description,
            ]
            for i, c in enumerate(info.columns)
        ],
    )


COLUMN_FIELDS = "column_name, type, original, unit, samples, description"
"""The fields of a ``tablerag.columns`` row that :func:`column_from_row` reads, in order."""


def column_from_row(row: tuple[Any, ...] | list[Any]) -> ColumnInfo:
    """A :data:`COLUMN_FIELDS` row of ``tablerag.columns`` as a column (no annotations)."""
    return ColumnInfo(
        row[0], row[1], original=row[2], unit=row[3], samples=tuple(row[4]), description=row[5]
    )


def read_table(con: duckdb.DuckDBPyConnection, source_id: str, name: str) -> TableInfo | None:
    """A table as ingestion recorded it (no annotations merged), or None.

    Args:
        con: the workspace connection.
        source_id: the source the table came from.
        name: the table name.
    """
    row = con.execute(
        "SELECT t.origin, t.page, t.row_count, t.description, t.stored, s.location "
        "FROM tablerag.tables t JOIN tablerag.sources s USING (source_id) "
        "WHERE t.source_id = ? AND t.table_name = ?",
        [source_id, name],
    ).fetchone()
    if row is None:
        return None
    columns = con.execute(
        f"SELECT {COLUMN_FIELDS} FROM tablerag.columns "
        "WHERE source_id = ? AND table_name = ? ORDER BY ordinal",
        [source_id, name],
    ).fetchall()
    return TableInfo(
        name=name,
        source=row[5],
        origin=row[0],
        page=row[1],
        row_count=row[2],
        description=row[3],
        stored=row[4],
        columns=tuple(column_from_row(c) for c in columns),
    )
