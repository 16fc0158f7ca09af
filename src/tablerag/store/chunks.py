"""The chunks of a workspace (``tablerag.chunks``): written by ingestion, read by the text index.

A chunk's ``content_hash`` is the sha256 of its text; with its id it makes the fingerprint the
text index compares against to tell whether it is stale.
:meth:`Workspace.chunks() <tablerag.store.workspace.Workspace.chunks>` lists chunks by source.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence

import duckdb

from tablerag.types import Chunk


def add_chunks(
    con: duckdb.DuckDBPyConnection, chunks: Iterable[Chunk], *, source_id: str | None
) -> None:
    """Insert chunks (inside the caller's transaction when they belong to a source).

    Args:
        con: the workspace connection.
        chunks: the chunks, with their ordinals.
        source_id: the source that owns them (forgetting it deletes them); None files each
            chunk under its own ``source`` location, for corpora written without sources
            (the retrieval eval).
    """
    con.executemany(
        "INSERT INTO tablerag.chunks VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [
            [
                c.chunk_id,
                c.source if source_id is None else source_id,
                c.source,
                c.ordinal,
                c.text,
                list(c.heading_path),
                c.page,
                c.table,
                hashlib.sha256(c.text.encode("utf-8")).hexdigest(),
            ]
            for c in chunks
        ],
    )


def chunk_fingerprint(con: duckdb.DuckDBPyConnection) -> tuple[int, str]:
    """Count and order-free fingerprint of the chunk set (ids and content hashes)."""
    row = con.execute(
        "SELECT count(*), coalesce(bit_xor(md5_number_lower(chunk_id || '/' || content_hash)), 0)"
        " FROM tablerag.chunks"
    ).fetchone()
    assert row is not None
    return int(row[0]), f"{int(row[0])}-{int(row[1]):016x}"


def chunk_texts(con: duckdb.DuckDBPyConnection) -> list[tuple[str, str, tuple[str, ...]]]:
    """``(chunk_id, text, heading_path)`` of every chunk, in source and reading order.

    This is the order of the rows of the text index.
    """
    rows = con.execute(
        "SELECT chunk_id, text, heading_path FROM tablerag.chunks "
        "ORDER BY source, ordinal, chunk_id"
    ).fetchall()
    return [(r[0], r[1], tuple(r[2] or ())) for r in rows]


def chunks_by_id(con: duckdb.DuckDBPyConnection) -> dict[str, Chunk]:
    """Every chunk, by id."""
    rows = con.execute(
        "SELECT chunk_id, source, ordinal, text, heading_path, page, table_name "
        "FROM tablerag.chunks"
    ).fetchall()
    return {r[0]: Chunk(r[0], r[1], r[2], r[3], tuple(r[4] or ()), r[5], r[6]) for r in rows}


def source_chunks(con: duckdb.DuckDBPyConnection, source_id: str) -> list[Chunk]:
    """The chunks of one source, in reading order."""
    rows = con.execute(
        "SELECT chunk_id, source, ordinal, text, heading_path, page, table_name "
        "FROM tablerag.chunks WHERE source_id = ? ORDER BY ordinal",
        [source_id],
    ).fetchall()
    return [Chunk(r[0], r[1], r[2], r[3], tuple(r[4] or ()), r[5], r[6]) for r in rows]


def replace_chunks(con: duckdb.DuckDBPyConnection, source_id: str, chunks: Sequence[Chunk]) -> None:
    """Replace every chunk of a source (inside the caller's transaction) and its chunk count."""
    con.execute("DELETE FROM tablerag.chunks WHERE source_id = ?", [source_id])
    add_chunks(con, chunks, source_id=source_id)
    con.execute(
        "UPDATE tablerag.sources SET chunks = ? WHERE source_id = ?", [len(chunks), source_id]
    )


def sources_with_chunks_of(con: duckdb.DuckDBPyConnection, tables: Iterable[str]) -> list[str]:
    """Ids of the sources holding chunks of any of ``tables``, sorted."""
    rows = con.execute(
        "SELECT DISTINCT source_id FROM tablerag.chunks WHERE list_contains(?, table_name) "
        "ORDER BY source_id",
        [sorted(tables)],
    ).fetchall()
    return [r[0] for r in rows]
