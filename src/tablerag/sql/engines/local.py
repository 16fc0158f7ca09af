"""Engines whose connection lives on this machine (DuckDB, SQLite): one session in this process
for introspection, and the queries in a worker process while ``policy.isolated`` (the default).

The session class is the engine's own (``DuckDBSession``, ``SQLiteSession``): built from the
file, the policy and the exposed catalog, here and in the worker alike.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any, ClassVar

from tablerag.sql.engines.base import Rows, SQLEngine
from tablerag.sql.engines.pool import WorkerPool
from tablerag.sql.engines.worker import Worker
from tablerag.sql.exposed import ExposedCatalog
from tablerag.sql.policy import ExecutionPolicy


class LocalEngine(SQLEngine):
    """The workers' life cycle for an engine on a local file: a new pool for each exposed
    catalog (its first worker started at once, so no query waits for it; up to
    ``policy.workers`` as queries overlap), queries through it, both closed together.
    Subclasses set :attr:`session_type`, ``path`` and ``_session`` in ``__init__``."""

    session_type: ClassVar[Any]
    """The session class the worker builds: ``session_type(path, policy, catalog)``."""
    path: Path
    _session: Any
    _pool: WorkerPool | None = None
    _closed: bool = False

    def _expose(self, catalog: ExposedCatalog) -> None:
        self._session.expose(catalog)
        if self._pool is not None:
            self._pool.close()
            self._pool = None
        if self.policy.isolated:  # started now, with the new catalog: no query waits for it
            pool = self._new_pool(catalog)
            pool.start()
            self._pool = pool

    def _run(self, sql: str, policy: ExecutionPolicy) -> tuple[tuple[str, ...], Rows]:
        if not self.policy.isolated:
            result: tuple[tuple[str, ...], Rows] = self._session.run(sql, policy)
            return result
        if self._pool is None:
            self._pool = self._new_pool(self.catalog)
        return self._pool.run(sql, policy)

    def _new_pool(self, catalog: ExposedCatalog) -> WorkerPool:
        make = functools.partial(  # holds no reference to the engine: dropping it stops them
            Worker,
            self.session_type,
            (str(self.path), self.policy, catalog),
            engine=self.dialect,
            memory_limit_mb=self.policy.memory_limit_mb,
        )
        return WorkerPool(make, self.policy.workers)

    def close(self) -> None:
        """Close the connection and stop the worker (idempotent)."""
        if not self._closed:
            if self._pool is not None:
                self._pool.close()
            self._session.close()
            self._closed = True
