"""Read columns that mix value formats as one format, by rewriting the SQL that uses them.

A month column holding both ``'2026-09'`` and ``'202609'`` silently splits every comparison,
join and GROUP BY in two. When the profiler has seen such a column, each reference to it in
generated SQL is replaced by an expression that turns the minority form into the canonical one,
so ``WHERE stat_month = '2026-09'`` finds the rows written either way. The rewrite is shown to the
user (it is the SQL that runs) and the result still passes the gate.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

import sqlglot
from sqlglot import exp
from sqlglot.errors import ParseError

# canonical format -> SQL turning its compact twin into it ({c} is the column)
_TEMPLATES: dict[str, str] = {
    "YYYY-MM": "CASE WHEN length({c}) = 6 THEN substr({c}, 1, 4) || '-' || substr({c}, 5, 2) "
    "ELSE {c} END",
    "YYYY-MM-DD": "CASE WHEN length({c}) = 8 THEN substr({c}, 1, 4) || '-' || substr({c}, 5, 2) "
    "|| '-' || substr({c}, 7, 2) ELSE {c} END",
}
_STRFTIME = {"YYYY-MM": "%Y-%m", "YYYY-MM-DD": "%Y-%m-%d"}
_COMPARISONS = (exp.EQ, exp.NEQ, exp.GT, exp.GTE, exp.LT, exp.LTE)
_DATE_TYPES = exp.DataType.TEMPORAL_TYPES - {exp.DataType.Type.TIME, exp.DataType.Type.TIMETZ}
_DATE_NODES = (
    exp.CurrentDate,
    exp.CurrentTimestamp,
    exp.DateAdd,
    exp.DateSub,
    exp.DateTrunc,
    exp.TimestampTrunc,
    exp.StrToDate,
)
_TWINS: dict[frozenset[str], str] = {
    frozenset({"YYYY-MM", "YYYYMM"}): "YYYY-MM",
    frozenset({"YYYY-MM-DD", "YYYYMMDD"}): "YYYY-MM-DD",
}


def canonical_format(formats: list[str] | tuple[str, ...]) -> str | None:
    """The format to read a column in, when its formats are a dashed/compact pair.

    Example:
        >>> canonical_format(("YYYY-MM", "YYYYMM"))
        'YYYY-MM'
        >>> canonical_format(("YYYY-MM",)) is None
        True
    """
    return _TWINS.get(frozenset(formats))


def canonicalize_formats(sql: str, columns: Mapping[tuple[str, str], str], *, dialect: str) -> str:
    """Rewrite every reference to a mixed-format column as its canonical form.

    Args:
        sql: one SELECT statement.
        columns: (table, column) -> canonical format (a key of the templates above).
        dialect: sqlglot dialect of ``sql``.

    Returns:
        The rewritten SQL, or ``sql`` unchanged when nothing applies or it does not parse (the
        gate then reports the parse error).

    A reference already inside its canonical form is left alone, so SQL rewritten once and
    sent back by the model in a repair is not wrapped again (it was, each repair, until the
    query outgrew the model's reply and came back cut off).

    Example:
        >>> once = canonicalize_formats(
        ...     "SELECT count(*) FROM fact_sales f WHERE f.stat_month = '2026-09'",
        ...     {("fact_sales", "stat_month"): "YYYY-MM"}, dialect="duckdb")
        >>> once
        "SELECT COUNT(*) FROM fact_sales AS f WHERE CASE WHEN LENGTH(f.stat_month) = 6 THEN \
SUBSTRING(f.stat_month, 1, 4) || '-' || SUBSTRING(f.stat_month, 5, 2) ELSE f.stat_month END \
= '2026-09'"
        >>> canonicalize_formats(once, {("fact_sales", "stat_month"): "YYYY-MM"},
        ...                      dialect="duckdb") == once
        True
    """
    if not columns:
        return sql
    try:
        tree = sqlglot.parse_one(sql, read=dialect)
    except ParseError:
        return sql
    names: dict[str, str] = {}
    for node in tree.find_all(exp.Table):
        names[node.alias_or_name] = node.name
    present = set(names.values())

    def format_of(column: exp.Column) -> str | None:
        qualifier = column.table
        owner = names.get(qualifier) if qualifier else _only_owner(column.name, present, columns)
        return columns.get((owner, column.name)) if owner else None

    changed = _dates_as_text(tree, format_of)
    for column in list(tree.find_all(exp.Column)):
        fmt = format_of(column)
        if fmt is None:
            continue
        template = _TEMPLATES[fmt].format(c=column.sql(dialect=dialect))
        replacement: exp.Expr = sqlglot.parse_one(template, read=dialect)
        if _inside(column, replacement):
            continue
        if isinstance(column.parent, exp.Select) and column in column.parent.expressions:
            replacement = exp.alias_(replacement, column.name, quoted=False)
        column.replace(replacement)
        changed = True
    return tree.sql(dialect=dialect) if changed else sql


def _dates_as_text(tree: exp.Expr, format_of: Callable[[exp.Column], str | None]) -> bool:
    """Write a date compared with a text column of dates as text in the column's format.

    The local model compared the month column with a date (``stat_month = CAST('2026-11-15'
    AS DATE) - INTERVAL '1' MONTH``) in two of the demo's questions; DuckDB cannot cast
    '2026-10' to a date and the query failed three repairs running. ``strftime`` of that date
    in the column's format (``'%Y-%m'``) is what was meant. Returns whether anything changed.
    """
    changed = False
    for node in list(tree.find_all(*_COMPARISONS, exp.Between)):
        keys = ("this", "low", "high") if isinstance(node, exp.Between) else ("this", "expression")
        sides = [node.args[k] for k in keys if isinstance(node.args.get(k), exp.Expr)]
        formats = {format_of(c) for side in sides for c in side.find_all(exp.Column)}
        formats.discard(None)
        if len(formats) != 1:
            continue
        pattern = _STRFTIME[formats.pop() or ""]
        for side in sides:
            if _is_date(side) and not any(format_of(c) for c in side.find_all(exp.Column)):
                side.replace(exp.func("strftime", side.copy(), exp.Literal.string(pattern)))
                changed = True
    return changed


def _is_date(node: exp.Expr) -> bool:
    """Whether ``node`` is a date or timestamp: a cast to one, the current date, a date
    function, or one of those plus or minus an interval."""
    while isinstance(node, exp.Paren):
        node = node.this
    if isinstance(node, exp.Cast):
        return node.to.this in _DATE_TYPES
    if isinstance(node, _DATE_NODES):
        return True
    if isinstance(node, exp.Add | exp.Sub):
        left, right = node.this, node.expression
        return (_is_date(left) and isinstance(right, exp.Interval)) or (
            isinstance(node, exp.Add) and isinstance(left, exp.Interval) and _is_date(right)
        )
    return False


def _inside(column: exp.Column, canonical: exp.Expr) -> bool:
    """Whether ``column`` already sits inside ``canonical`` (its own canonical form)."""
    node = column.parent
    while node is not None:
        if isinstance(node, exp.Case) and node == canonical:
            return True
        node = node.parent
    return False


def _only_owner(name: str, present: set[str], columns: Mapping[tuple[str, str], str]) -> str | None:
    owners = [t for t in present if (t, name) in columns]
    return owners[0] if len(owners) == 1 else None
