"""DuckDB engine: its own read-only connection, external access off, configuration locked."""

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
from tablerag.sql.engines.base import Rows, SQLEngine
from tablerag.sql.policy import ExecutionPolicy
from tablerag.types import ColumnInfo, TableInfo

_SYSTEM_SCHEMAS = ("information_schema", "pg_catalog", "tablerag")


def locked_config(policy: ExecutionPolicy) -> dict[str, str | bool | int | float | list[str]]:
    """DuckDB settings of a connection that runs generated SQL (checked by the tests).

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


class DuckDBEngine(SQLEngine):
    """Run generated SQL on a DuckDB file, read-only.

    The engine opens its *own* connection with :func:`locked_config`. DuckDB refuses a second
    connection to a file the same process holds with another configuration, so a workspace's
    read-write connection must be closed first (the settings are per database instance and
    cannot be locked for one cursor only).

    Args:
        path: the DuckDB file.
        schema: schema of the user tables (``"data"`` in a workspace); ``None`` exposes every
            schema except system ones and ``tablerag``.
        policy: default limits; memory and threads are fixed when the file is opened.
    """

    dialect = "duckdb"

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
        try:
            self._con = duckdb.connect(
                str(self.path), read_only=True, config=locked_config(self.policy)
            )
        except duckdb.ConnectionException as exc:
            raise WorkspaceError(
                f"{str(self.path)!r} is already open read-write in this process ({exc}); close "
                "the workspace before running generated SQL on it."
            ) from exc
        except duckdb.Error as exc:
            raise WorkspaceError(f"Cannot open {str(self.path)!r} read-only: {exc}.") from exc
        self._closed = False

    @property
    def schema(self) -> str | None:
        """Schema of unqualified table names."""
        return self._schema

    def introspect(self) -> list[TableInfo]:
        """Tables and columns of the exposed schema(s), from ``duckdb_columns()``."""
        rows = self._con.execute(
            "SELECT schema_name, table_name, column_name, data_type FROM duckdb_columns() "
            "WHERE database_name = current_database() AND NOT internal "
            "AND schema_name NOT IN (SELECT unnest(?::VARCHAR[])) ORDER BY schema_name, "
            "table_name, column_index",
            [list(_SYSTEM_SCHEMAS)],
        ).fetchall()
        tables: dict[tuple[str, str], list[ColumnInfo]] = defaultdict(list)
        for schema, table, column, typ in rows:
            if self._schema is None or schema == self._schema:
                tables[(schema, table)].append(ColumnInfo(str(column), str(typ)))
        out = []
        for (schema, table), cols in tables.items():
            name = table if self._schema is not None or schema == "main" else f"{schema}.{table}"
            out.append(TableInfo(name, str(self.path), tuple(cols), 0))
        if self._schema is None:
            return [_with_schema(t, "main") for t in out]
        return out

    def _run(self, sql: str, policy: ExecutionPolicy) -> tuple[tuple[str, ...], Rows]:
        cursor = self._con.cursor()
        fired = threading.Event()

        def stop() -> None:
            fired.set()
            cursor.interrupt()

        timer = threading.Timer(policy.time_limit_ms / 1000, stop)
        timer.start()
        try:
            cursor.execute(sql)
            columns = tuple(str(d[0]) for d in cursor.description or ())
            rows = cursor.fetchmany(policy.max_rows + 1)
        except duckdb.InterruptException as exc:
            raise QueryTimeout(
                f"The query ran longer than {policy.time_limit_ms} ms and was stopped; add "
                "filters or aggregate more.",
                engine="duckdb",
                sql=sql,
                time_limit_ms=policy.time_limit_ms,
            ) from exc
        except duckdb.OutOfMemoryException as exc:
            raise ResourceLimitExceeded(
                f"The query needed more than {policy.memory_limit_mb} MB and was stopped; "
                "aggregate or filter more.",
                engine="duckdb",
                sql=sql,
            ) from exc
        except duckdb.Error as exc:
            if fired.is_set():
                raise QueryTimeout(
                    f"The query ran longer than {policy.time_limit_ms} ms and was stopped.",
                    engine="duckdb",
                    sql=sql,
                    time_limit_ms=policy.time_limit_ms,
                ) from exc
            raise QueryFailed(
                f"DuckDB could not run the query: {self.driver_message(exc)}",
                engine="duckdb",
                sql=sql,
            ) from exc
        finally:
            timer.cancel()
            cursor.close()
        return columns, [tuple(r) for r in rows]

    def close(self) -> None:
        """Close the connection (idempotent)."""
        if not self._closed:
            self._con.close()
            self._closed = True


def _with_schema(table: TableInfo, default: str) -> TableInfo:
    return table if "." in table.name else replace(table, name=f"{default}.{table.name}")
