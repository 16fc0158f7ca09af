"""Isolation for limits: one function call cannot pass the time or memory limit, and the next
query runs.

Each single-call blow-up of issue 21 runs through ``execute`` on a long-lived engine: it must
be stopped (a timeout or a resource error) within the time limit plus one second, the worker
process must stay under the memory limit, and the next query must succeed.
"""

from __future__ import annotations

import gc
import os
import shutil
import signal
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from tablerag.errors import QueryTimeout, ResourceLimitExceeded
from tablerag.sql.engines import SQLEngine
from tablerag.sql.engines.duckdb import DuckDBEngine
from tablerag.sql.engines.pool import WorkerPool
from tablerag.sql.engines.sqlite import SQLiteEngine
from tablerag.sql.engines.worker import Worker
from tablerag.sql.policy import ExecutionPolicy
from tests.sql.conftest import open_shop

MEMORY_MB = 512
POLICY = ExecutionPolicy(time_limit_ms=2000, max_rows=100, memory_limit_mb=MEMORY_MB)
BLOW_UPS = (
    pytest.param("duckdb", "SELECT length(repeat('x', 2000000000)) AS n", id="duckdb-repeat"),
    pytest.param("duckdb", "SELECT list_sort(range(300000000)) AS l", id="duckdb-list-sort"),
    pytest.param("sqlite", "SELECT printf('%.*c', 900000000, 'x') AS s", id="sqlite-printf"),
)


def _peak_resident_mb(pid: int) -> int:
    with open(f"/proc/{pid}/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) // 1024
    raise AssertionError("no VmHWM")


def _wait_dead(pid: int, seconds: float = 5.0) -> None:
    """Until the process is gone or a zombie (a signal is delivered asynchronously)."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        try:
            with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
                if stat.read().rsplit(")", 1)[1].split()[0] in ("Z", "X"):
                    return
        except FileNotFoundError:
            return
        time.sleep(0.02)
    raise AssertionError(f"process {pid} did not die")


def _worker(engine: SQLEngine) -> Worker:
    """The engine's one worker (these tests ask one query at a time)."""
    pool = getattr(engine, "_pool", None)
    assert isinstance(pool, WorkerPool) and len(pool.workers) == 1
    return pool.workers[0]


def _copy(shop_files: dict[str, Path], base: Path) -> dict[str, Path]:
    """A copy of the shop: DuckDB refuses a second connection to a file this process holds
    with other settings (the memory limit), and the session engines hold the shop's."""
    (base / "ws").mkdir()
    duck = base / "ws" / shop_files["duckdb"].name
    shutil.copy(shop_files["duckdb"], duck)
    return {"duckdb": duck, "sqlite": shop_files["sqlite"]}


@pytest.fixture(scope="module")
def limited(
    shop_files: dict[str, Path], tmp_path_factory: pytest.TempPathFactory
) -> dict[str, SQLEngine]:
    files = _copy(shop_files, tmp_path_factory.mktemp("limited"))
    out = {kind: open_shop(kind, files, policy=POLICY) for kind in ("duckdb", "sqlite")}
    yield out  # type: ignore[misc]
    for engine in out.values():
        engine.close()


@pytest.mark.parametrize(("kind", "sql"), BLOW_UPS)
def test_one_call_is_stopped_in_time_and_memory(
    limited: dict[str, SQLEngine], kind: str, sql: str
) -> None:
    engine = limited[kind]
    assert engine.execute("SELECT count(*) AS n FROM orders").rows == ((2000,),)
    pid = _worker(engine).pid
    assert pid is not None
    start = time.monotonic()
    try:
        result = engine.execute(sql)
    except (QueryTimeout, ResourceLimitExceeded) as exc:
        assert "2000000000" not in str(exc) or "stopped" in str(exc)
    else:
        # SQLite builds whose printf fails its allocation softly under the memory limit
        # return NULL at once (seen with SQLite 3.40.1): stopped by the limit all the same
        assert kind == "sqlite" and result.rows == ((None,),), result.rows
    took = time.monotonic() - start
    assert took < POLICY.time_limit_ms / 1000 + 1.0, took
    if _worker(engine).pid == pid:  # the worker survived the error: it stayed in its limit
        assert _peak_resident_mb(pid) < MEMORY_MB + 400
    # the service keeps serving: the next query runs (in a new worker if the old one was killed)
    assert engine.execute("SELECT count(*) AS n FROM orders").rows == ((2000,),)


def test_a_killed_worker_is_replaced(limited: dict[str, SQLEngine]) -> None:
    """A worker that dies (killed at its limit, or by anything else) is replaced by the next
    query. Killed from outside here: which single call outlasts the limit without yielding
    depends on the SQLite build (printf of 900 MB did on one, failed softly on another)."""
    engine = limited["sqlite"]
    engine.execute("SELECT 1 AS one")
    first = _worker(engine).pid
    assert first is not None
    os.kill(first, signal.SIGKILL)
    _wait_dead(first)
    assert engine.execute("SELECT 1 AS one").rows == ((1,),)
    assert _worker(engine).pid not in (None, first)


@pytest.fixture
def own_files(shop_files: dict[str, Path], tmp_path: Path) -> dict[str, Path]:
    return _copy(shop_files, tmp_path)


@pytest.mark.parametrize("kind", ["duckdb", "sqlite"])
def test_result_bytes_are_capped(own_files: dict[str, Path], kind: str) -> None:
    """A row cap alone lets one cell carry the table: string_agg packs every order in one."""
    small = ExecutionPolicy(max_result_bytes=2000, time_limit_ms=5000)
    packed = (
        "SELECT string_agg(CAST(id AS VARCHAR) || region, ',') AS s FROM orders"
        if kind == "duckdb"
        else "SELECT group_concat(CAST(id AS TEXT) || region, ',') AS s FROM orders"
    )
    with open_shop(kind, own_files, policy=small) as engine:
        with pytest.raises(ResourceLimitExceeded, match="larger than 2000 bytes"):
            engine.execute(packed)
        assert engine.execute("SELECT count(*) AS n FROM orders").rows == ((2000,),)


@pytest.mark.parametrize("kind", ["duckdb", "sqlite"])
def test_isolation_off_runs_in_process(own_files: dict[str, Path], kind: str) -> None:
    policy = ExecutionPolicy(isolated=False)
    with open_shop(kind, own_files, policy=policy) as engine:
        assert isinstance(engine, DuckDBEngine | SQLiteEngine)
        assert engine.execute("SELECT count(*) AS n FROM orders").rows == ((2000,),)
        assert engine._pool is None


def test_an_engine_dropped_unclosed_stops_its_worker(own_files: dict[str, Path]) -> None:
    engine = open_shop("sqlite", own_files)
    pid = _worker(engine).pid
    assert pid is not None and Path(f"/proc/{pid}").exists()
    del engine
    gc.collect()
    assert not Path(f"/proc/{pid}").exists()


@pytest.mark.parametrize("kind", ["duckdb", "sqlite"])
def test_overlapping_queries_start_a_second_worker_one_at_a_time_never(
    own_files: dict[str, Path], kind: str
) -> None:
    """Queries asked one after another keep to the first worker; queries that overlap (a
    server's requests) get a second process, up to ``workers`` (issue 31)."""
    policy = ExecutionPolicy(workers=2, time_limit_ms=20_000)
    slow = "SELECT count(*) AS n FROM orders a, orders b WHERE a.id + b.id < 1000"
    with open_shop(kind, own_files, policy=policy) as engine:
        for _ in range(3):
            assert engine.execute("SELECT count(*) AS n FROM orders").rows == ((2000,),)
        pool = getattr(engine, "_pool", None)
        assert isinstance(pool, WorkerPool) and len(pool.workers) == 1
        with ThreadPoolExecutor(4) as threads:
            results = list(threads.map(lambda _: engine.execute(slow).rows, range(8)))
        assert len(set(results)) == 1
        until = time.monotonic() + 60  # the second starts off the asking threads
        while len(pool.workers) < 2 and time.monotonic() < until:
            time.sleep(0.05)
        pids = {w.pid for w in pool.workers}
        assert len(pool.workers) == 2 and None not in pids and len(pids) == 2
    for pid in pids:
        assert pid is not None
        _wait_dead(pid)
