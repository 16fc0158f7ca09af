"""What a query computed, read from its SQL: the measures, the filters, the period, the grouping.

A data answer states its reading before its figures ("计算：COUNT(DISTINCT order_id)；条件：status
= 'PAID'；期间：order_date ≥ 2026-11-01 且 < 2026-12-01"), so a reader sees which rows a number
covers without reading the SQL. The reading comes from the executed SQL, never from the model's
words, and stays data (:class:`~tablerag.answer.envelope.Reading`) until the edge renders it
with :func:`reading_line` in the reader's language.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping

import sqlglot
from sqlglot import exp
from sqlglot.errors import SqlglotError

from tablerag.answer.envelope import Language, Reading
from tablerag.lang.messages import message
from tablerag.sql.units import MAJOR_UNITS, MINOR_UNITS, MIXED, unit_of

_DATE_TEXT = re.compile(r"^\d{4}([-/.]?\d{1,2}([-/.]?\d{1,2})?)?([ T].*)?$")
_TIME_WORDS = re.compile(
    r"(date|time|day|month|year|period|日期|时间|月份|年份|年月|月|年|日)", re.I
)
_TIME_FUNCS = (exp.Year, exp.Month, exp.Day, exp.Extract, exp.DateTrunc, exp.TimeToStr)
_MOST = 4
"""Most filters (and measures) a reading names; the rest are counted."""


def read_query(
    sql: str, dialect: str, *, units: Mapping[str, str] | None = None, row_cap: int | None = None
) -> Reading | None:
    """The reading of ``sql``: what it measures, over which rows and period, grouped by what.

    Args:
        sql: the query as executed.
        dialect: its sqlglot dialect.
        units: column name (lower case) → unit (``元``, ``分``, ``%``), from the catalog.
        row_cap: the gate's row cap; a LIMIT above it is the gate's, not the query's.

    Returns:
        The reading, or None when the SQL does not parse or is not one SELECT.

    Example:
        >>> r = read_query(
        ...     "SELECT region, SUM(o.amount) AS total FROM data.orders o "
        ...     "WHERE o.status = 'PAID' AND o.paid_on >= '2026-11-01' "
        ...     "AND o.paid_on < '2026-12-01' GROUP BY region LIMIT 1001",
        ...     "duckdb", units={"amount": "元"}, row_cap=1000)
        >>> r.measures, r.filters, r.period, r.groups, r.units, r.limit
        (['total = SUM(amount)'], ["status = 'PAID'"], ["paid_on >= '2026-11-01'", \
"paid_on < '2026-12-01'"], ['region'], ['total: 元'], None)
        >>> read_query("SELECT SUM(pay) / 100.0 AS paid FROM orders", "duckdb",
        ...            units={"pay": "分"}).units
        ['paid: 元']
    """
    try:
        tree = sqlglot.parse_one(sql, read=dialect)
    except (SqlglotError, ValueError):
        return None
    if not isinstance(tree, exp.Query) or tree.find(exp.SetOperation) is not None:
        return None  # UNION / EXCEPT: one side's filters would misread the whole
    outer = tree if isinstance(tree, exp.Select) else tree.find(exp.Select)
    if outer is None:
        return None
    filters: list[str] = []
    period: list[str] = []
    for condition in _conditions(tree):
        text = _text(condition, dialect)
        (period if _is_period(condition) else filters).append(text)
    measures, measured = _measures(tree, outer, dialect)
    found_units = [
        f"{name}: {unit}" for name, unit in _units(measured, units or {}) if unit is not None
    ]
    limit = _limit(outer)
    order = outer.args.get("order")
    return Reading(
        measures=measures,
        filters=list(dict.fromkeys(filters)),
        period=list(dict.fromkeys(period)),
        groups=[_text(g, dialect) for g in _groups(tree, outer)],
        units=list(dict.fromkeys(found_units)),
        order=[_text(o, dialect) for o in order.expressions] if order is not None else [],
        limit=limit if limit is not None and (row_cap is None or limit <= row_cap) else None,
    )


def reading_line(reading: Reading, language: Language) -> str:
    """``reading`` in words, one line: measures; filters; period; grouping; unit; limit.

    Example:
        >>> r = Reading(measures=["n = COUNT(*)"], filters=["status = 'PAID'"],
        ...             period=["paid_on >= '2026-11-01'"], groups=["region"])
        >>> reading_line(r, "en")
        "Computed: n = COUNT(*); where status = 'PAID'; period paid_on >= '2026-11-01'; \
by region."
        >>> reading_line(r, "zh")
        "计算：n = COUNT(*)；条件：status = 'PAID'；期间：paid_on >= '2026-11-01'；按 region 分组。"
    """
    said = {
        "measures": message("reading.measures", language, items="{}"),
        "filters": message("reading.filters", language, items="{}"),
        "period": message("reading.period", language, items="{}"),
        "groups": message("reading.groups", language, items="{}"),
        "units": message("reading.units", language, items="{}"),
        "order": message("reading.order", language, items="{}"),
    }
    parts = [
        template.format(_listed(getattr(reading, field), language))
        for field, template in said.items()
        if getattr(reading, field)
    ]
    if reading.limit is not None:
        parts.append(message("reading.limit", language, n=reading.limit))
    if not parts:
        return ""
    sep, end = ("；", "。") if language == "zh" else ("; ", ".")
    return sep.join(parts) + end


def _listed(values: list[str], language: Language) -> str:
    shown = values[:_MOST]
    more = len(values) - len(shown)
    joined = ("，" if language == "zh" else ", ").join(shown)
    if more:
        joined += message("reading.more", language, n=more)
    return joined


def _selects(tree: exp.Expr) -> Iterator[exp.Select]:
    """The SELECTs whose rows feed the result: the outer one, CTEs and derived tables, not the
    subqueries of a condition (the condition's own text shows those)."""
    for select in tree.find_all(exp.Select):
        if select.find_ancestor(exp.Where, exp.Having, exp.Join) is None:
            yield select


def _conditions(tree: exp.Expr) -> Iterator[exp.Expr]:
    """The conjuncts of every WHERE and HAVING in the query, join conditions left out."""
    for select in _selects(tree):
        for clause in (select.args.get("where"), select.args.get("having")):
            if clause is None:
                continue
            for part in (
                clause.this.flatten() if isinstance(clause.this, exp.And) else [clause.this]
            ):
                if isinstance(part, exp.EQ) and all(
                    isinstance(side, exp.Column) for side in (part.left, part.right)
                ):
                    continue  # a join written in WHERE
                yield part


def _is_period(condition: exp.Expr) -> bool:
    """A condition on time: a date-like literal, a time function, or a date-named column."""
    if any(isinstance(node, _TIME_FUNCS) for node in condition.walk()):
        return True
    literals = [n for n in condition.find_all(exp.Literal) if n.is_string]
    if literals and all(_DATE_TEXT.match(n.this) for n in literals):
        return True
    columns = list(condition.find_all(exp.Column))
    return bool(columns) and all(_TIME_WORDS.search(c.name) for c in columns)


def _measures(
    tree: exp.Expr, outer: exp.Select, dialect: str
) -> tuple[list[str], list[tuple[str, exp.Expr]]]:
    """The aggregates the query reports: the outer select's, else its subqueries' (a CTE)."""
    for select in (outer, *(s for s in _selects(tree) if s is not outer)):
        found = [p for p in select.expressions if p.find(exp.AggFunc) is not None]
        if found:
            named = [(p.alias_or_name or _text(p, dialect), p) for p in found]
            shown = [
                f"{name} = {_text(p.unalias(), dialect)}" if p.alias else _text(p, dialect)
                for name, p in named
            ]
            return shown, named
    return [], []


def _units(
    measured: list[tuple[str, exp.Expr]], units: Mapping[str, str]
) -> Iterator[tuple[str, str | None]]:
    """Each measure's unit: the one unit of the columns it sums or averages, if they share it."""
    for name, projection in measured:
        aggs = list(projection.find_all(exp.AggFunc))
        if not aggs or any(isinstance(a, exp.Count) for a in aggs):
            continue
        found = {units.get(c.name.lower()) for a in aggs for c in a.find_all(exp.Column)}
        one = found.pop() if len(found) == 1 else None
        money = unit_of(projection, lambda c: _money(units.get(c.name.lower())))
        if money is None or (one is not None and _money(one) == money):
            yield name, one  # as the catalog writes it ("元 (CNY)")
        else:  # SUM(fen) / 100.0 is in 元; 元 − 分 in none
            yield name, None if money == MIXED else money


def _money(unit: str | None) -> str | None:
    """The money unit a catalog's unit names ("元 (CNY)" → 元, "分 (fen)" → 分), else None."""
    word = (unit or "").split()[0].lower() if (unit or "").split() else ""
    return word if word in MINOR_UNITS else MAJOR_UNITS.get(word)


def _groups(tree: exp.Expr, outer: exp.Select) -> list[exp.Expr]:
    for select in (outer, *(s for s in _selects(tree) if s is not outer)):
        group = select.args.get("group")
        if group is not None:
            return [_resolved(e, select) for e in group.expressions]
    return []


def _resolved(node: exp.Expr, select: exp.Select) -> exp.Expr:
    """``GROUP BY 1`` names the first projection."""
    if isinstance(node, exp.Literal) and not node.is_string and node.this.isdigit():
        n = int(node.this)
        if 1 <= n <= len(select.expressions):
            named: exp.Expr = select.expressions[n - 1]
            return named.unalias()
    return node


def _limit(outer: exp.Select) -> int | None:
    limit = outer.args.get("limit")
    value = limit.expression if isinstance(limit, exp.Limit) else None
    if isinstance(value, exp.Literal) and not value.is_string and value.this.isdigit():
        return int(value.this)
    return None


def _text(node: exp.Expr, dialect: str) -> str:
    """``node`` as SQL without table qualifiers (``o.amount`` → ``amount``), and a CASE over
    one column whose every result is read from it (a mixed-format column read in one format)
    as that column; a CASE that tests the column and yields constants (``CASE WHEN status =
    'cancelled' THEN 1 ELSE 0 END``, a share) is shown whole.

    Example:
        >>> _text(exp.maybe_parse("AVG(CASE WHEN s = 'x' THEN 1.0 ELSE 0 END)"), "duckdb")
        "AVG(CASE WHEN s = 'x' THEN 1.0 ELSE 0 END)"
        >>> _text(exp.maybe_parse("SUM(CASE WHEN a LIKE '%万' THEN a * 1 ELSE a END)"), "duckdb")
        'SUM(a)'
    """
    bare = node.copy()
    for case in list(bare.find_all(exp.Case)):
        columns = {c.name for c in case.find_all(exp.Column)}
        results = [i.args.get("true") for i in case.args.get("ifs") or ()]
        results.append(case.args.get("default"))
        derived = all(r is None or r.find(exp.Column) is not None for r in results)
        if len(columns) == 1 and derived and case.find(exp.AggFunc) is None:
            case.replace(exp.column(columns.pop()))
    for column in bare.find_all(exp.Column):
        column.set("table", None)
        column.set("db", None)
        column.set("catalog", None)
    return bare.sql(dialect=dialect)
