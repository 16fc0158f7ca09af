"""SQLite engine: read-only URI, ``query_only``, and an authorizer that allows reads only."""

from __future__ import annotations

import sqlite3
import threading
import time
from pathlib import Path

import sqlglot
from sqlglot import exp

from tablerag.errors import ConfigError, QueryFailed, QueryTimeout, ResourceLimitExceeded
from tablerag.sql.engines.base import Rows
from tablerag.sql.engines.limits import engine_failure, fetch_capped
from tablerag.sql.engines.lineage import hide_derived
from tablerag.sql.engines.local import LocalEngine
from tablerag.sql.engines.scrub import scrub_message
from tablerag.sql.exposed import ExposedCatalog
from tablerag.sql.policy import ExecutionPolicy
from tablerag.types import ColumnInfo, TableInfo

_DENIED_FUNCTIONS = frozenset(
    {"load_extension", "readfile", "writefile", "edit", "fts3_tokenizer", "zipfile",
     "sqlar_compress",
     "sqlar_uncompress", "sqlite_compileoption_get", "sqlite_compileoption_used",
     "sqlite_source_id", "sqlite_version", "sqlite_offset"}
)  # fmt: skip


class SQLiteSession:
    """One read-only connection with the authorizer, the progress handler and SQLite's length
    limit; the engine keeps one, and the worker process opens its own.

    The authorizer answers a read of a column that is not exposed (a hidden column, or any
    column of a table that is not exposed) with ``SQLITE_DENY``: the statement fails with
    "access to ... is prohibited" (its names scrubbed). ``SQLITE_IGNORE`` would read the
    column as NULL instead, and a user would get a wrong answer without knowing it
    (``count(*) ... WHERE phone LIKE '138%'`` would say 0); a refusal says what happened.
    """

    def __init__(
        self, path: str, policy: ExecutionPolicy, catalog: ExposedCatalog | None = None
    ) -> None:
        uri = f"{Path(path).resolve().as_uri()}?mode=ro"
        try:
            self.con = sqlite3.connect(uri, uri=True, check_same_thread=False)
            self.con.execute("PRAGMA query_only = ON")
            self.tables = self._read_schema(path)
        except sqlite3.DatabaseError as exc:
            raise ConfigError(f"{path!r} is not a readable SQLite file: {exc}.") from exc
        # one string or blob (printf('%.*c', 900000000, 'x')) is refused, not built
        self.con.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, policy.max_result_bytes)
        self.allow_recursive = policy.allow_recursive
        self._readable: dict[str, set[str]] = {}
        self.catalog = ExposedCatalog([])
        self.expose(catalog or ExposedCatalog([]))
        self._lock = threading.Lock()
        self._deadline = 0.0
        self.con.set_authorizer(self._authorize)
        self.con.set_progress_handler(self._progress, 1000)

    def _read_schema(self, path: str) -> list[TableInfo]:
        names = [
            r[0]
            for r in self.con.execute(
                "SELECT name FROM sqlite_master WHERE type IN ('table', 'view') "
                "AND name NOT LIKE 'sqlite_%' ORDER BY name"
            )
        ]
        out = []
        for name in names:
            cols = self.con.execute("SELECT name, type FROM pragma_table_info(?)", (name,))
            columns = tuple(ColumnInfo(str(c), str(t or "")) for c, t in cols)
            out.append(TableInfo(name, path, columns, 0))
        return out

    def expose(self, catalog: ExposedCatalog) -> None:
        """Let the authorizer allow reads of ``catalog``'s exposed columns only."""
        self.catalog = catalog
        self._readable = {
            t.name.lower(): {c.lower() for c in t.columns} - {h.lower() for h in t.hidden}
            for t in catalog.tables
        }

    def _authorize(
        self, action: int, arg1: str | None, arg2: str | None, _db: str | None, _src: str | None
    ) -> int:
        if action == sqlite3.SQLITE_SELECT:
            return sqlite3.SQLITE_OK
        if action == sqlite3.SQLITE_READ and arg1:
            readable = self._readable.get(arg1.lower())
            if readable is None:
                return sqlite3.SQLITE_DENY
            if not arg2 or arg2.lower() in readable:
                return sqlite3.SQLITE_OK
            return sqlite3.SQLITE_DENY
        if action == sqlite3.SQLITE_FUNCTION and arg2:
            return sqlite3.SQLITE_DENY if arg2.lower() in _DENIED_FUNCTIONS else sqlite3.SQLITE_OK
        if action == sqlite3.SQLITE_RECURSIVE and self.allow_recursive:
            return sqlite3.SQLITE_OK
        return sqlite3.SQLITE_DENY

    def _progress(self) -> int:
        return 1 if time.monotonic() > self._deadline else 0

    def run(self, sql: str, policy: ExecutionPolicy) -> tuple[tuple[str, ...], Rows]:
        """Run gated SQL under the time limit; return column names and rows.

        Raises:
            QueryTimeout: the progress handler stopped it.
            ResourceLimitExceeded: a value or the result is larger than allowed.
            QueryFailed: SQLite refused or failed to run it.
        """
        with self._lock:
            self._deadline = time.monotonic() + policy.time_limit_ms / 1000
            cursor = self.con.cursor()
            try:
                cursor.execute(sql)
                columns = tuple(str(d[0]) for d in cursor.description or ())
                rows = fetch_capped(cursor.fetchmany, policy, engine="sqlite", sql=sql)
            except sqlite3.OperationalError as exc:
                if "interrupted" in str(exc):
                    raise QueryTimeout(
                        f"The query ran longer than {policy.time_limit_ms} ms and was stopped; "
                        "add filters or aggregate more.",
                        engine="sqlite",
                        sql=sql,
                        time_limit_ms=policy.time_limit_ms,
                    ) from exc
                raise self._failed(exc, sql, policy) from exc
            except sqlite3.DatabaseError as exc:
                raise self._failed(exc, sql, policy) from exc
            except MemoryError as exc:
                raise ResourceLimitExceeded(
                    "The query needed more memory than allowed and was stopped; aggregate or "
                    "filter more.",
                    engine="sqlite",
                    sql=sql,
                ) from exc
            finally:
                cursor.close()
                self._deadline = 0.0
        return columns, rows

    def _failed(self, exc: sqlite3.Error, sql: str, policy: ExecutionPolicy) -> QueryFailed:
        text = str(exc)
        if "too big" in text or "out of memory" in text:
            return ResourceLimitExceeded(
                f"A value of the query would be larger than {policy.max_result_bytes} bytes "
                f"({text}); return shorter values or aggregate more.",
                engine="sqlite",
                sql=sql,
            )
        message = scrub_message(text, self.catalog)
        return QueryFailed(engine_failure("SQLite", message), engine="sqlite", sql=sql)

    def close(self) -> None:
        """Close the connection."""
        self.con.close()


class SQLiteEngine(LocalEngine):
    """Run generated SQL on a SQLite file, read-only.

    Layer 1 here is the file opened with ``mode=ro``, ``PRAGMA query_only`` and an authorizer
    that allows only SELECT, reads of exposed columns and harmless functions: ATTACH, PRAGMA,
    writes, ``load_extension`` and reads of ``sqlite_master`` or hidden columns are denied by
    SQLite itself even if the gate missed them (:class:`SQLiteSession`). The time limit is a
    progress handler, one value is at most ``max_result_bytes`` long (``SQLITE_LIMIT_LENGTH``),
    and with ``policy.isolated`` (the default) queries run in a worker process.
    """

    dialect = "sqlite"
    session_type = SQLiteSession

    def __init__(self, path: str | Path, *, policy: ExecutionPolicy | None = None) -> None:
        super().__init__(policy)
        self.path = Path(path)
        if not self.path.is_file():
            raise ConfigError(f"No SQLite file at {str(self.path)!r}; check the path.")
        self._session = SQLiteSession(str(self.path), self.policy)
        self._unindexed: frozenset[str] = frozenset()

    def introspect(self) -> list[TableInfo]:
        """Tables, views and columns of the file (read once, at open)."""
        return list(self._session.tables)

    def _expose(self, catalog: ExposedCatalog) -> None:
        self._unindexed = self._hidden_indexes(catalog)
        super()._expose(catalog)

    def _hidden_indexes(self, catalog: ExposedCatalog) -> frozenset[str]:
        """Lower-cased names of the exposed tables with an index over a column generated SQL
        may not read: SQLite may scan such an index (a covering one) instead of the table, and
        the order it reads rows in - which ``group_concat`` keeps, with no ORDER BY of its own
        before SQLite 3.44 - would follow the hidden values."""
        readable = {t.name.lower(): {c.lower() for c in t.columns} for t in catalog.tables}
        out = set()
        con = sqlite3.connect(f"{self.path.resolve().as_uri()}?mode=ro", uri=True)
        try:
            for table, columns in readable.items():
                indexes = con.execute("SELECT name FROM pragma_index_list(?)", (table,))
                for (index,) in indexes.fetchall():
                    used = con.execute("SELECT name FROM pragma_index_info(?)", (index,))
                    if any(c is None or str(c).lower() not in columns for (c,) in used):
                        out.add(table)
        except sqlite3.Error:
            return frozenset(readable)  # unknown: read every table without its indexes
        finally:
            con.close()
        return frozenset(out)

    def _run(self, sql: str, policy: ExecutionPolicy) -> tuple[tuple[str, ...], Rows]:
        return super()._run(not_indexed(sql, self._unindexed), policy)

    def _with_lineage(self, catalog: ExposedCatalog) -> ExposedCatalog:
        """Hide each view column whose value comes from a hidden column
        (:func:`~tablerag.sql.engines.lineage.hide_derived` over the file's view definitions):
        the authorizer denies such a read when it runs, and this keeps the column, and its
        samples, out of the catalog and the schema the model reads as well."""
        con = sqlite3.connect(f"{self.path.resolve().as_uri()}?mode=ro", uri=True)
        try:
            views = [
                ("main", str(n), str(q))
                for n, q in con.execute(
                    "SELECT name, sql FROM sqlite_master WHERE type = 'view' AND sql IS NOT NULL"
                )
            ]
            if not views:
                return catalog
            columns = [
                ("main", t.name, c.name, c.type or "TEXT")
                for t in self._session.tables
                for c in t.columns
            ]
        except sqlite3.Error:
            return catalog
        finally:
            con.close()
        return hide_derived(catalog, views, columns, dialect="sqlite", default="main")


def not_indexed(sql: str, tables: frozenset[str]) -> str:
    """``sql`` reading each of ``tables`` with ``NOT INDEXED`` (rows in table order, never in
    the order of an index over a hidden column); a CTE of the same name is left alone.

    Example:
        >>> not_indexed("SELECT group_concat(name) FROM customers c JOIN o ON o.id = c.id",
        ...             frozenset({"customers"}))
        'SELECT GROUP_CONCAT(name) FROM customers AS c NOT INDEXED JOIN o ON o.id = c.id'
        >>> not_indexed("SELECT 1", frozenset())
        'SELECT 1'
    """
    if not tables:
        return sql
    try:
        tree = sqlglot.parse_one(sql, read="sqlite")
    except sqlglot.errors.SqlglotError:
        return sql
    ctes = {c.alias_or_name.lower() for c in tree.find_all(exp.CTE)}
    changed = False
    for table in tree.find_all(exp.Table):
        name = table.name.lower()
        if name in tables and name not in ctes and not isinstance(table.this, exp.Func):
            table.set("indexed", False)
            changed = True
    return tree.sql(dialect="sqlite") if changed else sql
