"""Within one request, an engine runs a query it already ran once from what it returned.

One answer asks the same small questions of the database several times: the schema notes, the
evidence for the answer's checks and the rechecks after a mend each look up the rows of the
same value (issue 31's profile: 23 queries for one question of the sample workspace, 8 of them
distinct; each costs the gate and a round trip to the worker process). The request's memo
(:attr:`tablerag.request.Request.queries`) is made current for the thread answering it by
:func:`queries_once`, and :meth:`~tablerag.sql.engines.base.SQLEngine.execute` consults it, so
no signature between the request and the engines changes.

The memo lives as long as the request: the next request runs every query again, against the
database's data as it is then. Results and the gate's or the database's refusal are kept;
a timeout or a resource limit is not (the next attempt may fare differently).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterator, MutableMapping
from contextlib import contextmanager
from contextvars import ContextVar

from tablerag.errors import QueryFailed, ResourceLimitExceeded, SQLRejected
from tablerag.sql.result import ResultSet

Memo = MutableMapping[Hashable, ResultSet | SQLRejected | QueryFailed]

_CURRENT: ContextVar[Memo | None] = ContextVar("tablerag_queries_once", default=None)


@contextmanager
def queries_once(memo: Memo) -> Iterator[None]:
    """Within the block, queries run once per ``memo`` (one request's); a block nested in
    another keeps the outer memo.

    Example:
        >>> runs = []
        >>> def run():
        ...     runs.append(1)
        ...     return ResultSet(("n",), ((1,),), False, 0.1, "SELECT 1")
        >>> with queries_once({}):
        ...     _ = once(("e", "SELECT 1"), run), once(("e", "SELECT 1"), run)
        >>> _ = once(("e", "SELECT 1"), run)  # outside: runs again
        >>> len(runs)
        2
    """
    if _CURRENT.get() is not None:
        yield
        return
    token = _CURRENT.set(memo)
    try:
        yield
    finally:
        _CURRENT.reset(token)


def once(key: Hashable, run: Callable[[], ResultSet]) -> ResultSet:
    """``run()``, or what it returned or raised for ``key`` earlier in the current request.

    Raises:
        SQLRejected, QueryFailed: as ``run`` did (again, for the same key).
        EngineError: as ``run`` (timeouts and resource limits are not remembered).
    """
    memo = _CURRENT.get()
    if memo is None:
        return run()
    found = memo.get(key)
    if isinstance(found, ResultSet):
        return found
    if found is not None:
        raise found.with_traceback(None)
    try:
        result = run()
    except (SQLRejected, QueryFailed) as exc:
        if not isinstance(exc, ResourceLimitExceeded):
            memo[key] = exc
        raise
    memo[key] = result
    return result
