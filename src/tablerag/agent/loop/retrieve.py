"""Retrieval for one sub-question: wide recall, then fusion/rerank down to a few chunks."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from tablerag.rag.rerank import Reranker
from tablerag.rag.retrieve import Hit

Searcher = Callable[[str, int], Sequence[Hit]]
"""``search(query, k)``: the ``k`` best hits of the (hybrid, RRF-fused) text index."""


def retrieve(
    query: str,
    search: Searcher,
    *,
    recall_k: int,
    k: int,
    reranker: Reranker | None = None,
    documents: bool = True,
) -> list[Hit]:
    """The ``k`` chunks kept for ``query`` out of ``recall_k`` recalled.

    Args:
        query: the sub-question.
        search: the index search (lexical + dense, fused).
        recall_k: candidates recalled (TableRAG uses 30).
        k: chunks kept after reranking (TableRAG uses 3).
        reranker: reorders the candidates; None keeps the fused order.
        documents: False keeps only table chunks (the ablation without document retrieval).

    Raises:
        RetrievalError: no index, or the query cannot be searched.
        ProviderError: the embedder or the reranker failed.
    """
    hits = list(search(query, recall_k))
    if not documents:
        hits = [h for h in hits if h.table is not None]
    if reranker is not None:
        hits = reranker.rerank(query, hits)
    return hits[:k]


def tables_of(hits: Sequence[Hit]) -> list[str]:
    """The tables the hits map to (chunk → table), best hit first, each once."""
    return list(dict.fromkeys(h.table for h in hits if h.table is not None))
