"""The result-size limit: a cap on the bytes of a result as well as on its rows.

A row cap alone lets one cell carry a whole table (``string_agg``, ``list``, ``array_agg``,
``json_group_array``); every engine measures what it fetched with :func:`result_bytes` and
refuses a result over ``ExecutionPolicy.max_result_bytes`` with a clear
:class:`~tablerag.errors.ResourceLimitExceeded`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from tablerag.errors import ResourceLimitExceeded

_SCALAR_BYTES = 8
"""What a number, date, boolean or NULL counts for."""


def value_bytes(value: Any, budget: int) -> int:
    """Approximate bytes of one value, nested lists, structs and maps included.

    Counting stops once ``budget`` is passed (a huge nested value costs no more than the cap).

    Example:
        >>> value_bytes("abc", 100), value_bytes([1, "ab", {"k": "vv"}], 100)
        (3, 13)
    """
    total = 0
    stack: list[Any] = [value]
    while stack and total <= budget:
        item = stack.pop()
        if isinstance(item, str | bytes | bytearray | memoryview):
            total += len(item)
        elif isinstance(item, Mapping):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list | tuple | set | frozenset):
            stack.extend(item)
        else:
            total += _SCALAR_BYTES
    return total


def result_bytes(rows: Iterable[Iterable[Any]], budget: int) -> int:
    """Approximate bytes of ``rows``; stops counting once ``budget`` is passed.

    Example:
        >>> result_bytes([("ab", 1), ("c", None)], 1000)
        19
    """
    total = 0
    for row in rows:
        for value in row:
            total += value_bytes(value, budget - total)
            if total > budget:
                return total
    return total


def check_result_size(
    rows: Iterable[Iterable[Any]], max_bytes: int, *, engine: str, sql: str
) -> None:
    """Raise when ``rows`` hold more than ``max_bytes``.

    Raises:
        ResourceLimitExceeded: the result is too large; the message says how to shrink it.
    """
    if result_bytes(rows, max_bytes) > max_bytes:
        raise ResourceLimitExceeded(
            f"The result is larger than {max_bytes} bytes (one cell can hold a whole table, "
            "e.g. string_agg or list); return fewer or shorter values, or aggregate more.",
            engine=engine,
            sql=sql,
        )
