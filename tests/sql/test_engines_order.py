"""Results of a query without ORDER BY come back sorted by their visible output columns, so the
order in which the engine reads rows (an index on a hidden column: SQLite, MariaDB) does not
show through; LIMIT still limits, aggregates still aggregate. Canaries in the hidden column."""

from __future__ import annotations

import sqlite3
import uuid
from pathlib import Path

import pytest

from tablerag.sql.engines import SQLEngine, open_engine
from tablerag.sql.policy import ExecutionPolicy
from tablerag.types import ColumnInfo, TableInfo
from tests.plugins.mariadb import MariaDBServer

POLICY = ExecutionPolicy(time_limit_ms=5000, max_rows=100)
# names in the reverse order of the phone numbers: the phone index reads them backwards
NAMES = ["zed", "yan", "xia", "wu", "vic", "uma", "tom", "sam"]
PHONES = [f"CANARY-ord-{i:02d}" for i in range(len(NAMES))]
CITIES = ["Lyon", "Oslo"]
ROWS = [(i + 1, n, CITIES[i % 2], p) for i, (n, p) in enumerate(zip(NAMES, PHONES, strict=True))]
CATALOG = [
    TableInfo(
        "stores",
        "t",
        tuple(ColumnInfo(c, "") for c in ("id", "name", "city", "phone")),
        0,
    )
]


def _plant(run: object, marks: str) -> None:
    assert callable(run)
    run("CREATE TABLE stores (id INT, name VARCHAR(20), city VARCHAR(20), phone VARCHAR(40))")
    run("CREATE INDEX by_phone ON stores (phone, name)")  # covers SELECT name
    for row in ROWS:
        run(f"INSERT INTO stores VALUES ({marks})", row)


def _check(engine: SQLEngine) -> None:
    result = engine.execute("SELECT name FROM stores", POLICY)
    assert [r[0] for r in result.rows] == sorted(NAMES)
    assert "CANARY" not in repr(result)
    two = engine.execute("SELECT name FROM stores LIMIT 2", POLICY)
    assert [r[0] for r in two.rows] == sorted(NAMES)[:2]  # the first by name, not by phone
    grouped = engine.execute("SELECT city, count(*) AS n FROM stores GROUP BY city", POLICY)
    assert grouped.rows == (("Lyon", 4), ("Oslo", 4))
    assert engine.execute("SELECT count(*) AS n FROM stores", POLICY).rows == ((8,),)
    kept = engine.execute("SELECT name FROM stores ORDER BY id DESC", POLICY)
    assert [r[0] for r in kept.rows] == NAMES[::-1]  # an ORDER BY of its own is kept
    union = engine.execute(
        "SELECT name FROM stores WHERE id < 3 UNION SELECT city FROM stores", POLICY
    )
    assert [r[0] for r in union.rows] == sorted(["zed", "yan", "Lyon", "Oslo"])
    assert "ORDER BY" not in result.sql_executed  # the SQL shown is the user's


def test_sqlite_index_order_does_not_show(tmp_path: Path) -> None:
    path = tmp_path / "shop.db"
    con = sqlite3.connect(path)
    _plant(con.execute, "?, ?, ?, ?")
    con.commit()
    raw = [r[0] for r in con.execute("SELECT name FROM stores")]
    con.close()
    assert raw == NAMES  # the engine itself reads in phone order: the leak being closed
    with open_engine(f"sqlite:///{path}", catalog=CATALOG, policy=POLICY) as engine:
        _check(engine)


def test_duckdb_results_are_sorted(tmp_path: Path) -> None:
    import duckdb

    path = tmp_path / "shop.duckdb"
    con = duckdb.connect(str(path))
    _plant(con.execute, "?, ?, ?, ?")
    con.close()
    with open_engine(path, catalog=[TableInfo("main.stores", "t", CATALOG[0].columns, 0)],
                     policy=POLICY) as engine:  # fmt: skip
        _check(engine)
        star = engine.execute("SELECT * FROM (SELECT name, city FROM stores) AS s", POLICY)
        assert list(star.rows) == sorted(star.rows)  # ORDER BY ALL


def test_star_is_sorted_on_the_client(tmp_path: Path) -> None:
    path = tmp_path / "plain.db"
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE t (a INT, b TEXT)")
    con.executemany("INSERT INTO t VALUES (?, ?)", [(3, "c"), (1, "z"), (2, None), (1, "a")])
    con.commit()
    con.close()
    catalog = [TableInfo("t", "t", (ColumnInfo("a", ""), ColumnInfo("b", "")), 0)]
    with open_engine(f"sqlite:///{path}", catalog=catalog, policy=POLICY) as engine:
        rows = engine.execute("SELECT * FROM t", POLICY).rows
    assert rows == ((1, "a"), (1, "z"), (2, None), (3, "c"))


@pytest.mark.mariadb
def test_mariadb_index_order_does_not_show(
    mariadb_server: MariaDBServer, mariadb_database: str
) -> None:
    user = f"tr_o_{uuid.uuid4().hex[:6]}"
    con = mariadb_server.connect(mariadb_database)
    try:
        with con.cursor() as cur:
            _plant(lambda sql, row=None: cur.execute(sql, row), "%s, %s, %s, %s")
            cur.execute("SELECT name FROM stores")
            raw = [r[0] for r in cur.fetchall()]
            cur.execute(f"CREATE USER '{user}'@'%' IDENTIFIED BY 'o-pw'")
            cur.execute(
                f"GRANT SELECT (id, name, city) ON `{mariadb_database}`.stores TO '{user}'@'%'"
            )
    finally:
        con.close()
    assert raw == NAMES  # InnoDB reads the covering phone index: the leak being closed
    url = mariadb_server.url(mariadb_database, user=user, password="o-pw")
    try:
        with open_engine(url, policy=POLICY) as engine:
            _check(engine)
    finally:
        mariadb_server.execute(f"DROP USER '{user}'@'%'")
