"""One deadline per question: the moment by which every model call, retry and query must end.

``QA.ask`` makes one :class:`Deadline` from ``answer_max_seconds`` and hands it down (the LLM
it passes to the paths is wrapped in :class:`tablerag.llm.deadline.DeadlineLLM`, the SQL
path clamps each query's time limit with :meth:`Deadline.cap`). Issue 23: a hung endpoint took
362 s for one question although ``llm_timeout_s`` was 120, and a loop with a 600 s budget ran
706 s, because every call and every retry got its full time limit again.

While a model call made through a deadline runs, :func:`current_deadline` returns it (a
context variable of that call only), so a backend deep below the call - the local model's
lock wait and its token loop - can stop at the question's deadline, not only at the call's.
"""

from __future__ import annotations

import contextvars
import math
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

_CURRENT: contextvars.ContextVar[Deadline | None] = contextvars.ContextVar(
    "tablerag_deadline", default=None
)


@dataclass(frozen=True)
class Deadline:
    """A point on the monotonic clock and the limit in seconds it was made from.

    Example:
        >>> d = Deadline.after(30)
        >>> 29 < d.remaining() <= 30 and not d.expired()
        True
        >>> d.cap(120) <= 30 and d.cap(5) == 5
        True
        >>> Deadline.after(0).expired(), Deadline.never().remaining()
        (True, inf)
    """

    expires_at: float
    """``time.monotonic()`` value at which the time is up."""
    seconds: float
    """The limit it was made from (for messages: "the 600 s limit ran out")."""

    @classmethod
    def after(cls, seconds: float) -> Deadline:
        """The deadline ``seconds`` from now."""
        return cls(time.monotonic() + seconds, seconds)

    @classmethod
    def never(cls) -> Deadline:
        """A deadline that never comes (callers that set no limit)."""
        return cls(math.inf, math.inf)

    def remaining(self) -> float:
        """Seconds left, never below 0."""
        return max(0.0, self.expires_at - time.monotonic())

    def expired(self) -> bool:
        """Whether the time is up."""
        return time.monotonic() >= self.expires_at

    def cap(self, seconds: float) -> float:
        """``seconds``, or what is left when that is less (the limit of one call or query)."""
        return min(seconds, self.remaining())

    def within(self, seconds: float) -> Deadline:
        """The earlier of this deadline and ``seconds`` from now (a part's own budget).

        Example:
            >>> Deadline.after(600).within(30).seconds
            30
            >>> Deadline.after(5).within(30).seconds
            5
        """
        other = Deadline.after(seconds)
        return other if other.expires_at < self.expires_at else self


def current_deadline() -> Deadline | None:
    """The deadline of the model call running in this context, None outside one."""
    return _CURRENT.get()


@contextmanager
def applied(deadline: Deadline) -> Iterator[Deadline]:
    """Make ``deadline`` the :func:`current_deadline` of the calls inside the block.

    An enclosing deadline that comes earlier stays in force.
    """
    outer = _CURRENT.get()
    active = deadline if outer is None or deadline.expires_at < outer.expires_at else outer
    token = _CURRENT.set(active)
    try:
        yield active
    finally:
        _CURRENT.reset(token)
