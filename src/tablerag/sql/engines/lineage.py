"""Lineage of view columns: a view column computed from a hidden column is hidden too.

A view is a table to the gate and to the exposure layer, so ``CREATE VIEW v AS SELECT password
AS secret FROM users`` would show ``secret`` although ``users.password`` is hidden. The engines
that can read their views' definitions (DuckDB files, PostgreSQL) trace each view column to the
table columns it is computed from with sqlglot's lineage (through aliases, functions, CTEs,
subqueries and ``*``) and hide it when any of them is hidden or not exposed; a view whose
definition cannot be traced is hidden whole.
"""

from __future__ import annotations

import logging
from dataclasses import replace

import sqlglot
from sqlglot import exp
from sqlglot.lineage import lineage

from tablerag.sql.exposed import ExposedCatalog, ExposedTable
from tablerag.sql.sensitive import SensitiveRules

log = logging.getLogger(__name__)


def view_lineage(
    sql: str,
    columns: list[str],
    schema: dict[str, dict[str, dict[str, str]]],
    default: str = "main",
    dialect: str = "duckdb",
) -> dict[str, set[tuple[str, str, str]]] | None:
    """For each output column of the view defined by ``sql``, the (schema, table, column)
    triples its value is computed from (through CTEs, subqueries and ``*``); None when the
    definition cannot be traced (the caller then hides every column of the view). A table
    named without its schema is in ``default`` (the view's own schema).

    Example:
        >>> schema = {"main": {"users": {"id": "INT", "password": "VARCHAR"}}}
        >>> found = view_lineage(
        ...     "CREATE VIEW v AS WITH t AS (SELECT id, password AS x FROM users) "
        ...     "SELECT id, upper(x) AS y FROM t", ["id", "y"], schema)
        >>> sorted(found["y"])
        [('main', 'users', 'password')]
    """
    try:
        tree = sqlglot.parse_one(sql, read=dialect)
    except sqlglot.errors.SqlglotError:
        return None
    query = tree.expression if isinstance(tree, exp.Create) else tree
    traced = _trace(query, columns, schema, default, dialect)
    if traced is None and not any(isinstance(s, exp.Star) for s in query.find_all(exp.Star)):
        # a column the account may not see (MySQL column grants) is missing from ``schema``;
        # a definition whose columns are all qualified (as MySQL stores them) needs none
        traced = _trace(query, columns, None, default, dialect)
    return traced


def _trace(
    query: exp.Expr,
    columns: list[str],
    schema: dict[str, dict[str, dict[str, str]]] | None,
    default: str,
    dialect: str,
) -> dict[str, set[tuple[str, str, str]]] | None:
    out: dict[str, set[tuple[str, str, str]]] = {}
    try:
        for column in columns:
            node = lineage(column, query, schema=schema or {}, dialect=dialect)
            sources = out.setdefault(column, set())
            for leaf in node.walk():
                if leaf.downstream or not isinstance(leaf.source, exp.Table):
                    continue
                table = leaf.source
                name = exp.to_column(leaf.name, dialect=dialect).name
                sources.add((table.db or default, table.name, name))
    except (sqlglot.errors.SqlglotError, KeyError, ValueError, AttributeError):
        return None
    return out


def hide_derived(
    catalog: ExposedCatalog,
    views: list[tuple[str, str, str]],
    columns: list[tuple[str, str, str, str]],
    *,
    dialect: str,
    default: str = "main",
) -> ExposedCatalog:
    """``catalog`` with each view column computed from a hidden column, or from a table
    generated SQL may not read, moved to the view's hidden columns (views of views too).

    Example:
        >>> cat = ExposedCatalog.from_mapping(
        ...     {"main.users": ["id", "password"], "main.v": ["id", "secret"]},
        ...     hidden={"main.users": ["password"]})
        >>> out = hide_derived(cat, [("main", "v", "CREATE VIEW v AS SELECT id, "
        ...     "password AS secret FROM users")], [("main", "users", "id", "INT"),
        ...     ("main", "users", "password", "VARCHAR"), ("main", "v", "id", "INT"),
        ...     ("main", "v", "secret", "VARCHAR")], dialect="duckdb")
        >>> out.table("v", schema="main").columns, out.table("v", schema="main").hidden
        (('id',), ('secret',))
    """
    schema: dict[str, dict[str, dict[str, str]]] = {}
    for s, t, c, typ in columns:
        schema.setdefault(s, {}).setdefault(t, {})[c] = typ
    definitions = {(s.lower(), v.lower()): q for s, v, q in views}
    tables = {((t.schema or default).lower(), t.name.lower()): t for t in catalog.tables}
    for _ in range(len(definitions) + 1):  # a view over a view hides after its source does
        changed = False
        for key, table in list(tables.items()):
            sql = definitions.get(key)
            if sql is None or not table.columns:
                continue
            traced = view_lineage(sql, list(table.columns), schema, key[0], dialect)
            derived = [
                c
                for c in table.columns
                if traced is None or any(_unreadable(tables, s) for s in traced.get(c, ()))
            ]
            if derived:
                if traced is None:
                    log.warning("cannot trace the columns of view %s; hiding them", table.name)
                tables[key] = replace(
                    table,
                    columns=tuple(c for c in table.columns if c not in derived),
                    hidden=(*table.hidden, *derived),
                )
                changed = True
        if not changed:
            break
    return ExposedCatalog(tables.values())


def hide_opaque(
    catalog: ExposedCatalog,
    views: list[tuple[str, str]],
    *,
    rules: SensitiveRules,
    default: str = "main",
) -> ExposedCatalog:
    """``catalog`` with every column of the views whose definition the account cannot read
    (MySQL/MariaDB without ``SHOW VIEW``) hidden, except the columns ``allow_columns`` names:
    such a view cannot be traced, and it may show a hidden column under another name.

    Example:
        >>> cat = ExposedCatalog.from_mapping({"shop.v": ["id", "label"]})
        >>> out = hide_opaque(cat, [("shop", "v")], rules=SensitiveRules(allow=("v.id",)))
        >>> out.table("v").columns, out.table("v").hidden
        (('id',), ('label',))
    """
    opaque = {(s.lower(), v.lower()) for s, v in views}
    out = []
    for table in catalog.tables:
        if ((table.schema or default).lower(), table.name.lower()) not in opaque:
            out.append(table)
            continue
        hidden = tuple(c for c in table.columns if not rules.allows(table.qualified, c))
        if hidden:
            log.warning(
                "cannot read the definition of view %s (grant SHOW VIEW on it to trace its "
                "columns); hiding %d of its columns",
                table.name,
                len(hidden),
            )
        out.append(
            replace(
                table,
                columns=tuple(c for c in table.columns if c not in hidden),
                hidden=(*table.hidden, *hidden),
                masked=tuple(c for c in table.masked if c not in hidden),
            )
        )
    return ExposedCatalog(out)


def _unreadable(tables: dict[tuple[str, str], ExposedTable], source: tuple[str, str, str]) -> bool:
    """A (schema, table, column) generated SQL may not read: hidden, or not exposed at all."""
    schema, name, column = (part.lower() for part in source)
    table = tables.get((schema, name))
    if table is None:
        return True
    return column in {h.lower() for h in table.hidden} or column not in {
        c.lower() for c in table.columns
    }
