"""What a rate's denominator counts, as its definition says, and queries that count less.

指标口径.md defines 退货率 as "发生退款的订单数 ÷ 已支付订单数；已支付订单指 status 为 PAID 或
REFUND 的订单" (refunded orders were paid too). The 1.5B model divided by the orders with
``status = 'PAID'`` only: every rate too large, no column or value of the definition missing
(issue 23, the README's flagship question). Two pure functions find that gap:

- :func:`denominator_set`: the column and the values a definition's denominator admits, read
  from a clause that says 分母 / denominator, or from one that defines the words after ÷;
- :func:`narrowed`: where a query's denominators admit other rows: a comparison that admits
  fewer of the values, or an aggregate over every row (the column compared nowhere): the
  ``followed`` answer check doubts such a query. (The mend that rewrote it, ``denominator``,
  was removed: it changed no answer on six sets, see docs/stages.md.)

What the denominator's own expression compares is read first (``CASE WHEN status = 'PAID'``,
through a column alias); a denominator that compares nothing is held to the query's
``WHERE``, which a query narrowing numerator and denominator alike has (a mistake the checks
that see its rows catch: all zero).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass

from sqlglot import exp


@dataclass(frozen=True)
class Denominator:
    """The rows a rate's definition divides by: ``column`` is one of ``values``."""

    column: str
    """The column (lower-case)."""
    values: tuple[str, ...]
    """The values, as the definition writes them."""

    def said(self) -> str:
        """``status IN ('PAID', 'REFUND')``."""
        return f"{self.column} IN ({', '.join(repr(v) for v in self.values)})"


_VALUE = r"'?[A-Za-z_][A-Za-z0-9_-]*'?"
_JOIN = r"\s*(?:或者|或|、|,|，|/|\bor\b|\band\b|及|和)\s*"
_SET = re.compile(
    rf"([A-Za-z_][A-Za-z0-9_.]*)\s*(?:为|是|取|=|\bin\b|\bis\b|：|:)\s*[(（]?\s*"
    rf"((?:{_VALUE}{_JOIN})+{_VALUE})",
    re.I,
)
_CLAUSES = re.compile(r"[。；;\n]+")
_DIVIDES = re.compile(r"÷|(?<=\s)/(?=\s)|divided by", re.I)
_NAMES_DENOMINATOR = re.compile(r"分母|denominator", re.I)
_SUBJECT_END = re.compile(r"\s*(?:指|是|为|即|means|is|are|:|：)\s*$", re.I)


def denominator_set(
    text: str, columns: Iterable[str], stored: Mapping[str, Iterable[str]] | None = None
) -> Denominator | None:
    """The set of values of one column the denominator of the definition ``text`` admits.

    A clause gives it when it says 分母 (denominator) or when its subject is what the formula
    divides by, and names a column of ``columns`` with two or more values: written as a list
    ("status 为 PAID 或 REFUND", "status in ('PAID', 'REFUND')"), or — with ``stored``, the
    values the data holds per column (lower-case names) — any two or more of the column's
    stored values the clause mentions, however they are joined.

    Example:
        >>> cols = {"status", "order_id"}
        >>> denominator_set("发生退款的订单数 ÷ 已支付订单数；已支付订单指 status 为 PAID 或 "
        ...                 "REFUND 的订单", cols)
        Denominator(column='status', values=('PAID', 'REFUND'))
        >>> denominator_set("- 分母：status 为 PAID 或 REFUND 的订单，按 order_id 去重", cols)
        Denominator(column='status', values=('PAID', 'REFUND'))
        >>> denominator_set("Denominator: orders with status in ('PAID', 'REFUND')", cols)
        Denominator(column='status', values=('PAID', 'REFUND'))
        >>> denominator_set("销售额：status 为 PAID 或 REFUND", cols) is None  # no division
        True
        >>> denominator_set("分母：status为PAID或REFUND的订单", cols)  # no spaces
        Denominator(column='status', values=('PAID', 'REFUND'))
        >>> held = {"status": ["PAID", "REFUND", "CANCELLED"]}
        >>> denominator_set("Denominator: the orders whose status was PAID and later REFUND", cols)
        >>> denominator_set("Denominator: the orders whose status was PAID and later REFUND",
        ...                 cols, held)
        Denominator(column='status', values=('PAID', 'REFUND'))
        >>> denominator_set("Return rate = refunded ÷ paid orders. Paid orders: status "
        ...                 "PAID, plus REFUND (refunded after paying)", cols, held)
        Denominator(column='status', values=('PAID', 'REFUND'))
    """
    known = {c.lower() for c in columns}
    divides_by = ""
    for clause in _CLAUSES.split(text):
        parts = _DIVIDES.split(clause, maxsplit=1)
        if len(parts) == 2 and not divides_by:
            divides_by = parts[1]
        for found in _SET.finditer(clause):
            column = found.group(1).rsplit(".", 1)[-1].lower()
            values = tuple(
                dict.fromkeys(v.strip("'") for v in re.split(_JOIN, found.group(2), flags=re.I))
            )
            if column not in known or len(values) < 2:
                continue
            subject = _SUBJECT_END.sub("", clause[: found.start()]).strip(" -*·•（(")
            if _NAMES_DENOMINATOR.search(clause) or (
                len(subject) >= 2 and divides_by and subject in divides_by
            ):
                return Denominator(column, values)
        if stored and (found_stored := _stored_set(clause, known, stored, divides_by)):
            return found_stored
    return None


def _stored_set(
    clause: str, known: set[str], stored: Mapping[str, Iterable[str]], divides_by: str
) -> Denominator | None:
    """Two or more stored values of one column a denominator clause mentions (the column named
    in it; the clause says 分母 / denominator, or its subject — the words before the column —
    is what the formula divides by)."""
    lowered = clause.lower()
    for column, held in stored.items():
        found = re.search(rf"(?<![A-Za-z0-9_]){re.escape(column)}(?![A-Za-z0-9_])", lowered)
        if column not in known or found is None:
            continue
        before = re.split(r"[.!?]\s+", clause[: found.start()])[-1]  # this sentence's words
        subject = _SUBJECT_END.sub("", before.rstrip()).strip(" -*·•（(")
        if not (
            _NAMES_DENOMINATOR.search(clause)
            or (len(subject) >= 2 and divides_by and subject.lower() in divides_by.lower())
        ):
            continue
        rest = clause[found.end() :]
        at = {
            v: m.start()
            for v in dict.fromkeys(str(x) for x in held)
            if v and (m := re.search(rf"(?<![A-Za-z0-9_]){re.escape(v)}(?![A-Za-z0-9_])", rest))
        }
        if len(at) >= 2:
            return Denominator(column, tuple(sorted(at, key=at.__getitem__)))
    return None


def narrowed(tree: exp.Expr, wanted: Denominator) -> list[exp.Expr]:
    """Where the query's denominators admit other rows than ``wanted`` says: comparisons of
    its column that admit some of its values but not all, and aggregates that compare the
    column nowhere (neither in the denominator nor in the query's ``WHERE``: every row).

    Example:
        >>> import sqlglot
        >>> d = Denominator("status", ("PAID", "REFUND"))
        >>> def said(sql):
        ...     return [n.sql() for n in narrowed(sqlglot.parse_one(sql, read="duckdb"), d)]
        >>> said("SELECT COUNT(DISTINCT CASE WHEN status = 'REFUND' THEN order_id END) AS r, "
        ...      "COUNT(DISTINCT CASE WHEN status = 'PAID' THEN order_id END) AS p, "
        ...      "r * 100.0 / p AS rate FROM s")
        ["status = 'PAID'"]
        >>> said("SELECT COUNT(CASE WHEN status = 'REFUND' THEN 1 END) / COUNT(*) FROM s")
        ['COUNT(*)']
        >>> said("SELECT COUNT(CASE WHEN status = 'REFUND' THEN 1 END) / COUNT(*) FROM s "
        ...      "WHERE status <> 'UNPAID'"), said("SELECT SUM(x) / 100 FROM s")
        ([], [])
        >>> said("SELECT COUNT(CASE WHEN status IN ('PAID', 'REFUND') THEN 1 END) / 2 FROM s")
        []
    """
    allowed = {v.lower() for v in wanted.values}
    select = tree if isinstance(tree, exp.Select) else tree.find(exp.Select)
    where = select.args.get("where") if select is not None else None
    filtered = where is not None and any(
        c.name.lower() == wanted.column for c in where.find_all(exp.Column)
    )
    out: list[exp.Expr] = []
    for denominator in _denominators(select):
        admitted = [(n, _admits(n, wanted.column)) for n in denominator.find_all(exp.EQ, exp.In)]
        compared = [(n, values) for n, values in admitted if values]
        out += [n for n, values in compared if values < allowed]
        if not compared and not filtered:
            out += [a for a in denominator.find_all(exp.Count, exp.Sum) if a not in out]
    return out


def _denominators(select: exp.Select | None) -> Iterator[exp.Expr]:
    """The right side of every division the query selects, an alias read as what it names."""
    if select is None:
        return
    aliases = {
        p.alias.lower(): p.this for p in select.expressions if isinstance(p, exp.Alias) and p.alias
    }
    for division in select.find_all(exp.Div):
        right = division.expression
        named = right.unnest() if isinstance(right, exp.Paren) else right
        if isinstance(named, exp.Column) and not named.table:
            right = aliases.get(named.name.lower(), right)
        yield right


def _admits(node: exp.Expr, column: str) -> set[str]:
    """The values ``column = 'x'`` or ``column IN ('x', 'y')`` admits (empty: another kind)."""
    if isinstance(node, exp.EQ):
        sides = (node.this, node.expression)
        named = [s for s in sides if isinstance(s, exp.Column) and s.name.lower() == column]
        values = [s for s in sides if isinstance(s, exp.Literal) and s.is_string]
        return {values[0].name.lower()} if named and values else set()
    if isinstance(node, exp.In):
        this = node.this
        literals = node.expressions
        if (
            isinstance(this, exp.Column)
            and this.name.lower() == column
            and literals
            and all(isinstance(v, exp.Literal) and v.is_string for v in literals)
        ):
            return {v.name.lower() for v in literals}
    return set()
