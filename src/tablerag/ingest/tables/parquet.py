"""Parquet files keep the types they were written with."""

from __future__ import annotations

from pathlib import Path

import duckdb

from tablerag.errors import SourceError
from tablerag.ingest import limits
from tablerag.ingest.tables.rows import clean_header, new_relation_name, quote_name
from tablerag.store.staging import StagedTable

_MAGIC = b"PAR1"


def read_parquet(path: Path, con: duckdb.DuckDBPyConnection) -> list[StagedTable]:
    """Stage a Parquet file as one typed table (``typed=True``: no inference needed).

    Raises:
        SourceError: the file is not Parquet.
    """
    _check_magic(path)
    try:
        described = con.execute("DESCRIBE SELECT * FROM read_parquet(?)", [str(path)]).fetchall()
    except duckdb.Error as exc:
        raise SourceError(
            path.name, f"{path.name!r} is not a readable Parquet file ({exc}); write it again."
        ) from exc
    originals = [str(row[0]) for row in described]
    limits.check_columns(path.name, len(originals))
    names, problems = clean_header(originals)
    select = ", ".join(
        f"{quote_name(old)} AS {quote_name(new)}" for old, new in zip(originals, names, strict=True)
    )
    relation = new_relation_name()
    con.execute(
        f"CREATE TEMP TABLE {quote_name(relation)} AS SELECT {select} FROM read_parquet(?)",
        [str(path)],
    )
    row = con.execute(f"SELECT count(*) FROM {quote_name(relation)}").fetchone()
    assert row is not None
    return [
        StagedTable(
            name=path.stem,
            relation=relation,
            originals=tuple(originals),
            rows_read=int(row[0]),
            origin=path.name,
            problems=problems,
            typed=True,
        )
    ]


def _check_magic(path: Path) -> None:
    """Refuse a non-Parquet file before DuckDB sees it (a failed statement aborts the
    caller's transaction)."""
    try:
        with path.open("rb") as handle:
            start = handle.read(4)
            handle.seek(max(path.stat().st_size - 4, 0))
            end = handle.read(4)
    except OSError as exc:
        raise SourceError(
            path.name,
            f"Cannot read {str(path)!r} ({exc.strerror}); check the path and its permissions.",
        ) from exc
    if start != _MAGIC or end != _MAGIC:
        raise SourceError(
            path.name,
            f"{path.name!r} is not a Parquet file (no PAR1 marker); "
            "check the file or its extension.",
        )
