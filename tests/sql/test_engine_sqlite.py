"""Layer 1 on SQLite: read-only URI, query_only and the authorizer, even without the gate."""

from __future__ import annotations

import time

import pytest

from tablerag.errors import QueryFailed, QueryTimeout
from tablerag.sql.engines import SQLEngine
from tablerag.sql.policy import ExecutionPolicy

POLICY = ExecutionPolicy(time_limit_ms=1000, max_rows=100)


@pytest.mark.parametrize(
    "sql",
    [
        pytest.param("SELECT name FROM sqlite_master", id="schema-table"),
        pytest.param("SELECT secret FROM secrets", id="unexposed-table"),
        pytest.param("SELECT password FROM customers", id="hidden-column"),
        pytest.param("SELECT * FROM customers", id="star-with-hidden"),
        pytest.param("ATTACH DATABASE ':memory:' AS x", id="attach"),
        pytest.param("PRAGMA writable_schema = ON", id="pragma"),
        pytest.param("SELECT load_extension('/tmp/x.so')", id="load-extension"),
        pytest.param("INSERT INTO orders (id) VALUES (1)", id="insert"),
        pytest.param("CREATE TEMP TABLE t (a)", id="temp-table"),
        pytest.param(
            "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT n FROM r",
            id="recursive",
        ),
    ],
)
def test_authorizer_refuses_without_the_gate(engines: dict[str, SQLEngine], sql: str) -> None:
    with pytest.raises(QueryFailed):
        engines["sqlite"]._run(sql, POLICY)  # deliberately bypass the gate: layer 1 alone


def test_authorizer_allows_plain_reads(engines: dict[str, SQLEngine]) -> None:
    cols, rows = engines["sqlite"]._run("SELECT name, city FROM customers WHERE id = 2", POLICY)
    assert cols == ("name", "city") and rows == [("name_2", "Shanghai")]


def test_runaway_join_is_interrupted_and_engine_keeps_serving(
    engines: dict[str, SQLEngine],
) -> None:
    engine = engines["sqlite"]
    start = time.monotonic()
    with pytest.raises(QueryTimeout):
        engine.execute("SELECT count(*) FROM orders a, orders b, orders c", POLICY)
    assert time.monotonic() - start < 2.0
    assert engine.execute("SELECT count(*) AS n FROM orders").rows == ((2000,),)
