"""DuckDB engine: its own read-only connection, external access off, configuration locked, and
generated SQL reading views of the exposed columns only (:mod:`.exposure`)."""

from __future__ import annotations

import secrets
import threading
from collections import defaultdict
from dataclasses import replace
from pathlib import Path

import duckdb

from tablerag.errors import (
    ConfigError,
    QueryFailed,
    QueryTimeout,
    ResourceLimitExceeded,
    WorkspaceError,
)
from tablerag.sql.engines.base import Rows
from tablerag.sql.engines.exposure import (
    EXPOSURE,
    SOURCE_PREFIX,
    exposure_statements,
    quote,
    strip_exposure,
)
from tablerag.sql.engines.limits import engine_failure, fetch_capped
from tablerag.sql.engines.lineage import hide_derived
from tablerag.sql.engines.local import LocalEngine
from tablerag.sql.engines.scrub import scrub_message
from tablerag.sql.exposed import ExposedCatalog
from tablerag.sql.policy import ExecutionPolicy
from tablerag.types import ColumnInfo, TableInfo

_SYSTEM_SCHEMAS = ("information_schema", "pg_catalog", "tablerag")


def locked_config(policy: ExecutionPolicy) -> dict[str, str | bool | int | float | list[str]]:
    """DuckDB settings of a connection that runs generated SQL (checked by the tests).

    ``enable_external_access`` and ``lock_configuration`` are set once the user's file is
    attached (read-only: the connection itself is in memory, see :class:`DuckDBSession`).

    Example:
        >>> locked_config(ExecutionPolicy(memory_limit_mb=256))["memory_limit"]
        '256MB'
    """
    return {
        "enable_external_access": False,
        "autoload_known_extensions": False,
        "autoinstall_known_extensions": False,
        "allow_community_extensions": False,
        "allow_unsigned_extensions": False,
        "memory_limit": f"{policy.memory_limit_mb}MB",
        "threads": policy.threads,
        "max_temp_directory_size": "0B",
        "lock_configuration": True,
    }


class DuckDBSession:
    """One locked connection whose queries see the exposure database only.

    The connection itself is in memory. The user's file is attached read-only under
    :attr:`source`, a name made afresh for each session (``tablerag_source_`` and random hex)
    that no search path includes and that generated SQL cannot name (the gate refuses a
    catalog-qualified table); the exposure database :data:`EXPOSURE` is the current database
    and the only catalog of the search path of every query. So a table name the gate did not
    rewrite (a CTE it mistook for the table, a name it folded differently from DuckDB) still
    finds the view of exposed columns, or nothing. External access is off and the
    configuration locked once the file is attached.

    The engine keeps one session in its own process (introspection, and queries when isolation
    is off) and the worker process opens its own (:class:`~tablerag.sql.engines.worker.Worker`).
    """

    def __init__(
        self, path: str, policy: ExecutionPolicy, catalog: ExposedCatalog | None = None
    ) -> None:
        config = locked_config(policy)
        for late in ("enable_external_access", "lock_configuration"):
            config.pop(late)  # set once the file is attached
        self.source = f"{SOURCE_PREFIX}{secrets.token_hex(6)}"
        self.con = duckdb.connect(":memory:", config=config)
        try:
            self.con.execute(f"ATTACH {_literal(path)} AS {quote(self.source)} (READ_ONLY)")
        except duckdb.ResourceInUseException as exc:
            self.con.close()
            raise WorkspaceError(
                f"{path!r} is already open read-write in this process; close the workspace "
                "before running generated SQL on it."
            ) from exc
        except duckdb.Error as exc:
            self.con.close()
            raise WorkspaceError(
                f"Cannot open {path!r} read-only: {self._clean(str(exc))}; check that it is a "
                "DuckDB file that no other program is writing."
            ) from exc
        self.con.execute(f"ATTACH ':memory:' AS {quote(EXPOSURE)}")
        self.con.execute("SET enable_external_access = false")
        self.con.execute("SET lock_configuration = true")
        self.schemas = [
            str(s)
            for (s,) in self.con.execute(
                "SELECT schema_name FROM duckdb_schemas() WHERE database_name = ? "
                "AND NOT internal ORDER BY schema_name <> 'main', schema_name",
                [self.source],
            ).fetchall()
            if str(s) not in _SYSTEM_SCHEMAS
        ]
        if "main" not in self.schemas:
            self.schemas.insert(0, "main")
        for schema in self.schemas:  # every schema exists, so the search path names them all
            self.con.execute(f"CREATE SCHEMA IF NOT EXISTS {quote(EXPOSURE)}.{quote(schema)}")
        self.catalog = ExposedCatalog([])
        if catalog is not None:
            self.expose(catalog)

    def views(self) -> list[tuple[str, str, str]]:
        """(schema, view, defining SQL) of every user view of the file."""
        rows = self.con.execute(
            "SELECT schema_name, view_name, sql FROM duckdb_views() WHERE database_name = ? "
            "AND NOT internal",
            [self.source],
        ).fetchall()
        return [(str(s), str(v), str(q)) for s, v, q in rows]

    def search_path(self) -> str:
        """The search path of every query: the exposure database's schemas, ``main`` first.

        Example (names only):
            ``tablerag_exposure.main,tablerag_exposure.data``
        """
        return ",".join(f"{quote(EXPOSURE)}.{quote(s)}" for s in self.schemas)

    def cursor(self) -> duckdb.DuckDBPyConnection:
        """A new cursor of the connection, on the exposure database and its search path only.

        A cursor is a fresh client: it keeps neither a previous query's ``USE`` nor its
        ``SET search_path``, so each query starts from here.
        """
        cursor = self.con.cursor()
        cursor.execute(f"USE {quote(EXPOSURE)}")
        cursor.execute(f"SET search_path = {_literal(self.search_path())}")
        return cursor

    def _clean(self, message: str) -> str:
        """``message`` naming the user's tables as written: no exposure or source qualifier."""
        return strip_exposure(message, self.source)

    def columns(self) -> list[tuple[str, str, str, str]]:
        """(schema, table, column, type) of every user table of the file."""
        rows = self.con.execute(
            "SELECT schema_name, table_name, column_name, data_type FROM duckdb_columns() "
            "WHERE database_name = ? AND NOT internal "
            "AND schema_name NOT IN (SELECT unnest(?::VARCHAR[])) ORDER BY schema_name, "
            "table_name, column_index",
            [self.source, list(_SYSTEM_SCHEMAS)],
        ).fetchall()
        return [(str(s), str(t), str(c), str(d)) for s, t, c, d in rows]

    def expose(self, catalog: ExposedCatalog) -> None:
        """Rebuild the exposure database: one view per exposed table, exposed columns only."""
        real: dict[tuple[str, str], list[str]] = defaultdict(list)
        for schema, table, column, _ in self.columns():
            real[(schema.lower(), table.lower())].append(column)
        views = self.con.execute(
            "SELECT schema_name, view_name FROM duckdb_views() WHERE database_name = ?",
            [EXPOSURE],
        ).fetchall()
        for schema_name, view_name in views:
            self.con.execute(f"DROP VIEW {quote(EXPOSURE)}.{quote(schema_name)}.{quote(view_name)}")
        for statement in exposure_statements(catalog, self.source, real):
            self.con.execute(statement)
        self.catalog = catalog

    def run(self, sql: str, policy: ExecutionPolicy) -> tuple[tuple[str, ...], Rows]:
        """Run gated SQL under the time limit; return column names and rows.

        Raises:
            QueryTimeout: the interrupt stopped it.
            ResourceLimitExceeded: DuckDB ran out of its memory, or the result is too large.
            QueryFailed: DuckDB refused or failed to run it.
        """
        self._check_statement(sql)
        cursor = self.cursor()
        fired = threading.Event()

        def stop() -> None:
            fired.set()
            cursor.interrupt()

        timer = threading.Timer(policy.time_limit_ms / 1000, stop)
        timer.start()
        try:
            cursor.execute(sql)
            columns = tuple(str(d[0]) for d in cursor.description or ())
            rows = fetch_capped(cursor.fetchmany, policy, engine="duckdb", sql=sql)
        except duckdb.InterruptException as exc:
            raise _timeout(policy, sql) from exc
        except (duckdb.OutOfMemoryException, MemoryError) as exc:
            raise ResourceLimitExceeded(
                f"The query needed more than {policy.memory_limit_mb} MB and was stopped; "
                "aggregate or filter more.",
                engine="duckdb",
                sql=sql,
            ) from exc
        except duckdb.Error as exc:
            if fired.is_set():
                raise _timeout(policy, sql) from exc
            message = self._clean(scrub_message(str(exc), self.catalog))
            raise QueryFailed(engine_failure("DuckDB", message), engine="duckdb", sql=sql) from exc
        finally:
            timer.cancel()
            cursor.close()
        return columns, rows

    def _check_statement(self, sql: str) -> None:
        """Refuse anything but one SELECT: a ``USE``, ``SET search_path``, ``ATTACH`` or
        ``PRAGMA`` would change what names resolve to (the gate refuses them first)."""
        try:
            statements = self.con.extract_statements(sql)
        except duckdb.Error as exc:
            message = self._clean(scrub_message(str(exc), self.catalog))
            raise QueryFailed(engine_failure("DuckDB", message), engine="duckdb", sql=sql) from exc
        if len(statements) != 1 or statements[0].type != duckdb.StatementType.SELECT:
            raise QueryFailed(
                "DuckDB runs one SELECT statement per query here; write the question as a "
                "single SELECT.",
                engine="duckdb",
                sql=sql,
            )

    def close(self) -> None:
        """Close the connection."""
        self.con.close()


def _literal(text: str) -> str:
    """``text`` as a DuckDB string literal."""
    return "'" + text.replace("'", "''") + "'"


def _timeout(policy: ExecutionPolicy, sql: str) -> QueryTimeout:
    return QueryTimeout(
        f"The query ran longer than {policy.time_limit_ms} ms and was stopped; add "
        "filters or aggregate more.",
        engine="duckdb",
        sql=sql,
        time_limit_ms=policy.time_limit_ms,
    )


class DuckDBEngine(LocalEngine):
    """Run generated SQL on a DuckDB file, read-only, through views of the exposed columns.

    The engine opens its *own* connection with :func:`locked_config`. DuckDB refuses a second
    connection to a file the same process holds with another configuration, so a workspace's
    read-write connection must be closed first (the settings are per database instance and
    cannot be locked for one cursor only). With ``policy.isolated`` (the default) queries run
    in a worker process (:class:`~tablerag.sql.engines.worker.Worker`) that opens the file
    read-only too.

    Args:
        path: the DuckDB file.
        schema: schema of the user tables (``"data"`` in a workspace); ``None`` exposes every
            schema except system ones and ``tablerag``.
        policy: default limits; memory, threads and isolation are fixed when the file is opened.
    """

    dialect = "duckdb"
    session_type = DuckDBSession
    exposure = EXPOSURE

    def __init__(
        self,
        path: str | Path,
        *,
        schema: str | None = "data",
        policy: ExecutionPolicy | None = None,
    ) -> None:
        super().__init__(policy)
        self.path = Path(path)
        self._schema = schema
        if not self.path.is_file():
            raise ConfigError(f"No DuckDB file at {str(self.path)!r}; check the path.")
        self._session = DuckDBSession(str(self.path), self.policy)
        self._closed = False

    @property
    def schema(self) -> str | None:
        """Schema of unqualified table names."""
        return self._schema

    def _with_lineage(self, catalog: ExposedCatalog) -> ExposedCatalog:
        """Hide each view column whose value comes from a hidden column
        (:func:`~tablerag.sql.engines.lineage.hide_derived` over the file's view definitions)."""
        views = self._session.views()
        if not views:
            return catalog
        return hide_derived(catalog, views, self._session.columns(), dialect="duckdb")

    def introspect(self) -> list[TableInfo]:
        """Tables and columns of the exposed schema(s), from ``duckdb_columns()``."""
        tables: dict[tuple[str, str], list[ColumnInfo]] = defaultdict(list)
        for schema, table, column, typ in self._session.columns():
            if self._schema is None or schema == self._schema:
                tables[(schema, table)].append(ColumnInfo(column, typ))
        out = []
        for (schema, table), cols in tables.items():
            name = table if self._schema is not None or schema == "main" else f"{schema}.{table}"
            out.append(TableInfo(name, str(self.path), tuple(cols), 0))
        if self._schema is None:
            return [_with_schema(t, "main") for t in out]
        return out


def _with_schema(table: TableInfo, default: str) -> TableInfo:
    return table if "." in table.name else replace(table, name=f"{default}.{table.name}")
