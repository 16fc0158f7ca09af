"""Passwords out of any text tablerag writes or prints: a command line, a message, a log line.

A database password given inline (``postgresql://bob:s3cret@db/sales``, ``?password=s3cret``,
libpq's ``password=s3cret``) is used by the command that names it and never written: the
workspace keeps URLs as :func:`tablerag.ingest.database.redact_url` writes them, and every other
text that may quote one (the note a writer leaves in ``<workspace>/lock``, the "in use by pid"
message, an error) passes through :func:`redact_secrets` (issue 28).
"""

from __future__ import annotations

import re

REDACTED = "***"
"""What stands for a password that was removed."""

_URL_PASSWORD = re.compile(r"(?i)(\b[a-z][a-z0-9+.-]*://[^\s/?#@:]*:)[^\s/?#]*@")
"""``scheme://user:password@``: the password runs to the last ``@`` before the path."""
_KEY_PASSWORD = re.compile(
    r"""(?ix)
    ((?:^|[?&;\s,(])["']?(?:password|passwd|pwd|pgpassword|mysql_pwd)["']?\s*[=:]\s*)
    ( '(?:[^'\\]|\\.)*' | "(?:[^"\\]|\\.)*" | [^\s&#;,)]+ )
    """
)
"""``password=…`` in a URL's query, a libpq conninfo, an environment assignment or a dict."""


def url_secrets(url: str) -> tuple[str, ...]:
    """The passwords ``url`` carries, and the pieces a parser may split one into.

    A password holding ``@`` or ``:`` is cut differently by different parsers (SQLAlchemy
    takes ``bob:s3c@ret@db`` as host ``ret@db``), so a driver's message may quote a piece of
    it; each piece of four characters or more is a secret too.

    Example:
        >>> url_secrets("postgresql://bob:s3c@ret99@db/x?password=zz&sslmode=require")
        ('s3c@ret99', 'ret99', 'zz')
        >>> url_secrets("sqlite:///a.db")
        ()
    """
    found: list[str] = []
    head, sep, rest = url.partition("://")
    if sep:
        authority = re.split(r"[/?#]", rest.rsplit("@", 1)[0] + "@", maxsplit=1)[0]
        if "@" in rest and ":" in authority:
            password = rest.rsplit("@", 1)[0].split(":", 1)[1]
            found.append(password)
            found += [p for p in re.split(r"[@:]", password) if len(p) >= 4 and p != password]
    found += [m.group(2).strip("'\"") for m in _KEY_PASSWORD.finditer(url)]
    return tuple(dict.fromkeys(p for p in found if p and p != REDACTED))


def redact_secrets(text: str, known: tuple[str, ...] = ()) -> str:
    """``text`` with every password it quotes replaced by :data:`REDACTED`; ``known``
    passwords (:func:`url_secrets` of the URL a command was given) wherever they stand.

    Example:
        >>> redact_secrets("tablerag ingest postgresql://bob:s3cr@t@db:5432/sales -w ws")
        'tablerag ingest postgresql://bob:***@db:5432/sales -w ws'
        >>> redact_secrets("mysql://db/s?user=bob&password=s3cret&ssl=1 host=h password='a b'")
        'mysql://db/s?user=bob&password=***&ssl=1 host=h password=***'
        >>> redact_secrets("PGPASSWORD=s3cret tablerag sql --db postgresql://bob@db/s")
        'PGPASSWORD=*** tablerag sql --db postgresql://bob@db/s'
        >>> redact_secrets("sqlite:///data/shop.db and https://example.com/a@b")
        'sqlite:///data/shop.db and https://example.com/a@b'
        >>> redact_secrets("Host 'ret99@db' was not found", url_secrets("pg://b:s3c@ret99@db/x"))
        "Host '***@db' was not found"
    """
    for secret in sorted(known, key=len, reverse=True):
        text = text.replace(secret, REDACTED)
    text = _URL_PASSWORD.sub(rf"\1{REDACTED}@", text)
    return _KEY_PASSWORD.sub(rf"\1{REDACTED}", text)
