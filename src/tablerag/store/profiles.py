"""The column-profile cache of schema linking (``tablerag.profiles``), one row per stored table.

A row holds the profiles and distinct values as JSON text and the fingerprint of the table they
were computed from; :mod:`tablerag.linking.cache` encodes, decodes and compares them. Forgetting
a source drops the rows of its tables (:func:`tablerag.store.sources.forget_source`).
"""

from __future__ import annotations

from dataclasses import dataclass

import duckdb


@dataclass(frozen=True)
class CachedProfile:
    """One table's cached profiles, as stored."""

    fingerprint: str
    """What the table looked like when profiled (source hash, row count, columns)."""
    profiles: str
    """JSON: one object per column."""
    distinct_values: str
    """JSON: distinct values per column, the composite key and the lookup rows."""


def cached_profiles(con: duckdb.DuckDBPyConnection) -> dict[tuple[str, str], CachedProfile]:
    """Every cached profile, by (table name, source location)."""
    rows = con.execute(
        "SELECT table_name, source, fingerprint, profiles, distinct_values FROM tablerag.profiles"
    ).fetchall()
    return {(r[0], r[1]): CachedProfile(r[2], r[3], r[4]) for r in rows}


def save_profile(
    con: duckdb.DuckDBPyConnection, table: str, source: str, cached: CachedProfile
) -> None:
    """Store a table's profiles (stamped now), replacing the ones cached before.

    Args:
        con: the workspace connection (not read-only).
        table: the table name.
        source: the location of the source it came from.
        cached: the fingerprint and the JSON texts.
    """
    con.execute(
        "INSERT OR REPLACE INTO tablerag.profiles VALUES (?, ?, ?, now(), ?, ?)",
        [table, source, cached.fingerprint, cached.profiles, cached.distinct_values],
    )
