"""The result-size limit: a cap on the bytes of a result as well as on its rows.

A row cap alone lets one cell carry a whole table (``string_agg``, ``list``, ``array_agg``,
``json_group_array``); every engine measures what it fetched with :func:`result_bytes` and
refuses a result over ``ExecutionPolicy.max_result_bytes`` with a clear
:class:`~tablerag.errors.ResourceLimitExceeded`.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from tablerag.errors import ResourceLimitExceeded
from tablerag.sql.policy import ExecutionPolicy

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
        raise too_large(max_bytes, engine=engine, sql=sql)


FETCH_BATCH_ROWS = 256
"""Most rows fetched at a time while a result is counted. The first batch is
:data:`FIRST_BATCH_ROWS`; each next one holds about as many rows as fit in what is left of the
cap at the size of the rows so far, so a result of huge cells is read a row at a time."""
FIRST_BATCH_ROWS = 4


def too_large(max_bytes: int, *, engine: str, sql: str) -> ResourceLimitExceeded:
    """The error of a result past ``max_bytes`` (every engine says the same)."""
    return ResourceLimitExceeded(
        f"The result is larger than {max_bytes} bytes (one cell can hold a whole table, "
        "e.g. string_agg or list); return fewer or shorter values, or aggregate more.",
        engine=engine,
        sql=sql,
    )


def fetch_capped(
    fetchmany: Callable[[int], Sequence[Sequence[Any]]],
    policy: ExecutionPolicy,
    *,
    engine: str,
    sql: str,
    deadline: float | None = None,
    timed_out: Callable[[], BaseException] | None = None,
) -> list[tuple[Any, ...]]:
    """Fetch at most ``policy.max_rows + 1`` rows a batch at a time, counting their bytes, and
    stop as soon as they pass ``policy.max_result_bytes``.

    The cursor must stream (DuckDB's, a PostgreSQL server-side cursor, PyMySQL's unbuffered
    ``SSCursor``): then no more than one batch past the cap is ever held in memory.

    Args:
        fetchmany: the cursor's ``fetchmany``.
        deadline: a ``time.monotonic()`` past which fetching stops with ``timed_out()``.

    Example:
        >>> rows = iter([("a" * 10,)] * 5)
        >>> fetch_capped(lambda n: [r for _, r in zip(range(n), rows)],
        ...              ExecutionPolicy(max_rows=2), engine="x", sql="")
        [('aaaaaaaaaa',), ('aaaaaaaaaa',), ('aaaaaaaaaa',)]

    Raises:
        ResourceLimitExceeded: the result passed the byte cap.
    """
    wanted, budget = policy.max_rows + 1, policy.max_result_bytes
    out: list[tuple[Any, ...]] = []
    size = 0
    step = FIRST_BATCH_ROWS
    while len(out) < wanted:
        batch = fetchmany(min(step, wanted - len(out)))
        if not batch:
            break
        for row in batch:
            size += result_bytes([row], budget - size)
            if size > budget:
                raise too_large(budget, engine=engine, sql=sql)
            out.append(tuple(row))
        if deadline is not None and timed_out is not None and time.monotonic() > deadline:
            raise timed_out()
        per_row = max(size // len(out), 1)
        step = max(1, min(FETCH_BATCH_ROWS, (budget - size) // per_row))
    return out


def engine_failure(engine: str, reason: str) -> str:
    """The sentence of a query the database refused or failed: what happened and what to do,
    never an empty reason.

    Example:
        >>> engine_failure("MySQL", "Unknown column 'x' in 'field list'")
        "MySQL could not run the query: Unknown column 'x' in 'field list'."
        >>> engine_failure("MySQL", "  ")[:75]
        'MySQL could not run the query and gave no reason (the query was stopped or '
    """
    reason = reason.strip().rstrip(".")
    if not reason:
        return (
            f"{engine} could not run the query and gave no reason (the query was stopped or "
            "the connection dropped); run it again, and if it fails again simplify it or ask "
            "the database administrator."
        )
    return f"{engine} could not run the query: {reason}."


WATCHDOG_GRACE_S = 0.5
"""How long past the time limit a server engine's watchdog waits for the server's own limit
(``statement_timeout``, ``max_statement_time``) before it cancels the query itself."""


class Watchdog:
    """Cancels a query from the client once it runs past its time limit plus a grace.

    The server's own limit covers one statement; the watchdog covers the whole call (every
    FETCH of a cursor, a server that ignores its limit, a result that trickles in). ``cancel``
    runs on the timer's thread: it must be safe to call while the query's thread waits on the
    connection (psycopg's ``cancel_safe``, a ``KILL QUERY`` from a second connection).

    Example:
        >>> import threading
        >>> hit = threading.Event()
        >>> with Watchdog(10, hit.set, grace_s=0) as dog:
        ...     _ = hit.wait(2)
        >>> dog.fired
        True
    """

    def __init__(
        self, time_limit_ms: int, cancel: Callable[[], object], *, grace_s: float = WATCHDOG_GRACE_S
    ) -> None:
        self.deadline = time.monotonic() + time_limit_ms / 1000
        self._cancel = cancel
        self._fired = False
        self._timer = threading.Timer(time_limit_ms / 1000 + grace_s, self._fire)
        self._timer.daemon = True

    @property
    def fired(self) -> bool:
        """Whether the watchdog cancelled the query."""
        return self._fired

    def _fire(self) -> None:
        self._fired = True
        with contextlib.suppress(Exception):  # a failed cancel leaves the server's own limit
            self._cancel()

    def __enter__(self) -> Watchdog:
        self._timer.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._timer.cancel()
