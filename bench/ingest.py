"""Benchmark: ingest a clean 1,000,000-row CSV, tablerag vs DuckDB's bare read_csv.

Usage: .venv/bin/python bench/ingest.py [--rows N] [--repeat K] [--no-record]
       valgrind --tool=callgrind --dump-before=os_getppid --callgrind-out-file=cg.out \
           .venv/bin/python bench/ingest.py --rows 200000 --csv /tmp/b.csv --callgrind tablerag

Generates a CSV (ids, text, decimals, dates, a thousands-separated amount, a percent) in a temp
folder, then times, in the same process and on fresh in-memory connections:

* DuckDB alone: ``CREATE TABLE t AS SELECT * FROM read_csv('file')`` (its own type detection);
* tablerag: ``read_csv`` (stage) + ``store_table`` (infer types in SQL, convert, store).

Runs alternate (DuckDB, tablerag, DuckDB, ...) so both see the same load on a shared machine;
prints rows/s, wall and CPU seconds (medians of K runs) and the ratios, and appends a summary to
``bench/RESULTS.md``. The target is a ratio of at most 2.

Wall time is noisy on a shared machine; instruction counts are not. ``--callgrind READER`` runs
one reader once, on one DuckDB thread, between two ``os.getppid()`` calls (nothing else calls
it): under callgrind with ``--dump-before=os_getppid`` the dump ``cg.out.2`` counts exactly
that reader (Python start-up, imports and writing the CSV fall in ``cg.out.1``).
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

import duckdb

from tablerag.ingest.store import store_table
from tablerag.ingest.tables import read_csv

RESULTS = Path(__file__).with_name("RESULTS.md")
WORDS = ("alpha", "beta", "gamma", "delta", "华东", "华南", "north", "south", "east", "west")


def write_csv(path: Path, rows: int, seed: int = 7) -> None:
    """Write the benchmark CSV: id, name, price, day, amount ("1,234.50"), share ("12.5%")."""
    rng = random.Random(seed)
    start = dt.date(2020, 1, 1)
    with path.open("w", encoding="utf-8", newline="") as handle:
        handle.write("id,name,price,day,amount,share\n")
        lines = []
        for i in range(1, rows + 1):
            amount = rng.randint(0, 9_999_999) / 100
            lines.append(
                f"{i},{rng.choice(WORDS)} {rng.randint(1, 999)},{rng.randint(1, 99_999) / 100},"
                f'{start + dt.timedelta(days=rng.randint(0, 2500))},"{amount:,.2f}",'
                f"{rng.randint(0, 1000) / 10}%\n"
            )
            if len(lines) == 50_000:
                handle.writelines(lines)
                lines.clear()
        handle.writelines(lines)


Timing = tuple[float, float]  # (wall seconds, CPU seconds of this process)


def time_duckdb(path: Path) -> Timing:
    """Wall and CPU seconds for DuckDB's own CREATE TABLE AS SELECT * FROM read_csv(...)."""
    con = duckdb.connect()
    wall, cpu = time.perf_counter(), time.process_time()
    con.execute("CREATE TABLE t AS SELECT * FROM read_csv(?)", [str(path)])
    elapsed = time.perf_counter() - wall, time.process_time() - cpu
    con.close()
    return elapsed


def time_tablerag(path: Path) -> Timing:
    """Wall and CPU seconds for tablerag's read_csv + store_table (stage, type, store)."""
    con = duckdb.connect()
    wall, cpu = time.perf_counter(), time.process_time()
    con.execute("BEGIN")
    (staged,) = read_csv(path, con)
    info = store_table(con, staged, "t")
    con.execute("COMMIT")
    elapsed = time.perf_counter() - wall, time.process_time() - cpu
    assert info.row_count == staged.rows_read, (info.row_count, staged.rows_read)
    types = {c.name: c.type for c in info.columns}
    assert types["amount"].startswith("DECIMAL") and types["day"] == "DATE", types
    assert types["share"].startswith("DECIMAL") and types["id"] == "BIGINT", types
    con.close()
    return elapsed


def run_once(path: Path, reader: str) -> None:
    """Run one reader once on one DuckDB thread, between two ``os.getppid()`` marks."""
    con = duckdb.connect()
    con.execute("SET threads = 1")
    os.getppid()
    if reader == "duckdb":
        con.execute("CREATE TABLE t AS SELECT * FROM read_csv(?)", [str(path)])
    else:
        con.execute("BEGIN")
        (staged,) = read_csv(path, con)
        store_table(con, staged, "t")
        con.execute("COMMIT")
    os.getppid()
    con.close()


def medians(path: Path, repeat: int) -> tuple[Timing, Timing]:
    """Median timings of both readers, run alternately so both see the same machine load."""
    duck: list[Timing] = []
    ours: list[Timing] = []
    for _ in range(repeat):
        duck.append(time_duckdb(path))
        ours.append(time_tablerag(path))

    def median(runs: list[Timing]) -> Timing:
        return statistics.median(r[0] for r in runs), statistics.median(r[1] for r in runs)

    return median(duck), median(ours)


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark, print the table, append to RESULTS.md."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--no-record", action="store_true", help="do not append to RESULTS.md")
    parser.add_argument(
        "--callgrind",
        choices=("duckdb", "tablerag"),
        help="run this reader once on one thread between os.getppid() marks (see above)",
    )
    parser.add_argument("--csv", type=Path, help="the CSV to use (written first if missing)")
    args = parser.parse_args(argv)
    if args.callgrind:
        path = args.csv or Path(tempfile.gettempdir()) / f"tablerag-bench-{args.rows}.csv"
        if not path.exists():
            write_csv(path, args.rows)
        run_once(path, args.callgrind)
        return 0
    with tempfile.TemporaryDirectory(prefix="tablerag-bench-") as folder:
        path = Path(folder) / "bench.csv"
        write_csv(path, args.rows)
        size_mb = path.stat().st_size / 1e6
        (duck, duck_cpu), (ours, ours_cpu) = medians(path, args.repeat)
    ratio, cpu_ratio = ours / duck, ours_cpu / duck_cpu
    print(f"CSV: {args.rows:,} rows, {size_mb:.1f} MB, median of {args.repeat} alternating runs")
    print(f"{'reader':<34}{'seconds':>10}{'rows/s':>14}{'cpu s':>10}")
    print(
        f"{'duckdb CREATE TABLE AS read_csv':<34}{duck:>10.3f}{args.rows / duck:>14,.0f}"
        f"{duck_cpu:>10.3f}"
    )
    print(
        f"{'tablerag read_csv + store_table':<34}{ours:>10.3f}{args.rows / ours:>14,.0f}"
        f"{ours_cpu:>10.3f}"
    )
    print(f"ratio tablerag/duckdb: {ratio:.2f} wall, {cpu_ratio:.2f} CPU (target <= 2.00)")
    if not args.no_record:
        record(args, (duck, duck_cpu), (ours, ours_cpu))
    return 0


def record(args: argparse.Namespace, duck: Timing, ours: Timing) -> None:
    """Append one summary section to bench/RESULTS.md."""
    if not RESULTS.exists():
        RESULTS.write_text("# Benchmark results\n", encoding="utf-8")
    command = "python bench/ingest.py" + (f" --rows {args.rows}" if args.rows != 1_000_000 else "")
    load = os.getloadavg()[0]
    with RESULTS.open("a", encoding="utf-8") as handle:
        handle.write(
            f"\n## CSV ingest — {dt.datetime.now().isoformat(timespec='minutes')}\n\n"
            f"`{command}` (median of {args.repeat} alternating runs; duckdb {duckdb.__version__}; "
            f"python {sys.version.split()[0]}; {os.cpu_count()} cores, load average {load:.1f})"
            "\n\n| reader | rows | wall s | rows/s | CPU s |\n|---|---:|---:|---:|---:|\n"
            f"| duckdb `CREATE TABLE AS SELECT * FROM read_csv` | {args.rows:,} | {duck[0]:.3f} | "
            f"{args.rows / duck[0]:,.0f} | {duck[1]:.3f} |\n"
            f"| tablerag `read_csv` + `store_table` | {args.rows:,} | {ours[0]:.3f} | "
            f"{args.rows / ours[0]:,.0f} | {ours[1]:.3f} |\n\n"
            f"Ratio tablerag/duckdb: **{ours[0] / duck[0]:.2f}** wall, {ours[1] / duck[1]:.2f} CPU "
            "(target ≤ 2).\n"
        )


if __name__ == "__main__":
    raise SystemExit(main())
