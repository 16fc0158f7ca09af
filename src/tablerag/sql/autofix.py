"""Repairs the gate can make itself, without another model call.

A small model often qualifies a column with the wrong alias (``T1.Name`` where ``Name`` is a
column of ``T2``) and repeats the same query when told. When exactly one FROM item of that query
has the column, there is only one way to read it; :func:`requalify` moves the column there. The
result goes through the gate again like any other SQL.

The schema shows long sample values cut to 30 characters with a trailing "…", and the model
copies them: ``WHERE item = 'Total Property, Plant and Equ…'`` finds nothing. :func:`unclip`
reads such a literal as the prefix it is (``SUBSTRING(item, 1, 26) = 'Total Property, Plant
and Equ'``; in a LIKE pattern the "…" becomes ``%``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import sqlglot
from sqlglot import exp
from sqlglot.errors import ParseError, TokenError

from tablerag.errors import Issue
from tablerag.sql.validate import span


@dataclass(frozen=True)
class Fixed:
    """SQL the gate rewrote, and what it changed (for the answer's attempt list)."""

    sql: str
    note: str


def requalify(sql: str, issues: Sequence[Issue], *, dialect: str) -> Fixed | None:
    """``sql`` with every column under a wrong alias moved to the one FROM item that has it.

    None unless every issue is such a column (any other problem needs the model).

    Example:
        >>> from tablerag.sql.exposed import ExposedCatalog
        >>> from tablerag.sql.validate import validate
        >>> cat = ExposedCatalog.from_mapping({"people": ["id", "name"], "player": ["id", "pay"]})
        >>> sql = "SELECT T1.name FROM player AS T1 JOIN people AS T2 ON T1.id = T2.id"
        >>> fixed = requalify(sql, validate(sql, dialect="sqlite", catalog=cat), dialect="sqlite")
        >>> fixed.sql
        'SELECT T2.name FROM player AS T1 JOIN people AS T2 ON T1.id = T2.id'
        >>> fixed.note
        'tablerag wrote T2.name for T1.name (only T2 has that column)'
    """
    moves: dict[tuple[int, int], str] = {}
    for issue in issues:
        alias = issue.detail.get("requalify")
        if issue.code != "unknown_column" or not alias or issue.span is None:
            return None
        moves[issue.span] = str(alias)
    if not moves:
        return None
    try:
        tree = sqlglot.parse_one(sql, read=dialect)
    except (ParseError, TokenError):
        return None
    notes: list[str] = []
    for column in list(tree.find_all(exp.Column)):
        where = span(column)
        alias = moves.pop(where, None) if where is not None else None
        if alias is None:
            continue
        before = column.sql(dialect=dialect)
        column.set("table", exp.to_identifier(alias))
        notes.append(f"{column.sql(dialect=dialect)} for {before} (only {alias} has that column)")
    if moves:
        return None
    return Fixed(tree.sql(dialect=dialect), "tablerag wrote " + "; ".join(notes))


CLIP = "…"


def unclip(sql: str, *, dialect: str) -> Fixed | None:
    """``sql`` with every comparison to a cut sample value (``= 'text…'``) made a prefix match.

    None when no literal ends in "…" in an equality or a LIKE (or the SQL does not parse).

    Example:
        >>> fixed = unclip("SELECT x FROM t WHERE item = 'Total Prop…'", dialect="duckdb")
        >>> fixed.sql
        "SELECT x FROM t WHERE SUBSTRING(item, 1, 10) = 'Total Prop'"
        >>> fixed.note
        "tablerag read 'Total Prop…' as a prefix (the schema cuts long sample values)"
        >>> unclip("SELECT x FROM t WHERE a LIKE 'Net loss…'", dialect="duckdb").sql
        "SELECT x FROM t WHERE a LIKE 'Net loss%'"
        >>> unclip("SELECT 'wait…' AS x", dialect="duckdb") is None
        True
    """
    if CLIP not in sql:
        return None
    try:
        tree = sqlglot.parse_one(sql, read=dialect)
    except (ParseError, TokenError):
        return None
    cut: list[str] = []
    for node in list(tree.find_all(exp.EQ, exp.Like, exp.ILike)):
        left, right = node.this, node.expression
        if _clipped(left) and not _clipped(right):
            left, right = right, left
        if not _clipped(right):
            continue
        text = right.this
        prefix = text[: -len(CLIP)].rstrip()
        cut.append(f"'{text}'")
        if isinstance(node, exp.EQ):
            start, length = exp.Literal.number(1), exp.Literal.number(len(prefix))
            head = exp.Substring(this=left.copy(), start=start, length=length)
            node.replace(exp.EQ(this=head, expression=exp.Literal.string(prefix)))
        else:
            node.set("this", left.copy())
            node.set("expression", exp.Literal.string(prefix + "%"))
    if not cut:
        return None
    what = ", ".join(cut)
    return Fixed(
        tree.sql(dialect=dialect),
        f"tablerag read {what} as a prefix (the schema cuts long sample values)",
    )


def _clipped(node: exp.Expression) -> bool:
    return (
        isinstance(node, exp.Literal)
        and node.is_string
        and node.this.endswith(CLIP)
        and len(node.this) > len(CLIP)
    )
