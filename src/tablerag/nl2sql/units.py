"""Amounts in the unit the question asks for: a query over columns stored in 分 answers in 元.

A model writing free SQL sums a column the catalog says is stored in 分 and the answer reads
it as 元, a hundred times off; or it compares that column with "100元" written ``> 100``.
The units come from the catalog (:mod:`tablerag.sql.units`: a column's recorded unit or its
comment), never from one question's wording:

- :func:`in_major_units` (the ``units`` mend, run on every query before it runs): each
  reported amount in a minor unit is divided into the major one (``SUM(pay_amt) / 100.0``),
  and a number the question writes with the major unit ("超过100元") and the SQL compares
  with a minor-unit column is written in the column's unit (``pay_amt > 10000``) — unless the
  question asks in the minor unit itself;
- :func:`unit_problems` (the ``minor_unit`` and ``mixed_units`` answer checks): what is left
  after it, an amount still in a minor unit, or one adding amounts in different units, puts
  the answer in doubt.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping
from decimal import Decimal

import sqlglot
from sqlglot import exp
from sqlglot.errors import SqlglotError

from tablerag.linking.catalog import SchemaCatalog
from tablerag.nl2sql.autofix import Fixed
from tablerag.sql.units import MINOR_UNITS, MIXED, resolver, table_units, unit_of

Units = Mapping[tuple[str, str], str]
"""``(table, column) → money unit``, lower case (:func:`tablerag.sql.units.table_units`)."""

_ASKS_MINOR = {
    "分": re.compile(
        r"以分为单位|单位[为是：:\s]*分|(?:多少|几)分钱|\bin (?:fen|cents)\b|\bcents\b", re.I
    )
}
_MAJOR_FIGURE = re.compile(
    r"(?<![\d.,])(\d+(?:,\d{3})*(?:\.\d+)?)\s*(万|千)?\s*(?:元|块钱|块|yuan\b|rmb\b|cny\b)"
    r"|(?:¥|￥|rmb\s?|cny\s?)(\d+(?:,\d{3})*(?:\.\d+)?)",
    re.I,
)
_SCALE = {"万": Decimal(10_000), "千": Decimal(1_000)}
_COMPARISONS = (exp.GT, exp.GTE, exp.LT, exp.LTE, exp.EQ, exp.NEQ)


def catalog_units(catalog: SchemaCatalog | None) -> Units:
    """The money units of every column of ``catalog`` (worked out once per catalog)."""
    if catalog is None:
        return {}
    found = catalog.memo.get("money_units")
    if not isinstance(found, dict):
        found = catalog.memo["money_units"] = table_units(catalog.tables.values())
    return found


def asks_minor(question: str, unit: str) -> bool:
    """Whether ``question`` asks for amounts in the minor ``unit`` itself.

    Example:
        >>> asks_minor("各品类的毛利是多少（以分为单位）？", "分"), asks_minor("分类的毛利", "分")
        (True, False)
    """
    pattern = _ASKS_MINOR.get(unit)
    return bool(pattern and pattern.search(question))


def major_figures(question: str) -> set[Decimal]:
    """The numbers ``question`` writes with a major money unit ("100元", "¥2,000", "3万元").

    Example:
        >>> sorted(major_figures("实付超过1,000元且低于3万元的订单, over ¥20"))
        [Decimal('20'), Decimal('1000'), Decimal('30000')]
    """
    out = set()
    for m in _MAJOR_FIGURE.finditer(question):
        text = (m.group(1) or m.group(3)).replace(",", "")
        out.add(Decimal(text) * _SCALE.get(m.group(2) or "", Decimal(1)))
    return out


def in_major_units(question: str, sql: str, units: Units, *, dialect: str) -> Fixed | None:
    """``sql`` with its minor-unit amounts in the major unit, or None when none needs it.

    Example:
        >>> units = {("orders", "pay_amt"): "分"}
        >>> in_major_units("2026年各渠道的实付金额是多少元？",
        ...     "SELECT channel, SUM(pay_amt) AS total FROM orders GROUP BY channel",
        ...     units, dialect="duckdb").sql
        'SELECT channel, SUM(pay_amt) / 100.0 AS total FROM orders GROUP BY channel'
        >>> in_major_units("实付超过100元的订单有多少？",
        ...     "SELECT COUNT(*) FROM orders WHERE pay_amt > 100", units, dialect="duckdb").sql
        'SELECT COUNT(*) FROM orders WHERE pay_amt > 10000'
        >>> in_major_units("各渠道的实付金额是多少分？以分为单位",
        ...     "SELECT SUM(pay_amt) FROM orders", units, dialect="duckdb") is None
        True
    """
    if not units:
        return None
    tree = _parse(sql, dialect)
    if tree is None:
        return None
    known = _with_derived(tree, units)
    notes: list[str] = []
    for column, stored, major in _converted_figures(question, tree, known):
        notes.append(f"the question's {major} written in {stored}, as {column} stores it")
    outer = tree if isinstance(tree, exp.Select) else exp.Select()
    resolve = resolver(outer, known)
    for i, projection in enumerate(outer.expressions):
        unit = unit_of(projection, resolve)
        minor = MINOR_UNITS.get(unit or "")
        name = projection.alias_or_name if isinstance(projection, exp.Alias | exp.Column) else ""
        said = name or projection.sql(dialect=dialect)
        if unit == MIXED:  # 元 − 分: each 分 column into 元, if that makes one unit
            converted = _columns_in_major(projection.unalias().copy(), resolve, question)
            if unit_of(converted, resolve) not in MAJOR_OF_MINOR:
                continue
            notes.append(f"the amounts in {', '.join(_minor_columns(projection, resolve))} of "
                         f"{said} into {unit_of(converted, resolve)}")  # fmt: skip
        elif unit is not None and minor is not None and not asks_minor(question, unit):
            major, factor = minor
            converted = exp.Div(
                this=_operand(projection.unalias().copy()),
                expression=exp.Literal.number(f"{factor}.0"),
            )
            notes.append(f"{said} from {unit} into {major}")
        else:
            continue
        outer.expressions[i] = exp.alias_(converted, name) if name else converted
        outer.expressions[i].parent = outer
    if not notes:
        return None
    return Fixed(tree.sql(dialect=dialect), "tablerag converted " + "; ".join(notes))


def unit_problems(question: str, tree: exp.Expr | None, units: Units) -> list[tuple[str, str]]:
    """``(measure, unit)`` of each reported amount of the query ``tree`` still in a minor unit
    the question does not ask for, or in :data:`~tablerag.sql.units.MIXED` units.

    Example:
        >>> units = {("t", "fen"): "分", ("t", "yuan"): "元"}
        >>> unit_problems("总额是多少元", sqlglot.parse_one(
        ...     "SELECT SUM(fen) AS a, SUM(fen) - SUM(yuan) AS b FROM t"), units)
        [('a', '分'), ('b', 'mixed')]
    """
    if not units or not isinstance(tree, exp.Select):
        return []
    resolve = resolver(tree, _with_derived(tree, units))
    out = []
    for projection in tree.expressions:
        unit = unit_of(projection, resolve)
        if unit == MIXED or (unit in MINOR_UNITS and not asks_minor(question, unit or "")):
            out.append((projection.alias_or_name or projection.sql(), str(unit)))
    return out


def _parse(sql: str, dialect: str) -> exp.Expr | None:
    try:
        return sqlglot.parse_one(sql, read=dialect)
    except (SqlglotError, ValueError):
        return None


def _operand(node: exp.Expr) -> exp.Expr:
    return node if isinstance(node, exp.Column | exp.Func | exp.Paren) else exp.paren(node)


MAJOR_OF_MINOR = frozenset(major for major, _ in MINOR_UNITS.values())


def _minor_columns(node: exp.Expr, resolve: Callable[[exp.Column], str | None]) -> list[str]:
    return list(
        dict.fromkeys(c.sql() for c in node.find_all(exp.Column) if resolve(c) in MINOR_UNITS)
    )


def _columns_in_major(
    node: exp.Expr, resolve: Callable[[exp.Column], str | None], question: str
) -> exp.Expr:
    """``node`` with each column in a minor unit divided into its major unit."""

    def convert(child: exp.Expr) -> exp.Expr:
        unit = resolve(child) if isinstance(child, exp.Column) else None
        minor = MINOR_UNITS.get(unit or "")
        if minor is None:
            return child
        return exp.paren(exp.Div(this=child.copy(), expression=exp.Literal.number(f"{minor[1]}.0")))

    return node.transform(convert, copy=False)


def _with_derived(tree: exp.Expr, units: Units) -> dict[tuple[str, str], str]:
    """``units`` and the amounts CTEs and derived tables report, under their names."""
    out = dict(units)
    named = [n for n in tree.find_all(exp.CTE, exp.Subquery) if n.alias]
    for node in reversed(named):  # the innermost first
        select = node.this
        if not isinstance(select, exp.Select):
            continue
        resolve = resolver(select, out)
        for projection in select.expressions:
            unit = unit_of(projection, resolve)
            if unit is not None and projection.alias_or_name:
                out[(node.alias.lower(), projection.alias_or_name.lower())] = unit
    return out


def _converted_figures(
    question: str, tree: exp.Expr, units: Units
) -> Iterator[tuple[str, str, str]]:
    """Rewrite each number the question writes in a major unit that a minor-unit column is
    compared with into the column's unit; yield (column, unit, figure) of each."""
    figures = major_figures(question)
    if not figures:
        return
    for select in list(tree.find_all(exp.Select)):
        resolve = resolver(select, units)
        for node in list(select.find_all(*_COMPARISONS, exp.Between)):
            if node.find_ancestor(exp.Select) is not select:
                continue
            sides = [node.this, *(node.args.get(k) for k in ("low", "high", "expression"))]
            sides = [side for side in sides if isinstance(side, exp.Expr)]
            unit = next((u for s in sides if (u := unit_of(s, resolve)) in MINOR_UNITS), None)
            if unit is None or asks_minor(question, unit):
                continue
            major, factor = MINOR_UNITS[unit]
            for side in sides:
                value = _literal(side)
                if value is not None and value in figures:
                    side.replace(exp.Literal.number(_plain(value * factor)))
                    yield node.sql(), unit, f"{_plain(value)} {major}"


def _literal(node: exp.Expr) -> Decimal | None:
    if isinstance(node, exp.Literal) and not node.is_string:
        return Decimal(node.this)
    return None


def _plain(value: Decimal) -> str:
    text = f"{value.normalize():f}"
    return text


__all__ = [
    "Units",
    "asks_minor",
    "catalog_units",
    "in_major_units",
    "major_figures",
    "unit_problems",
]
