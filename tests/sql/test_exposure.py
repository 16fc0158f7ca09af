"""Hidden means hidden on every engine: canaries in hidden columns never come back.

The same ``customers`` table is planted on a DuckDB workspace, a plain DuckDB file, SQLite and
PostgreSQL, with canary strings in columns hidden by name (``password``, ``phone``), a column a
descriptions file flags (``diagnosis``) and a canary integer (``card_no``). Every query that
tries to reach them by renaming (a column list after the alias), by position (``#N``, ``[#5]``),
by ``*`` through subqueries, CTEs, UNION and lateral joins, or by packing the row (``SELECT c``,
``to_json(c)``, ``row_to_json(c)``, ``struct_pack(c.*)``) must be refused or return no canary,
first through the gate and then on the engine's own layer alone (the gate bypassed).
"""

from __future__ import annotations

import json
import re
import sqlite3
import uuid
from collections.abc import Iterator
from pathlib import Path

import duckdb
import psycopg
import pytest
from sqlalchemy.engine import make_url
from typer.testing import CliRunner

from tablerag.cli import app
from tablerag.errors import ConfigError, QueryFailed, SQLRejected, TableragError
from tablerag.layout import DB_FILE
from tablerag.sources import source_label
from tablerag.sql.engines import DuckDBEngine, SQLEngine, open_engine
from tablerag.sql.engines.exposure import EXPOSURE
from tablerag.sql.policy import ExecutionPolicy
from tablerag.types import ColumnInfo, TableInfo
from tests.plugins.mariadb import MariaDBServer

PW, PHONE, DX = "CANARY-pw-3f9d", "CANARY-ph-0c42", "CANARY-dx-81ac"
CARD = 6222337777123456
CANARIES = (PW, PHONE, DX, str(CARD), "CANARY")
COLUMNS = ("id", "name", "city", "phone", "password", "diagnosis", "card_no")
POLICY = ExecutionPolicy(time_limit_ms=5000, max_rows=50)

QUERIES = (
    "SELECT b AS who, g AS pw FROM customers AS c(a, b, c2, d, e, f, g)",
    "SELECT e FROM customers AS c(a, b, c2, d, e)",
    "SELECT c.* FROM customers AS c(a, b)",
    "SELECT #5 FROM customers",
    "SELECT [#5] FROM customers",
    "SELECT #4, #6, #7 FROM customers",
    "SELECT name FROM customers ORDER BY #5",
    "SELECT COLUMNS(*) FROM customers",
    "SELECT COLUMNS('pass.*') FROM customers",
    "SELECT * FROM customers",
    "SELECT * EXCLUDE (name) FROM customers",
    "SELECT * FROM (SELECT * FROM customers) AS t",
    "WITH t AS (SELECT * FROM customers) SELECT * FROM t",
    "WITH t(a, b, c, d, e) AS (SELECT * FROM customers) SELECT e FROM t",
    "SELECT name FROM customers UNION SELECT password FROM customers",
    "SELECT * FROM customers UNION ALL SELECT * FROM customers",
    "SELECT o.id, x.* FROM orders AS o, LATERAL (SELECT * FROM customers AS c "
    "WHERE c.id = o.id) AS x",
    "SELECT o.id, x.p FROM orders AS o CROSS JOIN LATERAL (SELECT c.password AS p "
    "FROM customers AS c) AS x",
    "SELECT c FROM customers c",
    "SELECT c FROM customers AS c WHERE c.id = 1",
    "SELECT to_json(c) FROM customers AS c",
    "SELECT row_to_json(c) FROM customers AS c",
    "SELECT to_json(customers) FROM customers",
    "SELECT struct_pack(c.*) FROM customers AS c",
    "SELECT (c).password FROM customers AS c",
    "SELECT list(c) FROM customers AS c",
    "SELECT array_agg(c) FROM customers AS c",
    "SELECT string_agg(password, ',') FROM customers",
    "SELECT diagnosis FROM customers",
    "SELECT card_no FROM customers",
    "SELECT card_no + 0 AS n FROM customers",
    "SELECT x FROM (SELECT phone AS x FROM customers) AS s",
    "SELECT name FROM customers NATURAL JOIN customers AS d",
    "SELECT * FROM customers AS c JOIN orders AS o USING (id)",
    "EXPLAIN SELECT * FROM customers",
    "EXPLAIN ANALYZE SELECT password FROM customers",
    "DESCRIBE customers",
    "SUMMARIZE customers",
)
ORACLES = (
    "SELECT count(*) AS n FROM customers WHERE diagnosis LIKE 'CAN%'",
    "SELECT count(*) AS n FROM customers WHERE password LIKE '%3f9d%'",
    "SELECT name FROM customers WHERE card_no > 6000000000000000",
    "SELECT name FROM customers ORDER BY phone",
)
"""One bit at a time is still a leak: these must be refused, not merely canary-free."""


KELVIN = (
    # the Kelvin sign: Python's str.lower() folds U+212A to "k", DuckDB does not, so a gate that
    # compares folded names takes the table for the CTE and leaves it unqualified
    'WITH "boo\u212aings" AS (SELECT 1 AS x) SELECT * FROM bookings',
    'WITH "BOO\u212aINGS" AS (SELECT 1 AS x) SELECT password FROM bookings',
    'WITH "boo\u212aings" AS (SELECT 1 AS x) SELECT b FROM bookings AS b',
    'WITH "boo\u212aings" AS (SELECT 1 AS x) SELECT count(*) AS n FROM bookings '
    "WHERE password LIKE 'CAN%'",
)
"""The round-two attack (issue 28): through the gate and, gate bypassed, on the engine."""


def catalog(schema: str | None = None, *, bookings: bool = False) -> list[TableInfo]:
    """The recorded catalog: ``diagnosis`` flagged by a descriptions file; ``bookings`` (a
    table with a ``k`` in its name, for the Kelvin sign) on the DuckDB and SQLite files."""
    prefix = f"{schema}." if schema else ""
    cols = tuple(ColumnInfo(c, "", sensitive=c == "diagnosis") for c in COLUMNS)
    orders = TableInfo(prefix + "orders", "t", (ColumnInfo("id", ""), ColumnInfo("amount", "")), 0)
    out = [TableInfo(prefix + "customers", "t", cols, 0), orders]
    if bookings:
        guest = tuple(ColumnInfo(c, "") for c in ("id", "guest", "password"))
        out.append(TableInfo(prefix + "bookings", "t", guest, 0))
    return out


def _plant_bookings(run: object, schema: str = "") -> None:
    assert callable(run)
    prefix = f"{schema}." if schema else ""
    run(f"CREATE TABLE {prefix}bookings (id INTEGER, guest VARCHAR(20), password VARCHAR(40))")
    run(f"INSERT INTO {prefix}bookings VALUES (1, 'g1', '{PW}-b1'), (2, 'g2', '{PW}-b2')")


def _rows() -> list[tuple[object, ...]]:
    return [
        (i, f"n{i}", "Lyon", f"{PHONE}-{i}", f"{PW}-{i}", f"{DX}-{i}", CARD + i) for i in (1, 2)
    ]


def _plant(run: object, placeholder: str, schema: str = "") -> None:
    assert callable(run)
    prefix = f"{schema}." if schema else ""
    run(
        f"CREATE TABLE {prefix}customers (id INTEGER, name VARCHAR(20), city VARCHAR(20), "
        "phone VARCHAR(40), password VARCHAR(40), diagnosis VARCHAR(40), card_no BIGINT)"
    )
    run(f"CREATE TABLE {prefix}orders (id INTEGER, amount DOUBLE PRECISION)")
    marks = ", ".join([placeholder] * 7)
    for row in _rows():
        run(f"INSERT INTO {prefix}customers VALUES ({marks})", row)
    run(f"INSERT INTO {prefix}orders VALUES (1, 10.0), (2, 20.0)")


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    base = tmp_path_factory.mktemp("exposure")
    (base / "ws").mkdir()
    con = duckdb.connect(str(base / "ws" / DB_FILE))
    con.execute("CREATE SCHEMA data")
    _plant(con.execute, "?", "data")
    _plant_bookings(con.execute, "data")
    con.close()
    con = duckdb.connect(str(base / "plain.duckdb"))
    _plant(con.execute, "?")
    _plant_bookings(con.execute)
    con.close()
    lite = sqlite3.connect(base / "shop.db")
    _plant(lite.execute, "?")
    _plant_bookings(lite.execute)
    lite.commit()
    lite.close()
    return {"workspace": base / "ws", "plain": base / "plain.duckdb", "sqlite": base / "shop.db"}


def _open(kind: str, files: dict[str, Path]) -> SQLEngine:
    if kind == "workspace":
        return open_engine(files["workspace"], catalog=catalog(bookings=True), policy=POLICY)
    if kind == "plain":
        return open_engine(files["plain"], catalog=catalog("main", bookings=True), policy=POLICY)
    return open_engine(
        f"sqlite:///{files['sqlite']}", catalog=catalog(bookings=True), policy=POLICY
    )


@pytest.fixture(scope="module")
def engines(files: dict[str, Path]) -> Iterator[dict[str, SQLEngine]]:
    out = {kind: _open(kind, files) for kind in ("workspace", "plain", "sqlite")}
    yield out
    for engine in out.values():
        engine.close()


@pytest.fixture
def pg_shop(pg_database: str) -> Iterator[dict[str, str]]:
    """The planted database, a role with column privileges and one with a table privilege."""
    good, bad = (f"tr_exp_{k}_{uuid.uuid4().hex[:6]}" for k in ("ok", "all"))
    with psycopg.connect(pg_database, autocommit=True) as con:
        _plant(lambda sql, row=None: con.execute(sql.replace("VARCHAR(40)", "TEXT"), row), "%s")
        for role in (good, bad):
            con.execute(f"CREATE ROLE {role} LOGIN")
            con.execute(f"REVOKE CREATE ON SCHEMA public FROM PUBLIC, {role}")
            con.execute(f"GRANT SELECT ON orders TO {role}")
        con.execute(f"GRANT SELECT (id, name, city) ON customers TO {good}")
        con.execute(f"GRANT SELECT ON customers TO {bad}")
    url = make_url(pg_database)
    yield {
        "good": url.set(username=good).render_as_string(hide_password=False),
        "bad": url.set(username=bad).render_as_string(hide_password=False),
        "admin": pg_database,
        "bad_role": bad,
    }


def shown(engine: SQLEngine, sql: str, *, gate: bool = True) -> tuple[str, str]:
    """(kind, every text that came back) for ``sql``: rows and columns, or the error."""
    try:
        if gate:
            result = engine.execute(sql, POLICY)
            return "rows", repr((result.columns, result.rows, result.sql_executed))
        columns, rows = engine._run(sql, POLICY)  # the engine's own layer, gate bypassed
        return "rows", repr((columns, rows))
    except SQLRejected as exc:
        return "rejected", str(exc) + repr([(i.message, i.detail) for i in exc.issues])
    except TableragError as exc:
        return type(exc).__name__, str(exc) + repr(getattr(exc, "sql", ""))


def assert_no_canary(kind: str, text: str, sql: str) -> None:
    for canary in CANARIES:
        assert canary not in text, (sql, kind, text)
    assert not re.search(r"622233777712345\d", text), (sql, text)


@pytest.mark.parametrize("kind", ["workspace", "plain", "sqlite"])
@pytest.mark.parametrize("sql", QUERIES + ORACLES + KELVIN)
def test_hidden_columns_never_come_back(engines: dict[str, SQLEngine], kind: str, sql: str) -> None:
    outcome, text = shown(engines[kind], sql)
    assert_no_canary(outcome, text, sql)
    if sql in ORACLES:
        assert outcome == "rejected", text
    assert EXPOSURE not in text  # the exposure layer is not named to users


@pytest.mark.parametrize("kind", ["workspace", "plain"])
@pytest.mark.parametrize("sql", QUERIES + ORACLES)
def test_duckdb_views_lack_hidden_columns_without_the_gate(
    engines: dict[str, SQLEngine], kind: str, sql: str
) -> None:
    """Layer 1 alone: the SQL as the gate would qualify it, but not checked by the gate."""
    schema = "data" if kind == "workspace" else "main"
    qualified = re.sub(r"\b(customers|orders)\b(?! *\()", rf"{EXPOSURE}.{schema}.\1", sql)
    outcome, text = shown(engines[kind], qualified, gate=False)
    assert_no_canary(outcome, text, qualified)
    if sql in ORACLES:
        assert outcome != "rows", text


@pytest.mark.parametrize("sql", QUERIES + ORACLES)
def test_sqlite_authorizer_denies_hidden_columns_without_the_gate(
    engines: dict[str, SQLEngine], sql: str
) -> None:
    outcome, text = shown(engines["sqlite"], sql, gate=False)
    assert_no_canary(outcome, text, sql)
    if sql in ORACLES:
        assert outcome != "rows", text


def test_sqlite_denial_is_a_refusal_not_nulls(engines: dict[str, SQLEngine]) -> None:
    """SQLITE_DENY, not SQLITE_IGNORE: a hidden column is not silently read as NULL."""
    with pytest.raises(QueryFailed) as info:
        engines["sqlite"]._run("SELECT count(*) FROM customers WHERE password IS NULL", POLICY)
    assert "prohibited" in str(info.value) and "password" not in str(info.value)


def test_duckdb_views_hold_exposed_columns_only(engines: dict[str, SQLEngine]) -> None:
    cols, rows = engines["workspace"]._run(
        f"SELECT c FROM {EXPOSURE}.data.customers AS c ORDER BY c.id", POLICY
    )
    assert rows[0] == ({"id": 1, "name": "n1", "city": "Lyon"},)
    assert engines["workspace"].execute("SELECT name, city FROM customers").rows


@pytest.mark.postgres
def test_postgres_refuses_a_role_that_can_read_hidden_columns(
    pg_shop: dict[str, str],
) -> None:
    with pytest.raises(ConfigError) as info:
        open_engine(pg_shop["bad"], catalog=catalog("public"))
    message = str(info.value)
    role = pg_shop["bad_role"]
    expected = [  # a table privilege: replaced by the exposed columns (the narrowest fix)
        f'REVOKE SELECT ON "public"."customers" FROM "{role}";',
        f'GRANT SELECT ("id", "name", "city") ON "public"."customers" TO "{role}";',
    ]
    for statement in expected:
        assert statement in message
    assert 'allow_columns = ["customers.' in message
    assert "allow_readable_hidden_columns" in message
    assert_no_canary("config", message, "start-up")
    with psycopg.connect(pg_shop["admin"], autocommit=True) as admin:  # the operator's fix
        for statement in expected:
            admin.execute(statement)
    with open_engine(pg_shop["bad"], catalog=catalog("public"), policy=POLICY) as engine:
        assert engine.execute("SELECT name FROM customers ORDER BY id").rows == (("n1",), ("n2",))


@pytest.mark.postgres
def test_postgres_refusal_of_a_column_grant_revokes_that_column_only(
    pg_shop: dict[str, str],
) -> None:
    """A role granted a hidden column by a column grant: revoking that column is enough, and
    the message says so instead of revoking the whole table (which drops every column grant)."""
    role = pg_shop["bad_role"]
    with psycopg.connect(pg_shop["admin"], autocommit=True) as admin:
        admin.execute(f"REVOKE SELECT ON customers FROM {role}")
        admin.execute(f"GRANT SELECT (id, name, city, phone) ON customers TO {role}")
    with pytest.raises(ConfigError) as info:
        open_engine(pg_shop["bad"], catalog=catalog("public"))
    message = str(info.value)
    statements = [line for line in message.splitlines() if line.startswith(("REVOKE", "GRANT"))]
    assert statements == [f'REVOKE SELECT ("phone") ON "public"."customers" FROM "{role}";']
    assert 'allow_columns = ["customers.phone"]' in message
    assert_no_canary("config", message, "start-up")
    with psycopg.connect(pg_shop["admin"], autocommit=True) as admin:
        admin.execute(statements[0])
    with open_engine(pg_shop["bad"], catalog=catalog("public"), policy=POLICY) as engine:
        assert engine.execute("SELECT name FROM customers ORDER BY id").rows == (("n1",), ("n2",))


@pytest.mark.postgres
def test_postgres_override_runs_with_a_warning(
    pg_shop: dict[str, str], caplog: pytest.LogCaptureFixture
) -> None:
    override = ExecutionPolicy(allow_readable_hidden_columns=True, time_limit_ms=5000)
    with open_engine(pg_shop["bad"], catalog=catalog("public"), policy=override) as engine:
        assert "allow_readable_hidden_columns" in caplog.text
        for sql in QUERIES + ORACLES:  # the gate alone keeps them out now
            outcome, text = shown(engine, sql)
            assert_no_canary(outcome, text, sql)
            if sql in ORACLES:
                assert outcome == "rejected", text


@pytest.mark.postgres
def test_postgres_hidden_columns_never_come_back(pg_shop: dict[str, str]) -> None:
    with open_engine(pg_shop["good"], catalog=catalog("public"), policy=POLICY) as engine:
        for sql in QUERIES + ORACLES:
            outcome, text = shown(engine, sql)
            assert_no_canary(outcome, text, sql)
            if sql in ORACLES:
                assert outcome == "rejected", text
            outcome, text = shown(engine, sql, gate=False)  # the role's privileges alone
            assert_no_canary(outcome, text, sql)
            if sql in ORACLES:
                assert outcome != "rows", text
        assert engine.execute("SELECT name, city FROM customers ORDER BY id").rows


@pytest.mark.postgres
def test_postgres_refusal_and_override_from_the_command_line(
    pg_shop: dict[str, str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    runner = CliRunner()
    sql = ["sql", "SELECT name FROM customers ORDER BY id", "--db", pg_shop["bad"], "--json"]
    refused = runner.invoke(app, [*sql, "-w", str(tmp_path)])
    assert refused.exit_code == 1
    assert "REVOKE SELECT ON" in refused.output and "GRANT SELECT (" in refused.output
    monkeypatch.setenv("TABLERAG_ALLOW_READABLE_HIDDEN_COLUMNS", "true")
    allowed = runner.invoke(app, [*sql, "-w", str(tmp_path)])
    assert allowed.exit_code == 0, allowed.output
    assert json.loads(allowed.stdout)["rows"] == [["n1"], ["n2"]]
    leak = runner.invoke(app, ["sql", "SELECT password FROM customers", "--db", pg_shop["bad"]])
    assert leak.exit_code == 3  # the gate alone keeps it out now
    assert_no_canary("cli", leak.output, "override")


def test_a_file_named_like_the_exposure_database_is_queried_through_the_views(
    tmp_path: Path,
) -> None:
    """The file is attached under its own random name, so its name clashes with nothing."""
    path = tmp_path / f"{EXPOSURE}.duckdb"
    con = duckdb.connect(str(path))
    _plant(con.execute, "?")
    con.close()
    with open_engine(path, catalog=catalog("main"), policy=POLICY) as engine:
        assert engine.execute("SELECT name FROM customers ORDER BY id").rows == (("n1",), ("n2",))
        for sql in ("SELECT * FROM customers", f"SELECT * FROM {EXPOSURE}.main.customers"):
            outcome, text = shown(engine, sql, gate=False)
            assert_no_canary(outcome, text, sql)


UNREWRITTEN = (
    *KELVIN,
    'WITH "CUSTOMERS" AS (SELECT 1 AS x) SELECT * FROM customers',
    "SELECT * FROM customers",
    "SELECT password, phone, diagnosis, card_no FROM customers",
    "SELECT c FROM customers AS c",
    "SELECT #5 FROM customers",
    "SELECT * FROM customers AS c(a, b, c2, d, e, f, g)",
    "SELECT count(*) AS n FROM customers WHERE password LIKE 'CAN%'",
    "SELECT name FROM customers ORDER BY phone",
    "SELECT * FROM main.customers",
    "SELECT * FROM data.customers",
    "SELECT * FROM plain.customers",
    "SELECT * FROM plain.main.customers",
    "SELECT * FROM workspace.data.customers",
    "SELECT * FROM memory.main.customers",
    "SELECT * FROM temp.main.customers",
    "SELECT * FROM system.main.customers",
    "SELECT * FROM query_table('customers')",
    "SELECT * FROM query('SELECT * FROM customers')",
    "USE plain; SELECT * FROM customers",
    "USE plain",
    "SET search_path = 'plain.main'",
    "ATTACH ':memory:' AS x",
    "SELECT database_name, path FROM duckdb_databases()",
    "SELECT * FROM duckdb_columns()",
    "SELECT sql FROM duckdb_views()",
    "PRAGMA table_info('customers')",
    "DESCRIBE customers",
    "SUMMARIZE customers",
    "SHOW ALL TABLES",
)
"""Names no gate rewrote: the query runs on the engine as written (the gate bypassed)."""


@pytest.mark.parametrize("kind", ["workspace", "plain"])
@pytest.mark.parametrize("sql", UNREWRITTEN)
def test_duckdb_unrewritten_names_find_nothing_hidden(
    engines: dict[str, SQLEngine], kind: str, sql: str
) -> None:
    """Physical isolation: the query's search path and current database hold the exposure
    views only, and the user's file is attached under a name no search path holds."""
    outcome, text = shown(engines[kind], sql, gate=False)
    assert_no_canary(outcome, text, sql)
    if "duckdb_" not in sql and "SHOW" not in sql:  # system functions (the gate refuses them)
        assert "tablerag_source_" not in text  # errors do not tell the file's random name
    if "ORDER BY phone" in sql or "LIKE" in sql or "SELECT password" in sql:
        assert outcome != "rows", text
    if sql.startswith(("USE", "SET", "ATTACH", "PRAGMA")):
        assert outcome == "QueryFailed" and "one SELECT" in text, text


@pytest.mark.parametrize("kind", ["workspace", "plain"])
def test_duckdb_a_previous_query_cannot_move_the_next_one(
    engines: dict[str, SQLEngine], kind: str
) -> None:
    """Each query starts on a fresh cursor with its own USE and search path."""
    engine = engines[kind]
    for sql in ("SET search_path = 'memory.main'", "USE memory", "SELECT * FROM customers"):
        shown(engine, sql, gate=False)
    cols, rows = engine._run("SELECT current_database(), current_setting('search_path')", POLICY)
    assert rows[0][0] == EXPOSURE, rows
    assert {p.split(".")[0].strip('"') for p in rows[0][1].split(",")} == {EXPOSURE}, rows


@pytest.mark.parametrize("kind", ["workspace", "plain"])
def test_duckdb_the_source_name_is_refused_by_the_gate(
    engines: dict[str, SQLEngine], kind: str
) -> None:
    """Only a query that names the file's random alias could reach it: the gate refuses any
    catalog-qualified table and the system functions that would tell the name."""
    engine = engines[kind]
    assert isinstance(engine, DuckDBEngine)
    schema = "data" if kind == "workspace" else "main"
    source = engine._session.source
    for sql in (
        f"SELECT * FROM {source}.{schema}.customers",
        f"SELECT * FROM {source}.customers",
        f'SELECT * FROM "{source}"."{schema}"."customers"',
        "SELECT database_name FROM duckdb_databases()",
        "SELECT * FROM duckdb_tables()",
    ):
        outcome, text = shown(engine, sql)
        assert outcome == "rejected", (sql, text)
        assert_no_canary(outcome, text, sql)


def test_no_source_label_shadows_a_reserved_schema() -> None:
    for url in ("postgresql://h/tablerag", "sqlite:///information_schema.db", "sqlite:///pg_x.db",
                f"sqlite:///{EXPOSURE}.db"):  # fmt: skip
        label = source_label(url)
        assert label.startswith("db_"), label


@pytest.fixture
def mysql_shop_canaries(mariadb_server: MariaDBServer, mariadb_database: str) -> dict[str, str]:
    """The planted database on MariaDB and an account granted the visible columns only."""
    user, password = f"tr_exp_{uuid.uuid4().hex[:6]}", "exp-pw"
    con = mariadb_server.connect(mariadb_database)
    try:
        with con.cursor() as cur:
            _plant(lambda sql, row=None: cur.execute(sql, row), "%s")
            cur.execute(f"CREATE USER '{user}'@'%' IDENTIFIED BY '{password}'")
            cur.execute(
                f"GRANT SELECT (id, name, city) ON `{mariadb_database}`.customers TO '{user}'@'%'"
            )
            cur.execute(f"GRANT SELECT ON `{mariadb_database}`.orders TO '{user}'@'%'")
    finally:
        con.close()
    return {"good": mariadb_server.url(mariadb_database, user=user, password=password)}


@pytest.mark.mariadb
def test_mysql_hidden_columns_never_come_back(mysql_shop_canaries: dict[str, str]) -> None:
    """The same hostile queries on MariaDB: refused by the gate, and with the gate bypassed the
    account's column grants alone keep every canary out."""
    with open_engine(mysql_shop_canaries["good"], catalog=catalog(), policy=POLICY) as engine:
        for sql in QUERIES + ORACLES:
            outcome, text = shown(engine, sql)
            assert_no_canary(outcome, text, sql)
            if sql in ORACLES:
                assert outcome == "rejected", text
            outcome, text = shown(engine, sql, gate=False)
            assert_no_canary(outcome, text, sql)
            if sql in ORACLES:
                assert outcome != "rows", text
        assert engine.execute("SELECT name, city FROM customers ORDER BY id").rows


def test_two_engines_on_one_duckdb_file_in_one_process(files: dict[str, Path]) -> None:
    """Each engine attaches the file under its own random name in its own in-memory database:
    a second engine (a second QA, `tablerag sql --db` while one is open) works (red team)."""
    with (
        open_engine(files["plain"], catalog=catalog("main"), policy=POLICY) as one,
        open_engine(files["plain"], catalog=catalog("main"), policy=POLICY) as two,
    ):
        for engine in (one, two):
            rows = engine.execute("SELECT name FROM customers ORDER BY id").rows
            assert rows == (("n1",), ("n2",))
