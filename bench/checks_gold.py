"""How often the answer checks doubt a right query, and how often they catch a wrong one.

No model: a scripted one answers each Spider/CHASE question with its gold SQL (every answer
right, so each ``unsure`` is a false alarm), then with the gold SQL spoiled in one of the ways
issue 23 saw on users' files (a constant query; the filter dropped), to see how many of those
the checks catch. The path is the product's (``TableragMethod`` of the ``sql`` task: linking,
value notes, mends, the checks), the first ``--limit`` cases of each dataset.

Usage:
    .venv/bin/python bench/checks_gold.py --spider ../shared/bench/spider \
        --chase ../shared/bench/chase --limit 200
"""

from __future__ import annotations

import argparse
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path

import sqlglot
from sqlglot import exp

from tablerag.answer import detect_language
from tablerag.evals.runner import EVAL_TODAY, Case
from tablerag.evals.sql_task import (
    SQLTask,
    TableragMethod,
    asked_text,
    history_context,
    load_sql_dataset,
)
from tablerag.llm.base import Message
from tablerag.llm.testing import FunctionLLM
from tablerag.nl2sql.checks import run_checks
from tablerag.nl2sql.evidence import gather_evidence
from tablerag.nl2sql.path import answer_with_sql
from tablerag.nl2sql.stages import ANSWER_CHECKS
from tablerag.service import nl2sql_options

Spoil = Callable[[str], str | None]


def gold(sql: str) -> str | None:
    return sql


def constant(sql: str) -> str | None:
    return "SELECT 1"


def no_filter(sql: str) -> str | None:
    """The gold query without its WHERE clause, when that compares with a quoted value."""
    try:
        tree = sqlglot.parse_one(sql, read="sqlite")
    except sqlglot.errors.SqlglotError:
        return None
    where = tree.args.get("where") if isinstance(tree, exp.Select) else None
    if where is None or not any(lit.is_string for lit in where.find_all(exp.Literal)):
        return None
    tree.set("where", None)
    return tree.sql(dialect="sqlite")


SPOILS: dict[str, Spoil] = {"gold": gold, "constant": constant, "no_filter": no_filter}


def measure(
    kind: str, path: Path, limit: int, spoil: Spoil, show: frozenset[str] = frozenset()
) -> tuple[Counter[str], int]:
    dataset = load_sql_dataset(kind, path)
    cases = list(dataset.cases[:limit])
    reply = {"sql": ""}

    def answer(messages: Sequence[Message]) -> str:
        return f"```sql\n{reply['sql']}\n```"

    task = SQLTask(dataset, FunctionLLM(answer))
    method = TableragMethod(task, "tablerag", repairs=0)
    options = nl2sql_options(task.settings, "test", explain=False, max_repairs=0, today=EVAL_TODAY)
    counts: Counter[str] = Counter()
    asked = 0
    for case in cases:
        sql = spoil(str(case.gold))
        if sql is None:
            continue
        asked += 1
        reply["sql"] = sql
        codes = _codes(method, task, case, options)
        counts.update(codes)
        for code in show.intersection(codes):
            print(f"{code}\t{case.case_id}\t{case.question}\t{sql}")
    task.executor.close() if hasattr(task.executor, "close") else None
    return counts, asked


def _codes(method: TableragMethod, task: SQLTask, case: Case, options: object) -> list[str]:
    question = asked_text(case)
    context = history_context(case.question, case.context.get("history", ()))
    schema = method.schema(case, context + question)  # linked with the earlier questions
    engine = task.executor.engine(str(case.context["db"]))
    got = answer_with_sql(
        question,
        llm=task.llm,
        engine=engine,
        schema=schema,
        language=detect_language(case.question),
        options=replace(options, context=context),  # type: ignore[type-var]
    )
    if got.status not in ("ok", "unsure") or got.table is None or not got.sql:
        return [f"status:{got.status}"]
    evidence = gather_evidence(question, got.sql, got.table.columns, got.table.rows, schema, engine)
    codes = sorted(
        {f.code for f in run_checks(evidence, [c.run for c in ANSWER_CHECKS]) if f.doubts}
    )
    return [f"status:{got.status}", *codes]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--spider", type=Path)
    parser.add_argument("--chase", type=Path)
    parser.add_argument("--limit", type=int, default=200)
    parser.add_argument("--spoils", default="gold,constant,no_filter")
    parser.add_argument("--show", default="", help="print the cases raising these codes")
    args = parser.parse_args()
    print("| dataset | query | n | ok | unsure | other | findings (unsure answers) | s |")
    print("|---|---|---|---|---|---|---|---|")
    for kind, path in (("spider", args.spider), ("chase", args.chase)):
        if path is None:
            continue
        for name in args.spoils.split(","):
            started = time.perf_counter()
            show = frozenset(filter(None, args.show.split(",")))
            counts, asked = measure(kind, path, args.limit, SPOILS[name], show)
            ok, unsure = counts["status:ok"], counts["status:unsure"]
            other = asked - ok - unsure
            found = ", ".join(
                f"{c} {n}" for c, n in counts.most_common() if not c.startswith("status:")
            )
            print(
                f"| {kind} | {name} | {asked} | {ok} | {unsure} | {other} | {found or '—'} | "
                f"{time.perf_counter() - started:.0f} |",
                flush=True,
            )


if __name__ == "__main__":
    main()
