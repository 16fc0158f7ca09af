"""A "none of" asked, a "one other" answered: negation written as ``<>`` across a join.

"Which countries' channels are not playing any cartoon written by Todd Casey?" answered by
``… FROM cartoon JOIN tv_channel … WHERE cartoon.written_by <> 'Todd Casey'`` keeps a country
that shows one cartoon by someone else, though it shows Todd Casey's too: the inequality is
judged per joined row, the question per thing listed. ``NOT IN``, ``NOT EXISTS``, ``EXCEPT`` or
an anti-join (``LEFT JOIN … IS NULL``) say "none". A comparison on the table whose rows are
listed ("cartoons not written by Todd Casey" from that same cartoon table) is a plain filter.
"""

from __future__ import annotations

from sqlglot import exp

_NEGATED = (exp.NEQ, exp.Not)


def inequality_across_join(tree: exp.Expr | None) -> tuple[str, str, str] | None:
    """(column, value, table listed) of a ``<>``/``NOT LIKE`` filter with a string on a joined
    table the query does not list rows of, in a query with no NOT IN, NOT EXISTS, EXCEPT or
    ``IS NULL``; None otherwise. Only qualified columns are judged (``T1.written_by``).

    Example:
        >>> import sqlglot
        >>> def got(sql):
        ...     return inequality_across_join(sqlglot.parse_one(sql))
        >>> got("SELECT DISTINCT c.country FROM cartoon AS t JOIN channel AS c ON t.ch = c.id "
        ...     "WHERE t.written_by <> 'Todd Casey'")
        ('t.written_by', 'Todd Casey', 'channel')
        >>> got("SELECT t.title FROM cartoon AS t JOIN channel AS c ON t.ch = c.id "
        ...     "WHERE t.written_by <> 'Todd Casey'") is None  # the cartoons themselves
        True
        >>> got("SELECT country FROM channel WHERE id NOT IN (SELECT ch FROM cartoon "
        ...     "WHERE written_by = 'Todd Casey')") is None
        True
    """
    if tree is None or _says_none(tree):
        return None
    for select in tree.find_all(exp.Select):
        if not select.args.get("joins") or select.find_ancestor(exp.Subquery, exp.In):
            continue
        tables = _aliases(select)
        listed = {
            tables[c.table.lower()]
            for p in select.selects
            for c in p.find_all(exp.Column)
            if c.table.lower() in tables
        }
        where = select.args.get("where")
        if not listed or where is None:
            continue
        for node in where.find_all(*_NEGATED):
            found = _column_and_string(node)
            if found is None:
                continue
            column, value = found
            table = tables.get(column.table.lower())
            if table and table not in listed:
                return f"{column.table}.{column.name}", value, sorted(listed)[0]
    return None


def _says_none(tree: exp.Expr) -> bool:
    """Whether the query already says "none": NOT IN, NOT EXISTS, EXCEPT or IS NULL."""
    if tree.find(exp.Except, exp.Is) is not None:
        return True
    return any(isinstance(n.this, (exp.In, exp.Exists)) for n in tree.find_all(exp.Not))


def _aliases(select: exp.Select) -> dict[str, str]:
    """Alias or name (lower-case) → table name (lower-case) of the tables a SELECT joins."""
    out: dict[str, str] = {}
    for table in select.find_all(exp.Table):
        if table.find_ancestor(exp.Select) is not select:
            continue
        out[table.alias_or_name.lower()] = table.name.lower()
        out[table.name.lower()] = table.name.lower()
    return out


def _column_and_string(node: exp.Expr) -> tuple[exp.Column, str] | None:
    """The qualified column and the string of ``col <> 'x'`` or ``NOT col LIKE 'x'``."""
    inner = node.this if isinstance(node, exp.Not) else node
    if isinstance(node, exp.Not) and not isinstance(inner, (exp.EQ, exp.Like, exp.ILike)):
        return None
    sides = (inner.this, inner.expression)
    column = next((s for s in sides if isinstance(s, exp.Column) and s.table), None)
    value = next((s for s in sides if isinstance(s, exp.Literal) and s.is_string), None)
    if column is None or value is None:
        return None
    return column, value.name


__all__ = ["inequality_across_join"]
