"""Views in a DuckDB file over hidden columns: a view column computed from a hidden column is
hidden too (lineage through the view's SQL: aliases, functions, CTEs, ``*``, views of views), so
neither the gate nor the exposure views let it through. Canaries in the hidden column."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import duckdb
import psycopg
import pytest
from sqlalchemy.engine import make_url

from tablerag.errors import ConfigError, SQLRejected, TableragError
from tablerag.sql.engines import DuckDBEngine, SQLEngine, open_engine
from tablerag.sql.policy import ExecutionPolicy
from tests.plugins.mariadb import MariaDBServer

POLICY = ExecutionPolicy(time_limit_ms=5000, max_rows=50)
PW = "CANARY-view-pw-51ad"

VIEWS = {
    "v_alias": "SELECT id, password AS secret, name FROM users",
    "v_func": "SELECT id, upper(password) AS shout, length(name) AS n FROM users",
    "v_star": "SELECT * FROM users",
    "v_cte": "WITH t AS (SELECT id, password AS x FROM users) SELECT id, x AS y FROM t",
    "v_nested": "SELECT secret AS s2, id FROM v_alias",
    "v_ok": "SELECT id, name FROM users",
}
HIDDEN = {
    "v_alias": {"secret"},
    "v_func": {"shout"},
    "v_star": {"password"},
    "v_cte": {"y"},
    "v_nested": {"s2"},
    "v_ok": set(),
}


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[DuckDBEngine]:
    path: Path = tmp_path_factory.mktemp("views") / "views.duckdb"
    con = duckdb.connect(str(path))
    con.execute("CREATE TABLE users (id INTEGER, name VARCHAR, password VARCHAR)")
    con.execute(f"INSERT INTO users VALUES (1, 'ann', '{PW}-1'), (2, 'bob', '{PW}-2')")
    for name, sql in VIEWS.items():
        con.execute(f"CREATE VIEW {name} AS {sql}")
    con.execute("CREATE SCHEMA sales")
    con.execute("CREATE VIEW sales.contacts AS SELECT name, password AS pin FROM main.users")
    con.close()
    opened = open_engine(path, policy=POLICY)
    assert isinstance(opened, DuckDBEngine)
    yield opened
    opened.close()


@pytest.mark.parametrize("view", sorted(VIEWS))
def test_view_columns_from_hidden_columns_are_hidden(engine: DuckDBEngine, view: str) -> None:
    table = engine.catalog.table(view, schema="main")
    assert table is not None
    assert HIDDEN[view] <= set(table.hidden), (view, table)
    assert not HIDDEN[view] & set(table.columns)
    for sql in (f"SELECT * FROM {view}", f"SELECT {view} FROM {view}",
                *(f"SELECT {c} FROM {view}" for c in HIDDEN[view])):  # fmt: skip
        for gate in (True, False):
            try:
                if gate:
                    text = repr(engine.execute(sql, POLICY))
                else:  # the exposure views alone
                    text = repr(engine._run(sql.replace(view, f"main.{view}"), POLICY))
            except SQLRejected as exc:
                text = str(exc)
            except TableragError as exc:
                text = str(exc)
            assert PW not in text, (sql, gate, text)


def test_views_in_another_schema_and_clean_views_work(engine: DuckDBEngine) -> None:
    contacts = engine.catalog.table("contacts", schema="sales")
    assert contacts is not None and "pin" in contacts.hidden and contacts.columns == ("name",)
    assert engine.execute("SELECT name FROM v_ok ORDER BY id", POLICY).rows == (("ann",), ("bob",))
    assert engine.execute("SELECT n FROM v_func ORDER BY id", POLICY).rows == ((3,), (3,))
    with pytest.raises(SQLRejected):
        engine.execute("SELECT s2 FROM v_nested", POLICY)


@pytest.mark.postgres
def test_postgres_view_over_a_hidden_column_is_hidden_and_refused(pg_database: str) -> None:
    """A role granted a whole view whose column is a hidden column of its table: the column is
    hidden by lineage, so the role is refused with the statements that fix it, and once they
    are run the canary stays out, through the gate and without it."""
    role = f"tr_v_{uuid.uuid4().hex[:6]}"
    with psycopg.connect(pg_database, autocommit=True) as admin:
        admin.execute("CREATE TABLE users (id INTEGER, name TEXT, password TEXT)")
        admin.execute(f"INSERT INTO users VALUES (1, 'ann', '{PW}-1'), (2, 'bob', '{PW}-2')")
        admin.execute("CREATE VIEW v_alias AS SELECT id, password AS secret, name FROM users")
        admin.execute(f"CREATE ROLE {role} LOGIN")
        admin.execute(f"REVOKE CREATE ON SCHEMA public FROM PUBLIC, {role}")
        admin.execute(f"GRANT SELECT (id, name) ON users TO {role}")
        admin.execute(f"GRANT SELECT ON v_alias TO {role}")
    url = make_url(pg_database).set(username=role).render_as_string(hide_password=False)
    with pytest.raises(ConfigError) as info:
        open_engine(url, policy=POLICY)
    message = str(info.value)
    assert PW not in message
    statements = [line for line in message.splitlines() if line.startswith(("REVOKE", "GRANT"))]
    assert statements == [
        f'REVOKE SELECT ON "public"."v_alias" FROM "{role}";',
        f'GRANT SELECT ("id", "name") ON "public"."v_alias" TO "{role}";',
    ]
    with psycopg.connect(pg_database, autocommit=True) as admin:
        for statement in statements:
            admin.execute(statement)
    with open_engine(url, policy=POLICY) as engine:
        table = engine.catalog.table("v_alias", schema="public")
        assert table is not None and "secret" not in table.columns  # revoked: not even listed
        assert engine.execute("SELECT name FROM v_alias ORDER BY id", POLICY).rows == (
            ("ann",),
            ("bob",),
        )
        for sql in ("SELECT secret FROM v_alias", "SELECT * FROM v_alias"):
            for text in _outcomes(engine, sql):
                assert PW not in text, (sql, text)


def _outcomes(engine: SQLEngine, sql: str) -> list[str]:
    out = []
    for call in (lambda: engine.execute(sql, POLICY), lambda: engine._run(sql, POLICY)):
        try:
            out.append(repr(call()))
        except TableragError as exc:
            out.append(str(exc))
    return out


@pytest.mark.mariadb
def test_mariadb_view_over_a_hidden_column_is_hidden(
    mariadb_server: MariaDBServer, mariadb_database: str
) -> None:
    """An account that may read the view's definition (SHOW VIEW) and the whole view, run with
    the gate alone (allow_readable_hidden_columns): the view column from the password is
    hidden, so the gate refuses it and no canary comes back."""
    db, user = mariadb_database, f"tr_v_{uuid.uuid4().hex[:6]}"
    mariadb_server.execute(
        f"CREATE TABLE `{db}`.users (id INT, name VARCHAR(20), password VARCHAR(40))",
        f"INSERT INTO `{db}`.users VALUES (1, 'ann', '{PW}-1'), (2, 'bob', '{PW}-2')",
        f"CREATE VIEW `{db}`.labels AS SELECT id, concat(name, ':', password) AS label "
        f"FROM `{db}`.users",
        f"CREATE USER '{user}'@'%' IDENTIFIED BY 'v-pw'",
        f"GRANT SELECT (id, name) ON `{db}`.users TO '{user}'@'%'",
        f"GRANT SELECT, SHOW VIEW ON `{db}`.labels TO '{user}'@'%'",
    )
    url = mariadb_server.url(db, user=user, password="v-pw")
    try:
        with pytest.raises(ConfigError) as info:  # the account reads the derived column
            open_engine(url, policy=POLICY)
        assert f"REVOKE SELECT ON `{db}`.`labels`" in str(info.value)
        assert PW not in str(info.value)
        gate_only = ExecutionPolicy(time_limit_ms=5000, allow_readable_hidden_columns=True)
        with open_engine(url, policy=gate_only) as engine:
            table = engine.catalog.table("labels", schema=db)
            assert table is not None and "label" in table.hidden
            for sql in ("SELECT label FROM labels", "SELECT * FROM labels"):
                try:
                    text = repr(engine.execute(sql, gate_only))
                except TableragError as exc:
                    text = str(exc)
                assert PW not in text, (sql, text)
            assert engine.execute("SELECT id FROM labels ORDER BY id", gate_only).rows == (
                (1,),
                (2,),
            )
    finally:
        mariadb_server.execute(f"DROP USER '{user}'@'%'")
