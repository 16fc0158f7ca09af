"""What a database's error message may say: only names of the exposed catalog.

Drivers answer a failed query with hints built from *their* catalog: DuckDB's ``Did you mean
"tablerag.profiles"?`` and ``Candidate bindings: "phone"``, PostgreSQL's ``HINT: Perhaps you
meant to reference the column "customers.phone"``. Such messages reach users and the repair
prompt, so every engine passes them through :func:`scrub_message`: hint candidates that are not
exposed tables or columns are dropped, and any remaining mention of tablerag's own schema, of a
system catalog (``pg_catalog``, ``information_schema``, ``sqlite_master``, ``duckdb_*``) or of a
hidden column is replaced by :data:`REDACTED`.

Messages also echo cell values: ``CAST(note AS INT)`` fails with ``Could not convert string
'13912345678' to INT32``. A value a conversion or range error quotes is replaced by
:data:`VALUE`, and what is left is masked as a result cell is (:func:`tablerag.sql.mask.mask_text`),
so an error shows no more of the data than a result would.
"""

from __future__ import annotations

import re

from tablerag.layout import INTERNAL_SCHEMA
from tablerag.sql.exposed import ExposedCatalog, ExposedTable
from tablerag.sql.mask import mask_text

REDACTED = "<not exposed>"
"""What stands in a message for a name generated SQL may not know."""
VALUE = "<value>"
"""What stands in a message for a cell value the database quoted."""

_QUOTED_VALUE = r"""('(?:[^'\n]|'')*'|"(?:[^"\n]|"")*"|`[^`\n]*`)"""
_VALUE_ERROR = re.compile(
    r"(?i)^(?:[\w ]*: )?(?:conversion error|invalid input error)|invalid input syntax|out of range"
    r"|invalid input value|incorrect [\w ]{1,40} value|truncated incorrect|malformed"
)
_ECHOED_VALUE = re.compile(
    rf"""(?ix)
    ( could\ not\ (?:convert|cast|parse)\ (?:string|value)?\s*      # DuckDB
    | invalid\ input\ syntax\ for(?:\ type)?\ [\w\ ]{{1,40}}?:\s*    # PostgreSQL
    | invalid\ input\ value\ for\ [\w\ ]{{1,40}}?:\s*
    | (?:truncated\ )?incorrect\ [\w\ ]{{1,40}}?\ value:?\s*           # MySQL/MariaDB
    | \bvalue\s+(?=["'])                                               # value "…" out of range
    | \bstring\s+(?=["'])
    ){_QUOTED_VALUE}
    """
)

RESERVED_SCHEMAS = (INTERNAL_SCHEMA, "information_schema", "pg_catalog")
"""Schemas no exposed table may live in (also any ``pg_*``); compared case-insensitively."""

_QUOTED = re.compile(r'"([^"]*)"|\'([^\']*)\'')
_HINT = re.compile(r"(?i)(did you mean|candidate bindings|perhaps you meant|hint:)")
_PART = r"""(?:"[^"\n]*"|`[^`\n]*`|[\w$]+)"""
_INTERNAL = re.compile(
    rf"""(?ix)
    (?:"(?:tablerag|pg_catalog|information_schema)"|\b(?:tablerag|pg_catalog|information_schema)\b)
        (?:\s*\.\s*{_PART})*                  # tablerag.profiles, "pg_catalog"."pg_class"
    | "?\b(?:sqlite_(?:master|schema|temp_master|temp_schema|sequence|stat\d)
        |duckdb_\w+|pg_\w+)\b"?
    """
)

_OWN = re.compile(rf"""(?i)(?:"tablerag"|\btablerag\b)(?:\s*\.\s*{_PART})*""")


def is_reserved_schema(schema: str | None) -> bool:
    """Whether a table in ``schema`` must never be exposed (tablerag's or a system schema).

    Example:
        >>> [is_reserved_schema(s) for s in ("TableRAG", "pg_toast", "data", None)]
        [True, True, False, False]
    """
    if not schema:
        return False
    low = schema.lower()
    return low in RESERVED_SCHEMAS or low.startswith("pg_")


def scrub_message(message: str, catalog: ExposedCatalog) -> str:
    """``message`` with every name outside ``catalog`` removed; the rest kept as it was.

    Example:
        >>> cat = ExposedCatalog.from_mapping({"orders": ["amount"]}, schema="data")
        >>> scrub_message('Table with name x does not exist!\\nDid you mean "tablerag.profiles"?',
        ...               cat)
        'Table with name x does not exist!'
        >>> scrub_message('Column "amout" not found!\\nCandidate bindings: "amount"', cat)
        'Column "amout" not found!\\nCandidate bindings: "amount"'
        >>> scrub_message("Conversion Error: Could not convert string 'Ann Lee' to INT32", cat)
        'Conversion Error: Could not convert string <value> to INT32'
        >>> scrub_message('invalid input syntax for type integer: "x" near 13912345678', cat)
        'invalid input syntax for type integer: <value> near 139****5678'
        >>> scrub_message('Conversion Error: invalid date field format: "Ann", expected …', cat)
        'Conversion Error: invalid date field format: <value>, expected …'
    """
    tables, columns, hidden = _names(catalog)
    message = mask_text(_without_values(message))
    lines = []
    for line in message.splitlines():
        if _HINT.search(line):
            line = _hint(line, tables, columns, hidden)
            if not line:
                continue
        lines.append(_redact(line, tables | columns, hidden))
    text = "\n".join(lines)
    return re.sub(r"\n{3,}", "\n\n", text).strip()


def _without_values(message: str) -> str:
    """``message`` with the cell values a conversion or input error quotes replaced.

    A value error (DuckDB's ``Conversion Error``/``Invalid Input Error``, PostgreSQL's
    ``invalid input syntax``, MySQL's ``Incorrect … value``) names values, not names: every
    quoted text of its first paragraph becomes :data:`VALUE`, and the lines under its first
    (DuckDB echoes the input there) are dropped; the ``LINE 1:`` part quotes the SQL and stays.
    """
    message = _ECHOED_VALUE.sub(lambda m: f"{m.group(1)}{VALUE}", message)
    head, sep, rest = message.partition("\n\n")
    if not _VALUE_ERROR.search(head):
        return message
    first = re.sub(_QUOTED_VALUE, VALUE, head.splitlines()[0] if head else "")
    return first + sep + rest


def scrub_schema(message: str) -> str:
    """``message`` without mentions of tablerag's own schema (for the gate's echo of user SQL).

    The gate's messages only suggest exposed names, but they quote what the SQL wrote; a
    reference to ``tablerag.…`` is replaced so that no message names tablerag's own tables.

    Example:
        >>> scrub_schema("Unknown table 'tablerag.profiles'. Use a table from the catalog.")
        "Unknown table '<not exposed>'. Use a table from the catalog."
    """
    return _OWN.sub(REDACTED, message)


def _names(catalog: ExposedCatalog) -> tuple[set[str], set[str], set[str]]:
    tables: set[str] = set()
    columns: set[str] = set()
    hidden: set[str] = set()
    for t in catalog.tables:
        tables |= {t.name.lower(), t.qualified.lower()}
        columns |= {c.lower() for c in t.columns}
        hidden |= {h.lower() for h in t.hidden}
    return tables, columns, hidden - columns - tables


def _shown(candidate: str, tables: set[str], columns: set[str], hidden: set[str]) -> bool:
    low = candidate.lower()
    if low in tables:
        return True
    head, _, last = low.rpartition(".")
    if head and head not in tables and _INTERNAL.search(head):
        return False
    return last in columns and last not in hidden


def _hint(line: str, tables: set[str], columns: set[str], hidden: set[str]) -> str:
    """A hint line with only exposed candidates, or "" when none is left."""
    candidates = [a or b for a, b in _QUOTED.findall(line)]
    if not candidates:
        return ""
    kept = [c for c in candidates if _shown(c, tables, columns, hidden)]
    if not kept:
        return ""
    if len(kept) == len(candidates):
        return line
    head = _HINT.search(line)
    assert head is not None
    label = line[: head.end()].rstrip(":")
    return f"{label}: {', '.join(f'{chr(34)}{c}{chr(34)}' for c in kept)}"


def _redact(line: str, exposed: set[str], hidden: set[str]) -> str:
    def internal(m: re.Match[str]) -> str:
        return m.group(0) if m.group(0).strip("\"'`").lower() in exposed else REDACTED

    line = _INTERNAL.sub(internal, line)
    for name in sorted(hidden, key=len, reverse=True):
        line = re.sub(rf"(?i)(?<![\w$]){re.escape(name)}(?![\w$])", REDACTED, line)
    return line


def exposable(tables: list[ExposedTable]) -> tuple[list[ExposedTable], list[ExposedTable]]:
    """``tables`` split into those that may be exposed and those in a reserved schema."""
    kept = [t for t in tables if not is_reserved_schema(t.schema)]
    return kept, [t for t in tables if is_reserved_schema(t.schema)]
