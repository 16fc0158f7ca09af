"""The passage-vector cache (``tablerag.embeddings``), keyed by passage hash and embedder spec.

Re-ingesting unchanged text embeds nothing: the text index (:mod:`tablerag.rag.index`) asks
which passages are cached, embeds the others, stores their vectors here and reads every vector
back. The table is created on first use, outside the migrations, so a workspace that never
builds an index has none. Arrays stay numpy-free here: vectors come in as column frames that
DuckDB scans, and go out as DuckDB's ``fetchnumpy`` columns.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import duckdb

_ROWS = "_tablerag_vec_rows"
_CELLS = "_tablerag_vec_cells"


def ensure_embeddings_table(con: duckdb.DuckDBPyConnection) -> None:
    """Create the cache table when it is missing (and its schema, for a bare connection)."""
    con.execute("CREATE SCHEMA IF NOT EXISTS tablerag")
    con.execute(
        "CREATE TABLE IF NOT EXISTS tablerag.embeddings (content_hash VARCHAR, embedder VARCHAR, "
        "dim INT, vector FLOAT[], PRIMARY KEY (content_hash, embedder))"
    )


def cached_hashes(
    con: duckdb.DuckDBPyConnection, embedder: str, dim: int, hashes: Sequence[str]
) -> set[str]:
    """Those of ``hashes`` whose vector by ``embedder`` (of ``dim`` dimensions) is cached."""
    rows = con.execute(
        "SELECT content_hash FROM tablerag.embeddings WHERE embedder = ? AND dim = ? "
        "AND content_hash IN (SELECT unnest(?::VARCHAR[]))",
        [embedder, dim, list(hashes)],
    ).fetchall()
    return {r[0] for r in rows}


def insert_vectors(
    con: duckdb.DuckDBPyConnection,
    embedder: str,
    dim: int,
    *,
    rows: Mapping[str, Any],
    cells: Mapping[str, Any],
) -> None:
    """Put vectors into the cache, replacing any with the same passage hash and embedder.

    Args:
        con: the workspace connection.
        embedder: the embedder spec that made them.
        dim: their dimensions.
        rows: column frame ``{"row": int64[n], "content_hash": str[n]}``, one entry per vector.
        cells: column frame ``{"row": int64[n*dim], "j": int32[n*dim], "v": float32[n*dim]}``,
            one entry per component (``v`` of vector ``row`` at position ``j``).
    """
    con.register(_ROWS, rows)
    con.register(_CELLS, cells)
    try:
        con.execute(
            "INSERT OR REPLACE INTO tablerag.embeddings "
            f"SELECT r.content_hash, ?, ?, c.vector FROM {_ROWS} r JOIN "
            f"(SELECT row, list(v ORDER BY j) AS vector FROM {_CELLS} GROUP BY row) c "
            "USING (row)",
            [embedder, dim],
        )
    finally:
        con.unregister(_ROWS)
        con.unregister(_CELLS)


def cached_vectors(
    con: duckdb.DuckDBPyConnection, embedder: str, dim: int, hashes: Sequence[str]
) -> dict[str, Any]:
    """The cached vectors of ``hashes`` as DuckDB's ``fetchnumpy`` columns.

    Returns:
        ``{"content_hash": array of hashes, "vector": array of vectors}``, in no set order;
        a hash with no cached vector is absent.
    """
    return con.execute(
        "SELECT content_hash, vector FROM tablerag.embeddings WHERE embedder = ? AND dim = ? "
        "AND content_hash IN (SELECT unnest(?::VARCHAR[]))",
        [embedder, dim, list(hashes)],
    ).fetchnumpy()
