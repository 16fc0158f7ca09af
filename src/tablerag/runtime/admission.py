"""Admission of requests: at most ``slots`` answered at once, the rest waiting in order.

The embedded model answers one request at a time (``slots=1``), endpoint models
``serve_max_concurrent`` at once; up to ``serve_queue_max`` more wait, and each waiting
request's trace gets a ``queued`` event whenever its position changes. A request that would make
the queue longer is refused at once (:class:`~tablerag.errors.ServiceBusy`).
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Iterator
from contextlib import contextmanager

from tablerag.errors import ServiceBusy
from tablerag.request import Request


class Admission:
    """At most ``slots`` requests answered at once, at most ``queue_max`` more waiting in order.

    Example:
        >>> a = Admission(slots=1, queue_max=0)
        >>> r = Request.make("q", max_seconds=5)
        >>> with a.enter(r):
        ...     a.active
        1
    """

    def __init__(self, slots: int, queue_max: int) -> None:
        self.slots, self.queue_max = max(1, slots), max(0, queue_max)
        self.active = 0
        self._waiting: deque[str] = deque()
        self._cond = threading.Condition()

    @property
    def waiting(self) -> int:
        """Requests waiting for a slot now."""
        return len(self._waiting)

    def has_room(self) -> bool:
        """Whether a request arriving now would be answered or queued (not refused)."""
        with self._cond:
            return self.active < self.slots or len(self._waiting) < self.queue_max

    def busy(self) -> ServiceBusy:
        """The error of a request refused because the queue is full."""
        return ServiceBusy(
            f"The server is busy: {self.active} requests are being answered and "
            f"{len(self._waiting)} are waiting (serve_queue_max). Try again in a few seconds.",
            retry_after_s=5,
        )

    @contextmanager
    def enter(self, rq: Request) -> Iterator[None]:
        """Hold a slot for the block; wait in order for one, reporting the position.

        Raises:
            ServiceBusy: the queue is full, or the request's deadline came (or its client
                went away) while it waited.
        """
        with self._cond:
            if self.active >= self.slots or self._waiting:
                if len(self._waiting) >= self.queue_max:
                    raise self.busy()
                self._wait(rq)
            self.active += 1
        try:
            yield
        finally:
            with self._cond:
                self.active -= 1
                self._cond.notify_all()

    def _wait(self, rq: Request) -> None:
        """Wait (holding the condition) until ``rq`` is first in line and a slot is free."""
        self._waiting.append(rq.id)
        shown = -1
        try:
            while True:
                position = self._waiting.index(rq.id)
                if position == 0 and self.active < self.slots:
                    return
                if position != shown:
                    shown = position
                    rq.trace.emit("queued", position=position + 1, active=self.active)
                if rq.deadline.expired() or rq.cancelled.is_set():
                    raise ServiceBusy(
                        "The request waited for a free slot until its time ran out "
                        f"({rq.deadline.seconds:g} s); try again when the server is less busy.",
                        retry_after_s=5,
                    )
                self._cond.wait(timeout=min(0.25, max(0.01, rq.deadline.remaining())))
        finally:
            self._waiting.remove(rq.id)
            self._cond.notify_all()
