"""The documents of a workspace: one row per ingested document in ``tablerag.documents``."""

from __future__ import annotations

import duckdb


def record_document(
    con: duckdb.DuckDBPyConnection, source_id: str, *, title: str, blocks: int, pages: int | None
) -> None:
    """Add the row of a document just loaded (inside the caller's transaction).

    Args:
        con: the workspace connection.
        source_id: the source the document was read from.
        title: its title.
        blocks: how many blocks (paragraphs, headings, tables...) it has.
        pages: its last page number; None when it has no pages.
    """
    con.execute(
        "INSERT INTO tablerag.documents VALUES (?, ?, ?, ?)", [source_id, title, blocks, pages]
    )
