"""One small shop database, built the same way on DuckDB, SQLite and PostgreSQL.

``orders`` (2,000 rows, enough for a runaway cross join), ``customers`` (with phone, e-mail and
password columns the gate must hide), ``销售`` (Chinese identifiers) and a table ``secrets`` that
is never exposed (in DuckDB also the ``tablerag`` schema of a workspace).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import duckdb
import psycopg
import pytest
from sqlalchemy.engine import make_url

from tablerag.layout import DB_FILE
from tablerag.sql.engines import SQLEngine, open_engine
from tablerag.sql.policy import ExecutionPolicy
from tablerag.types import ColumnInfo, TableInfo
from tests.plugins.mariadb import MariaDBServer

ENGINES = ("duckdb", "sqlite", "postgres")
N_ORDERS = 2000
REGIONS = ("north", "south", "east", "west")


def order_rows() -> list[tuple[int, int, float, str, str]]:
    """(id, customer_id, amount, region, order_date) for every order."""
    return [
        (g, g % 50 + 1, (g % 97) * 1.5, REGIONS[g % 4], f"2024-{g % 12 + 1:02d}-{g % 28 + 1:02d}")
        for g in range(1, N_ORDERS + 1)
    ]


def customer_rows() -> list[tuple[int, str, str, str, str, str]]:
    """(id, name, phone, email, password, city) for every customer."""
    return [
        (
            i,
            f"name_{i}",
            f"1381234{i:04d}",
            f"user{i}@example.com",
            f"pw-{i}",
            "Beijing" if i % 2 else "Shanghai",
        )
        for i in range(1, 51)
    ]


SALES = [("华东", 100.0), ("华北", 200.0), ("华南", 50.0)]

DDL = [
    "CREATE TABLE orders (id INTEGER, customer_id INTEGER, amount DOUBLE PRECISION, "
    "region VARCHAR(20), order_date DATE)",
    "CREATE TABLE customers (id INTEGER, name VARCHAR(40), phone VARCHAR(20), email VARCHAR(60), "
    "password VARCHAR(40), city VARCHAR(20))",
    'CREATE TABLE "销售" ("地区" VARCHAR(10), "金额" DOUBLE PRECISION)',
    "CREATE TABLE secrets (id INTEGER, secret VARCHAR(40))",
]


def _fill(run: Callable[[str, Sequence[Sequence[Any]]], Any], p: str) -> None:
    run(f"INSERT INTO orders VALUES ({p}, {p}, {p}, {p}, {p})", order_rows())
    run(f"INSERT INTO customers VALUES ({p}, {p}, {p}, {p}, {p}, {p})", customer_rows())
    run(f'INSERT INTO "销售" VALUES ({p}, {p})', SALES)
    run(f"INSERT INTO secrets VALUES ({p}, {p})", [(1, "the-launch-code")])


def catalog_tables() -> list[TableInfo]:
    """The exposed catalog as ingest would record it (``secrets`` is not in it)."""
    cols = {
        "orders": ["id", "customer_id", "amount", "region", "order_date"],
        "customers": ["id", "name", "phone", "email", "password", "city"],
        "销售": ["地区", "金额"],
    }
    return [TableInfo(t, "test", tuple(ColumnInfo(c, "") for c in cs), 0) for t, cs in cols.items()]


def build_duckdb(path: Path) -> Path:
    """A workspace-shaped DuckDB file: user tables in ``data``, own tables in ``tablerag``."""
    con = duckdb.connect(str(path))
    con.execute("CREATE SCHEMA data; CREATE SCHEMA tablerag")
    con.execute("CREATE TABLE tablerag.chunks (chunk_id VARCHAR, text VARCHAR)")
    con.execute("INSERT INTO tablerag.chunks VALUES ('c1', 'internal')")
    con.execute("CREATE TABLE main.secrets (id INTEGER, secret VARCHAR)")
    con.execute("SET schema = 'data'")
    for ddl in DDL[:3]:
        con.execute(ddl)
    _fill(lambda sql, rows: con.executemany(sql.replace("secrets", "main.secrets"), rows), "?")
    con.close()
    return path


def build_sqlite(path: Path) -> Path:
    """The shop as a SQLite file (``secrets`` included but not exposed)."""
    con = sqlite3.connect(path)
    for ddl in DDL:
        con.execute(ddl)
    _fill(con.executemany, "?")
    con.commit()
    con.close()
    return path


@pytest.fixture(scope="session")
def shop_files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """DuckDB and SQLite files of the shop, built once."""
    base = tmp_path_factory.mktemp("shop")
    (base / "ws").mkdir()
    return {
        "duckdb": build_duckdb(base / "ws" / DB_FILE),
        "sqlite": build_sqlite(base / "shop.db"),
    }


def create_pg_shop(
    superuser_url: str, dbname: str, roles: tuple[str, str] = ("tr_reader", "tr_writer")
) -> dict[str, str]:
    """Create the shop database plus a read-only and a writable role (``roles``, cluster-wide:
    give another pair for another database); return their URLs by role."""
    reader, writer = roles
    with psycopg.connect(superuser_url, autocommit=True) as admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{dbname}"')
        admin.execute(f'CREATE DATABASE "{dbname}"')
        for role in roles:
            admin.execute(f"DROP ROLE IF EXISTS {role}")
            admin.execute(f"CREATE ROLE {role} LOGIN")
    url = make_url(superuser_url).set(database=dbname)
    with psycopg.connect(url.render_as_string(hide_password=False), autocommit=True) as con:
        for ddl in DDL:
            con.execute(ddl)
        with con.cursor() as cur:
            _fill(cur.executemany, "%s")
        con.execute(f'GRANT SELECT ON orders, "销售" TO {reader}')
        # the hidden columns (phone, email, password) are not granted: the start-up check
        con.execute(f"GRANT SELECT (id, name, city) ON customers TO {reader}")
        con.execute(f"GRANT SELECT, INSERT, UPDATE, DELETE ON orders, customers TO {writer}")
    return {role: url.set(username=role).render_as_string(hide_password=False) for role in roles}


@pytest.fixture(scope="session")
def pg_shop(postgres_dsn: str) -> dict[str, str]:
    """URLs of the shop database on the test PostgreSQL, per role."""
    return create_pg_shop(postgres_dsn, "tablerag_sql_shop")


def open_shop(
    kind: str,
    files: dict[str, Path],
    pg: dict[str, str] | None = None,
    policy: ExecutionPolicy | None = None,
) -> SQLEngine:
    """The read-only engine of ``kind`` on the shop, opened as an application would."""
    if kind == "duckdb":
        return open_engine(files["duckdb"].parent, policy=policy)  # the workspace folder
    if kind == "sqlite":
        return open_engine(f"sqlite:///{files['sqlite']}", catalog=catalog_tables(), policy=policy)
    assert pg is not None
    # the catalog ingest records (hidden columns included, by name), as a workspace has it:
    # the role cannot read them, so introspection alone would not even name them
    return open_engine(pg["tr_reader"], catalog=catalog_tables(), policy=policy)


@pytest.fixture(scope="session")
def engines(shop_files: dict[str, Path]) -> Iterator[dict[str, SQLEngine]]:
    """One long-lived DuckDB and SQLite engine.

    Long-lived on purpose: every hostile case runs on the same engine, which shows the engine
    keeps serving after rejections, timeouts and failures.
    """
    out = {kind: open_shop(kind, shop_files) for kind in ("duckdb", "sqlite")}
    yield out
    for engine in out.values():
        engine.close()


@pytest.fixture(scope="session")
def pg_engine(pg_shop: dict[str, str], shop_files: dict[str, Path]) -> Iterator[SQLEngine]:
    """The PostgreSQL engine on the shop, as the read-only role."""
    engine = open_shop("postgres", shop_files, pg_shop)
    yield engine
    engine.close()


@pytest.fixture(scope="session")
def mysql_shop(mariadb_server: MariaDBServer) -> dict[str, str]:
    """URLs of the shop database on the test MariaDB, per account."""
    from tests.sql.mysql_shop import create_mysql_shop

    return create_mysql_shop(mariadb_server)


@pytest.fixture(scope="session")
def mysql_engine(mysql_shop: dict[str, str]) -> Iterator[SQLEngine]:
    """The MySQL engine on the shop, as the read-only account."""
    # the catalog ingest records (hidden columns included, by name), as for PostgreSQL
    engine = open_engine(mysql_shop["tr_reader"], catalog=catalog_tables())
    yield engine
    engine.close()


@pytest.fixture
def engine_for(
    request: pytest.FixtureRequest, engines: dict[str, SQLEngine]
) -> Callable[[str], SQLEngine]:
    """``engine_for(kind)``: the session engine (PostgreSQL started only when asked for)."""

    def get(kind: str) -> SQLEngine:
        if kind == "postgres":
            engine: SQLEngine = request.getfixturevalue("pg_engine")
            return engine
        if kind == "mysql":
            mysql: SQLEngine = request.getfixturevalue("mysql_engine")
            return mysql
        return engines[kind]

    return get
