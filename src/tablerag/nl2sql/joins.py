"""Does a query that found nothing join two tables that no key connects?

Asked in English for the categories with the highest return rate, the local model wrote
``JOIN fact_sales AS fs ON d.category_code = fs.product_code``: a category code never equals a
product code, so the query found nothing, and the answer was "not found". The catalog knows the
keys: fact_sales joins dim_product on product_code, and dim_product joins dim_category on
category_code. :func:`rebridge` routes the join through that bridge, without another model
call.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import sqlglot
from sqlglot import exp
from sqlglot.errors import ParseError, TokenError

from tablerag.linking.fkgraph import JoinEdge
from tablerag.nl2sql.autofix import Fixed, fresh_name


def _parse(
    sql: str, edges: Sequence[JoinEdge], dialect: str
) -> tuple[exp.Expr, dict[str, str]] | None:
    """The tree of ``sql`` and its FROM items (alias → table); None without keys or a parse."""
    if not edges:
        return None
    try:
        tree = sqlglot.parse_one(sql, read=dialect)
    except (ParseError, TokenError):
        return None
    return tree, {t.alias_or_name: t.name for t in tree.find_all(exp.Table)}


def _unkeyed(
    node: exp.Expr, names: dict[str, str], edges: Sequence[JoinEdge]
) -> Iterator[tuple[exp.EQ, exp.Column, exp.Column, tuple[str, dict[str, JoinEdge]]]]:
    """Each ``a.x = b.y`` under ``node`` between two tables no key joins and one table
    bridges, with that bridge."""
    pairs = {frozenset((e.table, e.ref_table)) for e in edges}
    for eq in node.find_all(exp.EQ):
        left, right = eq.this, eq.expression
        if not (isinstance(left, exp.Column) and isinstance(right, exp.Column)):
            continue
        a, b = names.get(left.table), names.get(right.table)
        if a is None or b is None or a == b or frozenset((a, b)) in pairs:
            continue
        bridge = _bridge(a, b, edges)
        if bridge is not None:
            yield eq, left, right, bridge


def _bridge(a: str, b: str, edges: Sequence[JoinEdge]) -> tuple[str, dict[str, JoinEdge]] | None:
    """The one table with a key to both ``a`` and ``b``, and those keys by the table they reach."""

    def touching(t: str) -> dict[str, JoinEdge]:
        return {
            (e.ref_table if e.table == t else e.table): e
            for e in edges
            if t in (e.table, e.ref_table) and e.table != e.ref_table
        }

    near_a, near_b = touching(a), touching(b)
    common = sorted(set(near_a) & set(near_b))
    if len(common) != 1:
        return None
    middle = common[0]
    return middle, {a: near_a[middle], b: near_b[middle]}


def rebridge(sql: str, edges: Sequence[JoinEdge], *, dialect: str) -> Fixed | None:
    """``sql`` with a join between two tables that no key joins routed through the one table
    with a key to each; None when there is no such join.

    The bridge is joined just before the offending JOIN, on its key to the table already in
    FROM; the offending condition becomes the key between the bridge and the joined table.

    Example:
        >>> edges = [JoinEdge("sales", ("product_code",), "product", ("product_code",)),
        ...          JoinEdge("product", ("category_code",), "category", ("category_code",))]
        >>> sql = ("SELECT c.name, COUNT(*) FROM category AS c JOIN sales AS s "
        ...        "ON c.category_code = s.product_code GROUP BY c.name")
        >>> fixed = rebridge(sql, edges, dialect="duckdb")
        >>> fixed.sql
        'SELECT c.name, COUNT(*) FROM category AS c JOIN product AS product ON \
product.category_code = c.category_code JOIN sales AS s ON s.product_code = \
product.product_code GROUP BY c.name'
        >>> fixed.note
        'tablerag joined category and sales through product (no key joins them directly)'
    """
    parsed = _parse(sql, edges, dialect)
    if parsed is None:
        return None
    tree, names = parsed
    for select in tree.find_all(exp.Select):
        joins = list(select.args.get("joins") or [])
        for i, join in enumerate(joins):
            joined, on = join.this, join.args.get("on")
            if not isinstance(joined, exp.Table) or on is None:
                continue
            here = joined.alias_or_name
            for eq, left, right, (middle, ends) in _unkeyed(on, names, edges):
                if here not in (left.table, right.table):
                    continue
                there = right.table if left.table == here else left.table
                a, b = names[here], names[there]
                alias = fresh_name(names, middle)
                table = exp.Table(
                    this=exp.to_identifier(middle),
                    alias=exp.TableAlias(this=exp.to_identifier(alias)),
                )
                joins.insert(
                    i, exp.Join(this=table, on=_condition(ends[b], {b: there, middle: alias}))
                )
                eq.replace(_condition(ends[a], {a: here, middle: alias}))
                select.set("joins", joins)
                note = f"tablerag joined {b} and {a} through {middle} (no key joins them directly)"
                return Fixed(tree.sql(dialect=dialect), note)
    return None


def _condition(edge: JoinEdge, aliases: dict[str, str]) -> exp.Expr:
    """The key ``edge`` as a condition, each table written by its alias in ``aliases``."""
    parts = [
        exp.EQ(
            this=exp.column(c, table=aliases[edge.table]),
            expression=exp.column(r, table=aliases[edge.ref_table]),
        )
        for c, r in zip(edge.columns, edge.ref_columns, strict=True)
    ]
    out: exp.Expr = parts[0]
    for part in parts[1:]:
        out = exp.and_(out, part)
    return out
