"""The long-lived runtime of a server: the model, the catalog and the index loaded once, answering
many requests at once while ingests commit underneath.

A :class:`Runtime` holds the settings and the model for its whole life, and the workspace as a
*generation*: a private copy of the workspace's DuckDB file and text index, taken under the
workspace's shared lock (the sample workspace's 9 MB file and index copy in 2-23 ms, which is
all the time the lock is held) and opened as a :class:`~tablerag.service.QA` (1.1-1.5 s for the
sample workspace, in the watcher thread, off every request's path). The lock is released as
soon as the copy is taken, so ``tablerag ingest`` (this process or another) can write the
workspace while the server runs: DuckDB lets one process write a file only when no other
process has it open, which a server that kept the workspace file open would forbid for its
whole life.

A watcher thread checks every ``serve_refresh_s`` whether the workspace changed (the DuckDB
file, its WAL and the index manifest: size and modification time). While an ingest holds the
workspace, the check does not wait: requests go on being answered from the current generation.
Once the ingest has committed and released the lock, the next check copies and opens the new
state and swaps it in atomically; requests that began on the old generation finish on it, and
it is closed when the last of them ends.

Requests are admitted through :class:`Admission`: the embedded model answers one request at a
time (``slots=1``), endpoint models ``serve_max_concurrent`` at once; up to ``serve_queue_max``
more wait in order, and each waiting request's trace gets a ``queued`` event whenever its
position changes. A request that would make the queue longer is refused at once
(:class:`~tablerag.errors.ServiceBusy`).
"""

from __future__ import annotations

import logging
import shutil
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import Self

from tablerag.answer import Answer
from tablerag.errors import ServiceBusy, TableragError, WorkspaceError
from tablerag.layout import DB_FILE
from tablerag.llm import LLM, load_llm
from tablerag.rag.index import INDEX_DIR
from tablerag.request import Request
from tablerag.runtime.admission import Admission
from tablerag.runtime.entries import linked_tables, record_answer
from tablerag.service import QA
from tablerag.settings import Settings, load_settings
from tablerag.store import lock as workspace_lock
from tablerag.store import querylog, sessions
from tablerag.store import workspace as store
from tablerag.store.workspace import SourceRecord
from tablerag.telemetry import export_spans

log = logging.getLogger(__name__)

__all__ = [
    "Admission",
    "Generation",
    "Runtime",
    "fingerprint",
    "linked_tables",
    "record_answer",
]

PRUNE_EVERY_S = 3600.0
"""How often a running server deletes query log entries past their retention."""

Fingerprint = tuple[tuple[str, int, int], ...]


def fingerprint(path: Path) -> Fingerprint:
    """What changes when an ingest commits: size and mtime of the DuckDB file, its WAL and the
    index manifest (absent files count as ``(name, -1, -1)``)."""
    out = []
    for part in (path / DB_FILE, path / f"{DB_FILE}.wal", index_dir_of(path) / "manifest.json"):
        try:
            st = part.stat()
            out.append((part.name, st.st_size, st.st_mtime_ns))
        except FileNotFoundError:
            out.append((part.name, -1, -1))
    return tuple(out)


def index_dir_of(path: Path) -> Path:
    """The text index folder of the workspace at ``path``."""
    return path / INDEX_DIR


class _Busy(WorkspaceError):
    """A writer holds the workspace: try again at the next check."""


@dataclass
class Generation:
    """One committed state of the workspace, copied and opened for answering."""

    number: int
    stamp: Fingerprint
    folder: Path
    qa: QA
    records: tuple[SourceRecord, ...] = ()
    users: int = 0
    retired: bool = False

    def close(self) -> None:
        """Close the engines and delete the copy."""
        try:
            self.qa.close()
        finally:
            shutil.rmtree(self.folder, ignore_errors=True)


@dataclass
class Runtime:
    """The model, settings and current workspace generation of a server. Use :meth:`open`.

    Attributes:
        path: the workspace folder.
        settings: the settings in force.
        llm: the model every request uses.
        admission: the slots and the queue.
    """

    path: Path
    settings: Settings
    llm: LLM
    admission: Admission
    owns_llm: bool = True
    _current: Generation | None = field(default=None, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)
    _stop: threading.Event = field(default_factory=threading.Event, repr=False)
    _watcher: threading.Thread | None = field(default=None, repr=False)
    _root: Path | None = field(default=None, repr=False)
    _failed: Fingerprint | None = field(default=None, repr=False)
    _writer: querylog.Writer | None = field(default=None, repr=False)
    _count: int = 0
    _attempts: int = 0

    @classmethod
    def open(
        cls,
        workspace: str | Path,
        *,
        settings: Settings | None = None,
        llm: LLM | str | None = None,
        slots: int | None = None,
        watch: bool = True,
    ) -> Runtime:
        """Load the model and the workspace's current state; start watching for ingests.

        Args:
            workspace: the workspace folder.
            settings: default :func:`load_settings` of the workspace.
            llm: an LLM object (the caller keeps it) or a spec; default ``settings.llm``.
            slots: requests answered at once; default 1 for a model on this machine,
                ``serve_max_concurrent`` for an endpoint.
            watch: start the thread that swaps in what ingests commit.

        Raises:
            WorkspaceError: no workspace there, or a writer held it past the reader's wait.
            ConfigError: a setting is wrong or the model is not available.
        """
        path = Path(workspace).expanduser().resolve()
        if not (path / DB_FILE).exists():
            raise WorkspaceError(
                f"No workspace at {str(path)!r}; create one with `tablerag ingest FILES -w "
                f"{path}` or pass --workspace."
            )
        settings = settings or load_settings(path)
        model = llm if isinstance(llm, LLM) else load_llm(llm or settings.llm)
        if slots is None:
            slots = settings.serve_max_concurrent if model.is_remote else 1
        rt = cls(
            path=path,
            settings=settings,
            llm=model,
            admission=Admission(slots, settings.serve_queue_max),
            owns_llm=not isinstance(llm, LLM),
        )
        try:
            rt._root = Path(tempfile.mkdtemp(prefix="tablerag-serve-"))
            rt._current = rt._load(wait_s=workspace_lock.READ_WAIT_S)
        except BaseException:
            rt.close()
            raise
        if watch:
            rt._watcher = threading.Thread(target=rt._watch, name="tablerag-watch", daemon=True)
            rt._watcher.start()
        return rt

    # -- generations ---------------------------------------------------------------------------

    @property
    def generation(self) -> int:
        """The number of the generation new requests are answered from (1 at start)."""
        current = self._current
        return current.number if current is not None else 0

    def _load(self, *, wait_s: float) -> Generation:
        """Copy the workspace under its shared lock, then open the copy.

        Raises:
            _Busy: a writer held the workspace past ``wait_s``.
            TableragError, OSError: the copy could not be taken or opened.
        """
        assert self._root is not None
        try:
            held = workspace_lock.acquire(self.path, exclusive=False, wait_s=wait_s)
        except WorkspaceError as exc:
            raise _Busy(str(exc)) from exc
        self._attempts += 1
        folder = self._root / f"gen-{self._attempts}"
        try:
            with held:
                stamp = fingerprint(self.path)
                folder.mkdir()
                for name in (DB_FILE, f"{DB_FILE}.wal"):
                    if (self.path / name).exists():
                        shutil.copy2(self.path / name, folder / name)
                index = index_dir_of(self.path)
                if index.is_dir():
                    shutil.copytree(index, index_dir_of(folder))
            with store.Workspace.open(folder, create=False, read_only=True) as ws:
                records = tuple(ws.sources())
            qa = QA.open(folder, settings=self.settings, llm=self.llm, home=self.path)
        except BaseException:
            shutil.rmtree(folder, ignore_errors=True)
            raise
        self._count += 1  # numbered when loaded: a busy or failed attempt takes no number
        log.info("workspace generation %d loaded from %s", self._count, self.path)
        return Generation(self._count, stamp, folder, qa, records)

    def refresh(self, *, wait_s: float = 0.0) -> bool:
        """Swap in the workspace's committed state if it changed; False when nothing changed,
        a writer holds the workspace now, or this same state failed to open before (the
        current generation keeps answering in each case).

        Raises:
            TableragError, OSError: the new state could not be copied or opened (the current
                one stays; the same state is not tried again until the workspace changes).
        """
        current = self._current
        now = fingerprint(self.path)
        if current is None or now in (current.stamp, self._failed):
            return False
        try:
            fresh = self._load(wait_s=wait_s)
        except _Busy:
            return False  # an ingest is writing: answer from the committed state meanwhile
        except BaseException:
            self._failed = now
            raise
        with self._lock:
            old, self._current = self._current, fresh
            idle = old is not None and old.users == 0
            if old is not None:
                old.retired = True
        if old is not None and idle:
            old.close()
        log.info("answering from workspace generation %d", fresh.number)
        return True

    def _watch(self) -> None:
        pruned = time.monotonic()
        while not self._stop.wait(self.settings.serve_refresh_s):
            if time.monotonic() - pruned > PRUNE_EVERY_S:
                pruned = time.monotonic()
                self.prune_log()
            try:
                self.refresh()
            except (TableragError, OSError) as exc:  # keep serving the current state
                log.warning("could not load the workspace's new state: %s", exc)

    @contextmanager
    def use(self) -> Iterator[Generation]:
        """The current generation, kept open until the block ends (even if swapped meanwhile).

        Raises:
            WorkspaceError: the runtime is closed.
        """
        with self._lock:
            gen = self._current
            if gen is None:
                raise WorkspaceError("The server is shutting down; try again in a moment.")
            gen.users += 1
        try:
            yield gen
        finally:
            with self._lock:
                gen.users -= 1
                done = gen.retired and gen.users == 0
            if done:
                gen.close()

    # -- answering -----------------------------------------------------------------------------

    def request(self, question: str, **fields: object) -> Request:
        """A new request with this runtime's time limit."""
        return Request.make(question, max_seconds=self.settings.answer_max_seconds, **fields)  # type: ignore[arg-type]

    def ask(self, rq: Request) -> Answer:
        """Answer ``rq`` on the current generation once a slot is free.

        Raises:
            ServiceBusy: the queue is full or the wait outlasted the request's time.
            ConfigError: the model is not available.
        """
        with self.admission.enter(rq), self.use() as gen:
            rq.trace.emit("started", generation=gen.number)
            return gen.qa.answer(rq)

    def serve(self, rq: Request, *, token_id: str | None = None) -> Answer:
        """:meth:`ask`, and the query log's entry of it whatever happens (``busy`` when it was
        refused, ``failed`` when it raised, ``cancelled`` when its client went away).

        Raises:
            ServiceBusy, ConfigError: as :meth:`ask`.
        """
        generation: int | None = None
        try:
            with self.admission.enter(rq), self.use() as gen:
                generation = gen.number
                rq.trace.emit("started", generation=gen.number)
                answer = gen.qa.answer(rq)
        except Exception as exc:
            status = "busy" if isinstance(exc, ServiceBusy) else "failed"
            error = str(exc) if isinstance(exc, TableragError) else type(exc).__name__
            self.log(rq, None, status=status, error=error, token_id=token_id, generation=generation)
            export_spans(rq, None, status=status)
            raise
        cancelled = "cancelled" if rq.cancelled.is_set() else None
        self.log(rq, answer, status=cancelled, token_id=token_id, generation=generation)
        export_spans(rq, answer, status=cancelled or answer.status)
        return answer

    def log(
        self,
        rq: Request,
        answer: Answer | None,
        *,
        status: str | None = None,
        error: str | None = None,
        token_id: str | None = None,
        generation: int | None = None,
    ) -> None:
        """Record ``rq`` in the query log (when the ``query_log`` setting is on); a log that
        cannot be written is reported in the server's log, never to the asker."""
        if not self.settings.query_log:
            return
        try:
            record_answer(
                self.path,
                rq,
                answer,
                status=status,
                error=error,
                token_id=token_id,
                generation=generation,
                writer=self._log_writer(),
            )
        except WorkspaceError as exc:
            log.warning("query log not written: %s", exc)

    def _log_writer(self) -> querylog.Writer:
        with self._lock:
            if self._writer is None:
                self._writer = querylog.Writer(self.path)
            return self._writer

    def prune_log(self) -> int:
        """Delete log entries older than ``query_log_retention_days`` and conversations unused
        for ``session_retention_days``; returns how many log entries went."""
        try:
            sessions.prune(self.path, self.settings.session_retention_days)
            return querylog.prune(self.path, self.settings.query_log_retention_days)
        except WorkspaceError as exc:
            log.warning("query log not pruned: %s", exc)
            return 0

    def close(self) -> None:
        """Stop watching, close every generation and the model (when the runtime built it);
        idempotent."""
        if self._stop.is_set():
            return
        self._stop.set()
        if self._watcher is not None:
            self._watcher.join(timeout=5)
        with self._lock:
            gen, self._current = self._current, None
        if gen is not None:
            gen.close()
        if self._writer is not None:
            self._writer.close()
        if self._root is not None:
            shutil.rmtree(self._root, ignore_errors=True)
        if self.owns_llm:
            self.llm.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()
