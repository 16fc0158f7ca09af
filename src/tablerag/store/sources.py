"""The sources of a workspace as ingestion writes them: find one by location, record, forget.

:meth:`Workspace.sources() <tablerag.store.workspace.Workspace.sources>` lists them. The writes
here run inside the caller's transaction: ingestion forgets a source's old version, loads the
new one and records it in one ``ws.transaction()``, so a failure leaves the old version whole.
None of them begins or commits a transaction (DuckDB has no nested ones).
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from datetime import UTC, datetime

import duckdb

from tablerag.types import SourceReport

OWNED_TABLES = (
    "chunks",
    "columns",
    "tables",
    "documents",
    "annotations",
    "glossary",
    "sources",
)
"""tablerag's tables that hold rows of a source (keyed by ``source_id``), emptied in this order
when the source is forgotten."""


@dataclass(frozen=True)
class KnownSource:
    """What ingestion needs to know of a source already in the workspace."""

    source_id: str
    content_hash: str | None
    """sha256 of the file bytes when it was ingested; None for a database."""
    location: str = ""


def find_source(con: duckdb.DuckDBPyConnection, location: str) -> KnownSource | None:
    """The source ingested from ``location``, or None when there is none."""
    row = con.execute(
        "SELECT source_id, content_hash FROM tablerag.sources WHERE location = ?", [location]
    ).fetchone()
    return None if row is None else KnownSource(row[0], row[1], location)


def sources_with_content(con: duckdb.DuckDBPyConnection, content_hash: str) -> list[KnownSource]:
    """The file sources whose bytes hashed to ``content_hash`` when ingested, by location.

    Ingestion uses it to recognise a moved or renamed file: same bytes, and the file of the
    known source is gone.
    """
    rows = con.execute(
        "SELECT source_id, content_hash, location FROM tablerag.sources "
        "WHERE kind = 'file' AND content_hash = ? ORDER BY location",
        [content_hash],
    ).fetchall()
    return [KnownSource(r[0], r[1], r[2]) for r in rows]


def record_source(
    con: duckdb.DuckDBPyConnection,
    source_id: str,
    location: str,
    *,
    kind: str,
    format: str,
    content_hash: str | None,
    size_bytes: int | None,
    report: SourceReport,
) -> None:
    """Add the row of a source just loaded, with its counts and problems, stamped now (UTC).

    Args:
        con: the workspace connection, inside the transaction that loaded the source.
        source_id: the source's id (the key of the rows it owns).
        location: absolute file path, or the database URL without its password.
        kind: ``"file"`` or ``"database"``.
        format: ``csv``, ``pdf``, ``postgresql``...
        content_hash: sha256 of the file bytes; None for a database.
        size_bytes: size of the file; None for a database.
        report: what loading it found (rows read and stored, chunks, problems).
    """
    con.execute(
        "INSERT INTO tablerag.sources VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [
            source_id,
            location,
            kind,
            format,
            content_hash,
            size_bytes,
            datetime.now(UTC).replace(tzinfo=None),
            report.rows_read,
            report.rows_stored,
            report.chunks,
            json.dumps([asdict(p) for p in report.problems], ensure_ascii=False),
        ],
    )


def forget_source(con: duckdb.DuckDBPyConnection, source_id: str) -> None:
    """Remove a source and everything it owns; nothing happens when there is no such source.

    It owns the tables it stored in schema ``data`` (dropped), their cached column profiles, its
    catalog rows (tables, columns), its document, chunks and annotations, and its own row. Run it
    inside the caller's transaction, before loading the source's new version.
    """
    stored = con.execute(
        "SELECT table_name FROM tablerag.tables WHERE source_id = ? AND stored", [source_id]
    ).fetchall()
    for (name,) in stored:
        con.execute(f"DROP TABLE IF EXISTS data.{_quoted(name)}")
    con.execute(
        "DELETE FROM tablerag.profiles WHERE source IN "
        "(SELECT location FROM tablerag.sources WHERE source_id = ?)",
        [source_id],
    )
    for table in OWNED_TABLES:
        con.execute(f"DELETE FROM tablerag.{table} WHERE source_id = ?", [source_id])


def _quoted(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'
