"""Does a query that found nothing join two tables that no key connects?

Asked in English for the categories with the highest return rate, the local model wrote
``JOIN fact_sales AS fs ON d.category_code = fs.product_code``: a category code never equals a
product code, so the query found nothing, and the answer was "not found". The catalog knows the
keys: fact_sales joins dim_product on product_code, and dim_product joins dim_category on
category_code. :func:`unjoined` names the bridge, so that one repair round can use it.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlglot
from sqlglot import exp
from sqlglot.errors import ParseError, TokenError

from tablerag.linking.fkgraph import JoinEdge


def unjoined(sql: str, edges: Sequence[JoinEdge], *, dialect: str) -> str | None:
    """Why a join condition of ``sql`` cannot match, with the tables that bridge it; else None.

    A condition ``a.x = b.y`` between two tables that share no key in ``edges``, while one table
    shares a key with each, compares two different kinds of key. Conditions between tables
    that share a key (on any columns), or that no single bridge connects, are not judged; nor is
    SQL that does not parse.

    Example:
        >>> edges = [JoinEdge("sales", ("product_code",), "product", ("product_code",)),
        ...          JoinEdge("product", ("category_code",), "category", ("category_code",))]
        >>> sql = ("SELECT c.name FROM category AS c JOIN sales AS s "
        ...        "ON c.category_code = s.product_code")
        >>> why = unjoined(sql, edges, dialect="duckdb")
        >>> why.split(":")[0]
        'c.category_code = s.product_code compares keys of two tables that no key joins'
        >>> why.split(": ")[1]
        'join them through product (sales.product_code = product.product_code; \
product.category_code = category.category_code).'
        >>> ok = sql.replace("JOIN sales AS s ON c.category_code = s.product_code",
        ...                  "JOIN product AS p ON c.category_code = p.category_code")
        >>> unjoined(ok, edges, dialect="duckdb") is None
        True
    """
    if not edges:
        return None
    try:
        tree = sqlglot.parse_one(sql, read=dialect)
    except (ParseError, TokenError):
        return None
    names = {t.alias_or_name: t.name for t in tree.find_all(exp.Table)}
    pairs = {frozenset((e.table, e.ref_table)) for e in edges}
    for eq in tree.find_all(exp.EQ):
        left, right = eq.this, eq.expression
        if not (isinstance(left, exp.Column) and isinstance(right, exp.Column)):
            continue
        a, b = names.get(left.table), names.get(right.table)
        if a is None or b is None or a == b or frozenset((a, b)) in pairs:
            continue
        bridge = _bridge(a, b, edges)
        if bridge is not None:
            via = "; ".join(e.condition() for e in bridge[1])
            return (
                f"{eq.sql(dialect=dialect)} compares keys of two tables that no key joins: "
                f"join them through {bridge[0]} ({via})."
            )
    return None


def _bridge(a: str, b: str, edges: Sequence[JoinEdge]) -> tuple[str, list[JoinEdge]] | None:
    """The one table with a key to both ``a`` and ``b``, and those two keys."""

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
    return middle, [near_b[middle], near_a[middle]]
