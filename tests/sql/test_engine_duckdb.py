"""Layer 1 on DuckDB: the engine's own guards hold even for SQL that skipped the gate."""

from __future__ import annotations

import time
from pathlib import Path

import duckdb
import pytest

from tablerag.errors import QueryFailed, QueryTimeout, WorkspaceError
from tablerag.layout import DB_FILE
from tablerag.sql.engines import SQLEngine, open_engine
from tablerag.sql.engines.duckdb import DuckDBEngine
from tablerag.sql.policy import ExecutionPolicy

POLICY = ExecutionPolicy(time_limit_ms=1000, max_rows=100)


def test_connection_settings_are_locked(engines: dict[str, SQLEngine]) -> None:
    engine = engines["duckdb"]
    assert isinstance(engine, DuckDBEngine)
    settings = dict(
        engine._session.con.execute(  # trusted test access to the engine's connection
            "SELECT name, value FROM duckdb_settings() WHERE name IN ('enable_external_access', "
            "'lock_configuration', 'autoload_known_extensions', 'autoinstall_known_extensions', "
            "'allow_community_extensions', 'threads')"
        ).fetchall()
    )
    assert settings == {
        "enable_external_access": "false",
        "lock_configuration": "true",
        "autoload_known_extensions": "false",
        "autoinstall_known_extensions": "false",
        "allow_community_extensions": "false",
        "threads": "2",
    }
    read_only = engine._session.con.execute(
        "SELECT database_name, readonly FROM duckdb_databases() WHERE NOT internal"
    ).fetchall()  # the user's file is attached read-only; memory and exposure are in memory
    assert (engine._session.source, True) in read_only


@pytest.mark.parametrize(
    "sql",
    [
        pytest.param("SELECT * FROM read_csv('/etc/passwd')", id="file-read"),
        pytest.param("COPY (SELECT 1) TO '/tmp/tablerag_should_not_exist.csv'", id="copy"),
        pytest.param("INSTALL httpfs", id="install"),
        pytest.param("LOAD httpfs", id="load"),
        pytest.param("SET enable_external_access = true", id="set-external"),
        pytest.param("SET lock_configuration = false", id="unlock"),
        pytest.param("CREATE TABLE data.x (a INTEGER)", id="create"),
        pytest.param("DELETE FROM data.orders", id="delete"),
        pytest.param("ATTACH '/tmp/tablerag_attach.duckdb' AS x", id="attach"),
    ],
)
def test_engine_refuses_without_the_gate(engines: dict[str, SQLEngine], sql: str) -> None:
    with pytest.raises(QueryFailed):
        engines["duckdb"]._run(sql, POLICY)  # deliberately bypass the gate: layer 1 alone
    assert not Path("/tmp/tablerag_should_not_exist.csv").exists()


def test_only_data_schema_is_exposed(engines: dict[str, SQLEngine]) -> None:
    names = sorted(t.qualified for t in engines["duckdb"].catalog.tables)
    assert names == ["data.customers", "data.orders", "data.销售"]


def test_runaway_join_is_interrupted_and_engine_keeps_serving(
    engines: dict[str, SQLEngine],
) -> None:
    engine = engines["duckdb"]
    start = time.monotonic()
    with pytest.raises(QueryTimeout) as info:
        engine.execute("SELECT count(*) FROM orders a, orders b, orders c, orders d", POLICY)
    assert time.monotonic() - start < 2.0
    assert info.value.time_limit_ms == 1000
    assert engine.execute("SELECT count(*) AS n FROM orders").rows == ((2000,),)


def test_row_cap_truncates_and_flags(engines: dict[str, SQLEngine]) -> None:
    result = engines["duckdb"].execute("SELECT id FROM orders ORDER BY id", POLICY)
    assert result.truncated and len(result.rows) == 100 and result.rows[-1] == (100,)
    assert result.sql_executed.endswith("LIMIT 101")
    small = engines["duckdb"].execute("SELECT id FROM orders ORDER BY id LIMIT 7", POLICY)
    assert not small.truncated and len(small.rows) == 7


def test_personal_data_is_masked_in_results(engines: dict[str, SQLEngine]) -> None:
    result = engines["duckdb"].execute(
        "SELECT name || ' <' || 'user1@example.com>' AS contact FROM customers WHERE id = 1"
    )
    assert result.rows == (("name_1 <u***@example.com>",),)
    assert result.masked_columns == ("contact",)


def test_workspace_held_read_write_gives_a_clear_error(tmp_path: Path) -> None:
    db = tmp_path / DB_FILE
    rw = duckdb.connect(str(db))
    rw.execute("CREATE SCHEMA data")
    try:
        with pytest.raises(WorkspaceError, match="close the workspace"):
            open_engine(tmp_path)
    finally:
        rw.close()
    with open_engine(tmp_path) as engine:  # once released, the engine opens
        assert engine.catalog.tables == []


def test_external_duckdb_url_exposes_main_schema(tmp_path: Path) -> None:
    db = tmp_path / "ext.duckdb"
    con = duckdb.connect(str(db))
    con.execute(
        "CREATE TABLE t AS SELECT 1 AS a; CREATE SCHEMA s; CREATE TABLE s.u AS SELECT 2 AS b"
    )
    con.close()
    with open_engine(f"duckdb:///{db}") as engine:
        assert engine.execute("SELECT a FROM t").rows == ((1,),)
        assert engine.execute("SELECT b FROM s.u").rows == ((2,),)
