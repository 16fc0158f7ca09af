"""The canary ``customers`` (and a ``bookings`` table with a ``k`` in its name) on every engine,
where only the gate stands between a query and the hidden columns: a DuckDB file queried in
place, a SQLite file, and PostgreSQL and MariaDB roles that can read every column (the operator
override ``allow_readable_hidden_columns``). Used by the gate's hostile-case tests."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import duckdb
import psycopg
from sqlalchemy.engine import make_url

from tablerag.errors import SQLRejected, TableragError
from tablerag.sql.engines import SQLEngine, open_engine
from tablerag.sql.policy import ExecutionPolicy
from tablerag.types import ColumnInfo, TableInfo
from tests.plugins.canary import (
    COLUMNS,
    FLAGGED,
    HIDDEN,
    SQL_TYPES,
    CanaryKit,
    build_duckdb,
    build_sqlite,
    find_canaries,
)
from tests.plugins.mariadb import MariaDBServer

GATE_ONLY = ExecutionPolicy(allow_readable_hidden_columns=True, time_limit_ms=5000, max_rows=50)
"""The operator override: the role reads hidden columns, the gate alone keeps them out."""
STORED: tuple[str, ...] = tuple(c for c in COLUMNS if c not in FLAGGED)
"""The canary columns stored in a database file or server (no descriptions file there)."""


def bookings(kit: CanaryKit, json_type: str = "VARCHAR(200)") -> list[str]:
    """``bookings``: a table with a ``k`` in its name, a hidden ``secret_pin`` and a JSON
    ``prefs`` whose ``password`` key holds a canary (the other keys are harmless)."""
    rows = ", ".join(
        f"({r.id}, {r.id}, 'note {r.id}', {r.secret_pin}, "
        f'\'{{"theme": "dark", "password": "{r.password}"}}\')'
        for r in kit.rows[:2]
    )
    return [
        "CREATE TABLE bookings (id INTEGER, customer_id INTEGER, note VARCHAR(40), "
        f"secret_pin BIGINT, prefs {json_type})",
        f"INSERT INTO bookings VALUES {rows}",
    ]


def catalog() -> list[TableInfo]:
    """The catalog as ingest records it: every hidden canary column flagged hidden."""
    cols = tuple(ColumnInfo(c, SQL_TYPES.get(c, "VARCHAR"), sensitive=c in HIDDEN) for c in STORED)
    book = (ColumnInfo("id", "INTEGER"), ColumnInfo("customer_id", "INTEGER"),
            ColumnInfo("note", "VARCHAR"), ColumnInfo("secret_pin", "BIGINT", sensitive=True),
            ColumnInfo("prefs", "JSON"))  # fmt: skip
    return [TableInfo("customers", "t", cols, 8), TableInfo("bookings", "t", book, 2)]


def duckdb_file(folder: Path, kit: CanaryKit) -> SQLEngine:
    """A DuckDB file queried in place (no workspace)."""
    folder.mkdir(parents=True, exist_ok=True)
    path = build_duckdb(folder / "canary.duckdb", kit)
    con = duckdb.connect(str(path))
    for statement in bookings(kit, "JSON"):
        con.execute(statement)
    con.close()
    return open_engine(str(path), catalog=catalog(), policy=GATE_ONLY)


def sqlite_file(folder: Path, kit: CanaryKit) -> SQLEngine:
    """A SQLite file (its authorizer denies hidden columns: a second line of defence)."""
    import sqlite3

    path = build_sqlite(folder / "canary.db", kit)
    con = sqlite3.connect(path)
    for statement in bookings(kit, "TEXT"):
        con.execute(statement)
    con.commit()
    con.close()
    return open_engine(f"sqlite:///{path}", catalog=catalog(), policy=GATE_ONLY)


def postgres_gate_only(superuser_url: str, kit: CanaryKit, dbname: str) -> SQLEngine:
    """PostgreSQL, as a role granted SELECT on every column."""
    role = f"reader_{dbname}"[:60]
    with psycopg.connect(superuser_url, autocommit=True) as admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{dbname}" WITH (FORCE)')
        admin.execute(f'CREATE DATABASE "{dbname}"')
        admin.execute(f'DROP ROLE IF EXISTS "{role}"')
        admin.execute(f'CREATE ROLE "{role}" LOGIN')
    url = make_url(superuser_url).set(database=dbname)
    with psycopg.connect(url.render_as_string(hide_password=False), autocommit=True) as con:
        con.execute(kit.ddl(columns=STORED))
        marks = ", ".join(["%s"] * len(STORED))
        with con.cursor() as cur:
            cur.executemany(f"INSERT INTO customers VALUES ({marks})", kit.tuples(STORED))
        for statement in bookings(kit, "jsonb"):
            con.execute(statement)
        con.execute(f'GRANT SELECT ON customers, bookings TO "{role}"')
    reader = url.set(username=role).render_as_string(hide_password=False)
    return open_engine(reader, catalog=catalog(), policy=GATE_ONLY)


def mariadb_gate_only(server: MariaDBServer, kit: CanaryKit, dbname: str) -> SQLEngine:
    """MariaDB, as an account granted SELECT on the whole database."""
    user, password = f"r_{dbname}"[:32], "reader-pw"
    server.execute(
        f"DROP DATABASE IF EXISTS `{dbname}`",
        f"CREATE DATABASE `{dbname}` CHARACTER SET utf8mb4",
        f"DROP USER IF EXISTS '{user}'@'%'",
        f"CREATE USER '{user}'@'%' IDENTIFIED BY '{password}'",
    )
    con = server.connect(dbname)
    try:
        with con.cursor() as cur:
            cur.execute(kit.ddl(columns=STORED).replace("DOUBLE PRECISION", "DOUBLE"))
            marks = ", ".join(["%s"] * len(STORED))
            cur.executemany(f"INSERT INTO customers VALUES ({marks})", kit.tuples(STORED))
            for statement in bookings(kit, "JSON"):
                cur.execute(statement)
            cur.execute(f"GRANT SELECT ON `{dbname}`.* TO '{user}'@'%'")
    finally:
        con.close()
    url = server.url(dbname, user=user, password=password)
    return open_engine(url, catalog=catalog(), policy=GATE_ONLY)


def outcome(engine: SQLEngine, sql: str) -> tuple[str, Any]:
    """``("refused", issues)``, ``("failed", error)`` or ``("ran", result)`` of ``sql``."""
    try:
        return "ran", engine.execute(sql)
    except SQLRejected as exc:
        return "refused", exc
    except TableragError as exc:
        return "failed", exc


def leaked(*outputs: Any) -> list[str]:
    """The canaries in ``outputs`` (every channel: rows, columns, messages, issues)."""
    return find_canaries(*outputs)
