"""Money units of columns and of the expressions of a query over them.

A column's unit comes from the catalog: the unit ingest recorded (``元``, ``¥``) or the words
of its description or comment ("实付金额，单位：分", "amount in cents"). A *minor* unit is a
fraction of a major one (:data:`MINOR_UNITS`: 1 元 = 100 分); an amount stored in it and read
as the major unit is a hundred times off, which is what this module lets the SQL path see:

- :func:`column_unit`: the money unit of one catalog column, or None;
- :func:`table_units`: every money column of some tables, ``(table, column) → unit``;
- :func:`unit_of`: the money unit an expression computes (``SUM(qty * price_fen)`` is in 分,
  ``SUM(price_fen) / 100.0`` in 元, ``SUM(a_fen) / SUM(b_fen)`` has none), or :data:`MIXED`
  when it adds amounts in different units.

Only money is tracked: a quantity times a price is in the price's unit whatever the quantity
counts.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from decimal import Decimal, InvalidOperation
from typing import Final

from sqlglot import exp

from tablerag.types import ColumnInfo, TableInfo

MINOR_UNITS: Final[Mapping[str, tuple[str, int]]] = {"分": ("元", 100)}
"""Minor unit → (its major unit, how many make one)."""
MAJOR_UNITS: Final[Mapping[str, str]] = {
    "元": "元",
    "¥": "元",
    "￥": "元",
    "rmb": "元",
    "cny": "元",
}
"""Spellings of a major unit → the unit."""
MIXED: Final = "mixed"
"""The unit of an expression that adds or compares amounts in different units."""

_MINOR_WORDS = re.compile(
    r"(?:^|[^\w])(?:分|fen|cents?)(?:$|[^\w])|单位[为是：:\s]*分|in fen|in cents", re.I
)
_NUMBER_TYPES = ("INT", "DEC", "NUMERIC", "DOUBLE", "FLOAT", "REAL", "NUMBER", "MONEY")
_KEYISH = re.compile(r"(?:^id$|_id$|_code$|_no$|编码$|编号$|代码$|^year$|^month$|^quarter$)", re.I)

Resolve = Callable[[exp.Column], str | None]
"""A column of a query → its money unit (None: not money, or not known)."""


def is_measure(c: ColumnInfo) -> bool:
    """A number column that is not a key, a code or a calendar part."""
    return any(w in c.type.upper() for w in _NUMBER_TYPES) and not _KEYISH.search(c.name)


def column_unit(c: ColumnInfo) -> str | None:
    """The money unit of ``c``: a minor unit its unit or description names, else the major
    unit ingest recorded, else None.

    Example:
        >>> column_unit(ColumnInfo("pay_amt", "INTEGER", description="实付金额，单位：分"))
        '分'
        >>> column_unit(ColumnInfo("price", "DECIMAL(10,2)", unit="¥"))
        '元'
        >>> column_unit(ColumnInfo("order_id", "INTEGER", description="单位：分")) is None
        True
    """
    if not is_measure(c):
        return None
    if _MINOR_WORDS.search(c.unit or "") or _MINOR_WORDS.search(c.description):
        return "分"
    words = (c.unit or "").split()  # "元 (CNY)"
    return MAJOR_UNITS.get(words[0].lower()) if words else None


def table_units(tables: Iterable[TableInfo]) -> dict[tuple[str, str], str]:
    """``(table, column) → money unit`` (lower case; a table by the last part of its name)."""
    out: dict[tuple[str, str], str] = {}
    for t in tables:
        short = t.name.rpartition(".")[2].lower()
        for c in t.columns:
            unit = column_unit(c)
            if unit is not None:
                out[(short, c.name.lower())] = unit
    return out


def resolver(select: exp.Select, units: Mapping[tuple[str, str], str]) -> Resolve:
    """The units of the columns ``select`` reads: an alias names its table; a bare column is
    the one of that name among the tables the select reads (None when they disagree)."""
    aliases: dict[str, str] = {}
    for table in select.find_all(exp.Table):
        aliases[table.alias_or_name.lower()] = table.name.lower()
    for derived in select.find_all(exp.Subquery):  # FROM (SELECT …) AS s
        if derived.alias:
            aliases[derived.alias.lower()] = derived.alias.lower()
    read = set(aliases.values())

    def resolve(column: exp.Column) -> str | None:
        name = column.name.lower()
        if column.table:
            return units.get((aliases.get(column.table.lower(), column.table.lower()), name))
        found = {u for t in read if (u := units.get((t, name))) is not None}
        return found.pop() if len(found) == 1 else None

    return resolve


def unit_of(node: exp.Expr, resolve: Resolve) -> str | None:
    """The money unit ``node`` computes, None for none, :data:`MIXED` for different ones.

    Example:
        >>> import sqlglot
        >>> units = {"pay_amt": "分", "net": "元"}
        >>> r = lambda c: units.get(c.name)
        >>> u = lambda sql: unit_of(sqlglot.parse_one(sql), r)
        >>> u("SUM(qty * pay_amt)"), u("SUM(pay_amt) / 100.0"), u("SUM(pay_amt) * 0.01")
        ('分', '元', '元')
        >>> u("SUM(pay_amt) / COUNT(DISTINCT id)"), u("SUM(pay_amt) / SUM(pay_amt)")
        ('分', None)
        >>> u("SUM(net) - SUM(pay_amt)"), u("SUM(CASE WHEN pay_amt > 0 THEN net END)")
        ('mixed', '元')
        >>> u("SUM(pay_amt) - SUM(other)"), u("SUM(pay_amt) - 5")  # other's unit is not known
        (None, '分')
    """
    if isinstance(node, exp.Column):
        return resolve(node)
    if isinstance(node, exp.Literal | exp.Count | exp.Predicate | exp.Connector | exp.Not):
        return None
    if isinstance(node, exp.Subquery | exp.Select):
        select = node.this if isinstance(node, exp.Subquery) else node
        projections = select.expressions if isinstance(select, exp.Select) else []
        return unit_of(projections[0], resolve) if len(projections) == 1 else None
    if isinstance(node, exp.Window | exp.Alias | exp.Paren):
        return unit_of(node.this, resolve)
    if isinstance(node, exp.Case):
        return _same([*(i.args.get("true") for i in node.args.get("ifs") or []),
                      node.args.get("default")], resolve)  # fmt: skip
    if isinstance(node, exp.If):
        return _same([node.args.get("true"), node.args.get("false")], resolve)
    if isinstance(node, exp.Add | exp.Sub):
        sides = [unit_of(node.left, resolve), unit_of(node.right, resolve)]
        if None in sides and any(
            u is None and _reads_columns(n)
            for u, n in zip(sides, (node.left, node.right), strict=True)
        ):
            return None  # an amount of unknown unit added: nothing can be said
        return _same([node.left, node.right], resolve)
    if isinstance(node, exp.Mul):
        return _product(node, resolve)
    if isinstance(node, exp.Div):
        return _quotient(node, resolve)
    return _same(list(node.iter_expressions()), resolve)


def _same(nodes: list[exp.Expr | None], resolve: Resolve) -> str | None:
    found = {unit_of(n, resolve) for n in nodes if n is not None} - {None}
    if len(found) > 1 or MIXED in found:
        return MIXED
    return found.pop() if found else None


def _reads_columns(node: exp.Expr) -> bool:
    return any(c.find_ancestor(exp.Count) is None for c in node.find_all(exp.Column))


def _product(node: exp.Mul, resolve: Resolve) -> str | None:
    left, right = unit_of(node.left, resolve), unit_of(node.right, resolve)
    if left is not None and right is not None:
        return MIXED if MIXED in (left, right) else None  # money times money: not money
    unit, other = (left, node.right) if left is not None else (right, node.left)
    minor = MINOR_UNITS.get(unit or "")
    if minor is not None and _number(other) == Decimal(1) / minor[1]:
        return minor[0]
    return unit


def _quotient(node: exp.Div, resolve: Resolve) -> str | None:
    left, right = unit_of(node.left, resolve), unit_of(node.right, resolve)
    if right is None:
        minor = MINOR_UNITS.get(left or "")
        if minor is not None and _number(node.right) == minor[1]:
            return minor[0]
        return left
    if left is None:
        return None  # per amount of money: no money unit
    return None if left == right and left != MIXED else MIXED


def _number(node: exp.Expr) -> Decimal | None:
    """The value of a number literal (through parentheses and casts), else None."""
    while isinstance(node, exp.Paren | exp.Cast):
        node = node.this
    if isinstance(node, exp.Literal) and not node.is_string:
        try:
            return Decimal(node.this)
        except InvalidOperation:
            return None
    return None


__all__ = [
    "MAJOR_UNITS",
    "MINOR_UNITS",
    "MIXED",
    "Resolve",
    "column_unit",
    "is_measure",
    "resolver",
    "table_units",
    "unit_of",
]
