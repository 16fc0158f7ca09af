"""The gate's verdicts are kept per engine and catalog; rows are kept for one request only
(issue 31)."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from tablerag.errors import SQLRejected
from tablerag.sql.engines import SQLEngine, open_engine
from tablerag.sql.engines.once import queries_once
from tablerag.sql.policy import ExecutionPolicy

POLICY = ExecutionPolicy(max_rows=50, time_limit_ms=2000)


@pytest.fixture
def db(tmp_path: Path) -> Path:
    path = tmp_path / "shop.db"
    with sqlite3.connect(path) as con:
        con.execute("CREATE TABLE orders (id INTEGER PRIMARY KEY, amount REAL)")
        con.execute("CREATE TABLE staff (id INTEGER PRIMARY KEY, name TEXT)")
        con.executemany("INSERT INTO orders VALUES (?, ?)", [(1, 10.0), (2, 20.0)])
    return path


@pytest.fixture
def engine(db: Path) -> Iterator[SQLEngine]:
    with open_engine(f"sqlite:///{db}", policy=POLICY) as e:
        yield e


def add_order(db: Path, n: int) -> None:
    with sqlite3.connect(db) as con:
        con.execute("INSERT INTO orders VALUES (?, ?)", (n, n * 10.0))


def test_a_verdict_is_kept_for_the_same_sql_and_policy(engine: SQLEngine) -> None:
    sql = "SELECT id FROM orders"
    first = engine.verdict(sql, POLICY)
    assert engine.verdict(sql, POLICY) is first
    other = engine.verdict(sql, ExecutionPolicy(max_rows=5))
    assert other is not first and "LIMIT 6" in other.executed and "LIMIT 51" in first.executed


def test_a_new_catalog_is_judged_anew(engine: SQLEngine) -> None:
    sql = "SELECT name FROM staff"
    assert engine.execute(sql).rows == ()
    engine.use_catalog([t for t in engine.introspect() if t.name == "orders"])
    with pytest.raises(SQLRejected) as refused:
        engine.execute(sql)
    assert refused.value.issues[0].code == "unknown_table"


def test_rows_are_read_again_by_the_next_request(engine: SQLEngine, db: Path) -> None:
    sql = "SELECT count(*) AS n FROM orders"
    assert engine.execute(sql).rows == ((2,),)
    add_order(db, 3)
    assert engine.execute(sql).rows == ((3,),)  # no request: every query runs


def test_one_request_runs_a_query_once(engine: SQLEngine, db: Path) -> None:
    sql = "SELECT count(*) AS n FROM orders"
    with queries_once({}):
        first = engine.execute(sql)
        add_order(db, 3)
        assert engine.execute(sql) is first  # the same request: what it read before
        assert engine.execute(sql, ExecutionPolicy(max_rows=7)).rows == ((3,),)
    with queries_once({}):
        assert engine.execute(sql).rows == ((3,),)  # the next request reads the data again


def test_one_request_remembers_a_refusal(engine: SQLEngine) -> None:
    with queries_once({}):
        for _ in range(2):
            with pytest.raises(SQLRejected) as refused:
                engine.execute("DELETE FROM orders")
            assert refused.value.issues[0].code == "statement_not_allowed"
