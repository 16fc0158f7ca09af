"""Bounded row samples for profiling, key inference and the value index.

A :class:`RowSource` hands out at most ``limit`` rows of a table, so the time spent on a table
is bounded however big it is. DuckDB tables are sampled with a fixed-seed reservoir; SQLite
tables are read in full up to the limit, then every n-th row (no full sort).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from pathlib import Path
from typing import Protocol

import duckdb

from tablerag.errors import ConfigError, EngineError

SAMPLE_ROWS = 20_000
"""Rows read per table; a table with more rows is sampled down to this many."""


class RowSource(Protocol):
    """Where sample rows come from (a workspace, a SQLite file...)."""

    def sample(self, table: str, columns: Sequence[str], limit: int) -> list[tuple[object, ...]]:
        """At most ``limit`` rows of ``columns`` of ``table``, a fair sample when there are more.

        Raises:
            EngineError: the database refused the read.
        """
        ...


def _quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


class DuckDBRows:
    """Samples of the workspace's user tables (DuckDB schema ``data``)."""

    def __init__(self, con: duckdb.DuckDBPyConnection, schema: str = "data") -> None:
        self.con, self.schema = con, schema

    def sample(self, table: str, columns: Sequence[str], limit: int) -> list[tuple[object, ...]]:
        """See :meth:`RowSource.sample`."""
        cols = ", ".join(_quote(c) for c in columns)
        ref = f"{_quote(self.schema)}.{_quote(table)}"
        sql = f"SELECT {cols} FROM {ref} USING SAMPLE {int(limit)} ROWS (reservoir, 42)"
        try:
            return [tuple(r) for r in self.con.execute(sql).fetchall()]
        except duckdb.Error as exc:
            raise EngineError(
                f"Cannot sample table {table!r} for profiling ({exc}); check it still exists "
                "with `tablerag tables`.",
                engine="duckdb",
                sql=sql,
            ) from exc


class SQLiteRows:
    """Samples of the tables of a SQLite file, opened read-only."""

    def __init__(self, path: Path) -> None:
        if not path.is_file():
            raise ConfigError(f"No SQLite file at {str(path)!r}; check the dataset path.")
        self.path = path
        self.con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        self.con.text_factory = lambda b: b.decode("utf-8", errors="replace")

    def close(self) -> None:
        """Close the file."""
        self.con.close()

    def sample(self, table: str, columns: Sequence[str], limit: int) -> list[tuple[object, ...]]:
        """See :meth:`RowSource.sample`."""
        cols = ", ".join(_quote(c) for c in columns)
        try:
            (total,) = self.con.execute(f"SELECT count(*) FROM {_quote(table)}").fetchone()
            step = max(1, -(-int(total) // limit))
            where = f" WHERE rowid % {step} = 0" if step > 1 else ""
            sql = f"SELECT {cols} FROM {_quote(table)}{where} LIMIT {int(limit)}"
            return [tuple(r) for r in self.con.execute(sql).fetchall()]
        except sqlite3.Error as exc:
            raise EngineError(
                f"Cannot read table {table!r} of {str(self.path)!r} ({exc}); check the file.",
                engine="sqlite",
            ) from exc
