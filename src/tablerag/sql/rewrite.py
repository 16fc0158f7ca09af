"""Pure AST rewrites applied to SQL the gate accepted (never string concatenation)."""

from __future__ import annotations

from sqlglot import exp


def _literal_int(node: exp.Expr | None) -> int | None:
    if isinstance(node, exp.Literal) and not node.is_string:
        try:
            return int(node.this)
        except ValueError:
            return None
    return None


def enforce_limit(expression: exp.Expr, max_rows: int) -> exp.Expr:
    """Return a copy of ``expression`` whose outer query returns at most ``max_rows`` rows.

    A literal LIMIT within the cap is kept; a missing, larger, negative (SQLite: no limit),
    ``ALL``, percent, FETCH FIRST or computed limit is replaced by ``max_rows``.

    Example:
        >>> import sqlglot
        >>> def lim(sql, n=100):
        ...     return enforce_limit(sqlglot.parse_one(sql), n).sql()
        >>> lim("SELECT a FROM t")
        'SELECT a FROM t LIMIT 100'
        >>> lim("SELECT a FROM t LIMIT 5")
        'SELECT a FROM t LIMIT 5'
        >>> lim("SELECT a FROM t LIMIT 5000 OFFSET 3")
        'SELECT a FROM t LIMIT 100 OFFSET 3'
        >>> lim("SELECT a FROM t UNION SELECT b FROM u LIMIT (SELECT 10 * 10)")
        'SELECT a FROM t UNION SELECT b FROM u LIMIT 100'
        >>> lim("SELECT a FROM t LIMIT -1")
        'SELECT a FROM t LIMIT 100'
    """
    out = expression.copy()
    if not isinstance(out, exp.Query):
        return out
    current = out.args.get("limit")
    if isinstance(current, exp.Limit) and current.args.get("offset") is None:
        value = _literal_int(current.expression)
        if value is not None and 0 <= value <= max_rows:
            return out
    elif isinstance(current, exp.Fetch):
        value = _literal_int(current.args.get("count"))
        options = current.args.get("limit_options")
        plain = options is None or not (
            options.args.get("percent") or options.args.get("with_ties")
        )
        if value is not None and 0 <= value <= max_rows and plain:
            return out
    out.set("limit", exp.Limit(expression=exp.Literal.number(max_rows)))
    return out


def render(expression: exp.Expr, dialect: str) -> str:
    """SQL text for ``expression`` in ``dialect``, comments dropped: what runs is what was checked.

    Example:
        >>> import sqlglot
        >>> render(sqlglot.parse_one("SELECT 1 /* DROP TABLE t */", read="duckdb"), "duckdb")
        'SELECT 1'
    """
    return expression.sql(dialect=dialect, comments=False)
