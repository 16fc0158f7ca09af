"""Every result capped in bytes and time on the server engines (real PostgreSQL and MariaDB):
rows stream from the server a batch at a time, the fetch stops at ``max_result_bytes`` with the
usual limit error, and a client watchdog stops a call that runs past ``time_limit_ms`` even when
each statement stays under the server's own limit. Engine errors always say what happened."""

from __future__ import annotations

import threading
import time
from typing import Any

import pymysql
import pytest
from typer.testing import CliRunner

from tablerag.cli import app
from tablerag.errors import QueryFailed, QueryTimeout, ResourceLimitExceeded
from tablerag.sql.engines import SQLEngine
from tablerag.sql.engines.limits import engine_failure
from tablerag.sql.policy import ExecutionPolicy
from tests.plugins.mariadb import MariaDBServer

CAP = ExecutionPolicy(max_result_bytes=16 * 2**20, max_rows=100, time_limit_ms=20_000)
BIG = "SELECT repeat('x', 1000000) AS s FROM orders"
"""101 rows of 1 MB: about 100 MB against a 16 MB cap."""


def _rss_mb() -> float:
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def _capped(engine: SQLEngine) -> tuple[float, float]:
    """Run :data:`BIG`; return (seconds, RSS growth in MB) of the refusal."""
    before, start = _rss_mb(), time.monotonic()
    with pytest.raises(ResourceLimitExceeded, match="larger than 16777216 bytes"):
        engine.execute(BIG, CAP)
    return time.monotonic() - start, _rss_mb() - before


@pytest.mark.postgres
def test_postgres_result_stops_at_the_byte_cap(pg_engine: SQLEngine) -> None:
    seconds, grown = _capped(pg_engine)
    assert seconds < 10 and grown < 60, (seconds, grown)
    small = pg_engine.execute("SELECT repeat('x', 1000) AS s FROM orders", CAP)
    assert len(small.rows) == 100 and small.truncated  # the engine works after the refusal


@pytest.mark.mariadb
def test_mysql_result_stops_at_the_byte_cap(mysql_engine: SQLEngine) -> None:
    seconds, grown = _capped(mysql_engine)
    assert seconds < 10 and grown < 60, (seconds, grown)
    small = mysql_engine.execute("SELECT repeat('x', 1000) AS s FROM orders", CAP)
    assert len(small.rows) == 100 and small.truncated


@pytest.mark.mariadb
def test_cli_exits_4_at_the_byte_cap(mysql_shop: dict[str, str], tmp_path: Any) -> None:
    result = CliRunner().invoke(
        app,
        ["sql", BIG, "--db", mysql_shop["tr_reader"], "-w", str(tmp_path)],
    )  # the default cap, 16 MB
    assert result.exit_code == 4, result.output
    assert "larger than" in result.output


@pytest.mark.postgres
def test_postgres_watchdog_stops_a_slow_trickle(pg_engine: SQLEngine) -> None:
    """Each FETCH stays under statement_timeout; the whole call does not."""
    policy = ExecutionPolicy(time_limit_ms=1000, max_rows=1000)
    start = time.monotonic()
    with pytest.raises(QueryTimeout):
        pg_engine._run("SELECT pg_sleep(0.01), g FROM generate_series(1, 2000) AS g", policy)
    assert time.monotonic() - start < 4
    assert pg_engine.execute("SELECT count(*) AS n FROM orders").rows == ((2000,),)


@pytest.mark.mariadb
def test_mysql_watchdog_kills_a_query_the_server_lets_run(
    mysql_engine: SQLEngine, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A server that ignores max_statement_time (simulated: the session limit is not set):
    the watchdog's KILL QUERY from a second connection stops it."""
    monkeypatch.setattr(mysql_engine, "_session_limits", lambda policy: None)
    mysql_engine._con.cursor().execute("SET SESSION max_statement_time = 0")  # type: ignore[attr-defined]
    policy = ExecutionPolicy(time_limit_ms=1000, max_rows=10)
    start = time.monotonic()
    with pytest.raises(QueryTimeout):
        mysql_engine._run("SELECT SLEEP(8) AS s", policy)
    assert time.monotonic() - start < 4
    monkeypatch.undo()
    mysql_engine._limits = None  # type: ignore[attr-defined]
    assert mysql_engine.execute("SELECT count(*) AS n FROM orders").rows == ((2000,),)


@pytest.mark.mariadb
@pytest.mark.parametrize("kill", ["KILL QUERY", "KILL"])
def test_mysql_query_killed_from_outside_says_what_happened(
    mysql_engine: SQLEngine, mariadb_server: MariaDBServer, kill: str
) -> None:
    """An administrator kills the query (or the whole connection, twice: the engine opens the
    connection again once) mid-run: the error names what happened and what to do, never an
    empty reason, a driver class name or a time limit that was not reached."""
    policy = ExecutionPolicy(time_limit_ms=10_000, max_rows=10)
    stop = threading.Event()

    def killer() -> None:
        for _ in range(2):
            time.sleep(0.7)
            con = mariadb_server.connect()
            try:
                with con.cursor() as cur:
                    cur.execute(
                        "SELECT ID FROM information_schema.PROCESSLIST WHERE INFO LIKE "
                        "'SELECT SLEEP(3)%'"
                    )
                    for (thread,) in cur.fetchall():
                        cur.execute(f"{kill} {int(thread)}")
            finally:
                con.close()
            if stop.is_set():
                return

    thread = threading.Thread(target=killer)
    thread.start()
    try:
        with pytest.raises(QueryFailed) as info:
            mysql_engine._run("SELECT SLEEP(3) AS s", policy)
    finally:
        stop.set()
        thread.join()
    message = str(info.value)
    assert not message.rstrip().endswith(":") and message.endswith("."), message
    assert "Error" not in message and "longer than" not in message, message
    assert "again" in message, message
    assert mysql_engine.execute("SELECT count(*) AS n FROM orders").rows == ((2000,),)


@pytest.mark.parametrize("reason", ["", "  ", "\n"])
def test_an_empty_engine_reason_becomes_a_sentence(reason: str) -> None:
    message = engine_failure("MySQL", reason)
    assert "gave no reason" in message and message.endswith(".")
    assert "MySQL could not run the query: " not in message


def test_pymysql_empty_errors_are_not_shown_raw() -> None:
    exc = pymysql.err.InterfaceError(0, "")
    assert engine_failure("MySQL", str(exc.args[1])).startswith("MySQL could not run the query and")
