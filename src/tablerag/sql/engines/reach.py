"""One sentence with the fix for a database server that cannot be reached or refuses the login.

Drivers explain a failed connection in several lines (libpq adds "Is the server running on that
host…"); :func:`unreachable_message` turns the usual causes into one sentence that names the
server and what to check, and never the password.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sqlalchemy.engine import URL

_NAMES = {"postgresql": "PostgreSQL", "mysql": "MySQL", "mariadb": "MariaDB"}
_PORTS = {"postgresql": 5432, "mysql": 3306, "mariadb": 3306}
_PASSWORD_HOW = {
    "postgresql": "set PGPASSWORD or a ~/.pgpass line, or name it in the URL with "
    "?password_env=VAR or ?password_file=PATH",
}
_PASSWORD_HOW_ANY = "name it in the URL with ?password_env=VAR or ?password_file=PATH"


def password_hint(backend: str) -> str:
    """How to give the password of a ``backend`` URL without storing it.

    Example:
        >>> password_hint("sqlite")
        'name it in the URL with ?password_env=VAR or ?password_file=PATH'
    """
    return _PASSWORD_HOW.get(backend, _PASSWORD_HOW_ANY)


def unreachable_message(backend: str, url: URL, cause: BaseException | None) -> str | None:
    """One sentence for a connection that failed, or None when the cause is not a known one.

    Args:
        backend: the URL's backend name (``postgresql``, ``mysql``...).
        url: the URL connected to (its password is never shown).
        cause: the driver's exception.
    """
    if cause is None:
        return None
    text = str(cause)
    low = text.lower()
    name = _NAMES.get(backend, backend)
    where = f"{url.host or 'localhost'}:{url.port or _PORTS.get(backend, '')}".rstrip(":")
    found: str | None = None
    if "connection refused" in low or "can't connect" in low or "no such file or directory" in low:
        found = (
            f"Cannot connect to {name} at {where}: the connection was refused; check that the "
            "server is running and that host and port in the URL are right."
        )
    elif "timeout expired" in low or "timed out" in low:
        found = (
            f"Connecting to {name} at {where} timed out; check the host, the port and any "
            "firewall in between."
        )
    elif "translate host name" in low or "failed to resolve" in low or "name or service" in low:
        found = f"Host {url.host!r} was not found; check the host name in the URL."
    elif m := re.search(
        r'database "?([^"\s]+?)"? does not exist|unknown database .?([^\'"\s]+)', text, re.I
    ):
        db = m.group(1) or m.group(2)
        found = f"Database {db!r} does not exist on {where}; check the database name in the URL."
    elif (
        "password authentication failed" in low
        or "no password supplied" in low
        or "access denied" in low
    ):
        found = (
            f"{name} at {where} rejected the login of user {url.username!r}; check the user "
            f"name and the password (a password typed in a URL is never stored: "
            f"{password_hint(backend)})."
        )
    elif m := re.search(r'role "([^"]+)" does not exist', text):
        found = f"{name} user {m.group(1)!r} does not exist on {where}; check the URL."
    if found and url.password:
        found = found.replace(url.password, "***")
    return found
