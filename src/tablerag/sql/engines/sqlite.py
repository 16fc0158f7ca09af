"""SQLite engine: read-only URI, ``query_only``, and an authorizer that allows reads only."""

from __future__ import annotations

import sqlite3
import threading
import time
from pathlib import Path

from tablerag.errors import ConfigError, QueryFailed, QueryTimeout
from tablerag.sql.engines.base import Rows, SQLEngine
from tablerag.sql.policy import ExecutionPolicy
from tablerag.types import ColumnInfo, TableInfo

_DENIED_FUNCTIONS = frozenset(
    {"load_extension", "readfile", "writefile", "edit", "fts3_tokenizer", "zipfile",
     "sqlar_compress",
     "sqlar_uncompress", "sqlite_compileoption_get", "sqlite_compileoption_used",
     "sqlite_source_id", "sqlite_version", "sqlite_offset"}
)  # fmt: skip


class SQLiteEngine(SQLEngine):
    """Run generated SQL on a SQLite file, read-only.

    Layer 1 here is the file opened with ``mode=ro``, ``PRAGMA query_only`` and an authorizer
    that allows only SELECT, reads of exposed columns and harmless functions: ATTACH, PRAGMA,
    writes, ``load_extension`` and reads of ``sqlite_master`` or hidden columns are denied by
    SQLite itself even if the gate missed them. The time limit is a progress handler.
    """

    dialect = "sqlite"

    def __init__(self, path: str | Path, *, policy: ExecutionPolicy | None = None) -> None:
        super().__init__(policy)
        self.path = Path(path)
        if not self.path.is_file():
            raise ConfigError(f"No SQLite file at {str(self.path)!r}; check the path.")
        uri = f"{self.path.resolve().as_uri()}?mode=ro"
        try:
            self._con = sqlite3.connect(uri, uri=True, check_same_thread=False)
            self._con.execute("PRAGMA query_only = ON")
            self._tables = self._read_schema()
        except sqlite3.DatabaseError as exc:
            raise ConfigError(f"{str(self.path)!r} is not a readable SQLite file: {exc}.") from exc
        self._lock = threading.Lock()
        self._deadline = 0.0
        self._con.set_authorizer(self._authorize)
        self._con.set_progress_handler(self._progress, 1000)

    def _read_schema(self) -> list[TableInfo]:
        names = [
            r[0]
            for r in self._con.execute(
                "SELECT name FROM sqlite_master WHERE type IN ('table', 'view') "
                "AND name NOT LIKE 'sqlite_%' ORDER BY name"
            )
        ]
        out = []
        for name in names:
            cols = self._con.execute("SELECT name, type FROM pragma_table_info(?)", (name,))
            columns = tuple(ColumnInfo(str(c), str(t or "")) for c, t in cols)
            out.append(TableInfo(name, str(self.path), columns, 0))
        return out

    def introspect(self) -> list[TableInfo]:
        """Tables, views and columns of the file (read once, at open)."""
        return list(self._tables)

    def _authorize(
        self, action: int, arg1: str | None, arg2: str | None, _db: str | None, _src: str | None
    ) -> int:
        if action == sqlite3.SQLITE_SELECT:
            return sqlite3.SQLITE_OK
        if action == sqlite3.SQLITE_READ and arg1:
            table = self.catalog.table(arg1)
            if table is None:
                return sqlite3.SQLITE_DENY
            if not arg2 or arg2.lower() in {c.lower() for c in table.columns}:
                return sqlite3.SQLITE_OK
            return sqlite3.SQLITE_DENY
        if action == sqlite3.SQLITE_FUNCTION and arg2:
            return sqlite3.SQLITE_DENY if arg2.lower() in _DENIED_FUNCTIONS else sqlite3.SQLITE_OK
        if action == sqlite3.SQLITE_RECURSIVE and self.policy.allow_recursive:
            return sqlite3.SQLITE_OK
        return sqlite3.SQLITE_DENY

    def _progress(self) -> int:
        return 1 if time.monotonic() > self._deadline else 0

    def _run(self, sql: str, policy: ExecutionPolicy) -> tuple[tuple[str, ...], Rows]:
        with self._lock:
            self._deadline = time.monotonic() + policy.time_limit_ms / 1000
            cursor = self._con.cursor()
            try:
                cursor.execute(sql)
                columns = tuple(str(d[0]) for d in cursor.description or ())
                rows = cursor.fetchmany(policy.max_rows + 1)
            except sqlite3.OperationalError as exc:
                if "interrupted" in str(exc):
                    raise QueryTimeout(
                        f"The query ran longer than {policy.time_limit_ms} ms and was stopped; "
                        "add filters or aggregate more.",
                        engine="sqlite",
                        sql=sql,
                        time_limit_ms=policy.time_limit_ms,
                    ) from exc
                raise QueryFailed(
                    f"SQLite could not run the query: {self.driver_message(exc)}",
                    engine="sqlite",
                    sql=sql,
                ) from exc
            except sqlite3.DatabaseError as exc:
                raise QueryFailed(
                    f"SQLite could not run the query: {self.driver_message(exc)}",
                    engine="sqlite",
                    sql=sql,
                ) from exc
            finally:
                cursor.close()
                self._deadline = 0.0
        return columns, [tuple(r) for r in rows]

    def close(self) -> None:
        """Close the connection (idempotent)."""
        self._con.close()
