"""Search a workspace's text index: lexical, dense, fused (RRF), then reranked.

The pipeline is the tuple :data:`RETRIEVAL_STEPS`; ``mode`` picks which of the first two run.
The first two read the query as rewritten with the curated synonyms when the caller passes a
:class:`~tablerag.rag.rewrite.Rewrite` (issue 33).
"""

from __future__ import annotations

import difflib
from typing import Literal, get_args

from tablerag import registry
from tablerag.embed.base import Embedder
from tablerag.errors import ConfigError, RetrievalError
from tablerag.lang.tokenize import tokenize, unsupported_script
from tablerag.rag.fusion import RRF_K, reciprocal_rank_fusion
from tablerag.rag.index import LoadedIndex, WorkspaceLike, get_embedder, load_index
from tablerag.rag.rerank import IdentityReranker, Reranker
from tablerag.rag.rewrite import Rewrite
from tablerag.types import Hit

Mode = Literal["hybrid", "bm25", "dense"]
MODES: tuple[str, ...] = get_args(Mode)
RETRIEVAL_STEPS = ("lexical", "dense", "fuse", "rerank")
#: Candidates taken from each list before fusion (and handed to the reranker).
CANDIDATES = 50
MAX_QUERY_CHARS = 2000


def check_query(query: str) -> str:
    """The query, stripped, if it can be searched.

    Raises:
        RetrievalError: the query is empty, too long, or written in a script the index does not
            support.

    Example:
        >>> check_query("  refund policy ")
        'refund policy'
    """
    text = query.strip()
    if not text:
        raise RetrievalError("The query is empty; type a question in Chinese or English.")
    if len(text) > MAX_QUERY_CHARS:
        raise RetrievalError(
            f"The query has {len(text)} characters; shorten it to at most {MAX_QUERY_CHARS}."
        )
    if not any(c.isalnum() for c in text):
        raise RetrievalError(
            f"The query {text!r} has no letters or digits; type a question in Chinese or English."
        )
    script = unsupported_script(text)
    if script is not None:
        raise RetrievalError(
            f"The query is mostly {script.title()} script, but this index handles Chinese and "
            "English; ask in Chinese or English (or index with a model for that language)."
        )
    return text


def search(
    workspace: WorkspaceLike,
    query: str,
    *,
    k: int = 5,
    mode: str = "hybrid",
    embedder: Embedder | str | None = None,
    reranker: Reranker | str | None = None,
    rrf_k: int = RRF_K,
    rewrite: Rewrite | None = None,
) -> list[Hit]:
    """The ``k`` chunks of the workspace most relevant to ``query``, best first.

    Args:
        workspace: an opened workspace whose index :func:`~tablerag.rag.index.refresh_index`
            built (``tablerag ingest`` does).
        query: a question or keywords, Chinese, English or mixed.
        k: how many hits to return (1–1000).
        mode: ``hybrid`` (BM25 + dense, fused by RRF), ``bm25`` or ``dense``.
        embedder: the query embedder; default: the one the index was built with. Another one
            is refused unless it has the same spec.
        reranker: a reranker or spec (``api:<model>``); default: keep the fused order.
        rrf_k: the RRF constant.
        rewrite: ``query`` rewritten with the curated synonyms
            (:func:`~tablerag.rag.rewrite.rewrite_query`): its text is what BM25 and the query
            embedder read; the reranker reads the question as asked. None: search as asked.

    Returns:
        Hits with chunk, source, heading path, page, table, scores; fewer than ``k`` when fewer
        chunks match (BM25 only returns chunks sharing a word with the query).

    Raises:
        RetrievalError: empty or unsupported query; no index, stale index, or an embedder
            that does not match the index.
        ConfigError: bad ``k``, ``mode`` or backend spec.
        ProviderError: the embedder or reranker failed.
    """
    text = check_query(query)
    searched = check_query(rewrite.text) if rewrite is not None and rewrite.changed else text
    if mode not in MODES:
        close = difflib.get_close_matches(str(mode), MODES, n=1)
        hint = f" Did you mean {close[0]!r}?" if close else ""
        raise ConfigError(f"Unknown search mode {mode!r}; use one of {', '.join(MODES)}.{hint}")
    if not 1 <= k <= 1000:
        raise ConfigError(f"k must be between 1 and 1000, not {k}.")
    index = load_index(workspace)
    rerank = _reranker(reranker)
    depth = max(CANDIDATES, k)
    lexical = _lexical(index, searched, depth) if mode in ("hybrid", "bm25") else []
    dense = _dense(index, searched, depth, embedder) if mode in ("hybrid", "dense") else []
    if mode == "hybrid":
        ranked = reciprocal_rank_fusion([[i for i, _ in lexical], [i for i, _ in dense]], k=rrf_k)
    else:
        ranked = lexical or dense
    keep = ranked[: depth if not isinstance(rerank, IdentityReranker) else k]
    hits = _hits(index, keep, lexical, dense)
    return rerank.rerank(text, hits)[:k]


def _lexical(index: LoadedIndex, query: str, depth: int) -> list[tuple[int, float]]:
    return index.bm25.search(tokenize(query), depth)


def _dense(
    index: LoadedIndex, query: str, depth: int, embedder: Embedder | str | None
) -> list[tuple[int, float]]:
    model = _embedder(index, embedder)
    vector = model.embed_query(query)
    if vector.shape[-1] != index.vectors.dim:
        raise RetrievalError(
            f"The index holds {index.vectors.dim}-d vectors from {index.manifest.embedder!r} but "
            f"{model.spec!r} makes {vector.shape[-1]}-d ones; search with "
            f"{index.manifest.embedder!r} or re-index with `tablerag ingest` and the new embedder."
        )
    return index.vectors.search(vector, depth)


def _embedder(index: LoadedIndex, embedder: Embedder | str | None) -> Embedder:
    built = index.manifest.embedder
    model = (
        get_embedder(built if embedder is None else embedder)
        if not isinstance(embedder, Embedder)
        else embedder
    )
    if model.spec != built and model.dim == index.manifest.dim:
        raise RetrievalError(
            f"The index was built with embedder {built!r}, not {model.spec!r}; vectors of "
            f"different models cannot be compared. Search with {built!r} or re-index."
        )
    return model


def _reranker(reranker: Reranker | str | None) -> Reranker:
    if reranker is None:
        return IdentityReranker()
    if isinstance(reranker, Reranker):
        return reranker
    built = registry.create("reranker", reranker)
    if not isinstance(built, Reranker):
        raise TypeError(f"Reranker backend for {reranker!r} built a {type(built).__name__}.")
    return built


def _hits(
    index: LoadedIndex,
    ranked: list[tuple[int, float]],
    lexical: list[tuple[int, float]],
    dense: list[tuple[int, float]],
) -> list[Hit]:
    lex = {i: (rank, score) for rank, (i, score) in enumerate(lexical, start=1)}
    den = {i: (rank, score) for rank, (i, score) in enumerate(dense, start=1)}
    hits: list[Hit] = []
    for rank, (position, score) in enumerate(ranked, start=1):
        c = index.chunks[position]
        b, d = lex.get(position), den.get(position)
        hits.append(
            Hit(
                chunk_id=c.chunk_id,
                source=c.source,
                ordinal=c.ordinal,
                text=c.text,
                heading_path=c.heading_path,
                page=c.page,
                table=c.table,
                score=round(score, 6),
                rank=rank,
                bm25=b[1] if b else None,
                dense=d[1] if d else None,
                bm25_rank=b[0] if b else None,
                dense_rank=d[0] if d else None,
            )
        )
    return hits
