"""Summary statistics of evaluation runs."""

from __future__ import annotations

from collections.abc import Sequence


def percentile(values: Sequence[float], q: float) -> float:
    """Nearest-rank percentile (0 for no values).

    Example:
        >>> percentile([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 95), percentile([], 50)
        (10, 0.0)
    """
    if not values:
        return 0.0
    ordered = sorted(values)
    rank = max(1, -(-len(ordered) * q // 100))
    return ordered[int(rank) - 1]
