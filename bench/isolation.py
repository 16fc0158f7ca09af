"""Per-query cost of the worker process (issue 21): small queries in process vs isolated.

Builds a small shop (2,000 orders, 50 customers) as a DuckDB workspace file and a SQLite file,
opens each engine twice in the same process (``isolated=False`` and ``isolated=True``), warms
both, then runs the same small queries alternately through each (``--queries`` per set-up,
through ``execute``: gate, engine, masking) and reports P50/P95 of the wall time. The worker's
start (a new interpreter opening the file) is timed separately: it is paid once per engine and
again after a query was killed.

Usage::

    .venv/bin/python bench/isolation.py --queries 200 --append bench/RESULTS.md
"""

from __future__ import annotations

import argparse
import os
import shutil
import sqlite3
import statistics
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

import duckdb

from tablerag.sql.engines import SQLEngine, open_engine
from tablerag.sql.policy import ExecutionPolicy
from tablerag.types import ColumnInfo, TableInfo

QUERIES = (
    "SELECT count(*) AS n FROM orders",
    "SELECT region, sum(amount) AS total FROM orders GROUP BY region ORDER BY region",
    "SELECT name, city FROM customers WHERE id = 7",
    "SELECT o.id, c.name FROM orders AS o JOIN customers AS c ON c.id = o.customer_id "
    "ORDER BY o.id LIMIT 20",
)
DDL = (
    "CREATE TABLE orders (id INTEGER, customer_id INTEGER, amount DOUBLE, region VARCHAR)",
    "CREATE TABLE customers (id INTEGER, name VARCHAR, city VARCHAR)",
)


def _fill(con: duckdb.DuckDBPyConnection | sqlite3.Connection) -> None:
    for ddl in DDL:
        con.execute(ddl)
    con.executemany(
        "INSERT INTO orders VALUES (?, ?, ?, ?)",
        [(i, i % 50 + 1, i % 97 * 1.5, ("north", "south", "east", "west")[i % 4]) for i in
         range(1, 2001)],
    )  # fmt: skip
    con.executemany(
        "INSERT INTO customers VALUES (?, ?, ?)",
        [(i, f"name_{i}", "Lyon" if i % 2 else "Oslo") for i in range(1, 51)],
    )


def build(base: Path) -> dict[str, Path]:
    """A workspace-shaped DuckDB file (schema ``data``) and a SQLite file of the shop."""
    (base / "ws").mkdir()
    duck = duckdb.connect(str(base / "ws" / "workspace.duckdb"))
    duck.execute("CREATE SCHEMA data; SET schema = 'data'")
    _fill(duck)
    duck.close()
    lite = sqlite3.connect(base / "shop.db")
    _fill(lite)
    lite.commit()
    lite.close()
    # a second copy of the DuckDB file: DuckDB refuses two connections with other settings
    (base / "ws2").mkdir()
    shutil.copy(base / "ws" / "workspace.duckdb", base / "ws2" / "workspace.duckdb")
    return {"duckdb": base / "ws", "duckdb2": base / "ws2", "sqlite": base / "shop.db"}


def catalog() -> list[TableInfo]:
    cols = {
        "orders": ("id", "customer_id", "amount", "region"),
        "customers": ("id", "name", "city"),
    }
    return [TableInfo(t, "b", tuple(ColumnInfo(c, "") for c in cs), 0) for t, cs in cols.items()]


def _open(target: Path, isolated: bool, sqlite: bool) -> SQLEngine:
    policy = ExecutionPolicy(isolated=isolated)
    url = f"sqlite:///{target}" if sqlite else target
    return open_engine(url, catalog=catalog(), policy=policy)


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def measure(files: dict[str, Path], n: int) -> list[tuple[str, str, float, float, float]]:
    """(engine, set-up, P50 ms, P95 ms, start ms) rows."""
    out = []
    for kind in ("duckdb", "sqlite"):
        sqlite = kind == "sqlite"
        local = _open(files[kind], False, sqlite)
        other = files["duckdb2"] if kind == "duckdb" else files[kind]
        isolated = _open(other, True, sqlite)
        start = time.perf_counter()
        isolated.execute(QUERIES[0])  # the worker starts here
        started = (time.perf_counter() - start) * 1000
        for engine in (local, isolated):  # warm both
            for sql in QUERIES:
                engine.execute(sql)
        times: dict[bool, list[float]] = {False: [], True: []}
        for i in range(n):
            sql = QUERIES[i % len(QUERIES)]
            for flag, engine in ((False, local), (True, isolated)):
                t = time.perf_counter()
                engine.execute(sql)
                times[flag].append((time.perf_counter() - t) * 1000)
        for flag in (False, True):
            label = "worker process" if flag else "in process"
            out.append(
                (kind, label, _pct(times[flag], 0.5), _pct(times[flag], 0.95), started if flag
                 else 0.0)
            )  # fmt: skip
        print(
            f"{kind}: median overhead "
            f"{statistics.median(times[True]) - statistics.median(times[False]):.2f} ms"
        )
        local.close()
        isolated.close()
    return out


def report(rows: list[tuple[str, str, float, float, float]], n: int) -> str:
    now = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    load = os.getloadavg()[0]
    lines = [
        f"## Worker-process isolation: per-query overhead (issue 21) — {now}",
        "",
        f"`bench/isolation.py --queries {n}`: the same {len(QUERIES)} small queries (count, "
        "group by, point lookup, join + LIMIT 20) through `execute` (gate, engine, masking), "
        "alternating between an engine in process and one with the worker, same process and "
        f"run; {n} queries each; duckdb {duckdb.__version__}; load average {load:.1f} on 2 "
        "shared cores.",
        "",
        "| engine | set-up | P50 ms | P95 ms | worker start ms |",
        "|---|---|---:|---:|---:|",
    ]
    for kind, label, p50, p95, started in rows:
        start = f"{started:.0f}" if started else "—"
        lines.append(f"| {kind} | {label} | {p50:.2f} | {p95:.2f} | {start} |")
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--append", type=Path, help="append the table to this markdown file")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        rows = measure(build(Path(tmp)), args.queries)
    text = report(rows, args.queries)
    print(text)
    if args.append:
        with args.append.open("a", encoding="utf-8") as out:
            out.write("\n" + text)


if __name__ == "__main__":
    main()
