"""The retrieval task: recall@1/5/10 and MRR@10 of tablerag's search modes (bm25, dense, hybrid).

Corpora:

* **PolicyQA** — every segment of the chosen policies is a chunk; each question's one relevant
  chunk is its own segment; category = the question's OPP-115 category.
* **TAT-QA** — every table (linearised, one chunk that points to its table) and every paragraph
  of the chosen contexts is a chunk; a question's relevant chunks are its ``rel_paragraphs``
  plus the table when the answer comes from it; category = ``answer_from``.
* **custom** — a user's questions with gold ``sources`` (chunk ids or source files) over the
  text index of an existing workspace.

The chunks go straight into a workspace under the run folder, without a source
(:func:`tablerag.store.chunks.add_chunks`), and are indexed with
:func:`tablerag.rag.index.refresh_index` (a re-run with the same chunks and embedder reuses the
index); queries run through :func:`tablerag.rag.retrieve.search`, so the query embedding is part
of the dense and hybrid latency.

Each (mode, question) outcome: ``correct`` = a relevant chunk in the top 5 (so the summary's
``accuracy`` is **recall@5**), ``score`` = reciprocal rank within the top 10 (so ``mean_score``
is MRR@10), ``error`` = ``not_found`` when no relevant chunk is in the top 5; ``detail.rank`` is
the rank of the first relevant hit (None past 10). :func:`retrieval_metrics` adds R@1/R@10.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import statistics
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tablerag.errors import ConfigError, ProviderError, RetrievalError
from tablerag.evals.datasets.policyqa import load_policyqa
from tablerag.evals.datasets.tatqa import load_tatqa
from tablerag.evals.runner import Case, Outcome
from tablerag.evals.stats import percentile
from tablerag.rag.index import refresh_index
from tablerag.rag.retrieve import MODES, search
from tablerag.rag.rewrite import REWRITE_MODES, Synonym, rewrite_query
from tablerag.semantic.library import stored_terms
from tablerag.store.chunks import add_chunks
from tablerag.store.workspace import Workspace
from tablerag.types import Chunk, Hit

KS = (1, 5, 10)
TOP_K = 10
HIT_AT = 5
"""A question counts as answered (``correct``) when a relevant chunk is in the top 5."""
INDEX_DIR = "index"
READY_FILE = "ready.json"


@dataclass(frozen=True)
class Corpus:
    """The chunks to index and the questions to search, with how they were chosen."""

    name: str
    chunks: tuple[Chunk, ...]
    cases: tuple[Case, ...]
    note: str


def recall_at(ranks: Sequence[int | None], k: int) -> float:
    """Share of queries with a relevant chunk in the top ``k``.

    Example:
        >>> recall_at([1, 3, None, 7], 5)
        0.5
    """
    return sum(1 for r in ranks if r is not None and r <= k) / len(ranks) if ranks else 0.0


def mrr(ranks: Sequence[int | None], k: int = TOP_K) -> float:
    """Mean reciprocal rank of the first relevant hit (0 when not in the top ``k``).

    Example:
        >>> mrr([1, 2, None, 4])
        0.4375
    """
    return sum(1 / r for r in ranks if r is not None and r <= k) / len(ranks) if ranks else 0.0


def linearise(rows: Sequence[Sequence[str]]) -> str:
    """A table as text: one line per row, cells joined by `` | ``.

    Example:
        >>> linearise([["", "2019"], ["Sales", "$ 1,452.4"]])
        ' | 2019\\nSales | $ 1,452.4'
    """
    return "\n".join(" | ".join(cell.strip() for cell in row) for row in rows)


def policyqa_corpus(path: str | Path, *, policies: int | None = None) -> Corpus:
    """PolicyQA segments as chunks, its questions as cases (gold = the segment's chunk id)."""
    data = load_policyqa(path, policies=policies)
    cases = tuple(
        Case(q.qid, q.question, (q.segment,), category=q.category) for q in data.questions
    )
    note = f"{data.policies} of {data.total_policies} policies (all their segments and questions)"
    return Corpus("PolicyQA dev", data.chunks, cases, note)


def tatqa_corpus(path: str | Path, *, contexts: int | None = None) -> Corpus:
    """TAT-QA tables (linearised) and paragraphs as chunks, its questions as cases.

    Read with :func:`tablerag.evals.datasets.tatqa.load_tatqa`.

    Raises:
        ConfigError: the file is missing or not in the TAT-QA format.
    """
    data = load_tatqa(path)
    chosen = data[:contexts] if contexts is not None else data
    chunks: list[Chunk] = []
    cases: list[Case] = []
    for item in chosen:
        table_id = f"{item.uid}#table"
        source = f"tatqa/{item.uid}"
        chunks.append(
            Chunk(table_id, source, 0, linearise(item.table), table=f"tatqa_{item.uid[:8]}")
        )
        by_order: dict[str, str] = {}
        for p in item.paragraphs:
            chunk_id = f"{item.uid}#p{p.order}"
            by_order[str(p.order)] = chunk_id
            chunks.append(Chunk(chunk_id, source, p.order, p.text))
        for q in item.questions:
            relevant = {by_order[o] for o in q.rel_paragraphs if o in by_order}
            if q.answer_from in ("table", "table-text"):
                relevant.add(table_id)
            if relevant:
                cases.append(Case(q.uid, q.question, tuple(sorted(relevant)), q.answer_from))
    note = f"{len(chosen)} of {len(data)} contexts (tables + paragraphs; all their questions)"
    return Corpus("TAT-QA dev", tuple(chunks), tuple(cases), note)


def put_chunks(ws: Workspace, chunks: Iterable[Chunk]) -> None:
    """Write chunks into the workspace as the ingest pipeline would, each under its source."""
    add_chunks(ws.con, chunks, source_id=None)


@dataclass(frozen=True)
class IndexInfo:
    """The index a run searches: where it is, its size, and how fast it was built."""

    folder: Path
    chunks: int
    chunks_per_s: float
    reused: bool


def build_index(folder: str | Path, chunks: Sequence[Chunk], embedder: str) -> IndexInfo:
    """A workspace at ``folder`` holding ``chunks`` and their text index.

    A folder already holding the same chunks indexed with the same embedder is reused (its
    recorded build speed is reported again); otherwise it is rebuilt from scratch.
    """
    path = Path(folder)
    digest = hashlib.sha256()
    for c in chunks:
        digest.update(f"{c.chunk_id}\0{c.text}\0".encode())
    fingerprint = {"chunks": len(chunks), "sha256": digest.hexdigest(), "embedder": embedder}
    ready = path / READY_FILE
    if ready.is_file():
        recorded = json.loads(ready.read_text(encoding="utf-8"))
        if recorded.get("fingerprint") == fingerprint:
            return IndexInfo(path, len(chunks), float(recorded["chunks_per_s"]), True)
    if path.exists():
        shutil.rmtree(path)
    with Workspace.open(path) as ws:
        put_chunks(ws, chunks)
        started = time.perf_counter()
        stats = refresh_index(ws, embedder_spec=embedder)
        rate = stats.chunks / max(time.perf_counter() - started, 1e-9)
    ready.write_text(
        json.dumps({"fingerprint": fingerprint, "chunks_per_s": rate}), encoding="utf-8"
    )
    return IndexInfo(path, len(chunks), rate, False)


def first_relevant(hits: Sequence[Hit], relevant: Iterable[str]) -> int | None:
    """Rank of the first hit whose chunk id or source is relevant (None when none is).

    A gold item matches a hit's chunk id exactly, or its source location (equal to it, or a
    file name it ends with: ``policy.md`` matches ``/data/docs/policy.md``).
    """
    gold = list(relevant)
    for hit in hits:
        if hit.chunk_id in gold:
            return hit.rank
        if any(hit.source == g or hit.source.endswith("/" + g.lstrip("/")) for g in gold):
            return hit.rank
    return None


@dataclass
class SearchMethod:
    """One search mode over an open workspace, as a runner method named after the mode.

    Args:
        name: ``bm25``, ``dense`` or ``hybrid``; ``MODE+replace`` or ``MODE+expand`` for the
            mode with the question rewritten by the workspace's document terms (issue 33).
        workspace: the open workspace with a text index.
        k: hits looked at.
        terms: the document terms a rewriting method applies.
    """

    name: str
    workspace: Workspace
    k: int = TOP_K
    terms: tuple[Synonym, ...] = ()

    def __call__(self, case: Case) -> Outcome:
        """Search the case's question; score the rank of its first relevant chunk."""
        started = time.perf_counter()
        mode, _, how = self.name.partition("+")
        rewrite = rewrite_query(case.question, self.terms, mode=how) if how else None  # type: ignore[arg-type]
        try:
            hits = search(self.workspace, case.question, k=self.k, mode=mode, rewrite=rewrite)
        except (RetrievalError, ProviderError) as exc:
            ms = (time.perf_counter() - started) * 1000
            kind = "llm_error" if isinstance(exc, ProviderError) else "execution_error"
            return Outcome(
                case.case_id,
                self.name,
                False,
                0.0,
                error=kind,
                category=case.category,
                latency_ms={"total": round(ms, 3)},
                detail={"rank": None, "error": str(exc)},
            )
        ms = (time.perf_counter() - started) * 1000
        gold = [case.gold] if isinstance(case.gold, str) else list(case.gold)
        rank = first_relevant(hits, gold)
        hit = rank is not None and rank <= HIT_AT
        return Outcome(
            case.case_id,
            self.name,
            hit,
            round(1 / rank, 4) if rank is not None else 0.0,
            error="" if hit else "not_found",
            prediction=[h.chunk_id for h in hits],
            category=case.category,
            latency_ms={"total": round(ms, 3)},
            detail={
                "rank": rank,
                **({"searched": rewrite.text} if rewrite and rewrite.changed else {}),
            },
        )


def build_methods(
    names: Sequence[str], workspace: Workspace, *, rewrite: str = "off"
) -> list[SearchMethod]:
    """The search modes ``names`` over ``workspace``, each warmed up by one untimed search;
    with ``rewrite`` (``replace`` or ``expand``), each mode also as ``MODE+REWRITE``: the
    question rewritten by the workspace's document terms (none without a semantic model).

    Raises:
        ConfigError: an unknown mode or rewriting.
    """
    unknown = [n for n in names if n not in MODES]
    if unknown:
        raise ConfigError(f"Unknown retrieval method(s) {unknown}; choose from {', '.join(MODES)}.")
    if rewrite not in REWRITE_MODES:
        raise ConfigError(f"Unknown rewriting {rewrite!r}; use one of {', '.join(REWRITE_MODES)}.")
    for name in names:  # load the index and the query embedder before anything is timed
        search(workspace, "warm up", k=TOP_K, mode=name)
    methods = [SearchMethod(n, workspace) for n in names]
    if rewrite != "off":
        terms = stored_terms(workspace.con)
        methods += [SearchMethod(f"{n}+{rewrite}", workspace, terms=terms) for n in names]
    return methods


@dataclass(frozen=True)
class RetrievalMetrics:
    """Recall@1/5/10, MRR@10 and latency of one mode over a set of outcomes."""

    method: str
    n: int
    recall_at_1: float
    recall_at_5: float
    recall_at_10: float
    mrr_at_10: float
    latency_p50_ms: float
    latency_p95_ms: float

    def as_dict(self) -> dict[str, Any]:
        """Plain dict for JSON (rounded to 4 places)."""
        return {k: round(v, 4) if isinstance(v, float) else v for k, v in self.__dict__.items()}


def retrieval_metrics(outcomes: Iterable[Outcome]) -> dict[str, RetrievalMetrics]:
    """Per-mode metrics from outcomes (the last outcome of a repeated pair wins).

    Example:
        >>> o = [Outcome(str(i), "bm25", r is not None and r <= 5, 0.0, detail={"rank": r},
        ...              latency_ms={"total": 1.0}) for i, r in enumerate([1, 3, None, 7])]
        >>> m = retrieval_metrics(o)["bm25"]
        >>> m.recall_at_1, m.recall_at_5, m.recall_at_10, round(m.mrr_at_10, 4)
        (0.25, 0.5, 0.75, 0.369)
    """
    latest: dict[tuple[str, str], Outcome] = {}
    for o in outcomes:
        latest[(o.method, o.case_id)] = o
    ranks: dict[str, list[int | None]] = {}
    times: dict[str, list[float]] = {}
    for (method, _), o in latest.items():
        rank = o.detail.get("rank")
        ranks.setdefault(method, []).append(int(rank) if rank is not None else None)
        times.setdefault(method, []).append(float(o.latency_ms.get("total", 0.0)))
    return {
        m: RetrievalMetrics(
            method=m,
            n=len(r),
            recall_at_1=recall_at(r, 1),
            recall_at_5=recall_at(r, 5),
            recall_at_10=recall_at(r, 10),
            mrr_at_10=mrr(r),
            latency_p50_ms=round(statistics.median(times[m]), 1),
            latency_p95_ms=round(percentile(times[m], 95), 1),
        )
        for m, r in sorted(ranks.items())
    }


def markdown_section(
    corpus: Corpus,
    n_queries: int,
    metrics: dict[str, RetrievalMetrics],
    rate: float,
    wall_s: float,
) -> str:
    """A markdown section for one corpus (the format of ``bench/RESULTS.md``)."""
    lines = [
        f"#### {corpus.name}: {len(corpus.chunks)} chunks, {n_queries} queries",
        f"Sample: {corpus.note}. Indexing: {rate:.1f} chunks/s (embedding included). "
        f"Wall time {wall_s / 60:.1f} min.",
        "",
        "| mode | R@1 | R@5 | R@10 | MRR@10 | P50 ms | P95 ms |",
        "|---|---|---|---|---|---|---|",
    ]
    for mode in MODES:
        if mode not in metrics:
            continue
        r = metrics[mode]
        lines.append(
            f"| {mode} | {r.recall_at_1:.3f} | {r.recall_at_5:.3f} | {r.recall_at_10:.3f} | "
            f"{r.mrr_at_10:.3f} | {r.latency_p50_ms:.1f} | {r.latency_p95_ms:.1f} |"
        )
    singles = [metrics[m].recall_at_5 for m in ("bm25", "dense") if m in metrics]
    if "hybrid" in metrics and singles:
        best, hybrid = max(singles), metrics["hybrid"].recall_at_5
        verdict = "beats" if hybrid > best else "does NOT beat"
        lines += ["", f"Hybrid R@5 {hybrid:.3f} {verdict} the better single mode ({best:.3f})."]
    return "\n".join(lines)
