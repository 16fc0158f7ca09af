"""Division that keeps its fraction, whatever the dialect.

On PostgreSQL and SQLite (sqlglot's ``TYPED_DIVISION`` dialects) ``a / b`` of two integers is
an integer: ``7 / 2`` is 3, ``COUNT(x) / COUNT(y)`` of a rate is 0 or 1, ``SUM(fen / 100)``
drops every row's fen. DuckDB and MySQL return the fraction. SQL tablerag writes (a metric's
ratio) and SQL it mends (a model's ``refund_amt / 100``) divide through :func:`fraction`.
"""

from __future__ import annotations

from collections.abc import Callable

from sqlglot import exp
from sqlglot.dialects.dialect import Dialect


def truncates(dialect: str) -> bool:
    """Whether ``dialect``'s ``/`` of two integers drops the fraction.

    Example:
        >>> [truncates(d) for d in ("postgres", "sqlite", "duckdb", "mysql", "no such")]
        [True, True, False, False, False]
    """
    try:
        return bool(Dialect.get_or_raise(dialect).TYPED_DIVISION)
    except ValueError:
        return False


def fraction(node: exp.Div) -> exp.Div:
    """``a / b`` as ``a * 1.0 / NULLIF(b, 0)``: the fraction kept, and NULL instead of an error
    for a zero denominator (a number other than 0 is its own denominator).

    Example:
        >>> import sqlglot
        >>> def kept(sql):
        ...     return fraction(sqlglot.parse_one(sql, read="postgres")).sql("postgres")
        >>> kept("COUNT(a) / COUNT(b)")
        'COUNT(a) * 1.0 / NULLIF(COUNT(b), 0)'
        >>> kept("(x + y) / 100")
        '(x + y) * 1.0 / 100'
    """
    left = exp.Mul(this=_operand(node.this.copy()), expression=exp.Literal.number("1.0"))
    right = node.expression.copy()
    if not _nonzero_number(right):
        right = exp.Nullif(this=right, expression=exp.Literal.number(0))
    # the dialect's reading of the division stays: a PostgreSQL ``/`` is written back as one
    return exp.Div(
        this=left, expression=right, typed=node.args.get("typed"), safe=node.args.get("safe")
    )


def with_fractions(
    tree: exp.Expr, wanted: Callable[[exp.Div], bool]
) -> tuple[exp.Expr, list[exp.Div]]:
    """``tree`` (rewritten in place) with every division that is ``wanted`` as its
    :func:`fraction`, the innermost first (so ``wanted`` reads what the divisions inside it
    became); and those divisions as they were written.

    Example:
        >>> import sqlglot
        >>> tree, done = with_fractions(sqlglot.parse_one("(a / b) / (c / 2)"), lambda d: True)
        >>> [d.sql() for d in done]
        ['c / 2', 'a / b', '(a / b) / (c / 2)']
        >>> tree.sql()
        '(a * 1.0 / NULLIF(b, 0)) * 1.0 / NULLIF((c * 1.0 / 2), 0)'
    """
    nodes = list(tree.find_all(exp.Div, bfs=False))
    written = [node.copy() for node in nodes]
    done = []
    for node, before in reversed(list(zip(nodes, written, strict=True))):
        if wanted(node):
            done.append(before)
            kept = fraction(node)
            if node is tree:
                tree = kept
            else:
                node.replace(kept)
    return tree, done


def _operand(node: exp.Expr) -> exp.Expr:
    plain = isinstance(node, exp.Column | exp.Literal | exp.Func | exp.Paren)
    return node if plain else exp.Paren(this=node)


def _nonzero_number(node: exp.Expr) -> bool:
    if not (isinstance(node, exp.Literal) and not node.is_string):
        return False
    try:
        return float(node.this) != 0
    except ValueError:
        return False


__all__ = ["fraction", "truncates", "with_fractions"]
