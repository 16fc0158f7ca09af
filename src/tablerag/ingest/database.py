"""Reflect an external database so its tables can be queried in place; no data is copied.

Supported URLs: ``postgresql://`` (also ``postgres://`` and ``postgresql+psycopg://``),
``mysql://`` (also ``mariadb://`` and ``mysql+pymysql://``; the driver is the extra ``mysql``),
``sqlite:///path`` and ``duckdb:///path`` (``sqlite:////abs/path`` for an absolute path, as in
SQLAlchemy). Connections are read-only wherever the driver allows it: PostgreSQL sessions run with
``default_transaction_read_only=on`` and a ``statement_timeout``; MySQL/MariaDB sessions are
read-only transactions with ``max_statement_time`` (``max_execution_time`` on MySQL); SQLite
files are opened with ``mode=ro``; DuckDB files with ``read_only=True`` and external access off.

For every table and view: columns with their native types, primary key, declared foreign keys,
CHECK constraints, table and column comments, the row count and a few *diverse* sample values per
column.
"""

from __future__ import annotations

import hashlib
import logging
import math
import re
import sqlite3
import threading
import time
from abc import ABC, abstractmethod
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

import duckdb
import sqlalchemy as sa
import sqlglot
from sqlalchemy import exc as sa_exc
from sqlalchemy.engine import ObjectKind
from sqlalchemy.engine.interfaces import ReflectedColumn, ReflectedForeignKeyConstraint
from sqlalchemy.pool import NullPool
from sqlalchemy.sql import sqltypes
from sqlglot import exp
from sqlglot.errors import SqlglotError

from tablerag.errors import ConfigError, SourceError
from tablerag.ingest.sampling import MAX_SAMPLE_CHARS as MAX_SAMPLE_CHARS
from tablerag.ingest.sampling import quote_ident as quote_ident
from tablerag.ingest.sampling import truncate
from tablerag.layout import INTERNAL_SCHEMA
from tablerag.sql.credentials import connect_url
from tablerag.types import (
    ROWS_NO_ACCESS,
    ROWS_UNKNOWN,
    ColumnInfo,
    ForeignKey,
    Problem,
    TableInfo,
)

log = logging.getLogger(__name__)

SUPPORTED_URLS = (
    "postgresql://",
    "postgres://",
    "postgresql+psycopg://",
    "mysql://",
    "mariadb://",
    "mysql+pymysql://",
    "sqlite:///",
    "duckdb:///",
)
"""URL forms :func:`reflect_database` accepts."""

SAMPLE_SCAN_ROWS = 200_000
"""Sample values of larger tables are picked from a sample of about this many rows."""

# Schemes recognised as "a database URL", so that an unsupported one gets a clear ConfigError
# instead of "file not found".
_DATABASE_SCHEMES = frozenset(
    ("postgresql", "postgres", "sqlite", "duckdb", "mysql", "mariadb", "mssql", "oracle")
    + ("snowflake", "redshift", "bigquery", "clickhouse", "trino", "presto", "db2")
)
_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9]*)(?:\+([A-Za-z0-9_]+))?://")
_PG_SYSTEM_SCHEMAS = ("pg_", "information_schema")

Family = Literal["ordered", "binary", "other"]


@dataclass(frozen=True)
class DatabaseReflection:
    """What :func:`reflect_database_report` found: the tables and anything worth reporting."""

    tables: tuple[TableInfo, ...]
    problems: tuple[Problem, ...] = field(default=())
    writable: tuple[str, ...] = field(default=())
    """What the account can do beyond reading (PostgreSQL and MySQL; empty when it only reads).
    Engines refuse such an account unless the operator sets ``allow_writable_role``."""


def is_database_url(target: str) -> bool:
    """Tell whether ``target`` names a database (``scheme://…``) rather than a file path.

    Unsupported databases (``mssql://``, ``oracle://``…) count as database URLs too, so that
    :func:`reflect_database` can say what is missing.

    Example:
        >>> [is_database_url(t) for t in ("postgresql://h/db", "sqlite:///a.db", "data/a.db")]
        [True, True, False]
        >>> is_database_url("mysql+pymysql://u@h/db"), is_database_url("https://example.com/")
        (True, False)
    """
    m = _SCHEME.match(target.strip())
    return m is not None and m.group(1).lower() in _DATABASE_SCHEMES


def redact_url(url: str) -> str:
    """Hide the password of a database URL, for reports and messages.

    Example:
        >>> redact_url("postgresql://bob:s3cret@db.example.com:5432/sales")
        'postgresql://bob:***@db.example.com:5432/sales'
        >>> redact_url("postgresql://db/sales?user=bob&password=s3cret&sslmode=require")
        'postgresql://db/sales?user=bob&password=***&sslmode=require'
        >>> redact_url("sqlite:///data/shop.db")
        'sqlite:///data/shop.db'
    """
    head, sep, rest = url.partition("://")
    if not sep:
        return url
    end = len(rest)
    for ch in "/?#":
        idx = rest.find(ch, rest.rfind("@") + 1 if "@" in rest else 0)
        if idx != -1:
            end = min(end, idx)
    authority, tail = rest[:end], rest[end:]
    if "@" in authority:
        userinfo, host = authority.rsplit("@", 1)
        if ":" in userinfo:
            authority = f"{userinfo.split(':', 1)[0]}:***@{host}"
    tail = re.sub(r"(?i)([?&](?:password|passwd|pwd)=)[^&#]*", r"\1***", tail)
    return f"{head}://{authority}{tail}"


def reflect_database(url: str, *, sample_values: int = 5, timeout_s: float = 10) -> list[TableInfo]:
    """Read the catalog of an external database: tables, views, columns, keys, comments, samples.

    Args:
        url: ``postgresql://user:pw@host:port/db``, ``sqlite:///path`` or ``duckdb:///path``.
        sample_values: diverse sample values to keep per column (binary columns get none).
        timeout_s: limit for connecting and for each query; an exact row count that runs
            longer falls back to the planner estimate (PostgreSQL) or the stored estimate (DuckDB).

    Returns:
        One :class:`TableInfo` per table or view, sorted by name; ``name`` is ``schema.table``
        outside the default schema (``public``/``main``); ``origin`` is ``"table"``, ``"view"``
        or ``"materialized view"``; ``source`` is the URL without its password; ``row_count`` is
        -1 when unknown. Tables in a schema named ``tablerag`` are skipped (a problem of the
        report): that name is tablerag's own schema, and generated SQL never reads it.

    Raises:
        ConfigError: the URL's scheme is not supported or the URL is malformed.
        SourceError: the database cannot be reached or read (down, refused, wrong password,
            missing file, not a database).
    """
    return list(
        reflect_database_report(url, sample_values=sample_values, timeout_s=timeout_s).tables
    )


def reflect_database_report(
    url: str, *, sample_values: int = 5, timeout_s: float = 10, allow_writable_role: bool = False
) -> DatabaseReflection:
    """Like :func:`reflect_database`, also returning problems (estimated counts, skipped samples).

    An account that can write (PostgreSQL, MySQL) is reflected all the same, with a warning, a
    problem and :attr:`DatabaseReflection.writable`: asking refuses to run SQL through it until
    the operator sets ``allow_writable_role`` (``tablerag ingest --allow-writable-role``), and
    with it set the problem says the override was accepted.

    Raises:
        ConfigError: the URL's scheme is not supported or the URL is malformed.
        SourceError: the database cannot be reached or read.
    """
    source = redact_url(url)
    problems: list[Problem] = []
    with _open_backend(url, timeout_s) as backend:
        relations = []
        for rel in backend.relations():
            if rel.schema.lower() == INTERNAL_SCHEMA:
                problems.append(
                    Problem(
                        f"{rel.schema}.{rel.name}",
                        f"schema {rel.schema!r} has the name of tablerag's own schema",
                        "skipped; move it to another schema (or a view there) to query it",
                    )
                )
            else:
                relations.append(rel)
        tables = [_describe(backend, rel, sample_values, timeout_s, problems) for rel in relations]
        problems[:0] = backend.problems
        writable = _writable(backend, source, allow_writable_role, problems)
    tables.sort(key=lambda t: t.name)
    if not tables:
        problems.append(Problem("", "the database has no tables or views", "nothing to query"))
    return DatabaseReflection(
        tuple(replace(t, source=source) for t in tables), tuple(problems), tuple(writable)
    )


def _writable(backend: _Backend, source: str, allowed: bool, problems: list[Problem]) -> list[str]:
    """The account's write reasons; a warning and a problem (first of the list) when any."""
    try:
        reasons = backend.write_reasons()
    except sa_exc.DBAPIError as exc:
        _raise_if_disconnected(exc)
        problems.insert(
            0,
            Problem(
                "",
                f"could not check whether the account can write ({_first_line(exc)})",
                "asking checks it again before running SQL",
            ),
        )
        return []
    if not reasons:
        return []
    what = f"the account can write ({'; '.join(reasons)})"
    if allowed:
        fix = "accepted on operator override (allow_writable_role); SQL still runs read-only"
    else:
        fix = (
            "asking refuses to run SQL through it: connect as an account that can only SELECT "
            "(see docs/threat-model.md), or accept the risk with tablerag ingest "
            "--allow-writable-role (the setting allow_writable_role)"
        )
    log.warning("%s: %s; %s", source, what, fix)
    problems.insert(0, Problem("", what, fix))
    return reasons


# --------------------------------------------------------------------------- backends


class _TimedOut(Exception):
    """A query ran past the time limit (internal; never leaves this module)."""


@dataclass(frozen=True)
class _Relation:
    schema: str
    name: str
    kind: str
    comment: str


@dataclass(frozen=True)
class _Column:
    name: str
    type: str
    comment: str
    family: Family


@dataclass(frozen=True)
class _Keys:
    primary: tuple[str, ...]
    foreign: tuple[ForeignKey, ...]


class _Backend(ABC):
    """The few things :func:`_describe` needs from one kind of database."""

    default_schema: str = "main"
    problems: list[Problem]
    text_type: str = "VARCHAR"
    hash_function: str = "md5"
    estimate_label: str = "stored estimate"

    @abstractmethod
    def relations(self) -> list[_Relation]:
        """Tables and views outside the system schemas."""

    @abstractmethod
    def columns(self, rel: _Relation) -> list[_Column]:
        """Columns in table order."""

    @abstractmethod
    def keys(self, rel: _Relation) -> _Keys:
        """Primary key and declared foreign keys."""

    @abstractmethod
    def query(self, sql: str) -> list[tuple[Any, ...]]:
        """Run ``sql`` within the time limit; raise ``_TimedOut`` past it."""

    def estimate_rows(self, rel: _Relation) -> int | None:
        """A cheap row estimate, or None."""
        return None

    def write_reasons(self) -> list[str]:
        """What the connected account can do beyond reading (files: nothing)."""
        return []

    def checks(self, rel: _Relation) -> tuple[str, ...]:
        """CHECK constraint expressions of a table (SQL text, without the CHECK keyword)."""
        return ()

    def sample_source(self, rel: _Relation, row_count: int) -> str:
        """FROM-clause text that reads at most about SAMPLE_SCAN_ROWS rows of ``rel``."""
        if 0 <= row_count <= SAMPLE_SCAN_ROWS:
            return self.qualified(rel)
        return f"(SELECT * FROM {self.qualified(rel)} LIMIT {SAMPLE_SCAN_ROWS}) AS s"

    def quote(self, name: str) -> str:
        """Quote one identifier."""
        return quote_ident(name)

    def qualified(self, rel: _Relation) -> str:
        return f"{self.quote(rel.schema)}.{self.quote(rel.name)}"

    def not_binary(self, quoted: str) -> str:
        """Extra WHERE condition that drops binary values of a column typed loosely."""
        return ""

    def display(self, schema: str | None, name: str) -> str:
        return name if schema in (None, "", self.default_schema) else f"{schema}.{name}"


class _SQLAlchemyBackend(_Backend):
    """PostgreSQL and SQLite through SQLAlchemy's inspector."""

    def __init__(self, conn: sa.Connection, timeout_s: float) -> None:
        self.conn = conn
        self.timeout_s = timeout_s
        self.problems = []
        self.dialect = conn.dialect.name
        self.inspector = sa.inspect(conn)
        self.default_schema = self.inspector.default_schema_name or "main"
        if self.dialect == "postgresql":
            self.text_type, self.estimate_label = "text", "planner estimate"
        else:
            self.text_type, self.hash_function = "TEXT", "tablerag_md5"
        self._columns: dict[tuple[str, str], list[ReflectedColumn]] = {}
        self._pks: dict[tuple[str, str], tuple[str, ...]] = {}
        self._fks: dict[tuple[str, str], list[ReflectedForeignKeyConstraint]] = {}
        self._checks: dict[tuple[str, str], tuple[str, ...]] = {}
        self._deadline = math.inf

    def relations(self) -> list[_Relation]:
        out: list[_Relation] = []
        for schema in self.inspector.get_schema_names():
            if schema.startswith(_PG_SYSTEM_SCHEMAS):
                continue
            kinds = {n: "table" for n in self.inspector.get_table_names(schema)}
            kinds |= {n: "view" for n in self.inspector.get_view_names(schema)}
            if self.dialect == "postgresql":
                kinds |= {
                    n: "materialized view"
                    for n in self.inspector.get_materialized_view_names(schema)
                }
            comments = self._comments(schema)
            self._read_columns(schema, list(kinds))
            for (_, name), pk in self.inspector.get_multi_pk_constraint(schema=schema).items():
                self._pks[(schema, name)] = tuple(pk.get("constrained_columns") or ())
            for (_, name), fks in self.inspector.get_multi_foreign_keys(schema=schema).items():
                self._fks[(schema, name)] = list(fks)
            if self.dialect == "postgresql":
                found = self.inspector.get_multi_check_constraints(schema=schema)
                for (_, name), checks in found.items():
                    self._checks[(schema, name)] = tuple(c["sqltext"] for c in checks)
            out += [
                _Relation(schema, name, kind, comments.get(name, ""))
                for name, kind in kinds.items()
                if (schema, name) in self._columns
            ]
        return out

    def _read_columns(self, schema: str, names: list[str]) -> None:
        try:
            found = self.inspector.get_multi_columns(schema=schema, kind=ObjectKind.ANY)
            self._columns |= {(schema, name): list(cols) for (_, name), cols in found.items()}
            return
        except sa_exc.DBAPIError as exc:  # one broken view (SQLite) fails the whole schema
            _raise_if_disconnected(exc)
        for name in names:
            try:
                self._columns[(schema, name)] = self.inspector.get_columns(name, schema)
            except sa_exc.DBAPIError as exc:
                _raise_if_disconnected(exc)
                self.problems.append(
                    Problem(
                        self.display(schema, name),
                        f"its columns cannot be read: {_first_line(exc)}",
                        "skipped",
                    )
                )

    def _comments(self, schema: str) -> dict[str, str]:
        try:
            found = self.inspector.get_multi_table_comment(schema=schema, kind=ObjectKind.ANY)
        except NotImplementedError:  # SQLite has no table comments
            return {}
        return {name: (c or {}).get("text") or "" for (_, name), c in found.items()}

    def columns(self, rel: _Relation) -> list[_Column]:
        out: list[_Column] = []
        for col in self._columns.get((rel.schema, rel.name), []):
            col_type = col["type"]
            out.append(
                _Column(
                    col["name"],
                    self._type_name(col_type),
                    col.get("comment") or "",
                    _sa_family(col_type),
                )
            )
        return out

    def _type_name(self, col_type: sa.types.TypeEngine[Any]) -> str:
        if isinstance(col_type, sqltypes.NullType):
            return "ANY"  # SQLite column without a declared type
        try:
            return str(col_type.compile(dialect=self.conn.dialect))
        except sa_exc.CompileError:
            return type(col_type).__name__.upper()

    def keys(self, rel: _Relation) -> _Keys:
        fks = tuple(
            ForeignKey(
                tuple(fk["constrained_columns"]),
                # SQLAlchemy leaves referred_schema empty for the default schema
                self.display(fk.get("referred_schema"), fk["referred_table"]),
                tuple(fk["referred_columns"]),
            )
            for fk in self._fks.get((rel.schema, rel.name), [])
        )
        return _Keys(self._pks.get((rel.schema, rel.name), ()), fks)

    def checks(self, rel: _Relation) -> tuple[str, ...]:
        if self.dialect == "postgresql":
            return self._checks.get((rel.schema, rel.name), ())
        # SQLite keeps constraints only in the CREATE TABLE text.
        row = self.conn.exec_driver_sql(
            f"SELECT sql FROM {self.quote(rel.schema)}.sqlite_master "
            "WHERE type = 'table' AND name = ?",
            (rel.name,),
        ).fetchone()
        return checks_from_ddl(row[0], "sqlite") if row and row[0] else ()

    def quote(self, name: str) -> str:
        return str(self.conn.dialect.identifier_preparer.quote_identifier(name))

    def not_binary(self, quoted: str) -> str:
        # SQLite columns are typed per value: a TEXT column may still hold blobs.
        return f" AND typeof({quoted}) <> 'blob'" if self.dialect == "sqlite" else ""

    def query(self, sql: str) -> list[tuple[Any, ...]]:
        self._deadline = time.monotonic() + self.timeout_s
        try:
            return [tuple(r) for r in self.conn.exec_driver_sql(sql).fetchall()]
        except sa_exc.OperationalError as exc:
            if _is_timeout(exc.orig):
                raise _TimedOut from exc
            raise
        finally:
            self._deadline = math.inf

    def progress(self) -> int:
        """SQLite progress handler: a non-zero return interrupts the running query."""
        return int(time.monotonic() > self._deadline)

    def write_reasons(self) -> list[str]:
        if self.dialect == "postgresql":
            from tablerag.sql.engines.postgres import WRITE_CHECKS  # psycopg: PostgreSQL only

            raw = self.conn.connection.driver_connection  # psycopg: no placeholders parsed
            assert raw is not None
            return [w for w, q in WRITE_CHECKS if (raw.execute(q).fetchone() or (None,))[0]]
        return []

    def estimate_rows(self, rel: _Relation) -> int | None:
        if self.dialect != "postgresql":
            return None
        row = self.conn.exec_driver_sql(
            "SELECT CASE WHEN c.reltuples >= 0 THEN c.reltuples::bigint END, s.n_live_tup "
            "FROM pg_class c LEFT JOIN pg_stat_all_tables s ON s.relid = c.oid "
            "WHERE c.oid = to_regclass(%(name)s)",
            {"name": self.qualified(rel)},
        ).fetchone()
        if row is None:
            return None
        return next((int(v) for v in row if v is not None), None)

    def sample_source(self, rel: _Relation, row_count: int) -> str:
        if self.dialect == "postgresql" and rel.kind != "view" and row_count > SAMPLE_SCAN_ROWS:
            pct = max(0.01, 100.0 * SAMPLE_SCAN_ROWS / row_count)
            return f"{self.qualified(rel)} TABLESAMPLE SYSTEM ({pct:.4f}) REPEATABLE (42)"
        return super().sample_source(rel, row_count)


class _DuckDBBackend(_Backend):
    """A DuckDB file through its own catalog functions."""

    def __init__(self, con: duckdb.DuckDBPyConnection, timeout_s: float) -> None:
        self.con = con
        self.timeout_s = timeout_s
        self.problems = []

    def _catalog(self, sql: str) -> list[tuple[Any, ...]]:
        return self.con.execute(sql).fetchall()

    def relations(self) -> list[_Relation]:
        where = "WHERE NOT internal AND NOT temporary AND database_name = current_database()"
        tables = self._catalog(
            f"SELECT schema_name, table_name, comment FROM duckdb_tables() {where}"
        )
        views = self._catalog(f"SELECT schema_name, view_name, comment FROM duckdb_views() {where}")
        return [_Relation(s, n, "table", c or "") for s, n, c in tables] + [
            _Relation(s, n, "view", c or "") for s, n, c in views
        ]

    def columns(self, rel: _Relation) -> list[_Column]:
        rows = self.con.execute(
            "SELECT column_name, data_type, comment FROM duckdb_columns() "
            "WHERE database_name = current_database() AND schema_name = ? AND table_name = ? "
            "ORDER BY column_index",
            [rel.schema, rel.name],
        ).fetchall()
        return [_Column(n, t, c or "", _duckdb_family(t)) for n, t, c in rows]

    def keys(self, rel: _Relation) -> _Keys:
        rows = self.con.execute(
            "SELECT constraint_type, constraint_column_names, referenced_table, "
            "referenced_column_names FROM duckdb_constraints() "
            "WHERE database_name = current_database() AND schema_name = ? AND table_name = ? "
            "AND constraint_type IN ('PRIMARY KEY', 'FOREIGN KEY') ORDER BY constraint_index",
            [rel.schema, rel.name],
        ).fetchall()
        primary: tuple[str, ...] = ()
        foreign: list[ForeignKey] = []
        for kind, cols, ref_table, ref_cols in rows:
            if kind == "PRIMARY KEY":
                primary = tuple(cols)
            else:  # DuckDB foreign keys never cross schemas
                foreign.append(
                    ForeignKey(tuple(cols), self.display(rel.schema, ref_table), tuple(ref_cols))
                )
        return _Keys(primary, tuple(foreign))

    def checks(self, rel: _Relation) -> tuple[str, ...]:
        rows = self.con.execute(
            "SELECT expression FROM duckdb_constraints() "
            "WHERE database_name = current_database() AND schema_name = ? AND table_name = ? "
            "AND constraint_type = 'CHECK' ORDER BY constraint_index",
            [rel.schema, rel.name],
        ).fetchall()
        return tuple(str(r[0]) for r in rows if r[0])

    def query(self, sql: str) -> list[tuple[Any, ...]]:
        timer = threading.Timer(self.timeout_s, self.con.interrupt)
        timer.start()
        try:
            return self.con.execute(sql).fetchall()
        except duckdb.InterruptException as exc:
            raise _TimedOut from exc
        finally:
            timer.cancel()

    def estimate_rows(self, rel: _Relation) -> int | None:
        row = self.con.execute(
            "SELECT estimated_size FROM duckdb_tables() WHERE database_name = current_database() "
            "AND schema_name = ? AND table_name = ?",
            [rel.schema, rel.name],
        ).fetchone()
        return int(row[0]) if row and row[0] is not None else None


def _postgres_syntax(check: str, dialect: str) -> str:
    """A CHECK expression read in ``dialect``, written in PostgreSQL syntax (as profiles read it).

    Example:
        >>> _postgres_syntax("`qty` > 0 and `region` in ('a','b')", "mysql")
        "qty > 0 AND region IN ('a', 'b')"
    """
    try:
        tree = sqlglot.parse_one(check, read=dialect)
    except SqlglotError:
        return check
    for ident in tree.find_all(exp.Identifier):
        if _PLAIN_NAME.fullmatch(ident.name):
            ident.set("quoted", False)
    return tree.sql(dialect="postgres")


_PLAIN_NAME = re.compile(r"[a-z_][a-z0-9_]*")
_MYSQL_ORDERED = frozenset(
    [
        "tinyint",
        "smallint",
        "mediumint",
        "int",
        "integer",
        "bigint",
        "decimal",
        "numeric",
        "float",
        "double",
        "real",
        "date",
        "datetime",
        "timestamp",
        "time",
        "year",
    ]
)
_MYSQL_BINARY = frozenset(
    [
        "binary",
        "varbinary",
        "tinyblob",
        "blob",
        "mediumblob",
        "longblob",
        "bit",
        "geometry",
        "point",
        "linestring",
        "polygon",
        "multipoint",
        "multilinestring",
        "multipolygon",
        "geometrycollection",
    ]
)


def _mysql_family(data_type: str) -> Family:
    """The sampling family of a MySQL ``DATA_TYPE``.

    Example:
        >>> [_mysql_family(t) for t in ("int", "longblob", "varchar")]
        ['ordered', 'binary', 'other']
    """
    t = data_type.lower()
    return "binary" if t in _MYSQL_BINARY else "ordered" if t in _MYSQL_ORDERED else "other"


class _MySQLBackend(_Backend):
    """A MySQL/MariaDB database (the URL's only) through ``information_schema``.

    SQLAlchemy's MySQL inspector reads every table with ``SHOW CREATE TABLE``, which fails for
    the whole schema on one view the account may not show (or whose function writes, in a
    read-only session); ``information_schema`` answers for what the account may see.
    """

    text_type = "CHAR"
    estimate_label = "information_schema estimate"

    def __init__(self, conn: sa.Connection, timeout_s: float, database: str) -> None:
        self.conn = conn
        self.timeout_s = timeout_s
        self.problems = []
        self.default_schema = database

    def _rows(self, sql: str, *params: Any) -> list[tuple[Any, ...]]:
        return [tuple(r) for r in self.conn.exec_driver_sql(sql, params or None).fetchall()]

    def relations(self) -> list[_Relation]:
        rows = self._rows(
            "SELECT TABLE_NAME, TABLE_TYPE, TABLE_COMMENT FROM information_schema.TABLES "
            "WHERE TABLE_SCHEMA = DATABASE() AND TABLE_TYPE <> 'SEQUENCE' ORDER BY TABLE_NAME"
        )
        return [
            _Relation(self.default_schema, str(n), "view" if t == "VIEW" else "table",
                      "" if t == "VIEW" else str(c or ""))
            for n, t, c in rows
        ]  # fmt: skip

    def columns(self, rel: _Relation) -> list[_Column]:
        rows = self._rows(
            "SELECT COLUMN_NAME, COLUMN_TYPE, COLUMN_COMMENT, DATA_TYPE "
            "FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = %s "
            "ORDER BY ORDINAL_POSITION",
            rel.name,
        )
        return [
            _Column(str(n), str(t).upper(), str(c or ""), _mysql_family(str(d)))
            for n, t, c, d in rows
        ]

    def keys(self, rel: _Relation) -> _Keys:
        rows = self._rows(
            "SELECT CONSTRAINT_NAME, COLUMN_NAME, REFERENCED_TABLE_SCHEMA, REFERENCED_TABLE_NAME, "
            "REFERENCED_COLUMN_NAME FROM information_schema.KEY_COLUMN_USAGE "
            "WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = %s "
            "AND (CONSTRAINT_NAME = 'PRIMARY' OR REFERENCED_TABLE_NAME IS NOT NULL) "
            "ORDER BY CONSTRAINT_NAME, ORDINAL_POSITION",
            rel.name,
        )
        primary = tuple(str(r[1]) for r in rows if r[0] == "PRIMARY")
        foreign: dict[str, tuple[list[str], str, list[str]]] = {}
        for name, col, ref_schema, ref_table, ref_col in rows:
            if name == "PRIMARY":
                continue
            cols, _, refs = foreign.setdefault(
                str(name), ([], self.display(str(ref_schema), str(ref_table)), [])
            )
            cols.append(str(col))
            refs.append(str(ref_col))
        return _Keys(
            primary, tuple(ForeignKey(tuple(c), t, tuple(r)) for c, t, r in foreign.values())
        )

    def checks(self, rel: _Relation) -> tuple[str, ...]:
        try:  # MariaDB: CHECK_CONSTRAINTS names the table (constraint names repeat per table)
            rows = self._rows(
                "SELECT CHECK_CLAUSE FROM information_schema.CHECK_CONSTRAINTS "
                "WHERE CONSTRAINT_SCHEMA = DATABASE() AND TABLE_NAME = %s ORDER BY CONSTRAINT_NAME",
                rel.name,
            )
        except sa_exc.DBAPIError as exc:  # MySQL 8: through TABLE_CONSTRAINTS
            _raise_if_disconnected(exc)
            rows = self._rows(
                "SELECT cc.CHECK_CLAUSE FROM information_schema.TABLE_CONSTRAINTS tc "
                "JOIN information_schema.CHECK_CONSTRAINTS cc ON cc.CONSTRAINT_SCHEMA = "
                "tc.CONSTRAINT_SCHEMA AND cc.CONSTRAINT_NAME = tc.CONSTRAINT_NAME "
                "WHERE tc.TABLE_SCHEMA = DATABASE() AND tc.TABLE_NAME = %s "
                "AND tc.CONSTRAINT_TYPE = 'CHECK' ORDER BY tc.CONSTRAINT_NAME",
                rel.name,
            )
        return tuple(_postgres_syntax(str(r[0]), "mysql") for r in rows if r[0])

    def quote(self, name: str) -> str:
        return "`" + name.replace("`", "``") + "`"

    def query(self, sql: str) -> list[tuple[Any, ...]]:
        try:
            return self._rows(sql)
        except sa_exc.OperationalError as exc:
            if _is_timeout(exc.orig):
                raise _TimedOut from exc
            raise

    def estimate_rows(self, rel: _Relation) -> int | None:
        rows = self._rows(
            "SELECT TABLE_ROWS FROM information_schema.TABLES "
            "WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = %s",
            rel.name,
        )
        return int(rows[0][0]) if rows and rows[0][0] is not None else None

    def write_reasons(self) -> list[str]:
        from tablerag.sql.engines.mysql import account_write_reasons

        return account_write_reasons(self._rows, sa_exc.DBAPIError)


def _sa_family(col_type: sa.types.TypeEngine[Any]) -> Family:
    if isinstance(col_type, sqltypes.LargeBinary | sqltypes.BINARY | sqltypes.VARBINARY):
        return "binary"
    if isinstance(
        col_type,
        sqltypes.Numeric
        | sqltypes.Float
        | sqltypes.Integer
        | sqltypes.Date
        | sqltypes.DateTime
        | sqltypes.Time
        | sqltypes.Interval,
    ):
        return "ordered"
    return "other"


_DUCKDB_ORDERED = re.compile(
    r"^(U?(TINY|SMALL|BIG|HUGE)?INT(EGER)?|FLOAT|DOUBLE|REAL|DECIMAL|NUMERIC|DATE|TIME"
    r"|TIMESTAMP|INTERVAL)\b"
)


def _duckdb_family(type_name: str) -> Family:
    t = type_name.upper()
    if t in ("BLOB", "BYTEA", "BINARY", "VARBINARY", "BIT", "BITSTRING"):
        return "binary"
    return "ordered" if _DUCKDB_ORDERED.match(t) else "other"


# --------------------------------------------------------------------------- describing


def _describe(
    b: _Backend, rel: _Relation, k: int, timeout_s: float, problems: list[Problem]
) -> TableInfo:
    """Build the TableInfo of one relation: keys, comments, row count and samples."""
    name = b.display(rel.schema, rel.name)
    keys = _Keys((), ()) if rel.kind == "view" else b.keys(rel)
    checks = () if rel.kind == "view" else _checks(b, rel, name, problems)
    row_count = _row_count(b, rel, name, timeout_s, problems)
    columns: list[ColumnInfo] = []
    sampling = k > 0 and row_count != ROWS_NO_ACCESS
    for col in b.columns(rel):
        samples: tuple[str, ...] = ()
        if sampling and col.family != "binary":
            try:
                samples = _samples(b, rel, col, k, row_count)
            except _TimedOut:
                sampling = False
                problems.append(
                    Problem(
                        name,
                        f"sample values took longer than {timeout_s:g} s",
                        f"no samples from column {col.name!r} on",
                    )
                )
            except (sa_exc.DBAPIError, duckdb.Error) as exc:
                _raise_if_disconnected(exc)
                problems.append(_sample_failed(f"{name}.{col.name}", exc))
        columns.append(
            ColumnInfo(
                col.name, col.type, original=col.name, samples=samples, description=col.comment
            )
        )
    return TableInfo(
        name=name,
        source="",
        columns=tuple(columns),
        row_count=row_count,
        origin=rel.kind,
        description=rel.comment,
        primary_key=keys.primary,
        foreign_keys=keys.foreign,
        stored=False,
        checks=checks,
    )


def _sample_failed(where: str, exc: BaseException) -> Problem:
    """A column whose values could not be sampled; a column the role is not granted (as a
    hidden column must not be) is a note, not a problem (issue 36)."""
    if _is_denied(exc):
        return Problem(where, "the role may not read this column", "no sample values", is_note=True)
    return Problem(where, _first_line(exc), "no sample values for this column")


def _checks(b: _Backend, rel: _Relation, name: str, problems: list[Problem]) -> tuple[str, ...]:
    """The table's CHECK constraints; a failure to read them is reported, not fatal."""
    try:
        return b.checks(rel)
    except (sa_exc.DBAPIError, duckdb.Error) as exc:
        _raise_if_disconnected(exc)
        problems.append(Problem(name, f"CHECK constraints unreadable: {_first_line(exc)}", "none"))
        return ()


def checks_from_ddl(ddl: str, dialect: str = "sqlite") -> tuple[str, ...]:
    """The CHECK constraint expressions (column and table level) of a ``CREATE TABLE`` text.

    Expressions are returned in PostgreSQL syntax (what
    :func:`tablerag.linking.profile.column_checks` reads); text sqlglot cannot parse gives none.

    Example:
        >>> checks_from_ddl(
        ...     "CREATE TABLE t (s TEXT CHECK (s IN ('a', 'b')), n INT, "
        ...     "CONSTRAINT pos CHECK (n > 0))")
        ("s IN ('a', 'b')", 'n > 0')
    """
    try:
        tree = sqlglot.parse_one(ddl, read=dialect)
    except SqlglotError:
        return ()
    return tuple(
        c.this.sql(dialect="postgres")
        for c in tree.find_all(exp.CheckColumnConstraint, bfs=False)
        if isinstance(c.this, exp.Expression)
    )


def _row_count(
    b: _Backend, rel: _Relation, name: str, timeout_s: float, problems: list[Problem]
) -> int:
    try:
        rows = b.query(f"SELECT count(*) FROM {b.qualified(rel)}")
        return int(rows[0][0])
    except (sa_exc.DBAPIError, duckdb.Error) as exc:
        # e.g. a view over a dropped table, or one whose functions try to write
        _raise_if_disconnected(exc)
        if _is_denied(exc):  # listed as "no access": the role may not read it (issue 36)
            problems.append(
                Problem(
                    name,
                    "the role may not read this table",
                    "listed as no access; GRANT SELECT on it to query it",
                )
            )
            return ROWS_NO_ACCESS
        problems.append(
            Problem(name, f"counting rows failed: {_first_line(exc)}", "row count unknown (-1)")
        )
        return ROWS_UNKNOWN
    except _TimedOut:
        estimate = b.estimate_rows(rel)
        if estimate is None:
            problems.append(
                Problem(
                    name,
                    f"counting rows took longer than {timeout_s:g} s",
                    "row count unknown (-1)",
                )
            )
            return -1
        problems.append(
            Problem(
                name,
                f"counting rows took longer than {timeout_s:g} s",
                f"used the {b.estimate_label} of {estimate:,} rows",
            )
        )
        return estimate


def _samples(b: _Backend, rel: _Relation, col: _Column, k: int, row_count: int) -> tuple[str, ...]:
    """Diverse values: the most frequent, the extremes of ordered types, then hash-spread ones."""
    q = b.quote(col.name)
    src = b.sample_source(rel, row_count)
    values = (
        f"SELECT CAST({q} AS {b.text_type}) AS v FROM {src} WHERE {q} IS NOT NULL{b.not_binary(q)}"
    )
    grouped = f"SELECT v, count(*) AS n FROM ({values}) AS x WHERE v <> '' GROUP BY v"
    # One scan: part 0 is the most frequent value, part 1 the values spread by a hash.
    found = b.query(
        f"WITH g AS ({grouped}) "
        f"SELECT * FROM (SELECT 0 AS part, '' AS h, v FROM g ORDER BY n DESC, v LIMIT 1) AS t "
        f"UNION ALL SELECT * FROM (SELECT 1 AS part, {b.hash_function}(v) AS h, v FROM g "
        f"ORDER BY h, v LIMIT {k}) AS s ORDER BY 1, 2, 3"
    )
    top = [r[2] for r in found if r[0] == 0]
    spread = [r[2] for r in found if r[0] == 1]
    extremes: list[Any] = []
    if col.family == "ordered":
        row = b.query(
            f"SELECT CAST(min({q}) AS {b.text_type}), CAST(max({q}) AS {b.text_type}) FROM {src}"
        )
        extremes = list(row[0]) if row else []
    picked: list[str] = []
    for value in [*top, *extremes, *spread]:
        if value is None or str(value).strip() == "":
            continue
        text = truncate(str(value))
        if text not in picked:
            picked.append(text)
        if len(picked) == k:
            break
    return tuple(picked)


def _raise_if_disconnected(exc: Exception) -> None:
    """A lost connection ends the reflection; a failing query on one relation does not."""
    if isinstance(exc, sa_exc.DBAPIError) and exc.connection_invalidated:
        raise exc


_DENIED_MYSQL = (1142, 1143)
"""MySQL's "SELECT command denied" for a table and for a column."""


def _is_denied(exc: BaseException) -> bool:
    """Whether the database refused the read for want of a privilege (not a broken view)."""
    orig = getattr(exc, "orig", None) or exc
    if getattr(orig, "sqlstate", None) == "42501":  # PostgreSQL insufficient_privilege
        return True
    args: tuple[object, ...] = getattr(orig, "args", ())
    return bool(args) and args[0] in _DENIED_MYSQL


def _first_line(exc: BaseException) -> str:
    orig = getattr(exc, "orig", None) or exc
    return (str(orig).strip().splitlines() or [type(orig).__name__])[0]


def _is_timeout(orig: BaseException | None) -> bool:
    text = str(orig).lower()
    return "statement timeout" in text or "interrupted" in text or "canceling statement" in text


# --------------------------------------------------------------------------- connecting


@contextmanager
def _open_backend(url: str, timeout_s: float) -> Iterator[_Backend]:
    url = connect_url(url)  # ?password_env= / ?password_file= filled in (sql.credentials)
    m = _SCHEME.match(url.strip())
    scheme = m.group(1).lower() if m else ""
    driver = (m.group(2) or "").lower() if m else ""
    source = redact_url(url)
    if scheme in ("postgresql", "postgres") and driver in ("", "psycopg"):
        with _postgres(url, source, timeout_s) as backend:
            yield backend
    elif scheme == "sqlite" and not driver:
        with _sqlite(_file_path(url, "sqlite"), source, timeout_s) as backend:
            yield backend
    elif scheme == "duckdb" and not driver:
        with _duckdb(_file_path(url, "duckdb"), source, timeout_s) as backend:
            yield backend
    elif scheme in ("mysql", "mariadb") and driver in ("", "pymysql"):
        with _mysql(url, source, timeout_s) as backend:
            yield backend
    else:
        raise ConfigError(
            f"Unsupported database URL {source!r}; use one of: {', '.join(SUPPORTED_URLS)} "
            "(e.g. postgresql://user:password@host:5432/db or sqlite:///path/to/file.db)."
        )


def _file_path(url: str, kind: str) -> Path:
    rest = url.strip().split("://", 1)[1]
    path = rest[1:].split("?", 1)[0] if rest.startswith("/") else ""
    if not path or path == ":memory:":
        raise ConfigError(
            f"{url!r} names no file; write {kind}:///relative/path.db or "
            f"{kind}:////absolute/path.db."
        )
    return Path(path).expanduser()


def _check_file(path: Path, source: str, scheme: str) -> None:
    kind = {"sqlite": "SQLite", "duckdb": "DuckDB"}[scheme]
    if not path.exists():
        raise SourceError(
            source,
            f"The {kind} file {str(path)!r} does not exist; check the path "
            f"in the URL ({scheme}:////absolute/path or {scheme}:///relative).",
        )
    if not path.is_file():
        raise SourceError(
            source, f"{str(path)!r} is not a file; give the path of a {kind} database file."
        )


@contextmanager
def _postgres(url: str, source: str, timeout_s: float) -> Iterator[_Backend]:
    try:
        parsed = sa.make_url(url.strip()).set(drivername="postgresql+psycopg")
    except (sa_exc.ArgumentError, ValueError) as exc:  # ValueError: non-numeric port
        raise ConfigError(
            f"Malformed database URL {source!r} ({exc}); write "
            "postgresql://user:password@host:5432/dbname."
        ) from exc
    ms = max(1, int(timeout_s * 1000))
    engine = sa.create_engine(
        parsed,
        poolclass=NullPool,
        isolation_level="AUTOCOMMIT",
        connect_args={
            "connect_timeout": max(2, math.ceil(timeout_s)),
            "application_name": "tablerag",
            "options": f"-c default_transaction_read_only=on -c statement_timeout={ms}",
        },
    )
    try:
        with _map_errors(source, parsed.password), engine.connect() as conn:
            yield _SQLAlchemyBackend(conn, timeout_s)
    finally:
        engine.dispose()


@contextmanager
def _mysql(url: str, source: str, timeout_s: float) -> Iterator[_Backend]:
    from tablerag.sql.engines.mysql import SQL_MODE, load_driver

    load_driver()  # ConfigError naming the extra when PyMySQL is missing
    try:
        parsed = sa.make_url(url.strip()).set(drivername="mysql+pymysql")
    except (sa_exc.ArgumentError, ValueError) as exc:
        raise ConfigError(
            f"Malformed database URL {source!r} ({exc}); write "
            "mysql://user:password@host:3306/dbname."
        ) from exc
    if not parsed.database:
        raise ConfigError(
            f"The MySQL URL {source!r} names no database; write "
            "mysql://user:password@host:3306/dbname."
        )
    engine = sa.create_engine(
        parsed.update_query_dict({"charset": "utf8mb4"}),
        poolclass=NullPool,
        isolation_level="AUTOCOMMIT",
        connect_args={
            "connect_timeout": max(2, math.ceil(timeout_s)),
            "local_infile": False,
            # before SQLAlchemy reads the server's sql_mode (ANSI_QUOTES decides its quoting)
            "init_command": f"SET SESSION sql_mode = '{SQL_MODE}'",
        },
    )
    try:
        with _map_errors(source, parsed.password, kind="mysql"), engine.connect() as conn:
            conn.exec_driver_sql("SET SESSION TRANSACTION READ ONLY")
            timer = (
                f"max_statement_time = {timeout_s:.3f}"
                if getattr(conn.dialect, "is_mariadb", False)
                else f"max_execution_time = {max(1, int(timeout_s * 1000))}"
            )
            conn.exec_driver_sql(f"SET SESSION {timer}")
            yield _MySQLBackend(conn, timeout_s, parsed.database)
    finally:
        engine.dispose()


@contextmanager
def _sqlite(path: Path, source: str, timeout_s: float) -> Iterator[_Backend]:
    _check_file(path, source, "sqlite")
    uri = path.resolve().as_uri() + "?mode=ro"
    holder: list[_SQLAlchemyBackend] = []

    def connect() -> sqlite3.Connection:
        con = sqlite3.connect(uri, uri=True, timeout=timeout_s, check_same_thread=False)
        con.create_function("tablerag_md5", 1, _md5_text, deterministic=True)
        con.set_progress_handler(lambda: holder[0].progress() if holder else 0, 10_000)
        return con

    engine = sa.create_engine("sqlite://", creator=connect, poolclass=NullPool)
    try:
        with _map_errors(source, None, sqlite_path=path), engine.connect() as conn:
            holder.append(_SQLAlchemyBackend(conn, timeout_s))
            yield holder[0]
    finally:
        engine.dispose()


def _md5_text(value: object) -> str:
    return hashlib.md5(str(value).encode("utf-8", "surrogatepass")).hexdigest()


@contextmanager
def _duckdb(path: Path, source: str, timeout_s: float) -> Iterator[_Backend]:
    _check_file(path, source, "duckdb")
    try:
        con = duckdb.connect(str(path), read_only=True, config={"enable_external_access": False})
    except duckdb.Error as exc:
        raise SourceError(source, _duckdb_open_message(path, exc)) from exc
    try:
        with _map_errors(source, None):
            yield _DuckDBBackend(con, timeout_s)
    finally:
        con.close()


def _duckdb_open_message(path: Path, exc: duckdb.Error) -> str:
    text = str(exc)
    if "lock" in text.lower():
        return (
            f"The DuckDB file {str(path)!r} is open for writing in another process; close "
            "that process (or copy the file) and try again."
        )
    if "version" in text.lower():
        return (
            f"The DuckDB file {str(path)!r} was written by an incompatible DuckDB version "
            f"({_first_line(exc)}); export it with that version or upgrade duckdb."
        )
    return (
        f"{str(path)!r} is not a readable DuckDB database ({_first_line(exc)}); check that "
        "the URL points to a .duckdb file."
    )


@contextmanager
def _map_errors(
    source: str, password: str | None, *, sqlite_path: Path | None = None, kind: str = ""
) -> Iterator[None]:
    """Turn driver errors into one SourceError sentence without the password."""
    try:
        yield
    except (sa_exc.DBAPIError, duckdb.Error) as exc:
        if sqlite_path is not None:
            message = _sqlite_message(sqlite_path, exc)
        elif isinstance(exc, duckdb.Error):
            message = (
                f"Reading the DuckDB catalog of {source!r} failed ({_first_line(exc)}); "
                "check the file with the duckdb CLI."
            )
        elif kind == "mysql":
            message = _mysql_message(source, exc)
        else:
            message = _postgres_message(source, exc)
        if password:
            message = message.replace(password, "***")
        raise SourceError(source, message) from exc


def _sqlite_message(path: Path, exc: BaseException) -> str:
    text = _first_line(exc)
    if "not a database" in text or "malformed" in text:
        return (
            f"{str(path)!r} is not a SQLite database ({text}); check that the URL points "
            "to a SQLite file."
        )
    return f"Reading the SQLite file {str(path)!r} failed ({text}); check the file."


def _mysql_message(source: str, exc: sa_exc.DBAPIError) -> str:
    from tablerag.sql.engines.mysql import connect_message

    url = sa.make_url(source)
    where = f"{url.host or 'localhost'}:{url.port or 3306}"
    code = exc.orig.args[0] if exc.orig is not None and exc.orig.args else 0
    if exc.orig is not None and code in (2002, 2003, 2005, 1044, 1045, 1049):
        return connect_message(exc.orig, where, url.username or "", url.database or "")
    if _is_timeout(exc.orig):
        return (
            f"Reading the catalog of {source!r} took longer than the time limit; retry with a "
            "larger timeout."
        )
    return (
        f"Reading MySQL at {where} failed ({_first_line(exc)}); check the URL and the "
        "user's permissions."
    )


def _postgres_message(source: str, exc: sa_exc.DBAPIError) -> str:
    text = str(exc.orig)
    low = text.lower()
    url = sa.make_url(source)
    where = f"{url.host or 'localhost'}:{url.port or 5432}"
    if "connection refused" in low or "no such file or directory" in low:
        return (
            f"Cannot connect to PostgreSQL at {where}: the connection was refused; check that "
            "the server is running and that host and port in the URL are right."
        )
    if "timeout expired" in low or "timed out" in low:
        return (
            f"Connecting to PostgreSQL at {where} timed out; check the host, the port and "
            "any firewall in between."
        )
    if "could not translate host name" in low or "failed to resolve host" in low:
        return f"Host {url.host!r} was not found; check the host name in the URL."
    m = re.search(r'database "([^"]+)" does not exist', text)
    if m:
        return (
            f"Database {m.group(1)!r} does not exist on {where}; check the database name in "
            "the URL."
        )
    if "password authentication failed" in low or "no password supplied" in low:
        return (
            f"PostgreSQL at {where} rejected the login of user {url.username!r}; check the "
            "user name and password in the URL."
        )
    m = re.search(r'role "([^"]+)" does not exist', text)
    if m:
        return f"PostgreSQL user {m.group(1)!r} does not exist on {where}; check the URL."
    if _is_timeout(exc.orig):
        return (
            f"Reading the catalog of {source!r} took longer than the time limit; retry with a "
            "larger timeout."
        )
    return (
        f"Reading PostgreSQL at {where} failed ({_first_line(exc)}); check the URL and the "
        "user's permissions."
    )


__all__ = [
    "SAMPLE_SCAN_ROWS",
    "SUPPORTED_URLS",
    "DatabaseReflection",
    "is_database_url",
    "redact_url",
    "reflect_database",
    "reflect_database_report",
]
