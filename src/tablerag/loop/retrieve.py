"""Retrieval for one sub-question: wide recall, then fusion/rerank down to a few chunks."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from tablerag.rag.rerank import Reranker
from tablerag.types import Hit

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

    When none of the ``k`` best is a table chunk but a recalled one is, the best table chunk
    takes the last place: the loop's questions are set-level, and without a table in hand
    no SQL can run (prose that paraphrases a table rarely carries its totals).

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
    return keep_a_table(hits, k)


def keep_a_table(hits: Sequence[Hit], k: int) -> list[Hit]:
    """The first ``k`` hits, the best table hit in the last place if none of them is a table.

    Example:
        >>> def hit(i: int, table: str | None = None) -> Hit:
        ...     return Hit(f"c{i}", "s", i, "text", (), None, table, 1.0 / (i + 1), i)
        >>> hs = [hit(0), hit(1), hit(2), hit(3), hit(4, table="sales")]
        >>> [h.chunk_id for h in keep_a_table(hs, 3)], [h.chunk_id for h in keep_a_table(hs, 0)]
        (['c0', 'c1', 'c4'], [])
    """
    top = list(hits[:k])
    if not top or any(h.table is not None for h in top):
        return top
    best_table = next((h for h in hits[k:] if h.table is not None), None)
    return top if best_table is None else [*top[:-1], best_table]


def tables_of(hits: Sequence[Hit]) -> list[str]:
    """The tables the hits map to (chunk → table), best hit first, each once."""
    return list(dict.fromkeys(h.table for h in hits if h.table is not None))
