"""Several worker processes for one local source, so that queries of concurrent requests do not
queue behind one another.

One :class:`~tablerag.sql.engines.worker.Worker` answers one query at a time: behind its lock,
every query of every request of a server went through one child process (issue 31: ~4 ms per
round trip and ~8 queries per answer capped a source near 30 answers a second whatever the
cores). A :class:`WorkerPool` keeps up to ``size`` of them. The first starts with the engine;
another is started, off the asking thread, only when a query finds every worker busy, so a
command-line question never starts a second process. Each worker is the same isolated child
(address-space limit, hard kill past the time limit) with its own read-only session.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

from tablerag.errors import EngineError, TableragError
from tablerag.sql.engines.worker import Rows, Worker
from tablerag.sql.policy import ExecutionPolicy

log = logging.getLogger(__name__)


class WorkerPool:
    """Up to ``size`` workers made by ``make``, one query each at a time.

    Args:
        make: builds a worker (not started).
        size: most workers (at least 1).
    """

    def __init__(self, make: Callable[[], Worker], size: int) -> None:
        self._make, self.size = make, max(1, size)
        self._workers: list[Worker] = []
        self._idle: list[Worker] = []
        self._starting = 0
        self._closed = False
        self._ready = threading.Condition()

    @property
    def workers(self) -> tuple[Worker, ...]:
        """The workers, in the order they started."""
        with self._ready:
            return tuple(self._workers)

    def start(self) -> None:
        """Start the first worker now (a query then pays no start-up).

        Raises:
            EngineError, TableragError: as :meth:`Worker.start`.
        """
        worker = self._make()
        worker.start()
        with self._ready:
            self._workers.append(worker)
            self._idle.append(worker)
            self._ready.notify()

    def run(self, sql: str, policy: ExecutionPolicy) -> tuple[tuple[str, ...], Rows]:
        """Run ``sql`` on an idle worker, waiting for one when all are busy.

        Raises:
            QueryTimeout, ResourceLimitExceeded, QueryFailed: as :meth:`Worker.run`.
            EngineError: the pool was closed.
        """
        worker = self._take()
        try:
            return worker.run(sql, policy)
        finally:
            with self._ready:
                if self._closed:
                    worker.close()
                else:
                    self._idle.append(worker)
                    self._ready.notify()

    def _take(self) -> Worker:
        with self._ready:
            if self._closed:
                raise EngineError("The engine is closed; open it again.", engine="pool")
            if not self._workers and not self._starting:  # never started: this thread starts one
                worker = self._make()
                self._workers.append(worker)
                return worker  # Worker.run starts its child
            while not self._idle:
                if len(self._workers) + self._starting < self.size:
                    self._starting += 1
                    threading.Thread(target=self._grow, name="tablerag-sql-worker").start()
                self._ready.wait()
                if self._closed:
                    raise EngineError("The engine is closed; open it again.", engine="pool")
            return self._idle.pop()

    def _grow(self) -> None:
        """Start one more worker and offer it; a failure leaves the pool as it was."""
        worker = self._make()
        try:
            worker.start()
        except TableragError as exc:
            log.warning("could not start another SQL worker: %s", exc)
            worker.close()
            with self._ready:
                self._starting -= 1
            return
        with self._ready:
            self._starting -= 1
            if self._closed:
                worker.close()
                return
            self._workers.append(worker)
            self._idle.append(worker)
            self._ready.notify()

    def close(self) -> None:
        """Stop every idle worker now and each busy one when its query returns (idempotent)."""
        with self._ready:
            self._closed = True
            idle, self._idle = self._idle, []
            self._workers = []
            self._ready.notify_all()
        for worker in idle:
            worker.close()
