"""Pure rank fusion: several ranked lists of ids → one ranked list with fused scores."""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import TypeVar

K = TypeVar("K", bound=Hashable)

#: The constant of Cormack et al. (2009); it damps the weight of the very first ranks.
RRF_K = 60


def reciprocal_rank_fusion(
    rankings: Sequence[Sequence[K]], *, k: int = RRF_K, weights: Sequence[float] | None = None
) -> list[tuple[K, float]]:
    """Fuse ranked lists: ``score(d) = Σ weight_i / (k + rank_i(d))`` with ranks from 1.

    Ties keep the order in which ids were first seen (list by list, rank by rank), so the
    result is deterministic.

    Args:
        rankings: each list holds ids, best first; an id absent from a list adds nothing.
        k: the RRF constant (60 by default); larger values flatten the rank weights.
        weights: one weight per list (all 1.0 by default).

    Returns:
        ``(id, score)`` pairs, best first.

    Example:
        >>> fused = reciprocal_rank_fusion([["a", "b", "c"], ["b", "d"]])
        >>> [doc for doc, _ in fused]
        ['b', 'a', 'd', 'c']
        >>> round(fused[0][1], 5) == round(1 / 62 + 1 / 61, 5)
        True
        >>> reciprocal_rank_fusion([["a"], ["b"]], weights=[1.0, 2.0])[0][0]
        'b'
    """
    if k < 0:
        raise ValueError(f"RRF constant k must be >= 0, not {k}.")
    if weights is not None and len(weights) != len(rankings):
        raise ValueError(f"{len(weights)} weights given for {len(rankings)} rankings.")
    scores: dict[K, float] = {}
    for i, ranking in enumerate(rankings):
        weight = 1.0 if weights is None else weights[i]
        for rank, doc in enumerate(ranking, start=1):
            scores[doc] = scores.get(doc, 0.0) + weight / (k + rank)
    order = {doc: n for n, doc in enumerate(scores)}
    return sorted(scores.items(), key=lambda item: (-item[1], order[item[0]]))
