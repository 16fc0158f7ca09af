"""The gate's verdicts, remembered per engine and exposed catalog.

The gate (:func:`~tablerag.sql.validate.gate`) and the ordering rewrite
(:func:`~tablerag.sql.rewrite.order_unordered`) are pure functions of the SQL text, the dialect,
the exposed catalog, the policy and the exposure catalog's name: parsing, qualifying and
rendering the same query again gives the same text. A served workspace sends the same queries
over and over (the schema notes' lookups of a value, a question asked again), and the gate cost
8.6 ms of CPU per query in the profile of issue 31 (parse, qualify, two renders, a second
parse to order) against well under a millisecond for a dictionary look-up.

Only the verdict is kept: the issues, or the SQL to run. Never rows: the database's data may
change between two requests, the verdict cannot.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from dataclasses import dataclass

from tablerag.errors import Issue

VERDICTS_MAX = 1024
"""Verdicts an engine keeps (least recently used first out); one is a few hundred bytes."""


@dataclass(frozen=True)
class Verdict:
    """What the gate decided for one query, and what the engine runs for it.

    Attributes:
        issues: why the gate refused it (empty when it may run).
        sql: the SQL as the user reads it (tables qualified, LIMIT enforced).
        executed: what runs: :attr:`sql` through the exposure catalog, sorted by its output
            columns when it had no ORDER BY.
        unordered: :attr:`executed` without the added ORDER BY (the fallback when the database
            cannot sort a column's type).
        order: what :func:`~tablerag.sql.rewrite.order_unordered` did.
    """

    issues: tuple[Issue, ...]
    sql: str | None = None
    executed: str = ""
    unordered: str = ""
    order: str = ""


class Verdicts:
    """A thread-safe LRU of :class:`Verdict` for one exposed catalog.

    Example:
        >>> v = Verdicts(2)
        >>> calls = []
        >>> def judge(sql):
        ...     calls.append(sql)
        ...     return Verdict((), sql)
        >>> for sql in ("a", "b", "a", "c", "b"):
        ...     _ = v.get(sql, lambda sql=sql: judge(sql))
        >>> calls, len(v)
        (['a', 'b', 'c', 'b'], 2)
    """

    def __init__(self, size: int = VERDICTS_MAX) -> None:
        self.size = size
        self._items: OrderedDict[Hashable, Verdict] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: Hashable, judge: Callable[[], Verdict]) -> Verdict:
        """The verdict kept for ``key``, else ``judge()`` (outside the lock: two threads may
        judge the same query once each, and keep the same verdict)."""
        with self._lock:
            found = self._items.get(key)
            if found is not None:
                self._items.move_to_end(key)
                return found
        verdict = judge()
        with self._lock:
            self._items[key] = verdict
            self._items.move_to_end(key)
            while len(self._items) > self.size:
                self._items.popitem(last=False)
        return verdict

    def __len__(self) -> int:
        return len(self._items)
