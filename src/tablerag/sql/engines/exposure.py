"""DuckDB's exposure layer: a database of views over the exposed columns only.

Generated SQL on DuckDB never names the user's tables directly. The engine attaches an
in-memory database :data:`EXPOSURE` (the workspace file itself is read-only), creates in it one
view per exposed table with the exposed columns only, under the table's own schema and name,
and the gate qualifies every table reference to it (``data.customers`` runs as
``tablerag_exposure.data.customers``). Whatever the SQL does with the table — a column list
after its alias (``customers AS c(a, b, c2, d)``), positional references (``#7``), the whole
row as a struct (``SELECT c FROM customers c``, ``to_json(c)``), ``COLUMNS(*)`` — it reaches
only columns that exist in the view: a hidden column is not there to be read. Internal schemas
(``tablerag``, the system catalogs) get no view at all.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from tablerag.sql.exposed import ExposedCatalog

EXPOSURE = "tablerag_exposure"
"""The attached in-memory database of views generated SQL reads."""

SOURCE_PREFIX = "tablerag_source_"
"""How the name the user's DuckDB file is attached under begins (random hex follows): a
catalog no search path holds and generated SQL cannot name."""

_QUALIFIER = re.compile(rf'(?i)(?<![\w$"])"?(?:{EXPOSURE}|{SOURCE_PREFIX}[0-9a-f]*)"?\s*\.\s*')


def quote(name: str) -> str:
    """``name`` as a DuckDB identifier.

    Example:
        >>> quote('we"ird')
        '"we""ird"'
    """
    return '"' + name.replace('"', '""') + '"'


def exposure_statements(
    catalog: ExposedCatalog, source: str, columns: Mapping[tuple[str, str], Iterable[str]]
) -> list[str]:
    """SQL that fills :data:`EXPOSURE` with a view per exposed table of ``catalog``.

    Args:
        catalog: the exposed tables (schema, name, readable columns).
        source: the database (DuckDB catalog name) that holds the user's tables.
        columns: the columns each ``(schema, table)`` really has in ``source`` (lower-case
            keys); exposed columns the database lacks (a stale catalog) and tables it lacks
            get no view, so the database answers such a query as it would without the views.

    Example:
        >>> cat = ExposedCatalog.from_mapping({"customers": ["id", "name", "phone"]},
        ...     schema="data", hidden={"customers": ["phone"]})
        >>> for s in exposure_statements(cat, "workspace",
        ...         {("data", "customers"): ["ID", "name", "phone"]}):
        ...     print(s)
        CREATE SCHEMA IF NOT EXISTS "tablerag_exposure"."data"
        CREATE VIEW "tablerag_exposure"."data"."customers" AS SELECT "ID", "name" FROM "workspace"."data"."customers"
    """  # noqa: E501 - a doctest line is as long as the statement it shows
    out: list[str] = []
    schemas: set[str] = set()
    for table in catalog.tables:
        schema = table.schema or "main"
        real = {c.lower(): c for c in columns.get((schema.lower(), table.name.lower()), ())}
        hidden = {h.lower() for h in table.hidden}
        shown = [real[c.lower()] for c in table.columns if c.lower() in real]
        shown = [c for c in shown if c.lower() not in hidden]
        if not shown:
            continue
        if schema.lower() not in schemas:
            schemas.add(schema.lower())
            out.append(f"CREATE SCHEMA IF NOT EXISTS {quote(EXPOSURE)}.{quote(schema)}")
        select = ", ".join(quote(c) for c in shown)
        out.append(
            f"CREATE VIEW {quote(EXPOSURE)}.{quote(schema)}.{quote(table.name)} AS SELECT "
            f"{select} FROM {quote(source)}.{quote(schema)}.{quote(table.name)}"
        )
    return out


def strip_exposure(message: str, source: str = "") -> str:
    """``message`` (a DuckDB error echoing the SQL it ran) with the exposure qualifier and the
    source database's name removed, so that it names the user's tables as the user wrote them.

    Example:
        >>> strip_exposure('LINE 1: SELECT x FROM tablerag_exposure.data.orders')
        'LINE 1: SELECT x FROM data.orders'
    """
    out = _QUALIFIER.sub("", message)
    return out.replace(source, "the database") if source else out
