"""Schema drift: a table the catalog lists that the database no longer has (issue 22).

A table dropped or renamed in the database after it was ingested still passes the gate (the
catalog lists it), then the database refuses the query with its own words ("no such table",
"relation ... does not exist"). :func:`drift_message` turns that into a sentence that names the
table and the fix: ``tablerag refresh``.
"""

from __future__ import annotations

import re
from collections.abc import Collection

_MISSING = (
    re.compile(r"no such table: (?:\w+\.)?\"?([^\s\".,;]+)"),  # SQLite
    re.compile(r'relation "(?:[^"]+\.)?([^"]+)" does not exist'),  # PostgreSQL
    re.compile(r"Table with name ([^\s!.]+) does not exist"),  # DuckDB
    re.compile(r"Table '(?:[^'.]+\.)?([^']+)' doesn't exist"),  # MySQL / MariaDB
)


def missing_table(message: str) -> str | None:
    """The table a database error says does not exist, or None.

    Example:
        >>> missing_table("no such table: main.notes"), missing_table("no such table: notes.")
        ('notes', 'notes')
        >>> missing_table('relation "public.notes" does not exist')
        'notes'
        >>> missing_table("Catalog Error: Table with name notes does not exist!")
        'notes'
        >>> missing_table("Table 'shop.notes' doesn't exist")
        'notes'
        >>> missing_table("division by zero") is None
        True
    """
    for pattern in _MISSING:
        found = pattern.search(message)
        if found:
            return found.group(1)
    return None


def drift_message(message: str, known: Collection[str]) -> str | None:
    """The database's error followed by the fix, for a query on a table the catalog lists
    (``known``, any case) but the database lacks; None when the error is about something else.

    Example:
        >>> text = drift_message("no such table: notes", {"orders", "notes"})
        >>> text.startswith("no such table: notes. The catalog still lists 'notes'")
        True
        >>> "run `tablerag refresh`" in text
        True
        >>> drift_message("no such table: nope", {"orders"}) is None
        True
    """
    table = missing_table(message)
    if table is None or table.casefold() not in {k.casefold() for k in known}:
        return None
    text = message.rstrip()
    end = "" if text.endswith((".", "!", "?")) else "."
    return (
        f"{text}{end} The catalog still lists {table!r}: it was dropped or renamed in the "
        "database since it was ingested; run `tablerag refresh` to update the catalog, then ask "
        "again."
    )
