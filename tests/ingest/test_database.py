"""Reflecting external databases (SQLite, DuckDB files and a real PostgreSQL) in place."""

from __future__ import annotations

import hashlib
import sqlite3
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import duckdb
import psycopg
import pytest

from tablerag.errors import ConfigError, SourceError
from tablerag.ingest import database
from tablerag.ingest.database import (
    MAX_SAMPLE_CHARS,
    is_database_url,
    redact_url,
    reflect_database,
    reflect_database_report,
)
from tablerag.types import ForeignKey, TableInfo
from tests.plugins.postgres import PASSWORD_USER


def by_name(tables: list[TableInfo]) -> dict[str, TableInfo]:
    return {t.name: t for t in tables}


def samples(table: TableInfo, column: str) -> tuple[str, ...]:
    return next(c.samples for c in table.columns if c.name == column)


# --------------------------------------------------------------------------- URLs


@pytest.mark.parametrize(
    ("target", "expected"),
    [
        pytest.param("postgresql://u:p@h:5432/db", True, id="postgresql"),
        pytest.param("postgres://h/db", True, id="postgres-alias"),
        pytest.param("postgresql+psycopg://h/db", True, id="psycopg-driver"),
        pytest.param("sqlite:///shop.db", True, id="sqlite-relative"),
        pytest.param("sqlite:////abs/shop.db", True, id="sqlite-absolute"),
        pytest.param("duckdb:///w.duckdb", True, id="duckdb"),
        pytest.param("mysql://u@h/db", True, id="mysql-recognised"),
        pytest.param("shop.db", False, id="plain-file"),
        pytest.param("data/sqlite_dump.csv", False, id="path-with-scheme-word"),
        pytest.param("https://example.com/a.csv", False, id="http"),
        pytest.param(r"C:\data\a.db", False, id="windows-path"),
    ],
)
def test_is_database_url(target: str, expected: bool) -> None:
    assert is_database_url(target) is expected


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        pytest.param(
            "postgresql://bob:s3cret@h:5432/db", "postgresql://bob:***@h:5432/db", id="userinfo"
        ),
        pytest.param(
            "postgresql://bob:p@ss/w0rd@h/db",
            "postgresql://bob:***@h/db",
            id="password-with-at-and-slash",
        ),
        pytest.param("postgresql://bob@h/db", "postgresql://bob@h/db", id="no-password"),
        pytest.param(
            "postgresql://h/db?user=bob&password=s3cret",
            "postgresql://h/db?user=bob&password=***",
            id="query-password",
        ),
        pytest.param("sqlite:////tmp/a.db", "sqlite:////tmp/a.db", id="file"),
    ],
)
def test_redact_url(url: str, expected: str) -> None:
    assert redact_url(url) == expected


@pytest.mark.parametrize("url", ["oracle://u@h/db", "sqlite+pysqlite:///a.db", "foo://x"])
def test_unsupported_scheme_lists_the_supported_ones(url: str) -> None:
    with pytest.raises(ConfigError) as err:
        reflect_database(url)
    assert "postgresql://" in str(err.value)
    assert "sqlite:///" in str(err.value) and "duckdb:///" in str(err.value)


def test_mysql_names_the_driver_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "pymysql", None)  # as if PyMySQL were not installed
    with pytest.raises(ConfigError, match=r'pip install "tablerag\[mysql\]"'):
        reflect_database("mysql://root:pw@127.0.0.1/shop")


@pytest.mark.parametrize("url", ["sqlite://", "sqlite:///", "duckdb:///:memory:"])
def test_url_without_a_file_is_a_config_error(url: str) -> None:
    with pytest.raises(ConfigError, match="names no file"):
        reflect_database(url)


# --------------------------------------------------------------------------- SQLite


@pytest.fixture
def shop_sqlite(tmp_path: Path) -> Path:
    path = tmp_path / "shop.db"
    con = sqlite3.connect(path)
    con.executescript(
        """
        CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT NOT NULL, city TEXT);
        CREATE TABLE orders (
            id INTEGER PRIMARY KEY,
            customer_id INTEGER NOT NULL REFERENCES customers(id),
            amount REAL, status TEXT, note TEXT, payload BLOB);
        CREATE TABLE order_lines (
            order_id INTEGER REFERENCES orders(id), line INTEGER, product TEXT,
            PRIMARY KEY (order_id, line));
        CREATE VIEW paid_orders AS SELECT * FROM orders WHERE status = 'paid';
        """
    )
    con.executemany(
        "INSERT INTO customers VALUES (?, ?, ?)",
        [(i, f"客户{i}", ["上海", "北京", "深圳"][i % 3]) for i in range(1, 21)],
    )
    # 1000 orders with status 'a', and three rare statuses that must show up among the samples.
    rows: list[tuple[object, ...]] = [
        (i, i % 20 + 1, i * 2.5, "a", None, b"\x00\xff") for i in range(1, 1001)
    ]
    rows += [
        (1001, 1, 1.0, "paid", "x" * 300, None),
        (1002, 2, 2.0, "refunded", None, None),
        (1003, 3, 9999.0, "void", None, None),
    ]
    con.executemany("INSERT INTO orders VALUES (?, ?, ?, ?, ?, ?)", rows)
    con.executemany(
        "INSERT INTO order_lines VALUES (?, ?, ?)",
        [(o, n, f"p{n}") for o in range(1, 51) for n in (1, 2)],
    )
    con.commit()
    con.close()
    return path


def test_sqlite_tables_keys_counts_and_view(shop_sqlite: Path) -> None:
    url = f"sqlite:///{shop_sqlite}"
    tables = by_name(reflect_database(url))
    assert sorted(tables) == ["customers", "order_lines", "orders", "paid_orders"]
    customers, orders, lines, view = (
        tables[n] for n in ("customers", "orders", "order_lines", "paid_orders")
    )
    assert [t.row_count for t in (customers, orders, lines, view)] == [20, 1003, 100, 1]
    assert customers.primary_key == ("id",)
    assert lines.primary_key == ("order_id", "line")
    assert orders.foreign_keys == (ForeignKey(("customer_id",), "customers", ("id",)),)
    assert lines.foreign_keys == (ForeignKey(("order_id",), "orders", ("id",)),)
    assert [(c.name, c.type) for c in orders.columns] == [
        ("id", "INTEGER"),
        ("customer_id", "INTEGER"),
        ("amount", "REAL"),
        ("status", "TEXT"),
        ("note", "TEXT"),
        ("payload", "BLOB"),
    ]
    assert (view.origin, orders.origin) == ("view", "table")
    assert all(t.source == url and t.stored is False for t in tables.values())


def test_sqlite_samples_are_diverse_not_first_rows(shop_sqlite: Path) -> None:
    orders = by_name(reflect_database(f"sqlite:///{shop_sqlite}"))["orders"]
    assert set(samples(orders, "status")) == {"a", "paid", "refunded", "void"}
    amounts = samples(orders, "amount")
    assert "1.0" in amounts and "9999.0" in amounts  # the range, not the first rows
    assert len(amounts) == 5 and len(set(amounts)) == 5
    assert samples(orders, "payload") == ()  # binary skipped
    (note,) = samples(orders, "note")
    assert len(note) == MAX_SAMPLE_CHARS and note.endswith("…")
    customers = by_name(reflect_database(f"sqlite:///{shop_sqlite}", sample_values=3))["customers"]
    assert set(samples(customers, "city")) == {"上海", "北京", "深圳"}
    assert all(len(c.samples) <= 3 for c in customers.columns)


def test_sqlite_is_opened_read_only(shop_sqlite: Path) -> None:
    before = hashlib.sha256(shop_sqlite.read_bytes()).hexdigest()
    reflect_database(f"sqlite:///{shop_sqlite}")
    assert hashlib.sha256(shop_sqlite.read_bytes()).hexdigest() == before
    assert sorted(p.name for p in shop_sqlite.parent.iterdir()) == ["shop.db"]


def test_sqlite_relative_path(shop_sqlite: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(shop_sqlite.parent)
    assert "orders" in by_name(reflect_database("sqlite:///shop.db"))


def test_sqlite_missing_file(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path}/nope.db"
    with pytest.raises(SourceError, match="does not exist") as err:
        reflect_database(url)
    assert err.value.source == url
    assert not (tmp_path / "nope.db").exists()  # read-only: never created


def test_sqlite_not_a_database(tmp_path: Path) -> None:
    path = tmp_path / "notes.db"
    path.write_text("id,name\n1,Alice\n" * 200)
    with pytest.raises(SourceError, match="not a SQLite database"):
        reflect_database(f"sqlite:///{path}")


def test_sqlite_broken_view_is_reported_not_fatal(shop_sqlite: Path) -> None:
    con = sqlite3.connect(shop_sqlite)
    con.executescript(
        "CREATE TABLE tmp (x INT); CREATE VIEW v_tmp AS SELECT x FROM tmp; DROP TABLE tmp;"
    )
    con.close()
    report = reflect_database_report(f"sqlite:///{shop_sqlite}")
    assert "orders" in {t.name for t in report.tables}
    assert any(p.where == "v_tmp" and "no such table" in p.what for p in report.problems)


# --------------------------------------------------------------------------- DuckDB


@pytest.fixture
def shop_duckdb(tmp_path: Path) -> Path:
    path = tmp_path / "shop.duckdb"
    con = duckdb.connect(str(path))
    con.execute(
        """
        CREATE TABLE region (code VARCHAR PRIMARY KEY, name VARCHAR);
        CREATE TABLE sales (id INTEGER PRIMARY KEY, region VARCHAR REFERENCES region(code),
                            day DATE, revenue DECIMAL(12, 2), raw BLOB);
        CREATE SCHEMA hr;
        CREATE TABLE hr.staff (id INTEGER, team VARCHAR, PRIMARY KEY (id, team));
        CREATE VIEW east_sales AS SELECT * FROM sales WHERE region = 'E';
        COMMENT ON TABLE sales IS '每日销售额';
        COMMENT ON COLUMN sales.revenue IS 'Revenue in CNY';
        COMMENT ON VIEW east_sales IS 'Sales of the east region';
        INSERT INTO region VALUES ('E', '华东'), ('N', '华北');
        INSERT INTO sales SELECT i, CASE WHEN i % 500 = 0 THEN 'N' ELSE 'E' END,
            DATE '2026-01-01' + CAST(i AS INTEGER), i * 10, '\\x00'::BLOB FROM range(1, 2001) t(i);
        INSERT INTO hr.staff VALUES (1, 'a'), (1, 'b');
        """
    )
    con.close()
    return path


def test_duckdb_catalog(shop_duckdb: Path) -> None:
    url = f"duckdb:///{shop_duckdb}"
    tables = by_name(reflect_database(url))
    assert sorted(tables) == ["east_sales", "hr.staff", "region", "sales"]
    sales = tables["sales"]
    assert sales.description == "每日销售额"
    assert [c.description for c in sales.columns if c.name == "revenue"] == ["Revenue in CNY"]
    assert [(c.name, c.type) for c in sales.columns][:4] == [
        ("id", "INTEGER"),
        ("region", "VARCHAR"),
        ("day", "DATE"),
        ("revenue", "DECIMAL(12,2)"),
    ]
    assert sales.primary_key == ("id",)
    assert sales.foreign_keys == (ForeignKey(("region",), "region", ("code",)),)
    assert tables["hr.staff"].primary_key == ("id", "team")
    view = tables["east_sales"]
    assert (view.origin, view.description, view.row_count) == (
        "view",
        "Sales of the east region",
        1996,
    )
    assert (sales.row_count, tables["hr.staff"].row_count) == (2000, 2)
    assert set(samples(sales, "region")) == {"E", "N"}
    assert {"2026-01-02", "2031-06-24"} <= set(samples(sales, "day"))  # min and max
    assert samples(sales, "raw") == ()
    assert all(t.source == url for t in tables.values())


def test_duckdb_file_is_not_locked_for_writing(shop_duckdb: Path) -> None:
    reflect_database(f"duckdb:///{shop_duckdb}")
    con = duckdb.connect(str(shop_duckdb))  # read-only reflection left no lock behind
    con.execute("INSERT INTO region VALUES ('S', '华南')")
    con.close()


def test_duckdb_missing_and_not_a_database(tmp_path: Path) -> None:
    with pytest.raises(SourceError, match="does not exist"):
        reflect_database(f"duckdb:///{tmp_path}/none.duckdb")
    assert not (tmp_path / "none.duckdb").exists()
    bogus = tmp_path / "bogus.duckdb"
    bogus.write_bytes(b"not a duckdb file at all" * 100)
    with pytest.raises(SourceError, match="not a readable DuckDB database"):
        reflect_database(f"duckdb:///{bogus}")


# --------------------------------------------------------------------------- PostgreSQL

SHOP_SQL = """
CREATE SCHEMA sales;
CREATE TABLE customers (id int PRIMARY KEY, name text NOT NULL, region text);
COMMENT ON TABLE customers IS 'People and firms who buy';
COMMENT ON COLUMN customers.region IS '销售大区';
CREATE TABLE sales.orders (
    id int PRIMARY KEY, customer_id int REFERENCES public.customers(id),
    amount numeric(10, 2), placed_at timestamptz, scan bytea, extra jsonb);
CREATE TABLE sales.order_lines (
    order_id int REFERENCES sales.orders(id), line int, qty int, PRIMARY KEY (order_id, line));
CREATE VIEW big_orders AS SELECT * FROM sales.orders WHERE amount > 100;
COMMENT ON VIEW big_orders IS 'Orders above 100';
INSERT INTO customers
    SELECT i, 'c' || i, CASE WHEN i % 400 = 0 THEN '华东' ELSE 'a' END
    FROM generate_series(1, 1000) i;
INSERT INTO sales.orders
    SELECT i, i % 1000 + 1, i * 1.25, timestamptz '2026-01-01' + i * interval '1 hour',
           '\\x00ff', '{"k": 1}'
    FROM generate_series(1, 500) i;
ANALYZE;
"""


@pytest.fixture
def shop_pg(pg_database: str) -> str:
    with psycopg.connect(pg_database, autocommit=True) as con:
        con.execute(SHOP_SQL)
    return pg_database


@pytest.mark.postgres
def test_postgres_catalog_two_schemas(shop_pg: str) -> None:
    tables = by_name(reflect_database(shop_pg))
    assert sorted(tables) == ["big_orders", "customers", "sales.order_lines", "sales.orders"]
    customers, orders = tables["customers"], tables["sales.orders"]
    assert customers.description == "People and firms who buy"
    assert [c.description for c in customers.columns] == ["", "", "销售大区"]
    assert orders.foreign_keys == (ForeignKey(("customer_id",), "customers", ("id",)),)
    assert tables["sales.order_lines"].foreign_keys == (
        ForeignKey(("order_id",), "sales.orders", ("id",)),
    )
    assert tables["sales.order_lines"].primary_key == ("order_id", "line")
    assert [(c.name, c.type) for c in orders.columns] == [
        ("id", "INTEGER"),
        ("customer_id", "INTEGER"),
        ("amount", "NUMERIC(10, 2)"),
        ("placed_at", "TIMESTAMP WITH TIME ZONE"),
        ("scan", "BYTEA"),
        ("extra", "JSONB"),
    ]
    view = tables["big_orders"]
    assert (view.origin, view.description, view.row_count) == ("view", "Orders above 100", 420)
    assert (customers.row_count, orders.row_count, tables["sales.order_lines"].row_count) == (
        1000,
        500,
        0,
    )
    assert set(samples(customers, "region")) == {"a", "华东"}
    assert samples(orders, "scan") == ()
    assert samples(orders, "extra") == ('{"k": 1}',)
    assert {"1.25", "625.00"} <= set(samples(orders, "amount"))
    assert all(t.source == shop_pg and not t.stored for t in tables.values())


@pytest.mark.postgres
def test_postgres_session_is_read_only(shop_pg: str) -> None:
    # A view whose function writes: reading it in a read-only session must fail, not write.
    with psycopg.connect(shop_pg, autocommit=True) as con:
        con.execute(
            "CREATE TABLE audit (x int);"
            "CREATE FUNCTION touch() RETURNS int LANGUAGE sql VOLATILE AS "
            "$$ INSERT INTO audit VALUES (1); SELECT 1 $$;"
            "CREATE VIEW trap AS SELECT touch() AS x;"
        )
    report = reflect_database_report(shop_pg)
    trap = by_name(list(report.tables))["trap"]
    assert trap.row_count == -1
    assert any(p.where == "trap" and "read-only transaction" in p.what for p in report.problems)
    with psycopg.connect(shop_pg) as con:
        assert con.execute("SELECT count(*) FROM audit").fetchone() == (0,)


@pytest.fixture
def locked_table(shop_pg: str) -> Iterator[str]:
    """Hold an exclusive lock on customers so that counting it blocks."""
    ready, release = threading.Event(), threading.Event()

    def hold() -> None:
        with psycopg.connect(shop_pg) as con:
            con.execute("LOCK TABLE customers IN ACCESS EXCLUSIVE MODE")
            ready.set()
            release.wait(30)

    thread = threading.Thread(target=hold)
    thread.start()
    assert ready.wait(10)
    yield shop_pg
    release.set()
    thread.join()


@pytest.mark.postgres
def test_postgres_slow_count_falls_back_to_planner_estimate(locked_table: str) -> None:
    started = time.monotonic()
    report = reflect_database_report(locked_table, timeout_s=1)
    assert time.monotonic() - started < 15
    customers = by_name(list(report.tables))["customers"]
    assert customers.row_count == 1000  # reltuples after ANALYZE
    notes = [p for p in report.problems if p.where == "customers"]
    assert any("planner estimate" in p.action for p in notes)
    assert any("sample values" in p.what for p in notes)
    assert by_name(list(report.tables))["sales.orders"].row_count == 500  # others unaffected


@pytest.mark.postgres
def test_postgres_wrong_database_name(postgres_dsn: str) -> None:
    url = postgres_dsn.rsplit("/", 1)[0] + "/no_such_db"
    with pytest.raises(SourceError, match="'no_such_db' does not exist") as err:
        reflect_database(url)
    assert err.value.source == url


@pytest.mark.postgres
def test_postgres_aliases_reach_the_same_server(shop_pg: str) -> None:
    for alias in ("postgres://", "postgresql+psycopg://"):
        url = shop_pg.replace("postgresql://", alias, 1)
        assert "customers" in by_name(reflect_database(url, sample_values=0))


def _unused_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_server_down_fails_fast_without_leaking_the_password() -> None:
    url = f"postgresql://bob:Tr0ub4dor@127.0.0.1:{_unused_port()}/shop"
    started = time.monotonic()
    with pytest.raises(SourceError, match="refused") as err:
        reflect_database(url, timeout_s=3)
    assert time.monotonic() - started < 5
    assert err.value.source == redact_url(url)
    assert "Tr0ub4dor" not in str(err.value) and "Tr0ub4dor" not in err.value.source
    assert "127.0.0.1" in str(err.value)


@pytest.mark.postgres
def test_postgres_wrong_password(shop_pg: str) -> None:
    with psycopg.connect(shop_pg, autocommit=True) as con:
        con.execute(
            "DO $$ BEGIN CREATE ROLE tablerag_pw LOGIN PASSWORD 'right-one'; "
            "EXCEPTION WHEN duplicate_object THEN NULL; END $$"
        )
    assert PASSWORD_USER == "tablerag_pw"
    good = shop_pg.replace("postgres@", "tablerag_pw:right-one@", 1)
    assert "customers" in by_name(reflect_database(good, sample_values=0))
    bad = shop_pg.replace("postgres@", "tablerag_pw:wr0ng-Secret@", 1)
    with pytest.raises(SourceError, match="rejected the login of user 'tablerag_pw'") as err:
        reflect_database(bad)
    assert "wr0ng-Secret" not in str(err.value) and "wr0ng-Secret" not in err.value.source


@pytest.mark.postgres
def test_postgres_big_table_samples_come_from_a_table_sample(
    pg_database: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(database, "SAMPLE_SCAN_ROWS", 5_000)  # same path, smaller table
    with psycopg.connect(pg_database, autocommit=True) as con:
        con.execute(
            "CREATE TABLE events AS SELECT i AS id, 'kind' || (i % 7) AS kind "
            "FROM generate_series(1, 50000) i; ANALYZE events;"
        )
    events = by_name(reflect_database(pg_database))["events"]
    assert events.row_count == 50_000
    kinds = samples(events, "kind")
    assert len(kinds) == 5 and set(kinds) <= {f"kind{i}" for i in range(7)}
    assert len(samples(events, "id")) == 5


def test_big_sqlite_and_duckdb_tables_are_sampled(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(database, "SAMPLE_SCAN_ROWS", 5_000)  # same path, smaller table
    lite = tmp_path / "big.db"
    con = sqlite3.connect(lite)
    con.execute("CREATE TABLE events (id INTEGER PRIMARY KEY, kind TEXT)")
    con.executemany(
        "INSERT INTO events VALUES (?, ?)", ((i, f"kind{i % 7}") for i in range(1, 25_001))
    )
    con.commit()
    con.close()
    duck = tmp_path / "big.duckdb"
    dcon = duckdb.connect(str(duck))
    dcon.execute(
        "CREATE TABLE events AS SELECT i AS id, 'kind' || (i % 7) AS kind FROM range(1, 25001) t(i)"
    )
    dcon.close()
    for url in (f"sqlite:///{lite}", f"duckdb:///{duck}"):
        events = by_name(reflect_database(url))["events"]
        assert events.row_count == 25_000
        assert len(samples(events, "kind")) == 5
        assert "1" in samples(events, "id")


# --------------------------------------------------------------------------- CHECK constraints

CHECKS_DDL = """
CREATE TABLE pay (
    id INTEGER PRIMARY KEY,
    status VARCHAR(10) CHECK (status IN ('PAID', 'REFUND', 'UNPAID')),
    qty INTEGER CHECK (qty > 0),
    CONSTRAINT qty_cap CHECK (qty <= 99)
);
CREATE VIEW pay_view AS SELECT * FROM pay;
"""


def _check_values(table: TableInfo) -> dict[str, object]:
    from tablerag.linking.profile import column_checks

    got = column_checks(table.checks, [c.name for c in table.columns])
    return {col: (c.values or c.range) for col, c in got.items()}


def test_sqlite_check_constraints(tmp_path: Path) -> None:
    path = tmp_path / "c.db"
    con = sqlite3.connect(path)
    con.executescript(CHECKS_DDL)
    con.close()
    tables = by_name(reflect_database(f"sqlite:///{path}"))
    assert tables["pay"].checks == (
        "status IN ('PAID', 'REFUND', 'UNPAID')",
        "qty > 0",
        "qty <= 99",
    )
    assert tables["pay_view"].checks == ()
    assert _check_values(tables["pay"]) == {
        "status": ("PAID", "REFUND", "UNPAID"),
        "qty": "(0, 99]",
    }


def test_duckdb_check_constraints(tmp_path: Path) -> None:
    path = tmp_path / "c.duckdb"
    with duckdb.connect(str(path)) as con:
        con.execute(CHECKS_DDL)
    tables = by_name(reflect_database(f"duckdb:///{path}"))
    assert len(tables["pay"].checks) == 3 and tables["pay_view"].checks == ()
    assert _check_values(tables["pay"]) == {
        "status": ("PAID", "REFUND", "UNPAID"),
        "qty": "(0, 99]",
    }


def test_checks_from_unparsable_ddl_are_empty() -> None:
    assert database.checks_from_ddl("CREATE TABLE (((") == ()


@pytest.mark.postgres
def test_postgres_check_constraints(pg_database: str) -> None:
    with psycopg.connect(pg_database, autocommit=True) as con:
        con.execute(CHECKS_DDL.replace("CREATE TABLE pay", "CREATE TABLE public.pay"))
        con.execute("CREATE SCHEMA s; CREATE TABLE s.t (pct numeric CHECK (pct BETWEEN 0 AND 1))")
    tables = by_name(reflect_database(pg_database))
    assert len(tables["pay"].checks) == 3
    assert all(not c.upper().startswith("CHECK") for c in tables["pay"].checks)
    assert _check_values(tables["pay"]) == {
        "status": ("PAID", "REFUND", "UNPAID"),
        "qty": "(0, 99]",
    }
    assert _check_values(tables["s.t"]) == {"pct": "[0, 1]"}
    assert tables["pay_view"].checks == ()
