"""Isolation for ingest: every file is read in a worker process under memory and time limits.

A file small on disk can need gigabytes or hours to read (a zip bomb inside an .xlsx, a
pathological line); caps (:mod:`tablerag.ingest.limits`) refuse what is cheap to measure, and
the worker bounds the rest, the same way queries are bounded
(:mod:`tablerag.sql.engines.worker`):

* the worker is a new interpreter started with ``subprocess`` (never a fork of a process that
  holds the workspace's DuckDB connection); it reads one file at a time;
* before each file it caps its own address space (``RLIMIT_AS``) at what it uses then plus
  ``ingest_memory_limit_mb`` and a small margin, so an allocation past it fails inside the
  reader (``MemoryError``, DuckDB's out-of-memory error) or ends the worker;
* the parent kills it when a file takes longer than ``ingest_time_limit_s``.

A table file is staged in a scratch DuckDB file of the worker's own (readers run unchanged on
that connection); the worker answers with the staged tables' descriptions, or a document with
the ``Document`` it read. The parent copies the staged tables from the scratch file into its
own transaction only after the worker answered whole: a killed or failed worker leaves the
workspace exactly as it was. Messages are pickled over a socket pair; only this package's own
process is on the other end.
"""

from __future__ import annotations

import contextlib
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any, Literal

import duckdb

from tablerag.errors import SourceError, TableragError
from tablerag.ingest import limits
from tablerag.ingest.limits import IngestLimits
from tablerag.sql.engines.worker import spawn
from tablerag.store.staging import StagedTable
from tablerag.types import Document

Kind = Literal["table", "document"]

_CHILD = "from tablerag.ingest.worker import main; main()"
START_TIMEOUT_S = 60.0
"""Longest the worker may take to start."""
MARGIN_MB = 256
"""Address space the worker may use beyond its size when a file starts and the memory limit
(imports of a reader's library, the reply)."""
SCRATCH = "tablerag_scratch"
"""The prefix of the name the parent attaches a worker's scratch database under."""


@dataclass(frozen=True)
class ReadTables:
    """What a worker read from a table file: staged tables held in ``scratch`` (a DuckDB
    file), ``final`` ones in its ``data`` schema, the others in ``main``."""

    staged: list[StagedTable]
    scratch: Path


class LocalReaders:
    """The readers run in this process, under the caps but without the worker's memory and
    time limits (benchmarks of what the worker costs; tests of the caps alone)."""

    def __init__(self, limits: IngestLimits, *, date_order: str = "auto") -> None:
        self.limits, self.date_order = limits, date_order

    def __enter__(self) -> LocalReaders:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def tables(self, path: Path, con: duckdb.DuckDBPyConnection) -> list[StagedTable]:
        """``read_table_file(path, con)`` after the caps."""
        from tablerag.ingest.tables import read_table_file

        with limits.applied(self.limits):
            try:
                limits.check_file(path)
                return read_table_file(path, con)
            except RecursionError as exc:
                raise limits.too_deep(str(path)) from exc

    def document(self, path: Path) -> Document:
        """``load_document(path)`` after the caps."""
        from tablerag.ingest.documents import load_document

        with limits.applied(self.limits):
            try:
                limits.check_file(path)
                return load_document(path)
            except RecursionError as exc:
                raise limits.too_deep(str(path)) from exc


class IngestWorker:
    """A child process that reads files; :meth:`tables` and :meth:`document` send it one file.

    Args:
        limits: the memory and time limits (and the caps the readers check).
        date_order: the ``date_order`` setting, in force while tables are typed.
    """

    def __init__(self, limits: IngestLimits, *, date_order: str = "auto") -> None:
        self.limits, self.date_order = limits, date_order
        self._lock = threading.Lock()
        self._proc: subprocess.Popen[bytes] | None = None
        self._con: Connection | None = None
        self._folder = Path(tempfile.mkdtemp(prefix="tablerag-ingest-"))
        self._files = 0

    def __enter__(self) -> IngestWorker:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def pid(self) -> int | None:
        """Process id of the running child, if one runs."""
        return self._proc.pid if self._proc is not None else None

    def tables(self, path: Path, con: duckdb.DuckDBPyConnection) -> list[StagedTable]:
        """Read a table file in the child and stage its tables on ``con`` (the caller's
        transaction), exactly as ``read_table_file(path, con)`` would.

        Raises:
            SourceError: the file is over a cap, past a limit, or unreadable.
        """
        self._files += 1
        scratch = self._folder / f"scratch_{self._files}.duckdb"
        try:
            reply = self._ask(("table", str(path), str(scratch)), path)
            assert isinstance(reply, list)
            copy_staged(con, reply, scratch)
            return reply
        finally:  # the scratch file, its WAL and its spill folder
            for leftover in self._folder.glob(f"scratch_{self._files}.duckdb*"):
                if leftover.is_dir():
                    shutil.rmtree(leftover, ignore_errors=True)
                else:
                    leftover.unlink(missing_ok=True)

    def document(self, path: Path) -> Document:
        """Read a document in the child.

        Raises:
            SourceError: the file is over a cap, past a limit, or unreadable.
        """
        reply = self._ask(("document", str(path), ""), path)
        assert isinstance(reply, Document)
        return reply

    def _ask(self, message: tuple[str, str, str], path: Path) -> Any:
        source = str(path)
        with self._lock:
            con = self._start()
            con.send((*message, self.limits, self.date_order))
            if not con.poll(self.limits.time_limit_s):
                self._kill()
                raise limits.refuse(
                    source,
                    f"reading it took more than {self.limits.time_limit_s:g} s and was stopped",
                    f"{self.limits.time_limit_s:g} s",
                    "ingest_time_limit_s",
                )
            try:
                reply = con.recv()
            except (EOFError, OSError) as exc:
                code = self._kill()
                raise limits.refuse(
                    source,
                    f"reading it needed more than {self.limits.memory_limit_mb} MB of memory "
                    f"(the reader was stopped, exit status {code})",
                    f"{self.limits.memory_limit_mb} MB",
                    "ingest_memory_limit_mb",
                ) from exc
            if reply[-1] == "restart":
                self._kill()
        if reply[0] == "ok":
            return reply[1]
        raise SourceError(reply[1], reply[2])

    def _start(self) -> Connection:
        if self._con is not None and self._proc is not None and self._proc.poll() is None:
            return self._con
        self._kill()
        self._proc, self._con = spawn(_CHILD)
        if not self._con.poll(START_TIMEOUT_S):
            self._kill()
            raise SourceError(
                "",
                f"The ingest worker did not start within {START_TIMEOUT_S:.0f} s; check "
                "the machine's load.",
            )
        try:
            self._con.recv()  # "ready"
        except EOFError as exc:
            self._kill()
            raise SourceError("", "The ingest worker stopped while starting.") from exc
        return self._con

    def _kill(self) -> int | None:
        """Stop the child at once; its exit status (None when none ran)."""
        code = None
        if self._con is not None:
            self._con.close()
            self._con = None
        if self._proc is not None:
            if self._proc.poll() is None:
                self._proc.kill()
            code = self._proc.wait()
            self._proc = None
        return code

    def close(self) -> None:
        """Stop the child and remove its scratch folder (idempotent)."""
        with self._lock:
            if self._con is not None and self._proc is not None and self._proc.poll() is None:
                try:
                    self._con.send(("close", "", ""))
                    self._proc.wait(timeout=2)
                except (OSError, subprocess.TimeoutExpired):
                    pass
            self._kill()
            shutil.rmtree(self._folder, ignore_errors=True)

    def __del__(self) -> None:
        # a worker dropped without close(): stop the child rather than leave it running
        if getattr(self, "_proc", None) is not None:
            self._kill()


def copy_staged(
    con: duckdb.DuckDBPyConnection, staged: Sequence[StagedTable], scratch: Path
) -> None:
    """Copy the staged tables of a worker's scratch file into ``con``, where the readers would
    have put them (temp tables; ``final`` ones in ``data``), rows in order."""
    alias = f"{SCRATCH}_{scratch.stem}"  # its own name: a failed copy may leave it attached
    con.execute(f"ATTACH {_literal(str(scratch))} AS {alias} (READ_ONLY)")
    try:
        for st in staged:
            quoted = _quote(st.relation)
            if st.final:
                con.execute("CREATE SCHEMA IF NOT EXISTS data")
                con.execute(f"CREATE TABLE data.{quoted} AS SELECT * FROM {alias}.data.{quoted}")
            else:
                con.execute(f"CREATE TEMP TABLE {quoted} AS SELECT * FROM {alias}.main.{quoted}")
    finally:
        # when the transaction already failed, the caller's error says why: keep it
        with contextlib.suppress(duckdb.Error):
            con.execute(f"DETACH DATABASE IF EXISTS {alias}")


def _quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _literal(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


# --- the child ---------------------------------------------------------------------------


_NEAR_LIMIT_MB = 64
"""A file whose reading took the address space this close to the cap ran out of memory, even
when the library that failed says otherwise (libxml2: "unknown error")."""


def _address_space_mb(field: str = "VmSize") -> int:
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith(f"{field}:"):
                return int(line.split()[1]) // 1024
    return 0  # pragma: no cover - Linux has VmSize


def _cap_memory(memory_mb: int) -> int:
    """Cap the address space (soft limit, raised again for the next file) at what the child
    uses now plus ``memory_mb`` and the margin; the cap in MB (0: none)."""
    if not sys.platform.startswith("linux"):
        return 0
    limit = (_address_space_mb() + memory_mb + MARGIN_MB) * 2**20
    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    if hard != resource.RLIM_INFINITY:
        limit = min(limit, hard)
    resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
    return limit // 2**20


def _hit_cap(cap_mb: int, peak_before_mb: int) -> bool:
    """Whether this file took the address space to the cap (a new peak next to it)."""
    if not cap_mb:
        return False
    peak = _address_space_mb("VmPeak")
    return peak > peak_before_mb and peak >= cap_mb - _NEAR_LIMIT_MB


def _read(kind: str, path: Path, scratch: str, lim: IngestLimits) -> Any:
    """Read one file as the parent asked (the caps first)."""
    from tablerag.ingest.documents import load_document
    from tablerag.ingest.tables import read_table_file

    limits.check_file(path)
    if kind == "document":
        return load_document(path)
    con = duckdb.connect(scratch)
    try:
        con.execute(f"SET memory_limit = '{max(lim.memory_limit_mb // 2, 64)}MB'")
        con.execute(f"SET temp_directory = {_literal(scratch + '.tmp')}")
        staged = read_table_file(path, con)
        for st in staged:
            if not st.final:  # temp tables live in this connection only: keep them in the file
                quoted = _quote(st.relation)
                con.execute(f"CREATE TABLE main.{quoted} AS SELECT * FROM temp.{quoted}")
                con.execute(f"DROP TABLE temp.{quoted}")
        con.execute("CHECKPOINT")
    finally:
        con.close()
    return staged


def _answer(message: tuple[Any, ...]) -> tuple[Any, ...]:
    """The reply to one ``(kind, path, scratch, limits, date_order)`` message."""
    from tablerag.ingest import infer

    kind, raw_path, scratch, lim, order = message
    path = Path(raw_path)
    peak, start = _address_space_mb("VmPeak"), _address_space_mb()
    cap = _cap_memory(lim.memory_limit_mb)

    def out_of_memory() -> str:
        reached = max(_address_space_mb("VmPeak") - start, lim.memory_limit_mb)
        return str(
            limits.refuse(
                raw_path,
                f"reading it needed more memory than allowed (it reached about {reached} MB "
                "before it was stopped)",
                f"{lim.memory_limit_mb} MB",
                "ingest_memory_limit_mb",
            )
        )

    try:
        with limits.applied(lim), infer.date_order(order):
            return ("ok", _read(kind, path, scratch, lim))
    except (MemoryError, duckdb.OutOfMemoryException):
        return ("error", raw_path, out_of_memory(), "restart")
    except RecursionError:
        with limits.applied(lim):
            error = limits.too_deep(raw_path)
        return ("error", raw_path, str(error))
    except Exception as exc:  # noqa: BLE001 - isolation edge: a parser bug must not stop the batch
        if _hit_cap(cap, peak):  # a library that failed an allocation in its own words
            return ("error", raw_path, out_of_memory(), "restart")
        if isinstance(exc, TableragError):
            return ("error", getattr(exc, "source", raw_path) or raw_path, str(exc))
        return ("error", raw_path, f"{type(exc).__name__}: {exc}")


def _warm_up() -> None:
    """Open and close a DuckDB file once before any cap: DuckDB's first database reserves
    hundreds of MB of address space (threads, allocator arenas) that later ones reuse, and a
    file's memory limit should measure what reading the file takes, not that."""
    with tempfile.TemporaryDirectory(prefix="tablerag-warm-") as folder:
        warm = duckdb.connect(str(Path(folder) / "warm.duckdb"))
        warm.execute("CREATE TABLE t AS SELECT range AS n FROM range(10)")
        warm.close()


def _serve(fd: int) -> None:
    con = Connection(fd)
    _warm_up()
    con.send(("ready",))
    while True:
        try:
            message = con.recv()
        except EOFError:
            break
        if message[0] == "close":
            break
        reply = _answer(message)
        con.send(reply)
        if reply[-1] == "restart":  # after a MemoryError the heap may be in pieces: start anew
            break


def main() -> None:  # pragma: no cover - runs in the child
    """The child's entry point: its own process group (a terminal's Ctrl-C goes to the parent,
    which stops the child), then :func:`_serve` on the socket named by ``argv[1]``."""
    os.setpgid(0, 0)
    _serve(int(sys.argv[1]))
