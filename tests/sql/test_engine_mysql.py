"""Layer 1 on MySQL/MariaDB (a real MariaDB server): the start-up account check, read-only
transactions, the server-side time limit, the row cap, masking and one-sentence errors."""

from __future__ import annotations

import logging
import re
import sys
import time

import pytest

from tablerag.errors import ConfigError, QueryFailed, QueryTimeout, SQLRejected
from tablerag.sql.engines import SQLEngine, open_engine
from tablerag.sql.engines.limits import Watchdog
from tablerag.sql.policy import ExecutionPolicy
from tests.plugins.mariadb import MariaDBServer
from tests.sql.conftest import N_ORDERS, catalog_tables

pytestmark = pytest.mark.mariadb
POLICY = ExecutionPolicy(time_limit_ms=1000, max_rows=100)


def test_writable_account_is_refused_at_start_up(mysql_shop: dict[str, str]) -> None:
    with pytest.raises(ConfigError) as info:
        open_engine(mysql_shop["tr_writer"])
    message = str(info.value)
    assert "can write (has DELETE, INSERT, UPDATE on tablerag_sql_shop.*)" in message
    assert "--allow-writable-role" in message
    assert "writer-pw" not in message


def test_root_is_refused(mariadb_server: MariaDBServer) -> None:
    with pytest.raises(
        ConfigError, match=r"'root' can write \(has ALL PRIVILEGES, .* and \d+ more on \*\.\*"
    ):
        open_engine(mariadb_server.url("mysql"))


@pytest.mark.parametrize(
    "grant",
    [
        "GRANT FILE ON *.* TO '{u}'@'%'",
        "GRANT CREATE ON {db}.* TO '{u}'@'%'",
        "GRANT UPDATE (region) ON {db}.orders TO '{u}'@'%'",
        "GRANT EXECUTE ON {db}.* TO '{u}'@'%'",
        "GRANT DROP ON {db}.orders TO '{u}'@'%'",
    ],
)
def test_any_privilege_beyond_reading_is_refused(
    mariadb_server: MariaDBServer, mysql_shop: dict[str, str], grant: str
) -> None:
    user, db = "tr_extra", "tablerag_sql_shop"
    mariadb_server.execute(
        f"DROP USER IF EXISTS '{user}'@'%'",
        f"CREATE USER '{user}'@'%'",
        f"GRANT SELECT ON {db}.orders TO '{user}'@'%'",
        grant.format(u=user, db=db),
    )
    try:
        with pytest.raises(ConfigError, match="can write"):
            open_engine(mariadb_server.url(db, user=user))
    finally:
        mariadb_server.execute(f"DROP USER '{user}'@'%'")


def test_privileges_through_a_role_count(
    mariadb_server: MariaDBServer, mysql_shop: dict[str, str]
) -> None:
    db = "tablerag_sql_shop"
    mariadb_server.execute(
        "DROP USER IF EXISTS 'tr_roled'@'%'",
        "DROP ROLE IF EXISTS tr_editor",
        "CREATE ROLE tr_editor",
        f"GRANT SELECT, INSERT ON {db}.orders TO tr_editor",
        "CREATE USER 'tr_roled'@'%'",
        "GRANT tr_editor TO 'tr_roled'@'%'",
        "SET DEFAULT ROLE tr_editor FOR 'tr_roled'@'%'",
    )
    try:
        with pytest.raises(ConfigError, match="has INSERT on tablerag_sql_shop.orders"):
            open_engine(mariadb_server.url(db, user="tr_roled"))
    finally:
        mariadb_server.execute("DROP USER 'tr_roled'@'%'", "DROP ROLE tr_editor")


def test_operator_override_still_runs_read_only(
    mysql_shop: dict[str, str], caplog: pytest.LogCaptureFixture
) -> None:
    with (
        caplog.at_level(logging.WARNING),
        open_engine(
            mysql_shop["tr_writer"],
            allow_writable_role=True,
            policy=ExecutionPolicy(allow_readable_hidden_columns=True),
        ) as engine,
    ):
        assert "operator override" in caplog.text
        for sql in ("DELETE FROM orders", "INSERT INTO orders (id) VALUES (-1)"):
            with pytest.raises(QueryFailed, match="one SELECT"):
                engine._run(sql, POLICY)  # bypass the gate: the engine's statement check refuses
            with pytest.raises(Exception, match="READ ONLY"), Watchdog(5000, lambda: None) as dog:
                engine._query(sql, POLICY, dog)  # bypass that too: the transaction refuses
        assert engine.execute("SELECT count(*) AS n FROM orders").rows == ((N_ORDERS,),)
        assert engine._run("SELECT @@session.tx_read_only AS r", POLICY) == (("r",), [(1,)])


def test_reader_sees_only_granted_tables(mysql_engine: SQLEngine) -> None:
    assert sorted(t.name for t in mysql_engine.catalog.tables) == ["customers", "orders", "销售"]
    assert {t.schema for t in mysql_engine.catalog.tables} == {"tablerag_sql_shop"}
    with pytest.raises(QueryFailed, match="denied"):
        mysql_engine._run("SELECT secret FROM secrets", POLICY)  # the server refuses as well
    with pytest.raises(SQLRejected, match="Unknown table"):
        mysql_engine.execute("SELECT secret FROM secrets")


def test_server_time_limit_stops_a_runaway_and_the_engine_keeps_serving(
    mysql_engine: SQLEngine,
) -> None:
    start = time.monotonic()
    with pytest.raises(QueryTimeout, match="longer than 1000 ms"):
        mysql_engine.execute("SELECT count(*) FROM orders a, orders b, orders c", POLICY)
    assert time.monotonic() - start < POLICY.time_limit_ms / 1000 + 1.0
    assert mysql_engine.execute("SELECT count(*) AS n FROM orders", POLICY).rows == ((N_ORDERS,),)
    # the server stopped it: no query of ours is left running there
    assert mysql_engine._run(
        "SELECT count(*) FROM information_schema.PROCESSLIST WHERE INFO LIKE '%orders b%' "
        "AND ID <> CONNECTION_ID()",
        POLICY,
    )[1] == [(0,)]


def test_each_query_gets_its_own_time_limit(mysql_engine: SQLEngine) -> None:
    slow = "SELECT count(*) FROM orders a, orders b WHERE a.amount + b.amount > -1"
    assert mysql_engine.execute(slow, ExecutionPolicy(time_limit_ms=20_000)).rows == (
        (N_ORDERS * N_ORDERS,),
    )
    with pytest.raises(QueryTimeout):
        mysql_engine.execute(slow, ExecutionPolicy(time_limit_ms=50))


def test_row_cap_and_masking(mysql_engine: SQLEngine) -> None:
    result = mysql_engine.execute("SELECT id, region FROM orders ORDER BY id", POLICY)
    assert len(result.rows) == POLICY.max_rows
    assert result.truncated
    # a value that looks like an e-mail is masked even in a visible column
    masked = mysql_engine.execute("SELECT CONCAT(name, '@example.com') AS who FROM customers")
    assert masked.masked_columns == ("who",)
    assert all(not str(r[0]).startswith("name_") for r in masked.rows), masked.rows


def test_executable_comments_never_reach_the_server(mysql_engine: SQLEngine) -> None:
    result = mysql_engine.execute(
        "SELECT region FROM orders WHERE id = 1 /*!50000 UNION SELECT password FROM customers */"
    )
    assert result.rows == (("south",),)


def test_strings_are_read_as_the_gate_read_them(mysql_engine: SQLEngine) -> None:
    # a backslash before the closing quote escapes it in MySQL; the gate must agree
    result = mysql_engine.execute("SELECT 'a\\\\' AS s, 'b''c' AS t, \"d\" AS u")
    assert result.rows == (("a\\", "b'c", "d"),)
    with pytest.raises(SQLRejected):
        mysql_engine.execute("SELECT 'a\\'; DROP TABLE orders; -- ' AS s; DELETE FROM orders")
    # '||' is OR in MySQL's default mode, whatever the server's global sql_mode says
    assert mysql_engine.execute("SELECT 0 || 1 AS x").rows == ((1,),)


def test_unknown_server_wrong_password_and_unknown_database(
    mariadb_server: MariaDBServer, mysql_shop: dict[str, str]
) -> None:
    port = mariadb_server.port
    cases = {
        f"mysql://tr_reader:reader-pw@127.0.0.1:{_closed_port()}/x": "connection was refused",
        f"mysql://tr_reader:not-the-pw@127.0.0.1:{port}/tablerag_sql_shop": "rejected the login",
        # MariaDB does not tell an account without rights whether the database exists
        f"mysql://tr_reader:reader-pw@127.0.0.1:{port}/no_such_db": "no_such_db|rejected the login",
        f"mysql://root@127.0.0.1:{port}/no_such_db": "does not exist",
        f"mysql://tr_reader:reader-pw@127.0.0.1:{port}/": "names no database",
    }
    for url, expected in cases.items():
        with pytest.raises(ConfigError) as info:
            open_engine(url)
        message = str(info.value)
        assert re.search(expected, message), message
        assert message.count(". ") <= 1 and message.endswith(".")
        assert "reader-pw" not in message and "not-the-pw" not in message


def test_missing_driver_names_the_extra(
    mysql_shop: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "pymysql", None)  # import pymysql raises ImportError
    with pytest.raises(ConfigError, match=r"pip install .tablerag\[mysql\]."):
        open_engine(mysql_shop["tr_reader"])


def test_a_dropped_connection_is_opened_again(
    mariadb_server: MariaDBServer, mysql_shop: dict[str, str]
) -> None:
    with open_engine(mysql_shop["tr_reader"]) as engine:
        assert engine.execute("SELECT count(*) AS n FROM orders").rows == ((N_ORDERS,),)
        con_id = engine._run("SELECT CONNECTION_ID() AS c", POLICY)[1][0][0]
        mariadb_server.execute(f"KILL {con_id}")
        assert engine.execute("SELECT count(*) AS n FROM orders").rows == ((N_ORDERS,),)
        with pytest.raises(QueryTimeout):  # the new session has the limits again
            engine.execute("SELECT count(*) FROM orders a, orders b, orders c", POLICY)
        assert engine._run("SELECT @@session.tx_read_only AS r", POLICY)[1] == [(1,)]


def _closed_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_an_account_that_can_read_hidden_columns_is_refused_with_the_grants_to_run(
    mariadb_server: MariaDBServer, mysql_shop: dict[str, str], caplog: pytest.LogCaptureFixture
) -> None:
    db = "tablerag_sql_shop"
    mariadb_server.execute(
        "DROP USER IF EXISTS 'tr_peek'@'%'",
        "CREATE USER 'tr_peek'@'%'",
        f"GRANT SELECT ON {db}.customers TO 'tr_peek'@'%'",
    )
    url = mariadb_server.url(db, user="tr_peek")
    try:
        with pytest.raises(ConfigError) as info:
            open_engine(url, catalog=catalog_tables())
        message = str(info.value)
        assert (
            "can read 3 column(s) that tablerag hides (in tablerag_sql_shop.customers)" in message
        )
        assert "REVOKE SELECT ON `tablerag_sql_shop`.`customers` FROM 'tr_peek'@'%';" in message
        assert "GRANT SELECT (`id`, `name`, `city`) ON `tablerag_sql_shop`.`customers`" in message
        # the statements the message gives make the account acceptable
        for statement in message.splitlines()[1:3]:
            mariadb_server.execute(statement)
        with open_engine(url, catalog=catalog_tables()) as engine:
            assert engine.execute("SELECT count(*) AS n FROM customers").rows == ((50,),)
        mariadb_server.execute(f"GRANT SELECT ON {db}.customers TO 'tr_peek'@'%'")
        policy = ExecutionPolicy(allow_readable_hidden_columns=True)
        with (
            caplog.at_level(logging.WARNING),
            open_engine(url, catalog=catalog_tables(), policy=policy) as engine,
        ):
            assert "operator override allow_readable_hidden_columns" in caplog.text
            with pytest.raises(SQLRejected):
                engine.execute("SELECT phone FROM customers")
    finally:
        mariadb_server.execute("DROP USER 'tr_peek'@'%'")


def test_the_row_cap_of_a_query_does_not_cut_the_catalog(mysql_shop: dict[str, str]) -> None:
    with open_engine(mysql_shop["tr_reader"]) as engine:
        full = engine.introspect()
        engine.execute("SELECT id FROM orders", ExecutionPolicy(max_rows=1))  # sql_select_limit 2
        assert engine.introspect() == full
        assert sum(len(t.columns) for t in full) == 10  # orders 5, customers 3 visible, 销售 2
