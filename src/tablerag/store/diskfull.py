"""A full disk under the workspace, recognised whoever reports it, and said in one sentence.

DuckDB reports a full disk as ``IOException``/``TransactionException`` text ("Could not write
file ...: No space left on device"), Python as an ``OSError`` with ``errno``; a file-size or
quota limit stops a write the same way. :func:`is_disk_full` recognises all of them, also when
wrapped (``__cause__``/``__context__``), so the caller can say what was kept and how to go on.
"""

from __future__ import annotations

import errno
from pathlib import Path

import duckdb

_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EFBIG})
_WORDS = ("No space left on device", "Disk quota exceeded", "File too large")
"""The C library's words for those errnos, as DuckDB's messages carry them."""


def is_disk_full(exc: BaseException) -> bool:
    """Whether ``exc`` (or what caused it) is a write refused for want of space.

    Example:
        >>> is_disk_full(OSError(errno.ENOSPC, "No space left on device"))
        True
        >>> is_disk_full(RuntimeError("x")), is_disk_full(OSError(errno.ENOENT, "gone"))
        (False, False)
    """
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, OSError) and current.errno in _ERRNOS:
            return True
        if isinstance(current, duckdb.Error) and any(w in str(current) for w in _WORDS):
            return True
        current = current.__cause__ or current.__context__
    return False


def disk_full_message(workspace: Path, kept: str) -> str:
    """The sentence for a full disk while writing ``workspace``; ``kept`` says what stays.

    Example:
        >>> said = disk_full_message(Path("ws"), "nothing of a.csv was stored")
        >>> print(said.split(". ")[0])
        The disk holding the workspace 'ws' is full: nothing of a.csv was stored
        >>> said.endswith("sources already stored and unchanged are skipped.")
        True
    """
    return (
        f"The disk holding the workspace {str(workspace)!r} is full: {kept}. Free some space "
        "(or ingest into a workspace on another disk with -w) "
        "and run the same `tablerag ingest` again; sources already stored and unchanged are "
        "skipped."
    )
