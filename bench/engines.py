"""The four engines side by side: same answers, gate + execution overhead, the server's timeout.

The sample sales mart (``tablerag.sample.mart``, seed 7) is loaded into DuckDB, SQLite,
PostgreSQL and MariaDB; the servers are the tests' own throw-away loopback servers
(``tests/plugins/postgres.py``, ``tests/plugins/mariadb.py``), started by this script and read
through an account that can only SELECT. The demo's data questions (and two more over the same
tables) are answered with one gold SQL each, written once in PostgreSQL's dialect and transpiled by
sqlglot to each engine's; every query goes through the engine's ``execute`` (the gate, the
read-only connection, masking), so the figures are what an answer pays. No model is called:
this separates the dialect from the model.

Then a 10-million-row PostgreSQL table and a runaway self-join aggregate: the server's
``statement_timeout`` must stop it within the limit plus one second, and the engine answers the
next query.

Usage::

    .venv/bin/python bench/engines.py --repeat 30 --append bench/RESULTS.md
"""

from __future__ import annotations

import argparse
import re
import signal
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import ExitStack, contextmanager
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

import duckdb
import sqlglot

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the tests' server fixtures

from tests.plugins import mariadb, postgres  # noqa: E402

from tablerag.errors import QueryTimeout  # noqa: E402
from tablerag.sample.mart import Table, build_mart  # noqa: E402
from tablerag.sql.engines import SQLEngine, open_engine  # noqa: E402
from tablerag.sql.policy import ExecutionPolicy  # noqa: E402
from tablerag.sql.sensitive import is_sensitive_column  # noqa: E402
from tablerag.sql.validate import check  # noqa: E402
from tablerag.types import ColumnInfo  # noqa: E402

ENGINES = ("duckdb", "sqlite", "postgres", "mysql")
QUESTIONS: tuple[tuple[str, str], ...] = (
    (
        "上月华东的毛利是多少？",
        "SELECT round(sum(s.net_amt) - sum(s.cost_amt) / 100.0, 2) AS gross_profit "
        "FROM fact_sales AS s JOIN dim_region AS r ON r.region_code = s.region_code "
        "WHERE s.status = 'PAID' AND s.stat_month IN ('2026-10', '202610') "
        "AND (r.parent_code = 'EAST' OR r.region_code = 'EAST')",
    ),
    (
        "How many orders were paid in 2026-09?",
        "SELECT count(DISTINCT order_id) AS orders FROM fact_sales "
        "WHERE status = 'PAID' AND stat_month IN ('2026-09', '202609')",
    ),
    (
        "退货率超过10%的商品 (the hybrid question's data part)",
        "SELECT product_name, refund_rate FROM (SELECT p.product_name, round(100.0 * "
        "count(DISTINCT CASE WHEN s.status = 'REFUND' THEN s.order_id END) / "
        "count(DISTINCT CASE WHEN s.status IN ('PAID', 'REFUND') THEN s.order_id END), 2) "
        "AS refund_rate FROM fact_sales AS s JOIN dim_product AS p "
        "ON p.product_code = s.product_code GROUP BY p.product_name) AS t "
        "WHERE refund_rate > 10 ORDER BY refund_rate DESC, product_name",
    ),
    (
        "上月各大区的销售额",
        "SELECT coalesce(r.parent_code, r.region_code) AS top_region, round(sum(s.net_amt), 2) "
        "AS net FROM fact_sales AS s JOIN dim_region AS r ON r.region_code = s.region_code "
        "WHERE s.status = 'PAID' AND s.stat_month IN ('2026-10', '202610') "
        "GROUP BY coalesce(r.parent_code, r.region_code) ORDER BY top_region",
    ),
    (
        "各品类的客单价",
        "SELECT c.category_name, round(sum(s.net_amt) / count(DISTINCT s.order_id), 2) AS aov "
        "FROM fact_sales AS s JOIN dim_product AS p ON p.product_code = s.product_code "
        "JOIN dim_category AS c ON c.category_code = p.category_code WHERE s.status = 'PAID' "
        "GROUP BY c.category_name ORDER BY c.category_name",
    ),
)
"""(question, gold SQL in PostgreSQL's dialect; sqlglot writes it in each engine's)."""

READER = "tr_bench"
RUNAWAY = "SELECT sum(a.v * b.v) AS s FROM big AS a JOIN big AS b ON a.k = b.k"
_MONEY = re.compile(r"^-?\d+\.\d{2}$")


# --------------------------------------------------------------------------- loading


def column_types(table: Table) -> list[str]:
    """A portable SQL type per column: BIGINT, DECIMAL(14, 2) for 元 amounts, else VARCHAR."""
    out = []
    for i, _ in enumerate(table.columns):
        values = [r[i] for r in table.rows if r[i] is not None]
        if values and all(isinstance(v, int) for v in values):
            out.append("BIGINT")
        elif values and all(isinstance(v, str) and _MONEY.match(v) for v in values):
            out.append("DECIMAL(14, 2)")
        else:
            out.append("VARCHAR(255)")
    return out


def ddl(table: Table, quote: str = '"') -> str:
    cols = ", ".join(
        f"{quote}{c}{quote} {t}" for c, t in zip(table.columns, column_types(table), strict=True)
    )
    return f"CREATE TABLE {table.name} ({cols})"


def load(
    tables: Sequence[Table],
    execute: Callable[[str], Any],
    insert_many: Callable[[str, list[tuple[Any, ...]]], Any],
    mark: str,
    quote: str = '"',
) -> None:
    for table in tables:
        execute(ddl(table, quote))
        marks = ", ".join([mark] * len(table.columns))
        insert_many(f"INSERT INTO {table.name} VALUES ({marks})", list(table.rows))


def readable(table: Table) -> str:
    """The columns the reader account may SELECT: all but those tablerag hides (by name)."""
    types = column_types(table)
    kept = [
        c
        for i, c in enumerate(table.columns)
        if not is_sensitive_column(ColumnInfo(c, types[i], samples=sample(table, i)))
    ]
    return ", ".join(kept)


def sample(table: Table, i: int) -> tuple[str, ...]:
    return tuple(str(r[i]) for r in table.rows[:20] if r[i] is not None)


@contextmanager
def mart_engines(
    tables: Sequence[Table], base: Path
) -> Iterator[tuple[dict[str, SQLEngine], postgres.PostgresServer]]:
    """The mart on the four engines, each opened read-only as an application would (and the
    PostgreSQL server, for the big table)."""
    with ExitStack() as stack:
        duck = base / "mart.duckdb"
        con = duckdb.connect(str(duck))
        load(tables, con.execute, con.executemany, "?")
        con.close()
        lite = base / "mart.db"
        scon = sqlite3.connect(lite)
        load(tables, scon.execute, scon.executemany, "?")
        scon.commit()
        scon.close()
        pg = stack.enter_context(postgres.running_server())
        with pg.connect() as admin:
            admin.execute("CREATE DATABASE mart")
            admin.execute(f"CREATE ROLE {READER} LOGIN")
        with pg.connect("mart") as pcon, pcon.cursor() as cur:
            load(tables, cur.execute, cur.executemany, "%s")
            for table in tables:  # hidden columns (dim_employee.mobile) are not granted
                cur.execute(f"GRANT SELECT ({readable(table)}) ON {table.name} TO {READER}")
            cur.execute("REVOKE CREATE ON SCHEMA public FROM PUBLIC")
            cur.execute("REVOKE CREATE, TEMPORARY ON DATABASE mart FROM PUBLIC")
        my = stack.enter_context(mariadb.running_server())
        my.execute(
            "CREATE DATABASE mart", f"CREATE USER '{READER}'@'%'"
        )  # fmt: skip
        mcon = my.connect("mart")
        with mcon.cursor() as mcur:
            load(tables, mcur.execute, mcur.executemany, "%s", quote="`")
            for table in tables:
                mcur.execute(
                    f"GRANT SELECT ({readable(table)}) ON mart.{table.name} TO '{READER}'@'%'"
                )
        mcon.close()
        engines = {
            "duckdb": open_engine(f"duckdb:///{duck}"),
            "sqlite": open_engine(f"sqlite:///{lite}"),
            "postgres": open_engine(pg.url("mart").replace(f"{pg.user}@", f"{READER}@")),
            "mysql": open_engine(my.url("mart", user=READER)),
        }
        for engine in engines.values():
            stack.callback(engine.close)
        yield engines, pg


# --------------------------------------------------------------------------- measuring


def normalized(rows: Sequence[Sequence[Any]]) -> list[tuple[Any, ...]]:
    """Rows with fractions as rounded floats, so 12.30 (Decimal) equals 12.3 (float)."""
    out = []
    for row in rows:
        out.append(tuple(round(float(v), 2) if isinstance(v, float | Decimal) else v for v in row))
    return out


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def measure(engine: SQLEngine, sql: str, repeat: int) -> tuple[list[float], list[float]]:
    """Milliseconds of the gate alone and of the whole execute (gate, run, mask) per repeat."""
    gate_ms, total_ms = [], []
    policy = engine.policy
    for i in range(repeat + 3):
        t0 = time.perf_counter()
        check(sql, dialect=engine.dialect, catalog=engine.catalog, policy=policy)
        t1 = time.perf_counter()
        engine.execute(sql)
        t2 = time.perf_counter()
        if i >= 3:  # warm-up: the first runs fill caches (sqlglot, the server's plans)
            gate_ms.append((t1 - t0) * 1000)
            total_ms.append((t2 - t1) * 1000)
    return gate_ms, total_ms


def runaway(pg: postgres.PostgresServer, rows: int, limit_ms: int, runs: int) -> list[str]:
    """Load ``big`` (``rows`` rows) and time the server's stop of a runaway aggregate."""
    t0 = time.perf_counter()
    with pg.connect("mart") as con:
        con.execute("CREATE TABLE big (id bigint, k int, v double precision)")
        con.execute(
            f"INSERT INTO big SELECT g, g % 1000, (g % 997) / 997.0 "
            f"FROM generate_series(1, {rows}) AS g"
        )
        con.execute("ANALYZE big")
        con.execute(f"GRANT SELECT ON big TO {READER}")
    load_s = time.perf_counter() - t0
    lines = [f"- loaded `big` ({rows:,} rows) in {load_s:.1f} s", ""]
    lines += ["| run | limit (ms) | stopped after (ms) | within limit + 1 s | next query |"]
    lines += ["|---|---|---|---|---|"]
    url = pg.url("mart").replace(f"{pg.user}@", f"{READER}@")
    policy = ExecutionPolicy(time_limit_ms=limit_ms)
    with open_engine(url, policy=policy) as engine:
        for run in range(1, runs + 1):
            start = time.perf_counter()
            try:
                engine.execute(RUNAWAY)
                outcome = "finished"
            except QueryTimeout:
                outcome = "stopped"
            elapsed = (time.perf_counter() - start) * 1000
            after = engine.execute("SELECT count(*) AS n FROM dim_region").rows[0][0]
            ok = outcome == "stopped" and elapsed < limit_ms + 1000
            lines.append(
                f"| {run} | {limit_ms} | {elapsed:.0f} ({outcome}) | {'yes' if ok else 'NO'} | "
                f"answered ({after} rows) |"
            )
    return lines


# --------------------------------------------------------------------------- report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=30, help="timed runs per question/engine")
    parser.add_argument("--limit-ms", type=int, default=2000, help="runaway time limit")
    parser.add_argument("--runs", type=int, default=3, help="runaway runs")
    parser.add_argument("--big-rows", type=int, default=10_000_000, help="rows of the big table")
    parser.add_argument("--append", type=Path, help="append the summary to this markdown file")
    args = parser.parse_args()
    # stopped with SIGTERM: unwind, so the servers started here are stopped and deleted
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))

    mart = build_mart(7)
    lines: list[str] = []
    with (
        tempfile.TemporaryDirectory() as tmp,
        mart_engines(mart.tables, Path(tmp)) as (engines, pg),
    ):
        answers: dict[str, dict[str, list[tuple[Any, ...]]]] = {}
        gate: dict[str, list[float]] = {e: [] for e in ENGINES}
        total: dict[str, list[float]] = {e: [] for e in ENGINES}
        for question, gold in QUESTIONS:
            answers[question] = {}
            for kind in ENGINES:
                engine = engines[kind]
                sql = sqlglot.transpile(gold, read="postgres", write=engine.dialect)[0]
                answers[question][kind] = normalized(engine.execute(sql).rows)
                g, t = measure(engine, sql, args.repeat)
                gate[kind] += g
                total[kind] += t
        lines += ["| question | answer (DuckDB) | same on " + ", ".join(ENGINES[1:]) + " |"]
        lines += ["|---|---|---|"]
        for question, by_engine in answers.items():
            first = by_engine["duckdb"]
            same = all(by_engine[k] == first for k in ENGINES)
            shown = "; ".join(", ".join(str(v) for v in row) for row in first[:4])
            shown += " …" if len(first) > 4 else ""
            verdict = "yes" if same else "NO: " + repr({k: v[:2] for k, v in by_engine.items()})
            lines.append(f"| {question} | {shown} | {verdict} |")
        east = mart.paid_net_fen[("EAST", "2026-10")] / 100
        got = dict(answers["上月各大区的销售额"]["duckdb"])
        lines += ["", f"Cross-check: 2026-10 net of 华东 {got.get('EAST')} = mart figure {east}."]
        lines += ["", "| engine | gate P50 | gate P95 | gate + run + mask P50 | P95 | queries |"]
        lines += ["|---|---|---|---|---|---|"]
        for kind in ENGINES:
            g, t = gate[kind], total[kind]
            lines.append(
                f"| {kind} | {statistics.median(g):.2f} | {percentile(g, 0.95):.2f} | "
                f"{statistics.median(t):.2f} | {percentile(t, 0.95):.2f} | {len(t)} |"
            )
        lines += ["", f"Runaway aggregate on PostgreSQL: `{RUNAWAY}`", ""]
        lines += runaway(pg, args.big_rows, args.limit_ms, args.runs)
    text = "\n".join(lines)
    print(text)
    if args.append:
        stamp = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
        head = (
            f"\n## Engines side by side: DuckDB, SQLite, PostgreSQL, MariaDB (issue 22) — {stamp}\n"
        )
        cmd = (
            f"\n`.venv/bin/python bench/engines.py --repeat {args.repeat} --limit-ms "
            f"{args.limit_ms} --runs {args.runs} --big-rows {args.big_rows} --append "
            f"{args.append}` (times in ms, per query "
            "of generated SQL through `SQLEngine.execute`; loopback servers started by the "
            "script, read as an account that can only SELECT; 2 shared cores).\n\n"
        )
        with args.append.open("a", encoding="utf-8") as out:
            out.write(head + cmd + text + "\n")


if __name__ == "__main__":
    main()
