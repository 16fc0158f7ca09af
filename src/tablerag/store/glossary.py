"""The workspace glossary: business terms and the words each stands for, from descriptions files.

A term the question names ("毛利") adds its words ("净额", "成本", "net", "cost") to what the
linker matches; it can never invent a table or a column. The terms come from the ``glossary``
section of a descriptions file (the sample corpus ships one), so knowledge of one mart's
columns is that mart's data, not code.
"""

from __future__ import annotations

from collections.abc import Mapping

import duckdb


def record_glossary(
    con: duckdb.DuckDBPyConnection, source_id: str, terms: Mapping[str, tuple[str, ...]]
) -> None:
    """Store the terms of a descriptions file (inside the caller's transaction; forgetting the
    source deletes them)."""
    if not terms:
        return  # executemany refuses an empty list
    con.executemany(
        "INSERT INTO tablerag.glossary VALUES (?, ?, ?)",
        [[source_id, term, list(words)] for term, words in terms.items()],
    )


def read_glossary(con: duckdb.DuckDBPyConnection) -> dict[str, tuple[str, ...]]:
    """Every term of the workspace with its words; a term in two files gets both files' words."""
    rows = con.execute(
        "SELECT term, words FROM tablerag.glossary ORDER BY term, source_id"
    ).fetchall()
    out: dict[str, tuple[str, ...]] = {}
    for term, words in rows:
        out[term] = tuple(dict.fromkeys([*out.get(term, ()), *words]))
    return out
