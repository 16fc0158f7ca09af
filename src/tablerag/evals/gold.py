"""Gold tables and columns of a SQL query, parsed with sqlglot and resolved against a schema."""

from __future__ import annotations

from collections.abc import Sequence

import sqlglot
from sqlglot import exp
from sqlglot.errors import SqlglotError
from sqlglot.optimizer.scope import traverse_scope

from tablerag.types import TableInfo


def parse_sql(sql: str) -> exp.Expr | None:
    """Parse dataset SQL (MySQL-style: double quotes are strings), or None if it will not parse.

    Example:
        >>> parse_sql('SELECT name FROM singer WHERE country = "France"').sql()
        "SELECT name FROM singer WHERE country = 'France'"
    """
    for dialect in ("mysql", "sqlite"):
        try:
            tree = sqlglot.parse_one(sql, read=dialect)
        except SqlglotError:
            continue
        if tree is not None:
            return tree
    return None


def gold_schema(
    sql: str, tables: Sequence[TableInfo]
) -> tuple[set[str], set[tuple[str, str]]] | None:
    """The catalog tables and (table, column) pairs a query uses; None when it will not parse.

    Names are matched case-insensitively; an unqualified column belongs to the one table of its
    query scope that has it. ``*`` and columns of derived tables are not counted.

    Example:
        >>> from tablerag.types import ColumnInfo
        >>> s = [TableInfo("singer", "", (ColumnInfo("Singer_ID", "number"),
        ...                               ColumnInfo("Name", "text")), 0),
        ...      TableInfo("concert", "", (ColumnInfo("Singer_ID", "number"),), 0)]
        >>> t, c = gold_schema("SELECT T1.name FROM singer AS T1 JOIN concert AS T2 "
        ...                    "ON T1.singer_id = T2.singer_id", s)
        >>> sorted(t)
        ['concert', 'singer']
        >>> sorted(c)
        [('concert', 'Singer_ID'), ('singer', 'Name'), ('singer', 'Singer_ID')]
    """
    tree = parse_sql(sql)
    if tree is None:
        return None
    by_name = {t.name.lower(): t for t in tables}
    cols = {t.name: {c.name.lower(): c.name for c in t.columns} for t in tables}
    used_tables: set[str] = set()
    used_cols: set[tuple[str, str]] = set()
    for node in tree.find_all(exp.Table):
        info = by_name.get(node.name.lower())
        if info is not None:
            used_tables.add(info.name)
    for scope in traverse_scope(tree):
        aliases: dict[str, str] = {}
        for alias, source in scope.sources.items():
            if isinstance(source, exp.Table) and source.name.lower() in by_name:
                aliases[alias.lower()] = by_name[source.name.lower()].name
        in_scope = list(dict.fromkeys(aliases.values()))
        for column in scope.columns:
            name = column.name.lower()
            if not name or name == "*":
                continue
            if column.table:
                owner = aliases.get(column.table.lower())
                candidates = [owner] if owner else []
            else:
                candidates = [t for t in in_scope if name in cols[t]]
            for owner in candidates[:1]:
                if owner is not None and name in cols[owner]:
                    used_cols.add((owner, cols[owner][name]))
    return used_tables, used_cols
