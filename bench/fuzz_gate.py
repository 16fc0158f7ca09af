"""A time-boxed fuzzing campaign of the SQL gate and the engines, per engine (issues 21, 28).

Queries come from the hypothesis strategy of ``tests/sql/fuzz.py``: over the canary ``customers``
table of ``tests/plugins/canary.py`` (hidden columns by name, by content and flagged by a
descriptions file, canary strings and integers in every one of them, a canary in tablerag's own
schema), with table aliases with column lists, positional references, ``*``/``COLUMNS(*)``,
nested and derived subqueries, set operations, lateral joins, structs/lists/JSON, casts,
aggregates, HAVING and ORDER BY, CTEs named like the table, and identifiers mutated (case,
quoting, the Kelvin sign, ``ſ``, fullwidth letters, Cyrillic ``о``, zero-width characters).
Each runs through the engine's ``execute`` (gate, read-only connection, limits, masking) on
each setup of :data:`ENGINES`. Counted: queries tried, refused by the gate, failed cleanly in
the engine, ran; and the defects: canary leaks, crashes (an exception that is not a tablerag
error), limit overruns (more rows than the cap, or longer than the limit plus 1 s - a slow
query is run again and counts only when slow again; "slow once" counts the others, the noise
of a shared machine). Targets: 0, 0, 0.

Usage::

    .venv/bin/python bench/fuzz_gate.py --seconds 60 --append bench/RESULTS.md
"""

from __future__ import annotations

import argparse
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager, suppress
from datetime import UTC, datetime
from pathlib import Path

from hypothesis import HealthCheck, Phase, given, seed, settings

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the tests' fixtures and fuzzer

from tests.plugins import mariadb, postgres  # noqa: E402
from tests.plugins.canary import canary_kit  # noqa: E402
from tests.sql.fuzz import (  # noqa: E402
    DEFECTS,
    POLICY,
    SLOW_ONCE,
    Outcome,
    campaign_summary,
    duckdb_workspace,
    mariadb_database,
    postgres_database,
    queries,
    sqlite_file,
    try_query,
)
from tests.sql.gate_setups import (  # noqa: E402
    duckdb_file,
    mariadb_gate_only,
    postgres_gate_only,
)

from tablerag.sql.engines import SQLEngine  # noqa: E402

ENGINES = (
    "duckdb", "duckdb-file", "sqlite", "postgres", "postgres-gate", "mysql", "mysql-gate",
)  # fmt: skip
"""Setups: a DuckDB workspace and a DuckDB file queried in place, a SQLite file, PostgreSQL and
MariaDB with column GRANTs (the documented setups) and with the gate alone (``-gate``: a role
that reads every column, ``allow_readable_hidden_columns``)."""


class _TimeUp(Exception):
    """The campaign's time box is over."""


def campaign(engine: SQLEngine, dialect: str, seconds: float, at: int) -> list[Outcome]:
    """Fuzzed queries run on ``engine`` for ``seconds`` (random seed ``at``); every outcome."""
    outcomes: list[Outcome] = []
    deadline = time.monotonic() + seconds

    @settings(
        max_examples=10**7,
        database=None,
        deadline=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @seed(at)
    @given(queries(dialect))
    def one(sql: str) -> None:
        if time.monotonic() > deadline:
            raise _TimeUp
        outcomes.append(try_query(engine, sql))

    with suppress(_TimeUp):
        one()
    return outcomes


@contextmanager
def engines(base: Path, kinds: tuple[str, ...]) -> Iterator[dict[str, Callable[[], SQLEngine]]]:
    """Openers of the canary engines (PostgreSQL's server started only when asked for)."""
    with ExitStack() as stack:
        out: dict[str, Callable[[], SQLEngine]] = {
            "duckdb": lambda: duckdb_workspace(base / "duckdb", canary_kit()),
            "sqlite": lambda: sqlite_file(base, canary_kit()),
        }
        out["duckdb-file"] = lambda: duckdb_file(base / "file", canary_kit())
        if any(k.startswith("postgres") for k in kinds):
            pg = stack.enter_context(postgres.running_server())
            url = pg.url("postgres")
            out["postgres"] = lambda: postgres_database(url, canary_kit(), "fuzz_canary")
            out["postgres-gate"] = lambda: postgres_gate_only(url, canary_kit(), "fuzz_gate")
        if any(k.startswith("mysql") for k in kinds):
            my = stack.enter_context(mariadb.running_server())
            out["mysql"] = lambda: mariadb_database(my, canary_kit(), "fuzz_canary")
            out["mysql-gate"] = lambda: mariadb_gate_only(my, canary_kit(), "fuzz_gate")
        yield out


def commit() -> str:
    try:
        run = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=True
        )
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return run.stdout.strip()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=60, help="time box per engine")
    parser.add_argument("--engines", default=",".join(ENGINES), help="comma-separated engines")
    parser.add_argument("--seed", type=int, default=21, help="hypothesis seed")
    parser.add_argument("--append", type=Path, help="append the summary to this markdown file")
    args = parser.parse_args()
    kinds = tuple(k for k in args.engines.split(",") if k)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # unwind: stop the server

    rows, defects = [], []
    with tempfile.TemporaryDirectory() as tmp, engines(Path(tmp), kinds) as openers:
        for kind in kinds:
            engine = openers[kind]()
            started = time.perf_counter()
            outcomes = campaign(engine, kind.split("-")[0], args.seconds, args.seed)
            took = time.perf_counter() - started
            engine.close()
            counts = campaign_summary(outcomes)
            slow = sum(o.detail.startswith(SLOW_ONCE) for o in outcomes)
            rows.append(
                f"| {kind} | {len(outcomes)} | {counts['rejected']} | {counts['failed']} | "
                f"{counts['ran']} | {counts['leak']} | {counts['crash']} | {counts['overrun']} | "
                f"{slow} | {took:.0f} |"
            )
            defects += [f"- {kind} {o.kind}: `{o.sql}` — {o.detail}" for o in outcomes
                        if o.kind in DEFECTS][:10]  # fmt: skip
            print(rows[-1], flush=True)
    lines = [
        "| engine | queries tried | refused by the gate | failed in the engine | ran "
        "| canary leaks | crashes | limit overruns | slow once, not again | seconds |",
        "|---|---|---|---|---|---|---|---|---|---|",
        *rows,
    ]
    lines += ["", "Defects:" if defects else "No defect found.", *defects]
    text = "\n".join(lines)
    print(text)
    if args.append:
        stamp = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
        head = f"\n## Gate fuzzing over the canary catalogs (issue 21) — {stamp}\n"
        cmd = (
            f"\n`.venv/bin/python bench/fuzz_gate.py --seconds {args.seconds:g} --engines "
            f"{','.join(kinds)} --seed {args.seed} --append {args.append}` at {commit()} "
            f"(hypothesis, generate phase only; limits {POLICY.max_rows} rows, "
            f"{POLICY.time_limit_ms} ms (+1 s grace); 2 shared cores).\n\n"
        )
        with args.append.open("a", encoding="utf-8") as out:
            out.write(head + cmd + text + "\n")


if __name__ == "__main__":
    main()
