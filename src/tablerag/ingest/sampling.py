"""The first catalog of a stored table: row count and diverse sample values per column."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import duckdb

from tablerag.sql.pii import mask_text
from tablerag.sql.sensitive import WITHHELD, SensitiveRules, is_hidden
from tablerag.sqltypes import type_family
from tablerag.store.annotations import flagged_columns
from tablerag.types import ColumnInfo, TableInfo

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
    return type_family(sql_type) in ("number", "time")


def withhold_samples(
    con: duckdb.DuckDBPyConnection, info: TableInfo, rules: SensitiveRules
) -> TableInfo:
    """``info`` as the workspace may record it: no sample value of a hidden column, and those of
    the others masked as result cells are (:func:`~tablerag.sql.pii.mask_text`).

    A column hidden by name, by the operator's rules or by a descriptions file already
    ingested keeps no samples; one hidden by its content keeps the marker
    :data:`~tablerag.sql.sensitive.WITHHELD` in their place, so that it is hidden again when
    the catalog is read back without the values that showed it (issue 28: a role that can
    read a hidden column let its samples be stored raw).

    Args:
        con: the workspace connection (for the flags of a descriptions file).
        info: the table with the samples ingestion read.
        rules: the operator's ``sensitive_columns``/``allow_columns``.

    Example:
        >>> con = duckdb.connect()
        >>> _ = con.execute("CREATE SCHEMA tablerag; CREATE TABLE tablerag.annotations "
        ...     "(table_name VARCHAR, column_name VARCHAR, sensitive BOOLEAN)")
        >>> _ = con.execute("CREATE TABLE tablerag.columns (table_name VARCHAR, "
        ...     "column_name VARCHAR)")
        >>> t = TableInfo("t", "t.csv", (ColumnInfo("city", "VARCHAR", samples=("Oslo",
        ...     "{'password': 'x'}")),
        ...     ColumnInfo("note", "VARCHAR", samples=("a@b.org", "c@d.org")),
        ...     ColumnInfo("phone", "VARCHAR", samples=("13812345678",))), 2)
        >>> [c.samples for c in withhold_samples(con, t, SensitiveRules()).columns]
        [('Oslo', "{'password': '***'}"), ('<withheld: hidden column>',), ()]
    """
    flagged = {f.lower() for f in flagged_columns(con, info.name)}
    columns = []
    for c in info.columns:
        column = replace(c, sensitive=c.sensitive or c.name.lower() in flagged)
        if not c.samples or not is_hidden(info.name, column, rules):
            columns.append(replace(c, samples=tuple(mask_text(v) for v in c.samples)))
            continue
        bare = replace(column, samples=())
        by_content = not is_hidden(info.name, bare, rules)
        columns.append(replace(c, samples=(WITHHELD,) if by_content else ()))
    return replace(info, columns=tuple(columns))
