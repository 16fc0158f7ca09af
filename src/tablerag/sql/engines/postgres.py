"""PostgreSQL engine: a role that can only SELECT, read-only transactions, statement_timeout."""

from __future__ import annotations

import logging
import threading

import psycopg
from psycopg import errors as pg_errors

from tablerag.errors import ConfigError, QueryFailed, QueryTimeout
from tablerag.sql.engines.base import Rows, SQLEngine
from tablerag.sql.policy import ExecutionPolicy
from tablerag.types import ColumnInfo, TableInfo

log = logging.getLogger(__name__)

_USER_RELATIONS = """
    FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE n.nspname NOT IN ('pg_catalog', 'information_schema')
      AND n.nspname NOT LIKE 'pg\\_%'
"""

WRITE_CHECKS: tuple[tuple[str, str], ...] = (
    ("is a superuser", "SELECT rolsuper FROM pg_roles WHERE rolname = current_user"),
    ("bypasses row-level security",
     "SELECT rolbypassrls FROM pg_roles WHERE rolname = current_user"),
    ("may create roles", "SELECT rolcreaterole FROM pg_roles WHERE rolname = current_user"),
    ("may create databases", "SELECT rolcreatedb FROM pg_roles WHERE rolname = current_user"),
    ("may create objects in this database",
     "SELECT has_database_privilege(current_database(), 'CREATE')"),
    ("may write server files or run programs",
     "SELECT pg_has_role('pg_write_server_files', 'MEMBER') "
     "OR pg_has_role('pg_execute_server_program', 'MEMBER') "
     "OR pg_has_role('pg_read_server_files', 'MEMBER')"),
    ("may create objects in a schema",
     "SELECT EXISTS (SELECT 1 FROM pg_namespace n WHERE has_schema_privilege(n.oid, 'CREATE') "
     "AND n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg\\_%')"),
    ("may write a table",
     "SELECT EXISTS (SELECT 1" + _USER_RELATIONS + " AND c.relkind IN ('r', 'p', 'v', 'm', 'f') "
     "AND has_table_privilege(c.oid, 'INSERT, UPDATE, DELETE, TRUNCATE, TRIGGER'))"),
    ("may advance a sequence",
     "SELECT EXISTS (SELECT 1" + _USER_RELATIONS + " AND c.relkind = 'S' "
     "AND CASE WHEN c.relkind = 'S' THEN has_sequence_privilege(c.oid, 'USAGE, UPDATE') END)"),
)  # fmt: skip
"""(what the role may do, query answering whether it may) — any true answer refuses start-up."""


class PostgresEngine(SQLEngine):
    """Run generated SQL on PostgreSQL through a role that can only read.

    At start-up the engine checks the role (:data:`WRITE_CHECKS`) and refuses to run when it can
    write, unless ``allow_writable_role`` is set by the operator. Every query runs in a READ ONLY
    transaction (also ``default_transaction_read_only``) with ``statement_timeout`` set, through
    a server-side cursor that fetches at most ``max_rows + 1`` rows, and is rolled back.

    Raises:
        ConfigError: cannot connect, or the role can write and no override was given.
    """

    dialect = "postgres"

    def __init__(
        self,
        conninfo: str,
        *,
        policy: ExecutionPolicy | None = None,
        allow_writable_role: bool = False,
    ) -> None:
        super().__init__(policy)
        try:
            self._con = psycopg.connect(conninfo, connect_timeout=10, autocommit=True)
        except psycopg.Error as exc:
            raise ConfigError(f"Cannot connect to PostgreSQL: {exc}. Check the URL.") from exc
        self._lock = threading.Lock()
        try:
            self._con.execute("SET default_transaction_read_only = on")
            self.write_reasons = self.writable()
        except psycopg.Error as exc:
            self._con.close()
            raise ConfigError(f"Cannot inspect the PostgreSQL role: {exc}.") from exc
        user = self._con.info.user
        if self.write_reasons and not allow_writable_role:
            self._con.close()
            raise ConfigError(
                f"PostgreSQL role {user!r} can write ({'; '.join(self.write_reasons)}); connect as "
                "a role that can only SELECT the exposed tables (see docs/threat-model.md), or "
                "pass --allow-writable-role if you accept the risk."
            )
        if self.write_reasons:
            log.warning(
                "role %r can write (%s); running anyway on operator override",
                user,
                "; ".join(self.write_reasons),
            )
        self._con.autocommit = False
        self._con.read_only = True

    def writable(self) -> list[str]:
        """What the connected role can do beyond reading (empty when it is read-only)."""
        reasons = []
        for what, query in WRITE_CHECKS:
            row = self._con.execute(query).fetchone()
            if row is not None and row[0]:
                reasons.append(what)
        return reasons

    def introspect(self) -> list[TableInfo]:
        """Tables, views and columns the role may SELECT, named ``schema.table``."""
        with self._lock, self._con.transaction(force_rollback=True):
            rows = self._con.execute(
                "SELECT n.nspname, c.relname, a.attname, format_type(a.atttypid, a.atttypmod)"
                + _USER_RELATIONS.replace(
                    "WHERE", "JOIN pg_attribute a ON a.attrelid = c.oid WHERE", 1
                )
                + " AND c.relkind IN ('r', 'p', 'v', 'm', 'f') AND a.attnum > 0 "
                "AND NOT a.attisdropped AND has_column_privilege(c.oid, a.attnum, 'SELECT') "
                "ORDER BY 1, 2, a.attnum"
            ).fetchall()
        tables: dict[str, list[ColumnInfo]] = {}
        for schema, table, column, typ in rows:
            tables.setdefault(f"{schema}.{table}", []).append(ColumnInfo(column, typ))
        return [TableInfo(name, "postgresql", tuple(cols), 0) for name, cols in tables.items()]

    def _run(self, sql: str, policy: ExecutionPolicy) -> tuple[tuple[str, ...], Rows]:
        with self._lock:
            try:
                with self._con.transaction(force_rollback=True):
                    self._con.execute(
                        "SELECT set_config('statement_timeout', %s, true)",
                        [str(policy.time_limit_ms)],
                    )
                    with self._con.cursor(name="tablerag_query") as cursor:
                        cursor.execute(sql)
                        columns = tuple(d.name for d in cursor.description or ())
                        rows = cursor.fetchmany(policy.max_rows + 1)
            except pg_errors.QueryCanceled as exc:
                raise QueryTimeout(
                    f"The query ran longer than {policy.time_limit_ms} ms and was stopped; add "
                    "filters or aggregate more.",
                    engine="postgres",
                    sql=sql,
                    time_limit_ms=policy.time_limit_ms,
                ) from exc
            except psycopg.Error as exc:
                raise QueryFailed(
                    f"PostgreSQL could not run the query: {self.driver_message(exc)}",
                    engine="postgres",
                    sql=sql,
                ) from exc
        return columns, [tuple(r) for r in rows]

    def close(self) -> None:
        """Close the connection (idempotent)."""
        self._con.close()
