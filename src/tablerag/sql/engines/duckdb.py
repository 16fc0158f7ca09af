"""DuckDB engine: its own read-only connection, external access off, configuration locked, and
generated SQL reading views of the exposed columns only (:mod:`.exposure`)."""

from __future__ import annotations

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
from tablerag.sql.engines.exposure import EXPOSURE, exposure_statements, quote, strip_exposure
from tablerag.sql.engines.limits import check_result_size
from tablerag.sql.engines.local import LocalEngine
from tablerag.sql.engines.scrub import scrub_message
from tablerag.sql.engines.worker import Worker
from tablerag.sql.exposed import ExposedCatalog
from tablerag.sql.policy import ExecutionPolicy
from tablerag.types import ColumnInfo, TableInfo

_SYSTEM_SCHEMAS = ("information_schema", "pg_catalog", "tablerag")


def locked_config(policy: ExecutionPolicy) -> dict[str, str | bool | int | float | list[str]]:
    """DuckDB settings of a connection that runs generated SQL (checked by the tests).

    ``lock_configuration`` is set last, once the exposure database is attached.

    Example:
        >>> locked_config(ExecutionPolicy(memory_limit_mb=256))["memory_limit"]
        '256MB'
    """
    return {
        "access_mode": "READ_ONLY",
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
    """One locked read-only connection to a DuckDB file, with its exposure database.

    The engine keeps one in its own process (introspection, and queries when isolation is off)
    and the worker process opens its own (:class:`~tablerag.sql.engines.worker.Worker`).
    """

    def __init__(
        self, path: str, policy: ExecutionPolicy, catalog: ExposedCatalog | None = None
    ) -> None:
        config = locked_config(policy)
        config.pop("lock_configuration")
        try:
            self.con = duckdb.connect(path, read_only=True, config=config)
        except duckdb.ConnectionException as exc:
            raise WorkspaceError(
                f"{path!r} is already open read-write in this process ({exc}); close "
                "the workspace before running generated SQL on it."
            ) from exc
        except duckdb.Error as exc:
            raise WorkspaceError(f"Cannot open {path!r} read-only: {exc}.") from exc
        try:
            self.con.execute(f"ATTACH ':memory:' AS {quote(EXPOSURE)} (READ_ONLY false)")
        except duckdb.Error as exc:  # the file itself is called tablerag_exposure.duckdb
            self.con.close()
            raise ConfigError(
                f"{path!r} is named like tablerag's exposure database {EXPOSURE!r}; rename the "
                "file to query it."
            ) from exc
        self.con.execute("SET lock_configuration = true")
        self.source = str(self.con.execute("SELECT current_database()").fetchone()[0])  # type: ignore[index]
        self.catalog = ExposedCatalog([])
        if catalog is not None:
            self.expose(catalog)

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
        cursor = self.con.cursor()
        fired = threading.Event()

        def stop() -> None:
            fired.set()
            cursor.interrupt()

        timer = threading.Timer(policy.time_limit_ms / 1000, stop)
        timer.start()
        try:
            cursor.execute(sql)
            columns = tuple(str(d[0]) for d in cursor.description or ())
            rows = [tuple(r) for r in cursor.fetchmany(policy.max_rows + 1)]
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
            message = strip_exposure(scrub_message(str(exc), self.catalog))
            raise QueryFailed(
                f"DuckDB could not run the query: {message}", engine="duckdb", sql=sql
            ) from exc
        finally:
            timer.cancel()
            cursor.close()
        check_result_size(rows, policy.max_result_bytes, engine="duckdb", sql=sql)
        return columns, rows

    def close(self) -> None:
        """Close the connection."""
        self.con.close()


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
        self._worker: Worker | None = None
        self._closed = False

    @property
    def schema(self) -> str | None:
        """Schema of unqualified table names."""
        return self._schema

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
