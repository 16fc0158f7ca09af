"""Table readers: one file in, staged tables (DuckDB temp tables, rows in source order) out.

Each reader is ``read_<format>(path, con) -> list[StagedTable]``; ``read_table_file`` picks one
by the file's suffix. ``stage_rows`` stages a table found inside a document.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import duckdb

from tablerag.errors import SourceError
from tablerag.ingest.tables.delimited import read_csv
from tablerag.ingest.tables.excel import read_excel
from tablerag.ingest.tables.jsonfile import read_json
from tablerag.ingest.tables.parquet import read_parquet
from tablerag.ingest.tables.rows import stage_rows
from tablerag.store.staging import StagedTable

Reader = Callable[[Path, duckdb.DuckDBPyConnection], list[StagedTable]]

READERS: dict[str, Reader] = {
    ".csv": read_csv,
    ".tsv": read_csv,
    ".tab": read_csv,
    ".txt": read_csv,
    ".xlsx": read_excel,
    ".xlsm": read_excel,
    ".parquet": read_parquet,
    ".json": read_json,
    ".jsonl": read_json,
    ".ndjson": read_json,
}

#: File suffixes (lowercase, with the dot) that hold tables. ``.txt`` is absent: a text file is
#: a document unless the caller asks for ``read_csv`` explicitly.
TABLE_SUFFIXES: frozenset[str] = frozenset(READERS) - {".txt"}


def read_table_file(path: Path, con: duckdb.DuckDBPyConnection) -> list[StagedTable]:
    """Read a table file with the reader its suffix calls for.

    Raises:
        SourceError: the suffix is not a table format, or the reader failed.
    """
    suffix = path.suffix.lower()
    if suffix not in TABLE_SUFFIXES:
        known = ", ".join(sorted(TABLE_SUFFIXES))
        raise SourceError(
            path.name,
            f"{path.name!r} is not a table file tablerag reads ({known}); convert it to CSV.",
        )
    return READERS[suffix](path, con)


__all__ = [
    "READERS",
    "TABLE_SUFFIXES",
    "read_csv",
    "read_excel",
    "read_json",
    "read_parquet",
    "read_table_file",
    "stage_rows",
]
