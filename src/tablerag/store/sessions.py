"""Conversations (issue 34): each session's turns, in ``<workspace>/service.sqlite``.

A turn keeps what a follow-up is resolved against: the question as asked, the standalone
question it was resolved to, the SQL that answered it, the result's shape (columns, row count,
the values it filtered on) and the cited chunk ids - never the result's rows. Each write is one
SQLite transaction taken with ``BEGIN IMMEDIATE`` (:func:`tablerag.store.querylog.connect`), so
two clients adding a turn to one session at once each get their own number and neither can
leave a half-written turn. Sessions not used for ``session_retention_days`` are deleted with
their turns (:func:`prune`).
"""

from __future__ import annotations

import datetime as dt
import json
import re
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from tablerag.errors import ConfigError
from tablerag.store.querylog import connect, now

MAX_ID_CHARS = 200
_ID = re.compile(r"[\w.:@-]+")


@dataclass(frozen=True)
class Turn:
    """One answered question of a session, as a follow-up needs it."""

    question: str
    standalone: str
    answer_id: str
    path: str = ""
    status: str = ""
    sql: str | None = None
    columns: Sequence[str] = ()
    row_count: int | None = None
    filter_values: Sequence[str] = ()
    chunk_ids: Sequence[str] = ()
    answer: str = ""
    choices: Sequence[tuple[str, str]] = ()
    """The choices the answer offered, ``(label, question)`` each (a ``clarify`` answer)."""
    n: int = 0
    """Its number in the session (1, 2, ...); 0 until it is stored."""
    asked_at: str = ""


@dataclass(frozen=True)
class Session:
    """A conversation: its id, when it began and was last used, and its turns (oldest first)."""

    session_id: str
    created_at: str
    updated_at: str
    origin: str
    turns: Sequence[Turn] = field(default_factory=tuple)
    turn_count: int = 0


def check_id(session_id: str) -> str:
    """``session_id`` when it can name a session (letters, digits, ``_.:@-``, at most 200).

    Example:
        >>> check_id("chat-2026-10-01")
        'chat-2026-10-01'

    Raises:
        ConfigError: it cannot (the message says what can).
    """
    if len(session_id) > MAX_ID_CHARS or not _ID.fullmatch(session_id):
        raise ConfigError(
            f"Session id {session_id[:40]!r} is not usable; use up to {MAX_ID_CHARS} letters, "
            "digits and the characters _ . : @ - (e.g. --session sales-review)."
        )
    return session_id


_LISTS = ("columns", "filter_values", "chunk_ids", "choices")
_TURN_COLUMNS = (
    "n",
    "asked_at",
    "answer_id",
    "question",
    "standalone",
    "path",
    "status",
    "sql",
    "columns",
    "row_count",
    "filter_values",
    "chunk_ids",
    "answer",
    "choices",
)


def _turn(row: Sequence[object]) -> Turn:
    values = dict(zip(_TURN_COLUMNS, row, strict=True))
    for name in _LISTS:
        values[name] = tuple(json.loads(str(values[name])))
    values["choices"] = tuple((str(c[0]), str(c[1])) for c in values["choices"])  # type: ignore[attr-defined]
    return Turn(**values)  # type: ignore[arg-type]


def _ensure(con: sqlite3.Connection, session_id: str, origin: str, at: str) -> bool:
    cur = con.execute(
        "INSERT OR IGNORE INTO sessions (session_id, created_at, updated_at, origin) "
        "VALUES (?, ?, ?, ?)",
        (session_id, at, at, origin),
    )
    return cur.rowcount > 0


def open_session(
    workspace: Path, session_id: str, *, origin: str = "library", last: int = 0
) -> tuple[Session, bool]:
    """The session ``session_id`` with its ``last`` turns (0: all), created when it does not
    exist yet (unknown and expired ids alike); the flag says whether it was created now.

    Raises:
        ConfigError: the id is not usable (:func:`check_id`).
        WorkspaceError: the service file cannot be used.
    """
    check_id(session_id)
    with connect(workspace) as con:
        created = _ensure(con, session_id, origin, now())
        found = _read(con, session_id, last)
    assert found is not None
    return found, created


def _read(con: sqlite3.Connection, session_id: str, last: int) -> Session | None:
    head = con.execute(
        "SELECT session_id, created_at, updated_at, origin FROM sessions WHERE session_id = ?",
        (session_id,),
    ).fetchone()
    if head is None:
        return None
    count = con.execute("SELECT count(*) FROM turns WHERE session_id = ?", (session_id,)).fetchone()
    limit = last if last > 0 else -1
    rows = con.execute(
        f"SELECT {', '.join(_TURN_COLUMNS)} FROM turns WHERE session_id = ? "
        "ORDER BY n DESC LIMIT ?",
        (session_id, limit),
    ).fetchall()
    turns = tuple(_turn(r) for r in reversed(rows))
    return Session(
        session_id=head[0],
        created_at=head[1],
        updated_at=head[2],
        origin=head[3],
        turns=turns,
        turn_count=int(count[0]),
    )


def get(workspace: Path, session_id: str, *, last: int = 0) -> Session | None:
    """The session ``session_id`` with its ``last`` turns (0: all), or None."""
    with connect(workspace) as con:
        return _read(con, session_id, last)


def add_turn(workspace: Path, session_id: str, turn: Turn, *, origin: str = "library") -> Turn:
    """Append ``turn`` to the session (created if it went meanwhile); one transaction, so
    concurrent writers each get the next number. Returns the turn as stored.

    Raises:
        ConfigError: the id is not usable.
        WorkspaceError: the service file cannot be written.
    """
    check_id(session_id)
    at = now()
    with connect(workspace) as con:
        _ensure(con, session_id, origin, at)
        row = con.execute(
            "SELECT coalesce(max(n), 0) + 1 FROM turns WHERE session_id = ?", (session_id,)
        ).fetchone()
        stored = Turn(**{**turn.__dict__, "n": int(row[0]), "asked_at": at})
        values = [
            json.dumps(list(getattr(stored, c)), ensure_ascii=False)
            if c in _LISTS
            else getattr(stored, c)
            for c in _TURN_COLUMNS
        ]
        marks = ", ".join("?" for _ in _TURN_COLUMNS)
        con.execute(
            f"INSERT INTO turns (session_id, {', '.join(_TURN_COLUMNS)}) VALUES (?, {marks})",
            (session_id, *values),
        )
        con.execute("UPDATE sessions SET updated_at = ? WHERE session_id = ?", (at, session_id))
    return stored


def listed(workspace: Path, *, limit: int = 100) -> list[Session]:
    """Sessions, most recently used first, each with its last turn only."""
    with connect(workspace) as con:
        ids = [
            r[0]
            for r in con.execute(
                "SELECT session_id FROM sessions ORDER BY updated_at DESC, session_id LIMIT ?",
                (limit,),
            )
        ]
        found = [_read(con, i, 1) for i in ids]
    return [s for s in found if s is not None]


def prune(workspace: Path, retention_days: int) -> int:
    """Delete sessions (with their turns) unused for ``retention_days``; 0 keeps all. Returns
    how many sessions went."""
    if retention_days <= 0:
        return 0
    cutoff = (dt.datetime.now(dt.UTC) - dt.timedelta(days=retention_days)).isoformat()
    with connect(workspace) as con:
        return con.execute("DELETE FROM sessions WHERE updated_at < ?", (cutoff,)).rowcount
