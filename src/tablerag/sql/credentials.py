"""Database passwords that never land in the workspace: named by a variable or a file.

A database URL gives its password in one of these ways:

- ``?password_env=VAR``: read from the environment variable ``VAR`` when connecting;
- ``?password_file=PATH``: read from the first line of the file ``PATH`` (``~`` expanded);
- nothing: the driver's own ways keep working (libpq's ``PGPASSWORD`` and ``~/.pgpass``);
- inline (``user:secret@host``): used by the command that names it, never stored. The
  workspace keeps the URL as :func:`tablerag.ingest.database.redact_url` writes it
  (``user:***@host``), and the ``***`` is dropped again before connecting, so the ways above
  apply when the stored URL is opened later.

The two query parameters are tablerag's own: they are removed before the URL reaches a driver.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import unquote

from tablerag.errors import ConfigError
from tablerag.redact import redact_secrets

if TYPE_CHECKING:
    from sqlalchemy.engine import URL

PASSWORD_ENV = "password_env"
PASSWORD_FILE = "password_file"
REDACTED = "***"
"""The password of a stored URL: the real one was removed (``redact_url``)."""

_PARAMS = re.compile(r"(?i)[?&](?:password_env|password_file|password|passwd|pwd)=")
_INLINE = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://[^/?#@]*:([^/?#@]*)@")
_QUERY_PASSWORD = re.compile(r"(?i)[?&](?:password|passwd|pwd)=([^&#]*)")


def has_inline_password(url: str) -> bool:
    """Whether ``url`` carries a password itself (not one it names by variable or file).

    Example:
        >>> has_inline_password("postgresql://bob:s3cret@db/sales")
        True
        >>> has_inline_password("postgresql://db/sales?user=bob&password=s3cret")
        True
        >>> [has_inline_password(u) for u in ("postgresql://bob:***@db/sales",
        ...     "postgresql://bob@db/sales?password_env=PGPW", "sqlite:///a.db")]
        [False, False, False]
    """
    found = [m.group(1) for m in (_INLINE.match(url.strip()),) if m]
    found += _QUERY_PASSWORD.findall(url)
    return any(p and p != REDACTED for p in found)


def connect_url(url: str) -> str:
    """``url`` as a driver must see it: the password named by variable or file filled in,
    tablerag's own parameters and a redacted ``***`` password removed.

    A URL with none of these is returned unchanged.

    Example:
        >>> import os
        >>> os.environ["TABLERAG_DOCTEST_PW"] = "p@ss"
        >>> connect_url("postgresql://bob@db:5432/sales?password_env=TABLERAG_DOCTEST_PW")
        'postgresql://bob:p%40ss@db:5432/sales'
        >>> connect_url("postgresql://bob:***@db/sales"), connect_url("sqlite:///a.db")
        ('postgresql://bob@db/sales', 'sqlite:///a.db')

    Raises:
        ConfigError: the variable is not set, the file cannot be read or is empty, both are
            named, or the URL is malformed.
    """
    if not _PARAMS.search(url) and not _redacted_inline(url):
        return url
    from sqlalchemy.engine import make_url  # lazily: a workspace of files never needs it
    from sqlalchemy.exc import ArgumentError

    try:
        parsed = make_url(url.strip())
    except (ArgumentError, ValueError) as exc:
        raise ConfigError(
            f"{_shown(url)!r} is not a database URL ({exc}); use e.g. "
            "postgresql://user@host:5432/db?password_env=VAR."
        ) from exc
    return connect_parsed(parsed).render_as_string(hide_password=False)


def connect_parsed(url: URL) -> URL:
    """Like :func:`connect_url`, for a URL SQLAlchemy parsed already.

    Raises:
        ConfigError: as :func:`connect_url`.
    """
    query = {k: v for k, v in url.query.items() if k.lower() not in (PASSWORD_ENV, PASSWORD_FILE)}
    query = {
        k: v
        for k, v in query.items()
        if not (k.lower() in ("password", "passwd", "pwd") and v == REDACTED)
    }
    env, file = _param(url, PASSWORD_ENV), _param(url, PASSWORD_FILE)
    password = None if url.password == REDACTED else url.password
    shown = unquote(url.render_as_string(hide_password=True))
    if env and file:
        raise ConfigError(
            f"The database URL {shown!r} names both {PASSWORD_ENV} and {PASSWORD_FILE}; keep one."
        )
    if env:
        password = _from_env(env, shown)
    elif file:
        password = _from_file(file, shown)
    # URL.set ignores None ("unchanged"), and no password must stay none
    return url.set(query=query)._replace(password=password)


def _param(url: URL, name: str) -> str:
    for key, value in url.query.items():
        if key.lower() == name:
            return (value[0] if isinstance(value, tuple) else value).strip()
    return ""


def _from_env(name: str, shown: str) -> str:
    value = os.environ.get(name, "")
    if not value:
        raise ConfigError(
            f"The database URL {shown!r} takes its password from the environment variable "
            f"{name!r}, which is not set; export {name}=... in the shell that runs tablerag."
        )
    return value


def _from_file(name: str, shown: str) -> str:
    path = Path(name).expanduser()
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        why = exc.strerror if isinstance(exc, OSError) and exc.strerror else type(exc).__name__
        raise ConfigError(
            f"Cannot read the password file {str(path)!r} named by {shown!r} ({why}); check "
            "the path (absolute, or relative to where tablerag runs) and its permissions."
        ) from None
    password = text.splitlines()[0].strip("\r\n") if text else ""
    if not password:
        raise ConfigError(
            f"The password file {str(path)!r} named by {shown!r} is empty; write the password "
            "on its first line."
        )
    return password


def _redacted_inline(url: str) -> bool:
    m = _INLINE.match(url.strip())
    return m is not None and m.group(1) == REDACTED


def _shown(url: str) -> str:
    """``url`` with any inline password hidden, for a message about a malformed URL."""
    return redact_secrets(url)
