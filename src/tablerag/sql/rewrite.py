"""Pure AST rewrites applied to SQL the gate accepted (never string concatenation)."""

from __future__ import annotations

import sqlglot
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


ORDERED, ADDED, SORT_ROWS = "ordered", "added", "sort_rows"
"""What :func:`order_unordered` did: the query had its own ORDER BY; one was added; none could
be (a ``*`` in the select list outside DuckDB), so the caller sorts the fetched rows."""


def order_unordered(expression: exp.Expr, dialect: str) -> tuple[exp.Expr, str]:
    """``expression`` (a copy) sorted by all its output columns when its outer query has no
    ORDER BY, and what was done (:data:`ORDERED`, :data:`ADDED` or :data:`SORT_ROWS`).

    The rows of a query without ORDER BY come back in whatever order the engine reads them,
    which may follow an index on a hidden column (SQLite, MariaDB): the order of the names
    would spell out the order of the phone numbers. Sorting by the output columns (by
    position: ``ORDER BY 1, 2, …``, valid in every dialect and after DISTINCT, GROUP BY and
    set operations) leaves an order that tells nothing the rows do not. The ORDER BY goes
    before the query's own LIMIT, so an unordered ``LIMIT n`` returns the first n rows by the
    visible values, not by a hidden index. A ``*`` in the select list is sorted with DuckDB's
    ``ORDER BY ALL``; elsewhere the count of columns is unknown here and the caller sorts the
    rows it fetched (:data:`SORT_ROWS`). A query whose outer ORDER BY exists is left as is.

    Example:
        >>> import sqlglot
        >>> def o(sql, dialect="sqlite"):
        ...     tree, how = order_unordered(sqlglot.parse_one(sql, read=dialect), dialect)
        ...     return tree.sql(dialect), how
        >>> o("SELECT name, city FROM stores LIMIT 5")
        ('SELECT name, city FROM stores ORDER BY 1, 2 LIMIT 5', 'added')
        >>> o("SELECT city, count(*) AS n FROM stores GROUP BY city")
        ('SELECT city, COUNT(*) AS n FROM stores GROUP BY city ORDER BY 1, 2', 'added')
        >>> o("SELECT a FROM t UNION SELECT b FROM u LIMIT 10")
        ('SELECT a FROM t UNION SELECT b FROM u ORDER BY 1 LIMIT 10', 'added')
        >>> o("(SELECT a FROM t LIMIT 3)")
        ('(SELECT a FROM t ORDER BY 1 LIMIT 3)', 'added')
        >>> o("SELECT a FROM t ORDER BY a DESC")
        ('SELECT a FROM t ORDER BY a DESC', 'ordered')
        >>> o("SELECT * FROM t", "duckdb")
        ('SELECT * FROM t ORDER BY ALL', 'added')
        >>> o("SELECT t.* FROM t")
        ('SELECT t.* FROM t', 'sort_rows')
    """
    out = expression.copy()
    query = out
    while isinstance(query, exp.Subquery) and not query.alias and query.args.get("order") is None:
        if not isinstance(query.this, exp.Query):
            break
        query = query.this
    if not isinstance(query, exp.Select | exp.SetOperation):
        return out, ORDERED  # not a query with rows to order (e.g. VALUES): nothing to do
    if query.args.get("order") is not None:
        return out, ORDERED
    first: exp.Expr = query
    while isinstance(first, exp.SetOperation | exp.Subquery):
        first = first.this if isinstance(first, exp.Subquery) else first.left
    if not isinstance(first, exp.Select):
        return out, SORT_ROWS
    distinct = first.args.get("distinct")
    if isinstance(distinct, exp.Distinct) and distinct.args.get("on") is not None:
        return out, SORT_ROWS  # DISTINCT ON needs its own ORDER BY first
    columns = first.expressions
    if not columns:
        return out, SORT_ROWS
    if any(isinstance(c, exp.Star) or isinstance(c.this, exp.Star) for c in columns):
        if dialect != "duckdb":
            return out, SORT_ROWS
        keys = "ALL"
    else:
        keys = ", ".join(str(i) for i in range(1, len(columns) + 1))
    # parsed in the dialect, so that NULLs sort where the dialect puts them without a NULLS
    # FIRST/LAST the dialect may not know
    order = sqlglot.parse_one(f"SELECT 1 ORDER BY {keys}", read=dialect).args["order"]
    query.set("order", order)
    return out, ADDED


def sort_key(row: tuple[object, ...]) -> tuple[tuple[int, object], ...]:
    """A total order over fetched rows of any types: numbers, then text, then anything else
    by its repr, NULL last (the client-side sort of :data:`SORT_ROWS`).

    Example:
        >>> sorted([("b", 2), (None, 1), ("a", 10), ("a", 9)], key=sort_key)
        [('a', 9), ('a', 10), ('b', 2), (None, 1)]
    """
    out: list[tuple[int, object]] = []
    for value in row:
        if value is None:
            out.append((3, ""))
        elif isinstance(value, bool):
            out.append((0, int(value)))
        elif isinstance(value, int | float):
            out.append((0, value))
        elif isinstance(value, str):
            out.append((1, value))
        else:
            out.append((2, repr(value)))
    return tuple(out)
