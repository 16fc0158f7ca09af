"""Queries their columns' types make mean otherwise than the model wrote them, mended.

A small model writes SQL as arithmetic and calendars read, not as its database does:

- :func:`keep_fractions` (the ``fractions`` mend): on PostgreSQL and SQLite a ``/`` of two
  whole numbers drops the fraction, so ``SUM(refund_amt / 100)`` over an INTEGER column in 分
  lost every row's fen (84234 for 88794.8) and ``COUNT(DISTINCT order_id) /
  COUNT(DISTINCT refund_id) * 100`` was 100 or 0. Each such division keeps its fraction
  (:func:`tablerag.sql.division.fraction`, the one the semantic path's metrics divide with).
  Left alone: an integer division the SQL asks for (``DIV``, ``//``), a division a ``CAST(… AS
  INT)`` truncates at once (PostgreSQL would round the kept fraction instead), and one the
  query groups by (``age / 10``: buckets);
- :func:`whole_days` (the ``whole_days`` mend): ``order_time BETWEEN '2026-01-01' AND
  '2026-12-31'`` over a TIMESTAMP column stops at midnight of the last day and leaves out
  the rest of it; the bound is read as the day it names (``order_time < '2027-01-01'``).

- :func:`whole_periods` (the ``whole_periods`` mend): ``date = '2026-05'`` or ``date LIKE
  '2026-05-%'`` over a DATE or TIMESTAMP column is refused by DuckDB and PostgreSQL (a month is
  not a date; LIKE takes text) and the 1.5B model wrote it again on every repair round; it is
  read as the month or year it names (``date >= '2026-05-01' AND date < '2026-06-01'``).

The types come from the catalog alone (:func:`column_types`): a column the catalog does not
type is not mended, and DuckDB's and MySQL's ``/`` already keep fractions.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Mapping

from sqlglot import exp

from tablerag.linking.catalog import SchemaCatalog
from tablerag.nl2sql.autofix import Fixed, parse_or_none
from tablerag.sql.division import truncates, with_fractions
from tablerag.sql.units import Resolve, resolver
from tablerag.sqltypes import is_integer_type, is_timestamp_type, type_family

Types = Mapping[tuple[str, str], str]
"""``(table, column) → SQL type`` as the catalog records it (names lower case, a table by the
last part of its name)."""

_DAY = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_A_DAY = re.compile(r"\d{4}-\d{2}-\d{2}")
_WHOLE_OF_ONE = (exp.Sum, exp.Min, exp.Max, exp.Abs, exp.Neg, exp.Window)


def column_types(catalog: SchemaCatalog | None) -> Types:
    """The SQL type of every column of ``catalog`` (worked out once per catalog)."""
    if catalog is None:
        return {}
    found = catalog.memo.get("column_types")
    if not isinstance(found, dict):
        found = catalog.memo["column_types"] = {
            (name.rpartition(".")[2].lower(), c.name.lower()): c.type
            for name, info in catalog.tables.items()
            for c in info.columns
        }
    return found


def keep_fractions(sql: str, types: Types, *, dialect: str) -> Fixed | None:
    """``sql`` with each division of two whole numbers keeping its fraction, in a dialect
    whose ``/`` drops it; None when there is none (or the dialect keeps fractions).

    Whole numbers: integer columns (their catalog type), integer literals, ``COUNT``, and
    sums, minimums, arithmetic, ``CASE`` and ``COALESCE`` of whole numbers.

    Example:
        >>> types = {("refunds", "refund_amt"): "INTEGER", ("orders", "pay_amt"): "INTEGER",
        ...          ("orders", "rate"): "DOUBLE PRECISION"}
        >>> fixed = keep_fractions("SELECT SUM(refund_amt / 100) AS total FROM refunds",
        ...                        types, dialect="postgres")
        >>> fixed.sql
        'SELECT SUM(refund_amt * 1.0 / 100) AS total FROM refunds'
        >>> fixed.note
        'tablerag kept the fraction of refund_amt / 100 (postgres divides whole numbers into whole numbers)'
        >>> keep_fractions("SELECT SUM(refund_amt / 100) FROM refunds", types, dialect="duckdb")
        >>> keep_fractions("SELECT AVG(rate / 100) FROM orders", types, dialect="postgres")
        >>> keep_fractions("SELECT CAST(pay_amt / 100 AS INT) FROM orders", types,
        ...                dialect="postgres")
    """  # noqa: E501 (a doctest's output line)
    if not types or "/" not in sql or not truncates(dialect):
        return None
    tree = parse_or_none(sql, dialect)
    if tree is None:
        return None
    known = _with_derived(tree, types)
    grouped = {  # a division grouped by (written again, or by its alias) makes buckets
        n.sql(dialect=dialect) if isinstance(n, exp.Div) else n.name.lower()
        for g in tree.find_all(exp.Group)
        for n in g.find_all(exp.Div, exp.Column)
    }

    def wanted(div: exp.Div) -> bool:
        select = div.find_ancestor(exp.Select)
        alias = div.find_ancestor(exp.Alias)
        named = alias is not None and alias.parent is select and alias.alias.lower() in grouped
        if select is None or named or _truncated_at_once(div) or div.sql(dialect) in grouped:
            return False
        resolve = resolver(select, known)
        return _whole(div.this, resolve) and _whole(div.expression, resolve)

    tree, kept = with_fractions(tree, wanted)
    if not kept:
        return None
    said = ", ".join(dict.fromkeys(d.sql(dialect=dialect) for d in kept))
    note = (
        f"tablerag kept the fraction of {said} ({dialect} divides whole numbers into whole numbers)"
    )
    return Fixed(tree.sql(dialect=dialect), note)


def whole_days(sql: str, types: Types, *, dialect: str) -> Fixed | None:
    """``sql`` with a date-only upper bound on a timestamp column read as the whole day it
    names (``ts BETWEEN a AND '2026-12-31'`` → ``ts >= a AND ts < '2027-01-01'``, ``ts <=
    '2026-12-31'`` → ``ts < '2027-01-01'``); None when there is none.

    Example:
        >>> types = {("orders", "order_time"): "TIMESTAMP", ("orders", "paid_on"): "DATE"}
        >>> fixed = whole_days("SELECT COUNT(*) FROM orders AS o WHERE o.order_time "
        ...     "BETWEEN '2026-01-01' AND '2026-12-31'", types, dialect="postgres")
        >>> fixed.sql
        "SELECT COUNT(*) FROM orders AS o WHERE o.order_time >= '2026-01-01' AND o.order_time < '2027-01-01'"
        >>> fixed.note
        "tablerag read '2026-12-31' as the whole day: o.order_time holds times of day"
        >>> whole_days("SELECT * FROM orders WHERE paid_on <= '2026-12-31'", types,
        ...            dialect="postgres")
        >>> whole_days("SELECT * FROM orders WHERE order_time <= '2026-12-31 12:00:00'", types,
        ...            dialect="postgres")
    """  # noqa: E501 (a doctest's output line)
    if not types or not _A_DAY.search(sql):
        return None
    tree = parse_or_none(sql, dialect)
    if tree is None:
        return None
    notes: list[str] = []
    for node in list(tree.find_all(exp.Between, exp.LTE, exp.GTE)):
        select = node.find_ancestor(exp.Select)
        if select is None:
            continue
        resolve = resolver(select, types)
        read = _whole_day(node, resolve)
        if read is None:
            continue
        replacement, column, day = read
        _put(node, replacement)
        notes.append(f"tablerag read '{day}' as the whole day: {column} holds times of day")
    if not notes:
        return None
    return Fixed(tree.sql(dialect=dialect), "; ".join(dict.fromkeys(notes)))


_PERIOD = re.compile(r"^(\d{4})(?:[-/.](\d{1,2}))?(?:[-/.](\d{1,2}))?$")
_PATTERN = re.compile(r"^(\d{4})(?:-(\d{2}))?(?:-(\d{2}))?-?%$")


def whole_periods(sql: str, types: Types, *, dialect: str) -> Fixed | None:
    """``sql`` with a month or a year written as text and compared with a DATE or TIMESTAMP
    column read as that whole period (``d = '2026-05'`` and ``d LIKE '2026-05-%'`` → ``d >=
    '2026-05-01' AND d < '2026-06-01'``; ``d = '2026'`` → the year); None when there is none.

    Example:
        >>> types = {("att", "day"): "DATE", ("att", "note"): "VARCHAR"}
        >>> fixed = whole_periods("SELECT COUNT(*) FROM att WHERE day = '2026-05'", types,
        ...                       dialect="duckdb")
        >>> fixed.sql
        "SELECT COUNT(*) FROM att WHERE day >= '2026-05-01' AND day < '2026-06-01'"
        >>> fixed.note
        "tablerag read '2026-05' as the whole period: day holds dates"
        >>> whole_periods("SELECT SUM(h) FROM att AS a WHERE a.day LIKE '2026-12-%' AND h > 1",
        ...               types, dialect="duckdb").sql
        "SELECT SUM(h) FROM att AS a WHERE a.day >= '2026-12-01' AND a.day < '2027-01-01' AND h > 1"
        >>> whole_periods("SELECT * FROM att WHERE note LIKE '2026-05%' OR day = '2026-05-03'",
        ...               types, dialect="duckdb") is None  # text, and a whole day already
        True
    """  # noqa: E501 (a doctest's output line)
    if not types or not re.search(r"\d{4}", sql):
        return None
    tree = parse_or_none(sql, dialect)
    if tree is None:
        return None
    notes: list[str] = []
    for node in list(tree.find_all(exp.EQ, exp.Like)):
        select = node.find_ancestor(exp.Select)
        column, text = node.this, node.expression
        if isinstance(text, exp.Column):
            column, text = text, column
        if select is None or not isinstance(column, exp.Column):
            continue
        if not (isinstance(text, exp.Literal) and text.is_string):
            continue
        sql_type = resolver(select, types)(column)
        if sql_type is None or type_family(sql_type) != "time":
            continue
        span = _span(str(text.this).strip(), like=isinstance(node, exp.Like))
        if span is None:
            continue
        start, end = span
        read: exp.Expr = exp.And(
            this=exp.GTE(this=column.copy(), expression=exp.Literal.string(start)),
            expression=exp.LT(this=column.copy(), expression=exp.Literal.string(end)),
        )
        _put(node, read)
        notes.append(f"tablerag read '{text.this}' as the whole period: {column.sql()} holds dates")
    if not notes:
        return None
    return Fixed(tree.sql(dialect=dialect), "; ".join(dict.fromkeys(notes)))


def _put(node: exp.Expr, replacement: exp.Expr) -> None:
    """Replace ``node`` by ``replacement``, in parentheses when that is a conjunction inside
    anything but a WHERE, a HAVING or another AND (``NOT (a >= x AND a < y)``)."""
    if isinstance(replacement, exp.And) and not isinstance(
        node.parent, exp.Where | exp.Having | exp.And
    ):
        replacement = exp.Paren(this=replacement)
    node.replace(replacement)


def _span(text: str, *, like: bool) -> tuple[str, str] | None:
    """The first day of the period ``text`` names and the first day after it: a year or a
    month (``'2026'``, ``'2026-05'``), or with ``like`` a pattern of one (``'2026-05-%'``,
    ``'2026-05-03%'``: that day); None for a whole day compared by ``=`` or anything else."""
    match = (_PATTERN if like else _PERIOD).match(text)
    if match is None:
        return None
    year = int(match.group(1))
    month, day = (int(g) if g else None for g in match.groups()[1:])
    try:
        if day is not None and month is not None:
            if not like:
                return None  # '2026-05-03' is a date already
            first = dt.date(year, month, day)
            return first.isoformat(), (first + dt.timedelta(days=1)).isoformat()
        if month is not None:
            after = dt.date(year + 1, 1, 1) if month == 12 else dt.date(year, month + 1, 1)
            return dt.date(year, month, 1).isoformat(), after.isoformat()
        return dt.date(year, 1, 1).isoformat(), dt.date(year + 1, 1, 1).isoformat()
    except ValueError:
        return None


def _whole(node: exp.Expr | None, resolve: Resolve) -> bool:
    """Whether ``node`` is a whole number by its types."""
    while isinstance(node, exp.Paren):
        node = node.this
    if isinstance(node, exp.Literal):
        return not node.is_string and node.is_int
    if isinstance(node, exp.Column):
        sql_type = resolve(node)
        return sql_type is not None and is_integer_type(sql_type)
    if isinstance(node, exp.Count):
        return True
    if isinstance(node, exp.Cast):
        return node.to.is_type(*exp.DataType.INTEGER_TYPES)
    if isinstance(node, _WHOLE_OF_ONE):
        return _whole(node.this, resolve)
    if isinstance(node, exp.Distinct):  # SUM(DISTINCT x)
        return len(node.expressions) == 1 and _whole(node.expressions[0], resolve)
    if isinstance(node, exp.Add | exp.Sub | exp.Mul | exp.Mod):
        return _whole(node.this, resolve) and _whole(node.expression, resolve)
    if isinstance(node, exp.Case):
        values = [i.args.get("true") for i in node.args.get("ifs") or []]
        return _all_whole([*values, node.args.get("default")], resolve)
    if isinstance(node, exp.If):
        return _all_whole([node.args.get("true"), node.args.get("false")], resolve)
    if isinstance(node, exp.Coalesce):
        return _all_whole([node.this, *node.expressions], resolve)
    return False


def _all_whole(values: list[exp.Expr | None], resolve: Resolve) -> bool:
    """Whether every value present is whole (a missing ELSE is NULL, which is no fraction)."""
    present = [v for v in values if v is not None and not isinstance(v, exp.Null)]
    return bool(present) and all(_whole(v, resolve) for v in present)


def _truncated_at_once(div: exp.Div) -> bool:
    """Whether ``div`` goes straight into a cast to an integer type: the truncation is asked."""
    node: exp.Expr = div
    while isinstance(node.parent, exp.Paren):
        node = node.parent
    parent = node.parent
    return isinstance(parent, exp.Cast) and parent.to.is_type(*exp.DataType.INTEGER_TYPES)


def _with_derived(tree: exp.Expr, types: Types) -> dict[tuple[str, str], str]:
    """``types`` and the whole numbers CTEs and derived tables report, under their names
    (``WITH c AS (SELECT COUNT(*) AS n …) SELECT n / m FROM c``)."""
    out = dict(types)
    named = [n for n in tree.find_all(exp.CTE, exp.Subquery) if n.alias]
    for node in reversed(named):  # the innermost first
        select = node.this
        if not isinstance(select, exp.Select):
            continue
        resolve = resolver(select, out)
        for projection in select.expressions:
            if projection.alias_or_name and _whole(projection.unalias(), resolve):
                out[(node.alias.lower(), projection.alias_or_name.lower())] = "BIGINT"
    return out


def _whole_day(node: exp.Expr, resolve: Resolve) -> tuple[exp.Expr, str, str] | None:
    """The comparison ``node`` reading its date-only upper bound on a timestamp column as the
    whole day, the column and the day; None when it is not one."""
    if isinstance(node, exp.Between):
        column, bound = node.this, node.args.get("high")
    elif isinstance(node, exp.LTE):
        column, bound = node.this, node.expression
    else:  # '2026-12-31' >= ts
        column, bound = node.expression, node.this
    if not isinstance(column, exp.Column) or not isinstance(bound, exp.Expr):
        return None
    sql_type = resolve(column)
    after = _next_day(bound)
    if sql_type is None or not is_timestamp_type(sql_type) or after is None:
        return None
    day, name = _day_text(bound), column.sql()
    before = exp.LT(this=column.copy(), expression=after)
    if isinstance(node, exp.Between):
        lower = exp.GTE(this=column.copy(), expression=node.args["low"].copy())
        return exp.And(this=lower, expression=before), name, day
    if isinstance(node, exp.LTE):
        return before, name, day
    return exp.GT(this=after, expression=column.copy()), name, day


def _day_text(bound: exp.Expr) -> str:
    literal = bound.this if isinstance(bound, exp.Cast) else bound
    return str(literal.this)


def _next_day(bound: exp.Expr) -> exp.Expr | None:
    """The day after the date-only literal ``bound`` (``'2026-12-31'``, ``DATE '2026-12-31'``),
    written the same way; None for anything else (a literal with a time of day)."""
    literal = bound.this if isinstance(bound, exp.Cast) else bound
    if isinstance(bound, exp.Cast) and not bound.to.is_type(exp.DataType.Type.DATE):
        return None
    if not (isinstance(literal, exp.Literal) and literal.is_string):
        return None
    text = str(literal.this).strip()
    if not _DAY.match(text):
        return None
    try:
        day = dt.date.fromisoformat(text) + dt.timedelta(days=1)
    except ValueError:
        return None
    after = exp.Literal.string(day.isoformat())
    if isinstance(bound, exp.Cast):
        cast = bound.copy()
        cast.set("this", after)
        return cast
    return after


__all__ = ["Types", "column_types", "keep_fractions", "whole_days", "whole_periods"]
