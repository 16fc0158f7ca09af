"""The first catalog of a stored table: row count and diverse sample values per column."""

from __future__ import annotations

from collections.abc import Sequence

import duckdb

from tablerag.types import ColumnInfo

SAMPLE_ROWS = 200_000
"""Tables larger than this are sampled (reservoir) before picking sample values."""

MAX_SAMPLE_CHARS = 80


def quote_ident(name: str) -> str:
    """Quote an identifier for DuckDB/PostgreSQL.

    Example:
        >>> print(quote_ident('say "hi" now'))
        "say ""hi"" now"
    """
    return '"' + name.replace('"', '""') + '"'


def truncate(value: str, limit: int = MAX_SAMPLE_CHARS) -> str:
    """Shorten a sample value for display, marking the cut.

    Example:
        >>> truncate("abcdef", 4)
        'abc…'
    """
    return value if len(value) <= limit else value[: limit - 1] + "…"


def diverse_samples(
    con: duckdb.DuckDBPyConnection, table: str, columns: Sequence[ColumnInfo], k: int = 5
) -> list[tuple[str, ...]]:
    """Pick up to ``k`` representative, *diverse* values for each column of ``table``.

    Not the first rows: distinct values, the most frequent one first (it tells what the column
    usually holds), then values spread by a hash so rare codes and the tails show up, and for
    ordered types the minimum and maximum. Large tables are sampled first.

    Args:
        con: connection holding ``table``.
        table: qualified, quoted table reference, e.g. ``data."fact_sales"``.
        columns: the table's columns (name and type).
        k: values per column.

    Returns:
        One tuple of strings per column, in column order.
    """
    total_row = con.execute(f"SELECT count(*) FROM {table}").fetchone()
    total = int(total_row[0]) if total_row else 0
    source = table
    if total > SAMPLE_ROWS:
        source = f"(SELECT * FROM {table} USING SAMPLE {SAMPLE_ROWS} ROWS (reservoir, 42))"
    out: list[tuple[str, ...]] = []
    for col in columns:
        q = quote_ident(col.name)
        ordered = _is_ordered(col.type)
        extremes = (
            f", (SELECT CAST(min({q}) AS VARCHAR) FROM {source}),"
            f" (SELECT CAST(max({q}) AS VARCHAR) FROM {source})"
            if ordered
            else ""
        )
        row = con.execute(
            f"""
            WITH d AS (
                SELECT CAST({q} AS VARCHAR) AS v, count(*) AS n
                FROM {source} WHERE {q} IS NOT NULL GROUP BY 1
            )
            SELECT (SELECT v FROM d ORDER BY n DESC, v LIMIT 1),
                   (SELECT list(v ORDER BY hash(v), v)
                    FROM (SELECT v FROM d ORDER BY hash(v), v LIMIT {k}))
                   {extremes}
            """
        ).fetchone()
        assert row is not None
        picked: list[str] = []
        candidates: list[str | None] = [row[0], *row[2:], *(row[1] or [])]
        for value in candidates:
            if value is None or value.strip() == "":
                continue
            value = truncate(value)
            if value not in picked:
                picked.append(value)
            if len(picked) == k:
                break
        out.append(tuple(picked))
    return out


def _is_ordered(sql_type: str) -> bool:
    t = sql_type.upper()
    return any(
        t.startswith(p)
        for p in (
            "INT",
            "BIGINT",
            "SMALLINT",
            "TINYINT",
            "HUGEINT",
            "DOUBLE",
            "FLOAT",
            "DECIMAL",
            "REAL",
            "DATE",
            "TIMESTAMP",
            "TIME",
            "UBIGINT",
            "UINTEGER",
        )
    )
