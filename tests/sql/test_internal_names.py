"""Internal names never reach users or the model: not through rows, not through error messages.

A canary is planted in tablerag's own tables (``tablerag.profiles``, ``tablerag.columns``), in a
table that is not exposed, in an external database's own ``tablerag`` schema and in a hidden
column; hostile and mistaken queries then run through ``open_engine(...).execute`` on DuckDB (a
workspace and a plain file), SQLite and PostgreSQL. The catalogs are deliberately stale (a
table ``profile`` and a column ``zodiac_sing`` that the database does not have), so that queries
pass the gate and the *database's* message, with its "Did you mean" hints, is what comes back.
"""

from __future__ import annotations

import logging
import sqlite3
import uuid
from collections.abc import Iterator
from pathlib import Path

import duckdb
import psycopg
import pytest
from sqlalchemy.engine import make_url

from tablerag.errors import QueryFailed, SQLRejected, TableragError
from tablerag.ingest.database import reflect_database_report
from tablerag.layout import DB_FILE
from tablerag.sql.engines import SQLEngine, open_engine
from tablerag.sql.engines.scrub import REDACTED, scrub_message
from tablerag.sql.exposed import ExposedCatalog
from tablerag.types import ColumnInfo, TableInfo

CANARY = "CANARY-internal-7f3a"
HIDDEN_CANARY = "CANARY-hidden-9b2e"
HIDDEN = "zodiac_sign"
"""The hidden column (marked sensitive by the operator); its name must never be shown."""

QUERIES = (
    "SELECT name FROM employees",
    "SELECT * FROM profile",  # in the stale catalog, not in the database: the database answers
    "SELECT id FROM profile",
    "SELECT * FROM profiles",
    "SELECT * FROM profils",
    "SELECT * FROM columns",
    "SELECT * FROM tablerag.profiles",
    "SELECT * FROM tablerag.columns",
    "SELECT * FROM tablerag.profils",
    "SELECT * FROM tablerg.profiles",
    'SELECT * FROM "tablerag"."columns"',
    "SELECT o.id FROM orders AS o JOIN tablerag.profiles AS p ON p.id = o.id",
    "SELECT o.id FROM orders AS o WHERE o.id IN (SELECT id FROM tablerag.columns)",
    "SELECT * FROM information_schema.tables",
    "SELECT table_name, column_name FROM information_schema.columns",
    "SELECT * FROM duckdb_tables()",
    "SELECT * FROM duckdb_columns()",
    "SELECT * FROM pg_catalog.pg_tables",
    "SELECT * FROM sqlite_master",
    "SELECT zodiac_sing FROM customers",  # stale column: the database suggests the hidden one
    "SELECT c.zodiac_sing FROM customers AS c",
    "SELECT nme FROM customers",
    "SELECT * FROM customers",
    "SELECT id, name FROM customers",
    "SELECT * FROM orders",
)


def stale_catalog(schema: str | None = None) -> list[TableInfo]:
    """The exposed catalog as a stale workspace record would give it."""
    prefix = f"{schema}." if schema else ""

    def table(name: str, *cols: str) -> TableInfo:
        return TableInfo(prefix + name, "test", tuple(ColumnInfo(c, "") for c in cols), 0)

    return [
        table("orders", "id", "amount"),
        table("customers", "id", "name", HIDDEN, "zodiac_sing"),
        table("profile", "id"),
    ]


def _plant_duckdb(con: duckdb.DuckDBPyConnection, user_schema: str) -> None:
    con.execute("CREATE SCHEMA IF NOT EXISTS tablerag")
    con.execute("CREATE TABLE tablerag.profiles (id INTEGER, note VARCHAR)")
    con.execute("CREATE TABLE tablerag.columns (id INTEGER, table_name VARCHAR, note VARCHAR)")
    con.execute(f"INSERT INTO tablerag.profiles VALUES (1, '{CANARY}')")
    con.execute(f"INSERT INTO tablerag.columns VALUES (1, 'customers', '{CANARY}')")
    con.execute(f"CREATE TABLE {user_schema}.orders (id INTEGER, amount DOUBLE)")
    con.execute(f"INSERT INTO {user_schema}.orders VALUES (1, 10.0), (2, 20.0)")
    con.execute(
        f"CREATE TABLE {user_schema}.customers (id INTEGER, name VARCHAR, {HIDDEN} VARCHAR)"
    )
    con.execute(f"INSERT INTO {user_schema}.customers VALUES (1, 'ann', '{HIDDEN_CANARY}')")


@pytest.fixture(scope="module")
def canary_files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A workspace folder, a plain DuckDB file with its own ``tablerag`` schema, a SQLite file."""
    base = tmp_path_factory.mktemp("canary")
    (base / "ws").mkdir()
    con = duckdb.connect(str(base / "ws" / DB_FILE))
    con.execute("CREATE SCHEMA data")
    _plant_duckdb(con, "data")
    con.close()
    con = duckdb.connect(str(base / "plain.duckdb"))
    _plant_duckdb(con, "main")
    con.close()
    lite = sqlite3.connect(base / "shop.db")
    lite.execute("CREATE TABLE orders (id INTEGER, amount REAL)")
    lite.execute("INSERT INTO orders VALUES (1, 10.0)")
    lite.execute(f"CREATE TABLE customers (id INTEGER, name TEXT, {HIDDEN} TEXT)")
    lite.execute(f"INSERT INTO customers VALUES (1, 'ann', '{HIDDEN_CANARY}')")
    lite.execute("CREATE TABLE profiles (id INTEGER, note TEXT)")  # not in the catalog
    lite.execute(f"INSERT INTO profiles VALUES (1, '{CANARY}')")
    lite.commit()
    lite.close()
    return {"workspace": base / "ws", "plain": base / "plain.duckdb", "sqlite": base / "shop.db"}


@pytest.fixture
def pg_canary(pg_database: str) -> Iterator[str]:
    """A PostgreSQL database with its own ``tablerag`` schema that a read-only role can SELECT."""
    role = f"tr_canary_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(pg_database, autocommit=True) as con:
        con.execute("CREATE SCHEMA tablerag")
        con.execute("CREATE TABLE tablerag.columns (id INTEGER, table_name TEXT, note TEXT)")
        con.execute("CREATE TABLE tablerag.profiles (id INTEGER, note TEXT)")
        con.execute("INSERT INTO tablerag.columns VALUES (1, 'customers', %s)", [CANARY])
        con.execute("INSERT INTO tablerag.profiles VALUES (1, %s)", [CANARY])
        con.execute("CREATE TABLE orders (id INTEGER, amount DOUBLE PRECISION)")
        con.execute("INSERT INTO orders VALUES (1, 10.0)")
        con.execute(f"CREATE TABLE customers (id INTEGER, name TEXT, {HIDDEN} TEXT)")
        con.execute("INSERT INTO customers VALUES (1, 'ann', %s)", [HIDDEN_CANARY])
        con.execute(f"CREATE ROLE {role} LOGIN")
        con.execute(f"REVOKE CREATE ON SCHEMA public FROM PUBLIC, {role}")
        con.execute(f"GRANT USAGE ON SCHEMA tablerag TO {role}")
        con.execute(f"GRANT SELECT ON ALL TABLES IN SCHEMA tablerag TO {role}")
        con.execute(f"GRANT SELECT ON orders TO {role}")
        # column privileges keep the hidden column from the role (the start-up check's rule)
        con.execute(f"GRANT SELECT (id, name) ON customers TO {role}")
    yield make_url(pg_database).set(username=role).render_as_string(hide_password=False)


def outcomes(engine: SQLEngine) -> list[tuple[str, str, str]]:
    """(query, what came back, kind) for every query: rows and columns, or the error's text."""
    out = []
    for query in QUERIES:
        try:
            result = engine.execute(query)
        except SQLRejected as exc:
            shown = str(exc) + repr([(i.message, i.detail) for i in exc.issues])
            out.append((query, shown, "rejected"))
        except TableragError as exc:
            out.append((query, str(exc), type(exc).__name__))
        else:
            out.append((query, repr((result.columns, result.rows)), "rows"))
    return out


def assert_nothing_internal(results: list[tuple[str, str, str]]) -> None:
    for query, shown, kind in results:
        assert CANARY not in shown, (query, shown)
        assert HIDDEN_CANARY not in shown, (query, shown)
        assert "tablerag." not in shown.lower(), (query, shown)
        assert '"tablerag"' not in shown.lower(), (query, shown)
        if kind != "rejected" or HIDDEN not in query:
            assert HIDDEN not in shown.lower(), (query, shown)


def assert_database_answered(results: list[tuple[str, str, str]]) -> None:
    """The stale names reached the database, so its own (scrubbed) message was tested."""
    failed = {q: shown for q, shown, kind in results if kind == "QueryFailed"}
    assert "SELECT * FROM profile" in failed and "SELECT zodiac_sing FROM customers" in failed
    assert "profile" in failed["SELECT * FROM profile"]  # the useful part of the message stays
    assert "zodiac_sing" in failed["SELECT zodiac_sing FROM customers"]


def test_duckdb_workspace_shows_nothing_internal(canary_files: dict[str, Path]) -> None:
    with open_engine(
        canary_files["workspace"], catalog=stale_catalog(), sensitive=[HIDDEN]
    ) as engine:
        results = outcomes(engine)
    assert_nothing_internal(results)
    assert_database_answered(results)
    failed = dict((q, s) for q, s, _ in results)
    assert "Table with name profile does not exist" in failed["SELECT * FROM profile"]


def test_duckdb_workspace_introspected_shows_nothing_internal(
    canary_files: dict[str, Path],
) -> None:
    with open_engine(canary_files["workspace"], sensitive=[HIDDEN]) as engine:
        assert {t.qualified for t in engine.catalog.tables} == {"data.orders", "data.customers"}
        results = outcomes(engine)
    assert_nothing_internal(results)


def test_plain_duckdb_file_with_own_tablerag_schema(canary_files: dict[str, Path]) -> None:
    with open_engine(canary_files["plain"], sensitive=[HIDDEN]) as engine:
        assert {t.qualified for t in engine.catalog.tables} == {"main.orders", "main.customers"}
        assert_nothing_internal(outcomes(engine))
    with open_engine(
        canary_files["plain"], catalog=stale_catalog("main"), sensitive=[HIDDEN]
    ) as engine:
        results = outcomes(engine)
    assert_nothing_internal(results)
    assert_database_answered(results)


def test_sqlite_shows_nothing_internal(canary_files: dict[str, Path]) -> None:
    url = f"sqlite:///{canary_files['sqlite']}"
    with open_engine(url, catalog=stale_catalog(), sensitive=[HIDDEN]) as engine:
        results = outcomes(engine)
    assert_nothing_internal(results)
    assert_database_answered(results)


@pytest.mark.postgres
def test_postgres_own_tablerag_schema_is_not_exposed(
    pg_canary: str, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING), open_engine(pg_canary, sensitive=[HIDDEN]) as engine:
        assert {t.qualified for t in engine.catalog.tables} == {"public.orders", "public.customers"}
        assert_nothing_internal(outcomes(engine))
    assert "not exposing 'tablerag.columns', 'tablerag.profiles'" in caplog.text
    stale = [*stale_catalog(), TableInfo("tablerag.columns", "test", (ColumnInfo("note", ""),), 0)]
    with open_engine(pg_canary, catalog=stale, sensitive=[HIDDEN]) as engine:
        assert engine.catalog.table("columns", schema="tablerag") is None
        results = outcomes(engine)
    assert_nothing_internal(results)
    assert_database_answered(results)


@pytest.mark.postgres
def test_reflection_skips_an_external_tablerag_schema(pg_canary: str) -> None:
    report = reflect_database_report(pg_canary, sample_values=2)
    assert {t.name for t in report.tables} == {"customers", "orders"}
    assert any("tablerag.columns" in p.where and "skipped" in p.action for p in report.problems)
    assert CANARY not in repr(report.tables)


def test_reflection_skips_a_duckdb_files_tablerag_schema(canary_files: dict[str, Path]) -> None:
    report = reflect_database_report(f"duckdb:///{canary_files['plain']}", sample_values=2)
    assert {t.name for t in report.tables} == {"customers", "orders"}
    assert CANARY not in repr(report.tables)


@pytest.mark.parametrize(
    "query",
    [
        "SELECT * FROM tablerag.columns",
        "SELECT * FROM tablerag.profiles",
        "SELECT o.id, p.note FROM orders AS o JOIN tablerag.profiles AS p ON p.id = o.id",
        "SELECT c.name FROM customers AS c JOIN tablerag.columns AS k ON k.table_name = c.name",
    ],
)
def test_workspace_refuses_its_own_tables(canary_files: dict[str, Path], query: str) -> None:
    with open_engine(canary_files["workspace"]) as engine, pytest.raises(SQLRejected) as err:
        engine.execute(query)
    shown = str(err.value) + repr([i.detail for i in err.value.issues])
    assert "tablerag." not in shown and "profiles" not in shown and "columns" not in shown
    assert {i.code for i in err.value.issues} == {"unknown_table"}


def test_a_catalog_naming_tablerags_own_tables_exposes_none(
    canary_files: dict[str, Path], caplog: pytest.LogCaptureFixture
) -> None:
    """A recorded table ``tablerag.profiles`` (say from an external database) cannot shadow."""
    tables = [
        TableInfo("tablerag.profiles", "pg", (ColumnInfo("id", ""), ColumnInfo("note", "")), 0),
        TableInfo("TableRAG.columns", "pg", (ColumnInfo("note", ""),), 0),
        TableInfo("information_schema.tables", "pg", (ColumnInfo("table_name", ""),), 0),
        *stale_catalog(),
    ]
    with (
        caplog.at_level(logging.WARNING),
        open_engine(canary_files["workspace"], catalog=tables) as engine,
    ):
        assert {t.name for t in engine.catalog.tables} == {"orders", "customers", "profile"}
        for query in ("SELECT note FROM tablerag.profiles", "SELECT note FROM profiles"):
            with pytest.raises(SQLRejected):
                engine.execute(query)
        engine.use_catalog(ExposedCatalog.from_mapping({"tablerag.profiles": ["note"]}))
        assert engine.catalog.tables == []
    assert "schema 'tablerag' is tablerag's own or a system schema" in caplog.text


@pytest.mark.parametrize(
    ("message", "expected"),
    [
        (
            "Catalog Error: Table with name employees does not exist!\nDid you mean "
            '"tablerag.profiles"?\n\nLINE 1: SELECT name FROM employees\n        ^^^^',
            "Catalog Error: Table with name employees does not exist!\n\n"
            "LINE 1: SELECT name FROM employees\n        ^^^^",
        ),
        (
            'Catalog Error: Table with name employes does not exist!\nDid you mean "orders"?',
            'Catalog Error: Table with name employes does not exist!\nDid you mean "orders"?',
        ),
        (
            'Catalog Error: Table with name x does not exist!\nDid you mean "pg_tables"?',
            "Catalog Error: Table with name x does not exist!",
        ),
        (
            'Binder Error: Referenced column "zodiac_sing" not found in FROM clause!\n'
            'Candidate bindings: "zodiac_sign", "name"',
            'Binder Error: Referenced column "zodiac_sing" not found in FROM clause!\n'
            'Candidate bindings: "name"',
        ),
        (
            'column "zodiac_sing" does not exist\nLINE 1: SELECT zodiac_sing FROM customers\n'
            'HINT:  Perhaps you meant to reference the column "customers.zodiac_sign".',
            'column "zodiac_sing" does not exist\nLINE 1: SELECT zodiac_sing FROM customers',
        ),
        (
            "access to customers.zodiac_sign is prohibited",
            f"access to customers.{REDACTED} is prohibited",
        ),
        (
            'relation "tablerag"."columns" is locked; see information_schema.tables',
            f"relation {REDACTED} is locked; see {REDACTED}",
        ),
        ("no such table: sqlite_master", f"no such table: {REDACTED}"),
    ],
)
def test_scrub_message(message: str, expected: str) -> None:
    catalog = ExposedCatalog.from_mapping(
        {"orders": ["id", "amount"], "customers": ["id", "name", HIDDEN]},
        schema="data",
        hidden={"customers": [HIDDEN]},
    )
    assert scrub_message(message, catalog) == expected


def test_an_exposed_name_that_looks_internal_is_kept() -> None:
    catalog = ExposedCatalog.from_mapping({"pg_stats": ["duckdb_version"]})
    message = 'Referenced column "version" not found\nCandidate bindings: "duckdb_version"'
    assert scrub_message(message, catalog) == message


def test_query_failed_keeps_the_useful_part(canary_files: dict[str, Path]) -> None:
    raw = duckdb.connect(str(canary_files["workspace"] / DB_FILE), read_only=True)
    with pytest.raises(duckdb.CatalogException, match="tablerag.profiles"):
        raw.execute("SELECT * FROM data.profile")  # what DuckDB itself says
    raw.close()
    with (
        open_engine(canary_files["workspace"], catalog=stale_catalog()) as engine,
        pytest.raises(QueryFailed) as err,
    ):
        engine.execute("SELECT * FROM profile")
    assert str(err.value).startswith(
        "DuckDB could not run the query: Catalog Error: Table with name profile does not exist!"
    )
    assert "Did you mean" not in str(err.value)
