"""PostgreSQL engine: a role that can only SELECT, read-only transactions, statement_timeout."""

from __future__ import annotations

import logging
import threading

import psycopg
from psycopg import errors as pg_errors

from tablerag.errors import ConfigError, QueryFailed, QueryTimeout
from tablerag.sql.engines.base import ALLOW_HINT, Rows, SQLEngine
from tablerag.sql.engines.limits import Watchdog, engine_failure, fetch_capped
from tablerag.sql.engines.lineage import hide_derived
from tablerag.sql.exposed import ExposedCatalog
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

TABLE_LEVEL = """
    SELECT n.nspname, c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE (n.nspname, c.relname) IN (SELECT * FROM unnest(%s::text[], %s::text[]))
      AND has_table_privilege(c.oid, 'SELECT')
"""
"""Which of the (schema, table) arrays the role may SELECT as a whole table."""

READABLE_HIDDEN = """
    SELECT n.nspname, c.relname, a.attname
    FROM unnest(%s::text[], %s::text[], %s::text[]) AS u(s, t, col)
    JOIN pg_namespace n ON n.nspname = coalesce(u.s, current_schema())
    JOIN pg_class c ON c.relnamespace = n.oid AND c.relname = u.t
    JOIN pg_attribute a ON a.attrelid = c.oid AND a.attname = u.col AND NOT a.attisdropped
    WHERE has_column_privilege(c.oid, a.attnum, 'SELECT')
    ORDER BY 1, 2, a.attnum
"""
"""The hidden columns (schema, table, column arrays) the connected role may SELECT."""


def ident(name: str) -> str:
    """``name`` as a PostgreSQL identifier.

    Example:
        >>> print(ident('the "EU" sales'))
        "the ""EU"" sales"
    """
    return '"' + name.replace('"', '""') + '"'


def grant_statements(
    catalog: ExposedCatalog,
    readable: list[tuple[str, str, str]],
    role: str,
    table_level: frozenset[tuple[str, str]] = frozenset(),
) -> list[str]:
    """The narrowest statements that leave ``role`` unable to read the hidden columns it can
    read (``readable``: schema, table, column).

    Where the role reads the hidden columns through column grants only, revoking those columns
    is enough. Where it holds SELECT on the whole table (``table_level``), the column REVOKE
    does nothing: the table privilege is replaced by a grant of the exposed columns (a table
    REVOKE also drops the table's column grants, so the visible ones are granted again).

    Example:
        >>> cat = ExposedCatalog.from_mapping({"public.customers": ["id", "name", "phone"]},
        ...                                   hidden={"public.customers": ["phone"]})
        >>> grant_statements(cat, [("public", "customers", "phone")], "reader")
        ['REVOKE SELECT ("phone") ON "public"."customers" FROM "reader";']
        >>> for s in grant_statements(cat, [("public", "customers", "phone")], "reader",
        ...                           frozenset({("public", "customers")})):
        ...     print(s)
        REVOKE SELECT ON "public"."customers" FROM "reader";
        GRANT SELECT ("id", "name") ON "public"."customers" TO "reader";
    """
    out = []
    tables: dict[tuple[str, str], list[str]] = {}
    for schema, table, column in readable:
        tables.setdefault((schema, table), []).append(column)
    for (schema, table), columns in tables.items():
        name = f"{ident(schema)}.{ident(table)}"
        if (schema, table) not in table_level:
            out.append(
                f"REVOKE SELECT ({', '.join(ident(c) for c in columns)}) ON {name} "
                f"FROM {ident(role)};"
            )
            continue
        exposed = catalog.table(table, schema=schema)
        out.append(f"REVOKE SELECT ON {name} FROM {ident(role)};")
        if exposed is not None and exposed.columns:
            shown = ", ".join(ident(c) for c in exposed.columns)
            out.append(f"GRANT SELECT ({shown}) ON {name} TO {ident(role)};")
    return out


class PostgresEngine(SQLEngine):
    """Run generated SQL on PostgreSQL through a role that can only read.

    At start-up the engine checks the role (:data:`WRITE_CHECKS`) and refuses to run when it can
    write, unless ``allow_writable_role`` is set by the operator. Every query runs in a READ ONLY
    transaction (also ``default_transaction_read_only``) with ``statement_timeout`` set, through
    a server-side cursor that fetches at most ``max_rows + 1`` rows and ``max_result_bytes``
    bytes, a batch at a time, and is rolled back; a client watchdog cancels it past the limit.

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

    def readable_hidden(self, catalog: ExposedCatalog) -> list[tuple[str, str, str]]:
        """(schema, table, column) of every hidden column of ``catalog`` the role may read."""
        wanted = [(t.schema, t.name, h) for t in catalog.tables for h in t.hidden]
        if not wanted:
            return []
        with self._lock, self._con.transaction(force_rollback=True):
            rows = self._con.execute(
                READABLE_HIDDEN,
                [[w[0] for w in wanted], [w[1] for w in wanted], [w[2] for w in wanted]],
            ).fetchall()
        return [(str(s), str(t), str(c)) for s, t, c in rows]

    def _expose(self, catalog: ExposedCatalog) -> None:
        """Refuse a role that can read a hidden column (the privilege is the exposure layer on
        PostgreSQL), unless ``policy.allow_readable_hidden_columns`` is set by the operator.

        Raises:
            ConfigError: with the exact REVOKE/GRANT statements to run.
        """
        readable = self.readable_hidden(catalog)
        if not readable:
            return
        user = self._con.info.user
        tables = sorted({f"{s}.{t}" for s, t, _ in readable})
        if self.policy.allow_readable_hidden_columns:
            log.warning(
                "role %r can read %d hidden column(s) of %s; the gate alone keeps them out "
                "(operator override allow_readable_hidden_columns)",
                user,
                len(readable),
                ", ".join(tables),
            )
            return
        pairs = sorted({(s, t) for s, t, _ in readable})
        with self._lock, self._con.transaction(force_rollback=True):
            whole = self._con.execute(
                TABLE_LEVEL, [[p[0] for p in pairs], [p[1] for p in pairs]]
            ).fetchall()
        level = frozenset((str(s), str(t)) for s, t in whole)
        statements = "\n".join(grant_statements(catalog, readable, user, level))
        _, table, column = readable[0]
        raise ConfigError(
            f"PostgreSQL role {user!r} can read {len(readable)} column(s) that tablerag hides "
            f"(in {', '.join(tables)}); the database must not let generated SQL read them. "
            "Run as the table owner (if the privilege comes from PUBLIC or another role, revoke "
            f"it there):\n{statements}\n"
            + ALLOW_HINT.format(example=f"{table}.{column}")
            + ", or set allow_readable_hidden_columns if you accept that only the SQL gate "
            "keeps them out."
        )

    def _with_lineage(self, catalog: ExposedCatalog) -> ExposedCatalog:
        """Hide each view column computed from a hidden column (the view's definition from
        ``pg_get_viewdef``, traced by :func:`~tablerag.sql.engines.lineage.hide_derived`)."""
        views = [(t.schema or "public", t.name) for t in catalog.tables]
        if not views:
            return catalog
        with self._lock, self._con.transaction(force_rollback=True):
            found = self._con.execute(
                "SELECT n.nspname, c.relname, pg_get_viewdef(c.oid, true)"
                + _USER_RELATIONS.replace("%", "%%")  # a query with parameters
                + " AND c.relkind IN ('v', 'm') AND (n.nspname, c.relname) IN "
                "(SELECT * FROM unnest(%s::text[], %s::text[]))",
                [[v[0] for v in views], [v[1] for v in views]],
            ).fetchall()
            if not found:
                return catalog
            columns = self._con.execute(
                "SELECT n.nspname, c.relname, a.attname, format_type(a.atttypid, a.atttypmod)"
                + _USER_RELATIONS.replace(
                    "WHERE", "JOIN pg_attribute a ON a.attrelid = c.oid WHERE", 1
                )
                + " AND c.relkind IN ('r', 'p', 'v', 'm', 'f') AND a.attnum > 0 "
                "AND NOT a.attisdropped ORDER BY 1, 2, a.attnum"
            ).fetchall()
        return hide_derived(
            catalog,
            [(str(s), str(v), str(q)) for s, v, q in found],
            [(str(s), str(t), str(c), str(y)) for s, t, c, y in columns],
            dialect="postgres",
            default="public",
        )

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
        """Run ``sql`` through a server-side cursor, a batch of rows at a time, under the byte
        cap (:func:`~tablerag.sql.engines.limits.fetch_capped`) and the time limit: the
        server's ``statement_timeout`` for each statement and a client :class:`Watchdog` that
        cancels the whole call (every FETCH included) once it runs past the limit."""

        def timeout() -> QueryTimeout:
            return QueryTimeout(
                f"The query ran longer than {policy.time_limit_ms} ms and was stopped; add "
                "filters or aggregate more.",
                engine="postgres",
                sql=sql,
                time_limit_ms=policy.time_limit_ms,
            )

        with self._lock, Watchdog(policy.time_limit_ms, self._con.cancel_safe) as dog:
            try:
                with self._con.transaction(force_rollback=True):
                    self._con.execute(
                        "SELECT set_config('statement_timeout', %s, true)",
                        [str(policy.time_limit_ms)],
                    )
                    with self._con.cursor(name="tablerag_query") as cursor:
                        cursor.execute(sql)
                        columns = tuple(d.name for d in cursor.description or ())
                        rows = fetch_capped(
                            cursor.fetchmany,
                            policy,
                            engine="postgres",
                            sql=sql,
                            deadline=dog.deadline,
                            timed_out=timeout,
                        )
            except pg_errors.QueryCanceled as exc:
                raise timeout() from exc
            except psycopg.Error as exc:
                if dog.fired:
                    raise timeout() from exc
                failed = QueryFailed(
                    engine_failure("PostgreSQL", self.driver_message(exc)),
                    engine="postgres",
                    sql=sql,
                )
            else:
                return columns, rows
        # raised outside the handler: the driver's error, which quotes raw cell values, is
        # neither its cause nor its context (no traceback or log record carries it)
        raise failed

    def close(self) -> None:
        """Close the connection (idempotent)."""
        self._con.close()
