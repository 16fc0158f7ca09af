"""Layer 1 on PostgreSQL: the start-up role check, read-only transactions, statement_timeout."""

from __future__ import annotations

import logging
import time

import pytest

from tablerag.errors import ConfigError, QueryFailed, QueryTimeout
from tablerag.sql.engines import SQLEngine, open_engine
from tablerag.sql.policy import ExecutionPolicy

pytestmark = pytest.mark.postgres
POLICY = ExecutionPolicy(time_limit_ms=1000, max_rows=100)


def test_writable_role_is_refused_at_start_up(pg_shop: dict[str, str]) -> None:
    with pytest.raises(ConfigError, match="can write.*may write a table.*--allow-writable-role"):
        open_engine(pg_shop["tr_writer"])


def test_superuser_is_refused(postgres_dsn: str) -> None:
    with pytest.raises(ConfigError, match="is a superuser"):
        open_engine(postgres_dsn)


def test_operator_override_still_runs_read_only(
    pg_shop: dict[str, str], caplog: pytest.LogCaptureFixture
) -> None:
    overridden = ExecutionPolicy(allow_readable_hidden_columns=True)
    with (
        caplog.at_level(logging.WARNING),
        open_engine(pg_shop["tr_writer"], allow_writable_role=True, policy=overridden) as engine,
    ):
        assert "operator override" in caplog.text
        assert "allow_readable_hidden_columns" in caplog.text  # it can read customers.phone
        with pytest.raises(QueryFailed):
            engine._run("DELETE FROM orders", POLICY)  # bypass the gate: the session still refuses
        probe = "SELECT current_setting('transaction_read_only')"
        assert engine._run(probe, POLICY) == (("current_setting",), [("on",)])
        assert engine.execute("SELECT count(*) AS n FROM orders").rows == ((2000,),)


def test_read_only_role_sees_only_granted_tables(pg_engine: SQLEngine) -> None:
    names = sorted(t.qualified for t in pg_engine.catalog.tables)
    assert names == ["customers", "orders", "销售"]
    seen = {t.name: [c.name for c in t.columns] for t in pg_engine.introspect()}
    assert seen["public.customers"] == ["id", "name", "city"]  # column privileges only
    with pytest.raises(QueryFailed, match="permission denied"):
        pg_engine._run("SELECT secret FROM secrets", POLICY)
    with pytest.raises(QueryFailed):
        pg_engine._run("UPDATE orders SET amount = 0", POLICY)


def test_statement_timeout_stops_runaway_and_engine_keeps_serving(pg_engine: SQLEngine) -> None:
    start = time.monotonic()
    with pytest.raises(QueryTimeout):
        pg_engine.execute("SELECT count(*) FROM orders a, orders b, orders c", POLICY)
    assert time.monotonic() - start < 2.0
    assert pg_engine.execute("SELECT count(*) AS n FROM orders").rows == ((2000,),)


def test_row_cap_and_masking(pg_engine: SQLEngine) -> None:
    result = pg_engine.execute("SELECT id FROM orders ORDER BY id", POLICY)
    assert result.truncated and len(result.rows) == 100
    named = pg_engine.execute("SELECT name, city FROM customers ORDER BY id LIMIT 1")
    assert named.rows == (("name_1", "Beijing"),)
