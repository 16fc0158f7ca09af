"""The query log: one row per question answered, with feedback, in ``<workspace>/service.sqlite``.

Every entry is written in one transaction (SQLite's journal makes it all-or-nothing, so a crash
never leaves half an entry). Connections are short: one per write or read, so the CLI, the
server and another server can log to one workspace at once; a server writes its entries
through one kept connection (:class:`Writer`). The schema is
:data:`tablerag.store.migrations.SERVICE_MIGRATIONS`, applied on first use.

What is stored is data (codes, numbers, ids, the texts of the question and the answer), never a
result's rows: the row count is kept, and the answer's text is the one the user saw, written
from rows the engine had already masked.
"""

from __future__ import annotations

import datetime as dt
import json
import sqlite3
import threading
from collections.abc import Iterator, Sequence
from contextlib import closing, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tablerag.errors import ConfigError, WorkspaceError
from tablerag.store.migrations import SERVICE_DB, SERVICE_MIGRATIONS

RATINGS = ("right", "wrong", "not_in_data")
BUSY_TIMEOUT_MS = 5000


def service_db(workspace: Path) -> Path:
    """The service file of the workspace at ``workspace``."""
    return Path(workspace) / SERVICE_DB


@contextmanager
def connect(workspace: Path) -> Iterator[sqlite3.Connection]:
    """A short connection to the service file, migrated; committed when the block ends
    without error, rolled back otherwise.

    Raises:
        WorkspaceError: the file cannot be opened or written (read-only folder, corrupt file).
    """
    path = service_db(workspace)
    try:
        con = sqlite3.connect(path, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None)
    except sqlite3.Error as exc:
        raise WorkspaceError(
            f"Cannot open the service file {str(path)!r} ({exc}); check the folder's "
            "permissions or set query_log = false."
        ) from exc
    with closing(con):
        try:
            con.execute("PRAGMA foreign_keys = ON")
            con.execute("PRAGMA journal_mode = WAL")
            _migrate(con)
            con.execute("BEGIN IMMEDIATE")
            try:
                yield con
            except BaseException:
                con.execute("ROLLBACK")
                raise
            con.execute("COMMIT")
        except sqlite3.Error as exc:
            raise WorkspaceError(
                f"The service file {str(path)!r} could not be used ({exc}); if it is corrupt, "
                "move it away (the log starts again)."
            ) from exc


def _migrate(con: sqlite3.Connection) -> None:
    done = con.execute("PRAGMA user_version").fetchone()[0]
    if done >= len(SERVICE_MIGRATIONS):
        return
    con.execute("BEGIN IMMEDIATE")
    try:
        done = con.execute("PRAGMA user_version").fetchone()[0]  # another process may have
        for n, script in enumerate(SERVICE_MIGRATIONS[done:], start=done + 1):
            for statement in script.split(";"):
                if statement.strip():
                    con.execute(statement)
            con.execute(f"PRAGMA user_version = {n}")
        con.execute("COMMIT")
    except BaseException:
        con.execute("ROLLBACK")
        raise


def now() -> str:
    """The current UTC time as the log writes it."""
    return dt.datetime.now(dt.UTC).isoformat(timespec="milliseconds")


@dataclass(frozen=True)
class Entry:
    """One logged answer (``status`` is the answer's, or ``failed``/``cancelled``)."""

    id: str
    asked_at: str
    origin: str
    question: str
    status: str
    session: str | None = None
    token_id: str | None = None
    intent: str | None = None
    confidence: float | None = None
    path: str | None = None
    tables: Sequence[str] = ()
    sql_attempts: Sequence[dict[str, Any]] = ()
    row_count: int | None = None
    chunk_ids: Sequence[str] = ()
    answer: str = ""
    findings: Sequence[str] = ()
    error: str | None = None
    timings_ms: dict[str, float] = field(default_factory=dict)
    llm_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    generation: int | None = None
    feedback: Sequence[dict[str, Any]] = ()

    def as_dict(self) -> dict[str, Any]:
        """The entry as plain JSON values."""
        return {
            name: list(value) if isinstance(value, tuple) else value
            for name, value in self.__dict__.items()
        }


_JSON = ("tables", "sql_attempts", "chunk_ids", "findings", "timings_ms")
_COLUMNS = tuple(f for f in Entry.__dataclass_fields__ if f != "feedback")


def record(workspace: Path, entry: Entry) -> None:
    """Write one entry (one transaction).

    Raises:
        WorkspaceError: the service file cannot be written.
    """
    with connect(workspace) as con:
        _insert(con, entry)


def _insert(con: sqlite3.Connection, entry: Entry) -> None:
    values = [
        json.dumps(list(v) if isinstance(v, tuple) else v, ensure_ascii=False)
        if name in _JSON
        else v
        for name, v in ((c, getattr(entry, c)) for c in _COLUMNS)
    ]
    marks = ", ".join("?" for _ in _COLUMNS)
    con.execute(f"INSERT INTO answers ({', '.join(_COLUMNS)}) VALUES ({marks})", values)


class Writer:
    """One kept connection to the service file, for a process that logs many answers (the
    server); :meth:`close` it when done.

    A short connection per entry (:func:`record`) cost 17-25 ms of every served request on a
    virtual disk (issue 31): opening, and on closing the last connection SQLite checkpoints the
    write-ahead log and syncs the file. The kept connection writes each entry in one
    transaction still (all or nothing), with ``synchronous = NORMAL``: in WAL mode a commit is
    then not synced to disk by itself, so a power cut may lose the last entries, never leave
    half of one; a process that crashes loses none. Other processes (``tablerag ask``,
    ``tablerag log``, another server) use the file meanwhile as before. Thread-safe.
    """

    def __init__(self, workspace: Path) -> None:
        self.workspace = Path(workspace)
        self._con: sqlite3.Connection | None = None
        self._lock = threading.Lock()

    def record(self, entry: Entry) -> None:
        """Write one entry (one transaction).

        Raises:
            WorkspaceError: the service file cannot be written (the connection is opened
                again for the next entry).
        """
        with self._lock:
            con = self._open()
            try:
                con.execute("BEGIN IMMEDIATE")
                try:
                    _insert(con, entry)
                except BaseException:
                    con.execute("ROLLBACK")
                    raise
                con.execute("COMMIT")
            except sqlite3.Error as exc:
                self._close()
                raise WorkspaceError(
                    f"The service file {str(service_db(self.workspace))!r} could not be used "
                    f"({exc}); if it is corrupt, move it away (the log starts again)."
                ) from exc

    def _open(self) -> sqlite3.Connection:
        if self._con is not None:
            return self._con
        path = service_db(self.workspace)
        try:
            con = sqlite3.connect(
                path,
                timeout=BUSY_TIMEOUT_MS / 1000,
                isolation_level=None,
                check_same_thread=False,  # used by one thread at a time, under the lock
            )
        except sqlite3.Error as exc:
            raise WorkspaceError(
                f"Cannot open the service file {str(path)!r} ({exc}); check the folder's "
                "permissions or set query_log = false."
            ) from exc
        try:
            con.execute("PRAGMA foreign_keys = ON")
            con.execute("PRAGMA journal_mode = WAL")
            con.execute("PRAGMA synchronous = NORMAL")
            _migrate(con)
        except sqlite3.Error as exc:
            con.close()
            raise WorkspaceError(
                f"The service file {str(path)!r} could not be used ({exc}); if it is corrupt, "
                "move it away (the log starts again)."
            ) from exc
        self._con = con
        return con

    def _close(self) -> None:
        if self._con is not None:
            self._con.close()
            self._con = None

    def close(self) -> None:
        """Close the connection (idempotent; SQLite checkpoints the log into the file)."""
        with self._lock:
            self._close()


def add_feedback(
    workspace: Path,
    answer_id: str,
    rating: str,
    comment: str = "",
    *,
    token_id: str | None = None,
) -> bool:
    """Attach feedback to a logged answer; False when no answer has that id.

    Raises:
        ConfigError: ``rating`` is not one of :data:`RATINGS`.
    """
    if rating not in RATINGS:
        raise ConfigError(f"Unknown rating {rating!r}; use one of {', '.join(RATINGS)}.")
    with connect(workspace) as con:
        if con.execute("SELECT 1 FROM answers WHERE id = ?", (answer_id,)).fetchone() is None:
            return False
        con.execute(
            "INSERT INTO feedback (answer_id, given_at, rating, comment, token_id) "
            "VALUES (?, ?, ?, ?, ?)",
            (answer_id, now(), rating, comment, token_id),
        )
    return True


def entries(
    workspace: Path,
    *,
    since: str | None = None,
    status: str | None = None,
    session: str | None = None,
    token_id: str | None = None,
    answer_id: str | None = None,
    limit: int = 100,
) -> list[Entry]:
    """Entries newest first, filtered by time (ISO, UTC), status, session, token or id."""
    where, args = [], []
    for column, value, op in (
        ("id", answer_id, "="),
        ("asked_at", since, ">="),
        ("status", status, "="),
        ("session", session, "="),
        ("token_id", token_id, "="),
    ):
        if value is not None:
            where.append(f"{column} {op} ?")
            args.append(value)
    clause = f"WHERE {' AND '.join(where)}" if where else ""
    with connect(workspace) as con:
        rows = con.execute(
            f"SELECT {', '.join(_COLUMNS)} FROM answers {clause} "
            "ORDER BY asked_at DESC, id LIMIT ?",
            (*args, limit),
        ).fetchall()
        ids = [r[0] for r in rows]
        notes: dict[str, list[dict[str, Any]]] = {}
        if ids:
            marks = ", ".join("?" for _ in ids)
            for answer_id, given_at, rating, comment in con.execute(
                f"SELECT answer_id, given_at, rating, comment FROM feedback "
                f"WHERE answer_id IN ({marks}) ORDER BY given_at",
                ids,
            ):
                notes.setdefault(answer_id, []).append(
                    {"given_at": given_at, "rating": rating, "comment": comment}
                )
    out = []
    for row in rows:
        values = {
            c: (json.loads(v) if c in _JSON else v) for c, v in zip(_COLUMNS, row, strict=True)
        }
        out.append(Entry(**values, feedback=notes.get(values["id"], [])))
    return out


def get(workspace: Path, answer_id: str) -> Entry | None:
    """The entry with id ``answer_id``, or None."""
    found = entries(workspace, answer_id=answer_id, limit=1)
    return found[0] if found else None


def flagged(workspace: Path, *, limit: int = 100) -> list[Entry]:
    """The review queue: answers whose latest feedback says ``wrong`` or ``not_in_data``,
    most recently flagged first (issue 33)."""
    with connect(workspace) as con:
        ids = [
            row[0]
            for row in con.execute(
                "SELECT f.answer_id FROM feedback f JOIN (SELECT answer_id, max(rowid) AS last "
                "FROM feedback GROUP BY answer_id) l ON f.rowid = l.last "
                "WHERE f.rating IN ('wrong', 'not_in_data') ORDER BY f.given_at DESC, f.rowid DESC "
                "LIMIT ?",
                (limit,),
            )
        ]
    return [e for e in (get(workspace, i) for i in ids) if e is not None]


def prune(workspace: Path, retention_days: int) -> int:
    """Delete entries (and their feedback) older than ``retention_days``; 0 keeps all.
    Returns how many entries went."""
    if retention_days <= 0:
        return 0
    cutoff = (dt.datetime.now(dt.UTC) - dt.timedelta(days=retention_days)).isoformat()
    with connect(workspace) as con:
        return con.execute("DELETE FROM answers WHERE asked_at < ?", (cutoff,)).rowcount
