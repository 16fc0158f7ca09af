"""Isolation for limits: generated SQL runs in a worker process that one call cannot push past
the memory or the time limit.

A single function call can escape an engine's own limits: DuckDB's ``memory_limit`` governs
its buffer manager, not a 2 GB string built by ``repeat('x', 2000000000)``, and SQLite's
progress handler never fires inside one ``printf('%.*c', 900000000, 'x')``. The
:class:`Worker` therefore runs the engine's session in a child process started afresh with
``subprocess`` (:func:`main` in a new interpreter, never a fork of a
process that holds a DuckDB connection) that

* limits its own address space (``RLIMIT_AS``): what it uses once the session is open, plus the
  policy's ``memory_limit_mb`` and a small margin, so an allocation past it fails inside the
  engine (an out-of-memory error) or ends the child;
* is killed when a query runs past ``time_limit_ms`` plus :data:`GRACE_S` (the session's own
  interrupt normally stops it first).

The parent raises :class:`~tablerag.errors.QueryTimeout` or
:class:`~tablerag.errors.ResourceLimitExceeded` and starts a new child for the next query; the
service keeps serving. Messages are pickled over a socket pair; only this package's own
process is on the other end.
"""

from __future__ import annotations

import importlib
import os
import resource
import socket
import subprocess
import sys
import threading
from collections.abc import Callable
from multiprocessing.connection import Connection
from typing import Any, Protocol

from tablerag import errors
from tablerag.errors import EngineError, QueryTimeout, ResourceLimitExceeded, TableragError
from tablerag.sql.policy import ExecutionPolicy

Rows = list[tuple[Any, ...]]

_CHILD = "from tablerag.sql.engines.worker import main; main()"

GRACE_S = 0.5
"""How long past the time limit the parent waits before it kills the worker."""
START_TIMEOUT_S = 60.0
"""Longest a worker may take to start and open its session."""
MARGIN_MB = 256
"""Address space the worker may use beyond its open session and the memory limit (results,
Python objects)."""


class Session(Protocol):
    """What the worker runs: an engine's connection with its guards (DuckDB, SQLite)."""

    def run(self, sql: str, policy: ExecutionPolicy) -> tuple[tuple[str, ...], Rows]:
        """Run gated SQL; return column names and rows."""

    def close(self) -> None:
        """Close the connection."""


class Worker:
    """A child process holding one :class:`Session`; :meth:`run` sends it one query at a time.

    Args:
        factory: builds the session in the child (a class or module-level function).
        args: its arguments (picklable).
        engine: engine name for error messages.
        memory_limit_mb: address space the child may add once its session is open.
    """

    def __init__(
        self,
        factory: Callable[..., Session],
        args: tuple[Any, ...],
        *,
        engine: str,
        memory_limit_mb: int,
    ) -> None:
        self._target = (factory.__module__, factory.__qualname__)
        self._args, self.engine, self.memory_limit_mb = args, engine, memory_limit_mb
        self._lock = threading.Lock()
        self._proc: subprocess.Popen[bytes] | None = None
        self._con: Connection | None = None

    @property
    def pid(self) -> int | None:
        """Process id of the running child, if one runs."""
        return self._proc.pid if self._proc is not None else None

    def start(self) -> None:
        """Start the child now (engines do at open: a query then pays no start-up).

        Raises:
            EngineError: the child did not start; TableragError: it could not open the
                database (the session's own error, e.g. ConfigError).
        """
        with self._lock:
            self._start()

    def run(self, sql: str, policy: ExecutionPolicy) -> tuple[tuple[str, ...], Rows]:
        """Run ``sql`` in the child; restart the child after it was stopped.

        Raises:
            QueryTimeout: the query ran past the time limit (the child was killed if needed).
            ResourceLimitExceeded: the query passed the memory limit (or ended the child).
            QueryFailed: the database refused or failed to run it.
        """
        with self._lock:
            con = self._start()
            con.send(("run", sql, policy))
            if not con.poll(policy.time_limit_ms / 1000 + GRACE_S):
                self._kill()
                raise QueryTimeout(
                    f"The query ran longer than {policy.time_limit_ms} ms and was stopped; add "
                    "filters or aggregate more.",
                    engine=self.engine,
                    sql=sql,
                    time_limit_ms=policy.time_limit_ms,
                )
            try:
                reply = con.recv()
            except (EOFError, OSError) as exc:
                self._kill()
                raise ResourceLimitExceeded(
                    f"The query needed more than {policy.memory_limit_mb} MB and was stopped; "
                    "aggregate or filter more.",
                    engine=self.engine,
                    sql=sql,
                ) from exc
        if reply[0] == "ok":
            return reply[1], reply[2]
        raise _rebuild(reply, sql)

    def _start(self) -> Connection:
        if self._con is not None and self._proc is not None and self._proc.poll() is None:
            return self._con
        self._kill()
        self._proc, self._con = spawn(_CHILD)
        self._con.send((self._target, self._args, self.memory_limit_mb))
        if not self._con.poll(START_TIMEOUT_S):
            self._kill()
            raise EngineError(
                f"The {self.engine} worker did not start within {START_TIMEOUT_S:.0f} s; check "
                "the machine's load.",
                engine=self.engine,
            )
        try:
            reply = self._con.recv()
        except EOFError as exc:
            self._kill()
            raise EngineError(
                f"The {self.engine} worker stopped while opening the database.",
                engine=self.engine,
            ) from exc
        if reply[0] != "ready":
            self._kill()
            raise _rebuild(reply, None)
        return self._con

    def _kill(self) -> None:
        if self._con is not None:
            self._con.close()
            self._con = None
        if self._proc is not None:
            if self._proc.poll() is None:
                self._proc.kill()
            self._proc.wait()
            self._proc = None

    def __del__(self) -> None:
        # an engine dropped without close(): stop the child rather than leave it running
        if getattr(self, "_proc", None) is not None:
            self._kill()

    def close(self) -> None:
        """Stop the child (idempotent)."""
        with self._lock:
            if self._con is not None and self._proc is not None and self._proc.poll() is None:
                try:
                    self._con.send(("close",))
                    self._proc.wait(timeout=2)
                except (OSError, subprocess.TimeoutExpired):
                    pass
            self._kill()


def spawn(child: str) -> tuple[subprocess.Popen[bytes], Connection]:
    """Start ``python -c child FD``: a new interpreter (never a fork of a process holding
    connections) that inherits nothing but its end of a socket pair; the parent's end."""
    ours, theirs = socket.socketpair()
    try:
        proc = subprocess.Popen(
            [sys.executable, "-c", child, str(theirs.fileno())],
            pass_fds=(theirs.fileno(),),
            stdin=subprocess.DEVNULL,
        )
    finally:
        theirs.close()
    return proc, Connection(ours.detach())


def _rebuild(reply: tuple[Any, ...], sql: str | None) -> TableragError:
    """The parent's exception for a child's ``("error", class, message, fields)`` reply."""
    _, name, message, fields = reply
    cls = getattr(errors, name, None)
    if not (isinstance(cls, type) and issubclass(cls, TableragError)):
        cls = errors.QueryFailed
    if issubclass(cls, QueryTimeout):
        return cls(message, engine=fields.get("engine", ""), sql=sql, **_limit(fields))
    if issubclass(cls, EngineError):
        return cls(message, engine=fields.get("engine", ""), sql=sql)
    return cls(message)


def _limit(fields: dict[str, Any]) -> dict[str, int]:
    return {"time_limit_ms": int(fields.get("time_limit_ms", 0))}


def _error(exc: TableragError) -> tuple[str, str, str, dict[str, Any]]:
    fields = {k: v for k, v in vars(exc).items() if isinstance(v, str | int) and k != "sql"}
    return ("error", type(exc).__name__, str(exc), fields)


def _address_space_mb() -> int:
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmSize:"):
                return int(line.split()[1]) // 1024
    return 0  # pragma: no cover - Linux has VmSize


def _serve(fd: int) -> None:
    """The child's loop: open the session, cap the address space, answer queries."""
    con = Connection(fd)
    (module, qualname), args, memory_mb = con.recv()
    factory: Any = importlib.import_module(module)
    for part in qualname.split("."):
        factory = getattr(factory, part)
    try:
        session = factory(*args)
    except TableragError as exc:
        con.send(_error(exc))
        return
    if sys.platform.startswith("linux"):
        limit = (_address_space_mb() + memory_mb + MARGIN_MB) * 2**20
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    con.send(("ready",))
    while True:
        try:
            message = con.recv()
        except EOFError:
            break
        if message[0] != "run":
            break
        _, sql, policy = message
        try:
            columns, rows = session.run(sql, policy)
            con.send(("ok", columns, rows))
        except TableragError as exc:
            con.send(_error(exc))
        except MemoryError:
            con.send(
                _error(
                    ResourceLimitExceeded(
                        f"The query needed more than {policy.memory_limit_mb} MB and was "
                        "stopped; aggregate or filter more."
                    )
                )
            )
    session.close()


def main() -> None:  # pragma: no cover - runs in the child
    """The child's entry point: its own process group (a terminal's Ctrl-C goes to the parent,
    which stops the child), then :func:`_serve` on the socket named by ``argv[1]``."""
    os.setpgid(0, 0)
    _serve(int(sys.argv[1]))
