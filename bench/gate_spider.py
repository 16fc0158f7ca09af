"""Run every gold query of Spider and CHASE through the SQL gate; count false positives.

Every gold query is benign, so every rejection is a false positive. The catalogs come from each
dataset's ``tables.json``; the dialect is SQLite (the datasets' engine). Sensitive-column hiding is
off for the false-positive count (those columns are a deliberate policy, not a gate error); the
number of queries that would read an auto-hidden column is reported separately.

Usage:
    .venv/bin/python bench/gate_spider.py --path ../shared/bench/spider \
        --path ../shared/bench/chase
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import sys
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import sqlglot

from tablerag.sql.exposed import ExposedCatalog
from tablerag.sql.policy import ExecutionPolicy
from tablerag.sql.rewrite import ADDED, order_unordered, render
from tablerag.sql.validate import check, validate
from tablerag.types import ColumnInfo, TableInfo


def catalogs(path: Path) -> dict[str, list[TableInfo]]:
    """``db_id`` -> catalog, from a Spider-format ``tables.json``."""
    out: dict[str, list[TableInfo]] = {}
    for db in json.loads((path / "tables.json").read_text(encoding="utf-8")):
        names = db["table_names_original"]
        cols: dict[int, list[ColumnInfo]] = {i: [] for i in range(len(names))}
        for (table_idx, col), typ in zip(
            db["column_names_original"], db["column_types"], strict=True
        ):
            if table_idx >= 0:
                cols[table_idx].append(ColumnInfo(col, typ))
        out[db["db_id"]] = [
            TableInfo(name, "tables.json", tuple(cols[i]), 0) for i, name in enumerate(names)
        ]
    return out


def gold_queries(path: Path) -> Iterator[tuple[str, str, str]]:
    """(file, db_id, sql) for every gold query under ``path`` (Spider or CHASE layout)."""
    for f in sorted(path.glob("*.json")):
        if f.name == "tables.json":
            continue
        for record in json.loads(f.read_text(encoding="utf-8")):
            if "interaction" in record:
                for turn in record["interaction"]:
                    yield f.name, record["database_id"], turn["query"]
            elif "query" in record:
                yield f.name, record["db_id"], record["query"]


def same_result(path: Path, db: str, sql: str, catalog: ExposedCatalog) -> str | None:
    """Run the gold SQL and the gate's rewrite on the dataset's SQLite file: "same_rows",
    "DIFFERENT_rows", "unordered_limit" (a LIMIT without ORDER BY now picks its rows by the
    output columns: the same number of rows, which ones the gold left to the engine), or None
    when there is no file or the gold query does not run."""
    file = path / "database" / db / f"{db}.sqlite"
    if not file.is_file():
        return None
    gated = check(sql, dialect="sqlite", catalog=catalog, policy=ExecutionPolicy(max_rows=10**6))
    # what the engines run: sorted by the output columns when the query has no ORDER BY
    ordered, how = order_unordered(sqlglot.parse_one(gated, read="sqlite"), "sqlite")
    picked = how == ADDED and ordered.args.get("limit") is not None
    if how == ADDED:
        gated = render(ordered, "sqlite")
    con = sqlite3.connect(f"{file.resolve().as_uri()}?mode=ro", uri=True)
    con.text_factory = lambda b: b.decode(errors="replace")
    try:
        before = sorted(map(repr, con.execute(sql).fetchall()))
        after = sorted(map(repr, con.execute(gated).fetchall()))
    except sqlite3.Error:
        return None  # the gold query itself does not run on this file
    finally:
        con.close()
    if before == after:
        return "same_rows"
    if picked and len(before) == len(after):
        return "unordered_limit"
    return "DIFFERENT_rows"


def main(argv: list[str] | None = None) -> int:
    """Print per-dataset counts and every false positive; exit 1 if there is any."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--path", action="append", type=Path, required=True)
    parser.add_argument("--show", type=int, default=30, help="false positives to print")
    parser.add_argument(
        "--execute", action="store_true", help="also check the rewrite returns the same rows"
    )
    args = parser.parse_args(argv)
    total_fp = 0
    for path in args.path:
        cats = catalogs(path)
        plain = {k: ExposedCatalog.from_tables(v, hide_sensitive=False) for k, v in cats.items()}
        hiding = {k: ExposedCatalog.from_tables(v) for k, v in cats.items()}
        counts: Counter[str] = Counter()
        codes: Counter[str] = Counter()
        start = time.perf_counter()
        for fname, db, sql in gold_queries(path):
            counts["queries"] += 1
            issues = validate(sql, dialect="sqlite", catalog=plain[db])
            if issues:
                counts["false_positives"] += 1
                codes.update(i.code for i in issues)
                if counts["false_positives"] <= args.show:
                    print(f"FP {fname} {db}: {sql}\n   -> {[i.message for i in issues]}")
                continue
            if args.execute:
                same = same_result(path, db, sql, plain[db])
                counts[same or "not_run"] += 1
                if same == "DIFFERENT_rows":
                    print(f"DIFF {db}: {sql}")
            hidden = validate(sql, dialect="sqlite", catalog=hiding[db])
            if any(i.code in {"sensitive_column", "star_over_sensitive"} for i in hidden):
                counts["reads_auto_hidden_column"] += 1
        ms = (time.perf_counter() - start) * 1000 / max(counts["queries"], 1)
        print(f"{path.name}: {dict(counts)} codes={dict(codes)} {ms:.2f} ms/query")
        total_fp += counts["false_positives"]
    return 1 if total_fp else 0


if __name__ == "__main__":
    sys.exit(main())
