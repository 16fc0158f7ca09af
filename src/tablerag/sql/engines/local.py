"""Engines whose connection lives on this machine (DuckDB, SQLite): one session in this process
for introspection, and the queries in a worker process while ``policy.isolated`` (the default).

The session class is the engine's own (``DuckDBSession``, ``SQLiteSession``): built from the
file, the policy and the exposed catalog, here and in the worker alike.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar

from tablerag.sql.engines.base import Rows, SQLEngine
from tablerag.sql.engines.worker import Worker
from tablerag.sql.exposed import ExposedCatalog
from tablerag.sql.policy import ExecutionPolicy


class LocalEngine(SQLEngine):
    """The worker's life cycle for an engine on a local file: a new worker for each exposed
    catalog (started at once, so no query waits for it), queries through it, both closed
    together. Subclasses set :attr:`session_type`, ``path`` and ``_session`` in ``__init__``."""

    session_type: ClassVar[Any]
    """The session class the worker builds: ``session_type(path, policy, catalog)``."""
    path: Path
    _session: Any
    _worker: Worker | None = None
    _closed: bool = False

    def _expose(self, catalog: ExposedCatalog) -> None:
        self._session.expose(catalog)
        if self._worker is not None:
            self._worker.close()
            self._worker = None
        if self.policy.isolated:  # started now, with the new catalog: no query waits for it
            worker = self._new_worker(catalog)
            worker.start()
            self._worker = worker

    def _run(self, sql: str, policy: ExecutionPolicy) -> tuple[tuple[str, ...], Rows]:
        if not self.policy.isolated:
            result: tuple[tuple[str, ...], Rows] = self._session.run(sql, policy)
            return result
        if self._worker is None:
            self._worker = self._new_worker(self.catalog)
        return self._worker.run(sql, policy)

    def _new_worker(self, catalog: ExposedCatalog) -> Worker:
        return Worker(
            self.session_type,
            (str(self.path), self.policy, catalog),
            engine=self.dialect,
            memory_limit_mb=self.policy.memory_limit_mb,
        )

    def close(self) -> None:
        """Close the connection and stop the worker (idempotent)."""
        if not self._closed:
            if self._worker is not None:
                self._worker.close()
            self._session.close()
            self._closed = True
