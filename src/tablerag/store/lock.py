"""Who may use a workspace at once: many readers, or one writer (issue 22).

DuckDB lets many processes open a file read-only, *or* one process open it read-write. On its
own that makes a reader that opens, closes and reopens the file (``ask`` reads the catalog, then
opens the SQL engine) lose the file to a writer in between, and a writer fail at once while
anyone reads. So every open of a workspace also takes an advisory lock on ``<workspace>/lock``:
shared for readers, exclusive for writers, held until the workspace (or a reading session,
:func:`reading`) is closed. A writer holds it from before its first write until after the text
index is written, so no reader ever sees a half-ingested source. Both sides wait up to a
deadline and then say who holds the workspace (pid and command line, from ``/proc/locks`` and
the note the writer leaves in the lock file).

Locks are counted per process: a process that already holds the lock exclusively may open the
workspace again in any mode (DuckDB shares one instance per file within a process); one that
holds it shared and asks for it exclusively upgrades it. Without ``fcntl`` (Windows) the locks
are no-ops and DuckDB's own file lock is the only guard.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType

from tablerag.errors import WorkspaceError
from tablerag.redact import redact_secrets

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]

LOCK_FILE = "lock"
READ_WAIT_S = 10.0
"""How long a reader (``ask``, ``sql``, ``search``...) waits for a writer to finish by default."""
POLL_S = 0.05


@dataclass
class _Held:
    fd: int
    exclusive: bool
    readers: int = 0
    writers: int = 0


@dataclass
class WorkspaceLock:
    """One hold on a workspace's lock; :meth:`release` it (idempotent) or use ``with``."""

    path: Path
    exclusive: bool
    _released: bool = field(default=False, repr=False)

    def release(self) -> None:
        """Give the hold back; the process's lock is dropped with its last hold."""
        if self._released:
            return
        self._released = True
        _release(self.path, self.exclusive)

    def __enter__(self) -> WorkspaceLock:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.release()


_HELD: dict[Path, _Held] = {}
_GUARD = threading.Lock()


def acquire(folder: Path, *, exclusive: bool, wait_s: float) -> WorkspaceLock:
    """Take the workspace's lock, waiting up to ``wait_s`` seconds for the other side.

    Args:
        folder: the workspace folder (it must exist).
        exclusive: a writer's lock (ingest, refresh, remove); False: a reader's.
        wait_s: seconds to wait while another process holds it (0: fail at once).

    Raises:
        WorkspaceError: another process still held it after ``wait_s``; the message names it.
    """
    path = (folder / LOCK_FILE).resolve()
    if fcntl is None:
        return WorkspaceLock(path, exclusive)
    deadline = time.monotonic() + max(0.0, wait_s)
    while True:
        with _GUARD:
            if _try_take(path, exclusive):
                return WorkspaceLock(path, exclusive)
        if time.monotonic() >= deadline:
            raise WorkspaceError(busy_message(folder, exclusive=exclusive, waited_s=wait_s))
        time.sleep(POLL_S)


@contextmanager
def reading(folder: Path, *, wait_s: float = READ_WAIT_S) -> Iterator[WorkspaceLock]:
    """Hold a reader's lock across several opens of the workspace (a whole ``ask`` session).

    Raises:
        WorkspaceError: a writer still held the workspace after ``wait_s`` seconds.
    """
    lock = acquire(folder, exclusive=False, wait_s=wait_s)
    try:
        yield lock
    finally:
        lock.release()


def _try_take(path: Path, exclusive: bool) -> bool:
    """One non-blocking attempt, under ``_GUARD``."""
    assert fcntl is not None
    held = _HELD.get(path)
    if held is not None and (held.exclusive or not exclusive):
        _count(held, exclusive, +1)
        return True
    if held is not None:  # shared here, exclusive wanted: upgrade
        try:
            fcntl.flock(held.fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            # Linux drops the shared lock before trying the exclusive one: take it back
            with contextlib.suppress(BlockingIOError):
                fcntl.flock(held.fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
            return False
        held.exclusive = True
        _note_writer(held.fd)
        _count(held, exclusive, +1)
        return True
    fd = _open_lock_file(path)
    if fd is None:  # a folder we cannot write a lock file into: DuckDB's lock is the guard
        return True
    try:
        fcntl.flock(fd, (fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH) | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        return False
    held = _HELD[path] = _Held(fd, exclusive)
    if exclusive:
        _note_writer(fd)
    _count(held, exclusive, +1)
    return True


def _count(held: _Held, exclusive: bool, step: int) -> None:
    if exclusive:
        held.writers += step
    else:
        held.readers += step


def _release(path: Path, exclusive: bool) -> None:
    if fcntl is None:
        return
    with _GUARD:
        held = _HELD.get(path)
        if held is None:
            return
        _count(held, exclusive, -1)
        if held.writers > 0:
            return
        if held.readers > 0:
            if held.exclusive:  # the last writer of this process left; its readers stay
                fcntl.flock(held.fd, fcntl.LOCK_SH)
                held.exclusive = False
            return
        del _HELD[path]
        os.close(held.fd)  # closing drops the lock


def _open_lock_file(path: Path) -> int | None:
    for flags in (os.O_RDWR | os.O_CREAT, os.O_RDONLY):
        try:
            return os.open(path, flags, 0o644)
        except OSError:
            continue
    return None


def _note_writer(fd: int) -> None:
    """Leave the writer's pid and command in the lock file, for the messages of the others."""
    # the command line may carry an inline database password: never write it (issue 28)
    command = _command(os.getpid()) or redact_secrets(" ".join(sys.argv))
    note = f"{os.getpid()} {command}\n".encode()
    try:
        os.ftruncate(fd, 0)
        os.pwrite(fd, note, 0)
    except OSError:
        pass  # a read-only lock file: the messages fall back to /proc/locks


# -- who holds it ----------------------------------------------------------------------------


def holders(folder: Path) -> list[tuple[int, str]]:
    """``(pid, command)`` of the other processes holding the workspace's lock, as far as known.

    From ``/proc/locks`` (Linux), else from the note the last writer left in the lock file.
    """
    path = folder / LOCK_FILE
    found: list[int] = []
    try:
        st = path.stat()
        with open("/proc/locks", encoding="ascii") as fh:
            for line in fh:
                pid = _lock_holder(line, st.st_dev, st.st_ino)
                if pid is not None and pid != os.getpid() and pid not in found:
                    found.append(pid)
    except OSError:
        pass
    if not found:
        try:
            pid_text, _, command = path.read_text(encoding="utf-8").strip().partition(" ")
            pid = int(pid_text)
            if pid != os.getpid() and _alive(pid):
                return [(pid, redact_secrets(command))]  # a note an older tablerag wrote
        except (OSError, ValueError):
            return []
    return [(pid, _command(pid)) for pid in found]


def _lock_holder(line: str, dev: int, ino: int) -> int | None:
    """The pid of a granted ``/proc/locks`` line on the file ``(dev, ino)``, else None.

    Example:
        >>> _lock_holder("1: FLOCK  ADVISORY  WRITE 4242 08:01:99 0 EOF", 0x0801, 99)
        4242
        >>> _lock_holder("1: -> FLOCK  ADVISORY  WRITE 4243 08:01:99 0 EOF", 0x0801, 99) is None
        True
    """
    parts = line.split()
    if len(parts) < 6 or parts[1] == "->":
        return None
    try:
        major, minor, inode = parts[5].split(":")
        pid = int(parts[4])
        if int(inode) != ino or os.makedev(int(major, 16), int(minor, 16)) != dev:
            return None
    except ValueError:
        return None
    return pid if pid > 0 else None


def _command(pid: int) -> str:
    try:
        raw = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return ""
    args = [a.decode("utf-8", "replace") for a in raw.split(b"\0") if a]
    if len(args) >= 2 and Path(args[0]).name.startswith("python"):
        args = args[1:]  # `python -m tablerag ask ...` or a console script: the script is enough
    if args and Path(args[0]).name in ("tablerag", "__main__.py"):
        args[0] = "tablerag"
    if args[:2] == ["-m", "tablerag"]:
        args = ["tablerag", *args[2:]]
    elif args and args[0] in ("-c", "-m"):
        args = ["python", *args]
    text = " ".join(" ".join(args).split())  # one line, whatever a script's newlines
    text = redact_secrets(text)  # `ingest postgresql://bob:s3cret@…` names its password
    return text if len(text) <= 120 else text[:117] + "..."


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def busy_message(folder: Path, *, exclusive: bool, waited_s: float, pid: int | None = None) -> str:
    """The sentence for a workspace another process holds: who, and what to do.

    ``pid``: the holder when known otherwise (DuckDB names the process holding its file lock).
    """
    who = holders(folder)
    if pid is not None and pid not in [p for p, _ in who]:
        who.append((pid, _command(pid)))
    names = ", ".join(f"pid {p}" + (f" ({cmd})" if cmd else "") for p, cmd in who[:3])
    by = f" by {names}" if names else " by another tablerag process"
    waited = f" after waiting {waited_s:g} s" if waited_s > 0 else ""
    if exclusive:
        fix = (
            "wait for it to finish, or pass --wait SECONDS to wait for it"
            if waited_s <= 0
            else "try again when it has finished, or pass a longer --wait"
        )
        return f"Workspace {str(folder)!r} is in use{by}{waited}; {fix}."
    return (
        f"Workspace {str(folder)!r} is being written{by}{waited}; try again when it has finished."
    )
