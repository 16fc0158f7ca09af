"""Reflecting a MySQL/MariaDB database (a real MariaDB server), and the writable-account check
at ingest on MariaDB and PostgreSQL."""

from __future__ import annotations

import logging
import re
import socket
from collections.abc import Iterator

import psycopg
import pytest

from tablerag.errors import ConfigError, SourceError
from tablerag.ingest.database import reflect_database, reflect_database_report
from tablerag.types import ForeignKey, TableInfo
from tests.plugins.mariadb import MariaDBServer

SHOP = [
    "CREATE TABLE customers (id INT PRIMARY KEY, name VARCHAR(40), region VARCHAR(10) "
    "COMMENT '销售大区') COMMENT 'People and firms who buy'",
    "CREATE TABLE orders (id INT PRIMARY KEY, customer_id INT, amount DECIMAL(10, 2), "
    "placed_at DATETIME, scan LONGBLOB, qty INT, CONSTRAINT qty_positive CHECK (qty > 0), "
    "FOREIGN KEY (customer_id) REFERENCES customers (id))",
    "CREATE VIEW big_orders AS SELECT id, amount FROM orders WHERE amount > 100",
    "INSERT INTO customers VALUES (1, 'Ann', '华东'), (2, 'Bob', 'a'), (3, 'Cy', 'a')",
    "INSERT INTO orders SELECT seq, 1 + seq % 3, seq * 1.25, '2024-01-01 10:00:00', x'00ff', "
    "1 + seq % 5 FROM seq_1_to_500",
]


@pytest.fixture
def shop_mysql(mariadb_server: MariaDBServer, mariadb_database: str) -> Iterator[dict[str, str]]:
    """The shop in a fresh database; URLs of a reader and a writer account."""
    db = mariadb_database
    mariadb_server.execute(*SHOP, database=db)
    users = {"reader": f"r_{db[-6:]}", "writer": f"w_{db[-6:]}"}
    mariadb_server.execute(
        f"CREATE USER '{users['reader']}'@'%' IDENTIFIED BY 'canary-pw-7731'",
        f"GRANT SELECT, SHOW VIEW ON `{db}`.* TO '{users['reader']}'@'%'",
        f"CREATE USER '{users['writer']}'@'%'",
        f"GRANT SELECT, INSERT, UPDATE ON `{db}`.* TO '{users['writer']}'@'%'",
    )
    try:
        yield {
            "reader": mariadb_server.url(db, user=users["reader"], password="canary-pw-7731"),
            "writer": mariadb_server.url(db, user=users["writer"]),
            "root": mariadb_server.url(db),
        }
    finally:
        mariadb_server.execute(*(f"DROP USER '{u}'@'%'" for u in users.values()))


def _by_name(tables: list[TableInfo] | tuple[TableInfo, ...]) -> dict[str, TableInfo]:
    return {t.name: t for t in tables}


@pytest.mark.mariadb
def test_mysql_catalog(shop_mysql: dict[str, str]) -> None:
    report = reflect_database_report(shop_mysql["reader"])
    tables = _by_name(report.tables)
    assert sorted(tables) == ["big_orders", "customers", "orders"]  # no other database's tables
    customers, orders, view = tables["customers"], tables["orders"], tables["big_orders"]
    assert customers.description == "People and firms who buy"
    assert [c.description for c in customers.columns] == ["", "", "销售大区"]
    assert orders.primary_key == ("id",)
    assert orders.foreign_keys == (ForeignKey(("customer_id",), "customers", ("id",)),)
    assert orders.checks == ("qty > 0",)
    assert [(c.name, c.type) for c in orders.columns][:3] == [
        ("id", "INT(11)"),
        ("customer_id", "INT(11)"),
        ("amount", "DECIMAL(10,2)"),
    ]
    assert (customers.row_count, orders.row_count) == (3, 500)
    assert (view.origin, view.row_count) == ("view", 420)
    samples = {c.name: c.samples for c in orders.columns}
    assert samples["scan"] == ()  # binary: no samples
    assert {"1.25", "625.00"} <= set(samples["amount"])
    assert set(next(c.samples for c in customers.columns if c.name == "region")) == {"a", "华东"}
    assert report.writable == ()
    assert all(
        t.source.endswith("/" + shop_mysql["reader"].rsplit("/", 1)[1]) for t in tables.values()
    )
    assert all("canary-pw-7731" not in t.source for t in tables.values())


@pytest.mark.mariadb
def test_mysql_session_is_read_only(
    mariadb_server: MariaDBServer, shop_mysql: dict[str, str]
) -> None:
    db = shop_mysql["root"].rsplit("/", 1)[1]
    mariadb_server.execute(
        "CREATE TABLE audit (x INT)",
        "CREATE FUNCTION touch() RETURNS INT MODIFIES SQL DATA SQL SECURITY DEFINER "
        "BEGIN INSERT INTO audit VALUES (1); RETURN 1; END",
        "CREATE SQL SECURITY DEFINER VIEW trap AS SELECT touch() AS x",
        database=db,
    )
    report = reflect_database_report(shop_mysql["reader"])
    trap = _by_name(report.tables)["trap"]
    assert trap.row_count == -1
    assert any(p.where == "trap" and "READ ONLY" in p.what for p in report.problems)
    con = mariadb_server.connect(db)
    with con.cursor() as cur:
        cur.execute("SELECT count(*) FROM audit")
        assert cur.fetchone() == (0,)
    con.close()


@pytest.mark.mariadb
def test_mysql_bad_inputs_are_one_sentence(
    mariadb_server: MariaDBServer, shop_mysql: dict[str, str]
) -> None:
    db = shop_mysql["root"].rsplit("/", 1)[1]
    port = mariadb_server.port
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        closed = sock.getsockname()[1]
    cases = {
        f"mysql://u:canary-pw-7731@127.0.0.1:{closed}/{db}": "connection was refused",
        shop_mysql["reader"].replace("canary-pw-7731", "canary-pw-wrong"): "rejected the login",
        f"mysql://root@127.0.0.1:{port}/no_such_db": "'no_such_db' does not exist",
    }
    for url, expected in cases.items():
        with pytest.raises(SourceError) as info:
            reflect_database(url, timeout_s=5)
        message = str(info.value)
        assert expected in message, message
        assert "canary-pw" not in message
        assert "\n" not in message and "Traceback" not in message
    with pytest.raises(ConfigError, match="names no database"):
        reflect_database(f"mysql://root@127.0.0.1:{port}/")


@pytest.mark.mariadb
def test_mariadb_and_driver_spellings_reach_the_same_database(shop_mysql: dict[str, str]) -> None:
    url = shop_mysql["reader"]
    names = [
        sorted(t.name for t in reflect_database(u, sample_values=0))
        for u in (
            url,
            url.replace("mysql://", "mariadb://"),
            url.replace("mysql://", "mysql+pymysql://"),
        )
    ]
    assert names[0] == names[1] == names[2] == ["big_orders", "customers", "orders"]


@pytest.mark.mariadb
def test_writable_account_is_warned_and_recorded_at_ingest(
    shop_mysql: dict[str, str], caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING):
        report = reflect_database_report(shop_mysql["writer"], sample_values=0)
    assert len(report.tables) == 3  # reflected all the same
    assert report.writable and re.match(r"has INSERT, UPDATE on t_\w+\.\*$", report.writable[0])
    first = report.problems[0]
    assert "the account can write (has INSERT, UPDATE" in first.what
    assert "asking refuses" in first.action and "--allow-writable-role" in first.action
    assert "can write" in caplog.text
    accepted = reflect_database_report(
        shop_mysql["writer"], sample_values=0, allow_writable_role=True
    )
    assert accepted.writable == report.writable
    assert "accepted on operator override" in accepted.problems[0].action
    reader = reflect_database_report(shop_mysql["reader"], sample_values=0)
    assert reader.writable == () and not any("can write" in p.what for p in reader.problems)


@pytest.mark.postgres
def test_postgres_writable_role_is_warned_and_recorded_at_ingest(pg_database: str) -> None:
    with psycopg.connect(pg_database, autocommit=True) as con:
        con.execute("CREATE TABLE t (x int); INSERT INTO t VALUES (1)")
        con.execute("DROP ROLE IF EXISTS tr_ingest_reader")
        con.execute("CREATE ROLE tr_ingest_reader LOGIN")
        con.execute("REVOKE CREATE ON SCHEMA public FROM PUBLIC")
        con.execute(
            "REVOKE CREATE, TEMPORARY ON DATABASE " + pg_database.rsplit("/", 1)[1] + " FROM PUBLIC"
        )
        con.execute("GRANT SELECT ON t TO tr_ingest_reader")
    superuser = reflect_database_report(pg_database, sample_values=0)
    assert "is a superuser" in superuser.writable
    assert "asking refuses" in superuser.problems[0].action
    reader_url = pg_database.replace("postgres@", "tr_ingest_reader@")
    try:
        reader = reflect_database_report(reader_url, sample_values=0)
        assert reader.writable == ()
        assert [t.name for t in reader.tables] == ["t"]
    finally:
        with psycopg.connect(pg_database, autocommit=True) as con:
            con.execute("DROP OWNED BY tr_ingest_reader")
        with psycopg.connect(pg_database.rsplit("/", 1)[0] + "/postgres", autocommit=True) as con:
            con.execute("DROP ROLE IF EXISTS tr_ingest_reader")
