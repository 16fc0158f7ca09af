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
        >>> lim("SELECT a FROM (SELECT a FROM t LIMIT 5) AS s")
        'SELECT a FROM (SELECT a FROM t LIMIT 5) AS s LIMIT 100'
        >>> lim("(SELECT a FROM t ORDER BY a LIMIT 5000)")
        '(SELECT a FROM t ORDER BY a LIMIT 100)'
    """
    out = expression.copy()
    if not isinstance(out, exp.Query):
        return out
    return _clamp(out, max_rows)


def _clamp(query: exp.Query, max_rows: int) -> exp.Query:
    """Clamp the LIMIT of the outermost query in place; inner LIMITs stay as written.

    A statement in parentheses whose query ends in a LIMIT (``(SELECT … LIMIT 5)``) is clamped
    inside the parentheses: PostgreSQL refuses a second LIMIT after them ("multiple LIMIT
    clauses not allowed").
    """
    if _bare_parens(query) and isinstance(query.this, exp.Query) and _ends_in_limit(query.this):
        query.set("this", _clamp(query.this, max_rows))
        return query
    current = query.args.get("limit")
    if isinstance(current, exp.Limit) and current.args.get("offset") is None:
        value = _literal_int(current.expression)
        if value is not None and 0 <= value <= max_rows:
            return query
    elif isinstance(current, exp.Fetch):
        value = _literal_int(current.args.get("count"))
        options = current.args.get("limit_options")
        plain = options is None or not (
            options.args.get("percent") or options.args.get("with_ties")
        )
        if value is not None and 0 <= value <= max_rows and plain:
            return query
    query.set("limit", exp.Limit(expression=exp.Literal.number(max_rows)))
    return query


def _bare_parens(query: exp.Query) -> bool:
    """``query`` is a query in parentheses with no LIMIT or alias of its own."""
    return isinstance(query, exp.Subquery) and not query.alias and query.args.get("limit") is None


def _ends_in_limit(query: exp.Query) -> bool:
    while _bare_parens(query) and isinstance(query.this, exp.Query):
        query = query.this
    return query.args.get("limit") is not None


def sqlite_limit_all(expression: exp.Expr) -> exp.Expr:
    """``expression`` with every SQLite ``LIMIT ALL`` written ``LIMIT -1`` (no limit), in place.

    SQLite has no ``LIMIT ALL`` (it would read ``ALL`` as a column); ``-1`` is its own way to
    say "no limit", which :func:`enforce_limit` then clamps where it is the outer LIMIT.

    Example:
        >>> import sqlglot
        >>> sql = "SELECT a FROM (SELECT a FROM t LIMIT ALL) AS s"
        >>> sqlite_limit_all(sqlglot.parse_one(sql, read="sqlite")).sql("sqlite")
        'SELECT a FROM (SELECT a FROM t LIMIT -1) AS s'
    """
    for limit in list(expression.find_all(exp.Limit)):
        value = limit.expression
        if (
            isinstance(value, exp.Column)
            and not value.table
            and isinstance(value.this, exp.Identifier)
            and not value.this.quoted
            and value.name.upper() == "ALL"
        ):
            value.replace(exp.Literal.number(-1))
    return expression


def render(expression: exp.Expr, dialect: str) -> str:
    """SQL text for ``expression`` in ``dialect``, comments dropped: what runs is what was checked.

    Example:
        >>> import sqlglot
        >>> render(sqlglot.parse_one("SELECT 1 /* DROP TABLE t */", read="duckdb"), "duckdb")
        'SELECT 1'
    """
    return expression.sql(dialect=dialect, comments=False)
