"""Repairs the gate can make itself, without another model call.

A small model often qualifies a column with the wrong alias (``T1.Name`` where ``Name`` is a
column of ``T2``) and repeats the same query when told. When exactly one FROM item of that query
has the column, there is only one way to read it; :func:`requalify` moves the column there. The
result goes through the gate again like any other SQL.

The schema shows long sample values cut to 30 characters with a trailing "…", and the model
copies them: ``WHERE item = 'Total Property, Plant and Equ…'`` finds nothing. :func:`unclip`
reads such a literal as the prefix it is (``SUBSTRING(item, 1, 26) = 'Total Property, Plant
and Equ'``; in a LIKE pattern the "…" becomes ``%``).

Small models write MySQL date functions whatever the dialect (``DATE_SUB(CURRENT_DATE,
INTERVAL 1 MONTH)``) and write them again when told the function is not allowed;
:func:`from_mysql` translates just those calls. :func:`pin_today` reads ``CURRENT_DATE`` as the
workspace's ``today`` setting, the date the prompt told the model relative dates refer to.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import sqlglot
from sqlglot import exp
from sqlglot.errors import ParseError, TokenError

from tablerag.errors import Issue
from tablerag.sql.validate import JoinHint, span


@dataclass(frozen=True)
class Fixed:
    """SQL the gate rewrote, and what it changed (for the answer's attempt list)."""

    sql: str
    note: str


def requalify(sql: str, issues: Sequence[Issue], *, dialect: str) -> Fixed | None:
    """``sql`` with every column under a wrong alias moved to the one FROM item that has it.

    None unless every issue is such a column (any other problem needs the model), and None
    when a move would compare a column with itself: ``JOIN dim_category AS p ON
    s.product_code = p.product_code`` (the category table has no product code; the product
    table between them is missing) is not mended into ``ON s.product_code = s.product_code``,
    a cross join that gave every category the same count.

    Example:
        >>> from tablerag.sql.exposed import ExposedCatalog
        >>> from tablerag.sql.validate import validate
        >>> cat = ExposedCatalog.from_mapping({"people": ["id", "name"], "player": ["id", "pay"]})
        >>> sql = "SELECT T1.name FROM player AS T1 JOIN people AS T2 ON T1.id = T2.id"
        >>> fixed = requalify(sql, validate(sql, dialect="sqlite", catalog=cat), dialect="sqlite")
        >>> fixed.sql
        'SELECT T2.name FROM player AS T1 JOIN people AS T2 ON T1.id = T2.id'
        >>> fixed.note
        'tablerag wrote T2.name for T1.name (only T2 has that column)'
    """
    moves: dict[tuple[int, int], str] = {}
    for issue in issues:
        alias = issue.detail.get("requalify")
        if issue.code != "unknown_column" or not alias or issue.span is None:
            return None
        moves[issue.span] = str(alias)
    if not moves:
        return None
    tree = parse_or_none(sql, dialect)
    if tree is None:
        return None
    notes: list[str] = []
    for column in list(tree.find_all(exp.Column)):
        where = span(column)
        alias = moves.pop(where, None) if where is not None else None
        if alias is None:
            continue
        before = column.sql(dialect=dialect)
        column.set("table", exp.to_identifier(alias))
        notes.append(f"{column.sql(dialect=dialect)} for {before} (only {alias} has that column)")
    if moves or any(c.this == c.expression for c in tree.find_all(exp.EQ)):
        return None
    return Fixed(tree.sql(dialect=dialect), "tablerag wrote " + "; ".join(notes))


def respell(sql: str, issues: Sequence[Issue], *, dialect: str) -> Fixed | None:
    """``sql`` with each unknown column written as the one column of its tables that differs
    from it only in case, underscores or spaces (``pet_type`` for ``PetType``).

    Told "Unknown column 'pet_type'. Did you mean pettype?", the local model wrote
    ``pet_type`` three repairs running (two Spider questions). None unless every issue is such
    a column.

    Example:
        >>> from tablerag.sql.exposed import ExposedCatalog
        >>> from tablerag.sql.validate import validate
        >>> cat = ExposedCatalog.from_mapping({"pets": ["PetID", "PetType", "weight"]})
        >>> sql = "SELECT pet_type, MAX(weight) FROM pets GROUP BY pet_type"
        >>> fixed = respell(sql, validate(sql, dialect="sqlite", catalog=cat), dialect="sqlite")
        >>> print(fixed.sql, fixed.note, sep=" | ")
        SELECT pettype, MAX(weight) FROM pets GROUP BY pettype | tablerag wrote pettype for pet_type
        >>> sql = "SELECT pet_kind FROM pets"
        >>> respell(sql, validate(sql, dialect="sqlite", catalog=cat), dialect="sqlite") is None
        True
    """
    renames: dict[tuple[int, int], str] = {}
    for issue in issues:
        written, hints = issue.detail.get("column"), issue.detail.get("suggestion")
        if issue.code != "unknown_column" or issue.span is None or not isinstance(hints, list):
            return None
        same = [h for h in hints if isinstance(h, str) and _bare(h) == _bare(str(written))]
        if len(same) != 1:
            return None
        renames[issue.span] = same[0]
    tree = parse_or_none(sql, dialect) if renames else None
    if tree is None:
        return None
    notes: dict[str, str] = {}
    for column in list(tree.find_all(exp.Column)):
        where = span(column)
        name = renames.pop(where, None) if where is not None else None
        if name is not None:
            notes[column.name] = name
            column.set("this", exp.to_identifier(name))
    if renames:
        return None
    said = "; ".join(f"{new} for {old}" for old, new in notes.items())
    return Fixed(tree.sql(dialect=dialect), "tablerag wrote " + said)


def _bare(name: str) -> str:
    """A column name without case, underscores, spaces or hyphens."""
    return "".join(ch for ch in name.lower() if ch not in "_ -")


def add_join(sql: str, issues: Sequence[Issue], *, dialect: str) -> Fixed | None:
    """``sql`` with the join the gate named for each column of a table one key away.

    Told "add JOIN dim_category ON dim_category.category_code = p.category_code", the local
    model replaced its product table by the category table (keeping the alias ``p``) three
    repairs running. When the gate found exactly one FROM item sharing one key-like column
    with the one table that has the column, there is one way to read it: join that table
    under a fresh alias and read the column there. None unless every issue is such a column.

    Example:
        >>> from tablerag.sql.exposed import ExposedCatalog
        >>> from tablerag.sql.validate import validate
        >>> cat = ExposedCatalog.from_mapping({"product": ["product_id", "category_code"],
        ...                                    "category": ["category_code", "name"]})
        >>> sql = "SELECT p.name, count(*) FROM product AS p GROUP BY p.name"
        >>> fixed = add_join(sql, validate(sql, dialect="duckdb", catalog=cat), dialect="duckdb")
        >>> fixed.sql
        'SELECT category.name, COUNT(*) FROM product AS p JOIN category AS category ON \
category.category_code = p.category_code GROUP BY category.name'
        >>> fixed.note
        'tablerag added JOIN category AS category ON category.category_code = p.category_code \
for name'
    """
    hints: dict[tuple[int, int], JoinHint] = {}
    for issue in issues:
        hint = issue.detail.get("join")
        if issue.code != "unknown_column" or not isinstance(hint, JoinHint) or issue.span is None:
            return None
        hints[issue.span] = hint
    tree = parse_or_none(sql, dialect) if hints else None
    if tree is None:
        return None
    notes: list[str] = []
    added: dict[tuple[int, JoinHint], str] = {}
    for column in list(tree.find_all(exp.Column)):
        where = span(column)
        hint = hints.pop(where, None) if where is not None else None
        select = column.find_ancestor(exp.Select) if hint is not None else None
        if hint is None or select is None:
            continue
        name = added.get((id(select), hint))
        if name is None:
            taken = [t.alias_or_name for t in select.find_all(exp.Table)]
            via_name = fresh_name(taken, hint.via) if hint.via else None
            name = fresh_name([*taken, *([via_name] if via_name else [])], hint.table)
            _qualify_key(select, hint)
            joins = hint.joins(name, via_name)
            for join in joins:
                select.join(join, copy=False)
            notes.append(" ".join(j.sql(dialect=dialect) for j in joins) + f" for {column.name}")
            added[(id(select), hint)] = name
        column.set("table", exp.to_identifier(name))
    if hints:
        return None
    return Fixed(tree.sql(dialect=dialect), "tablerag added " + "; ".join(notes))


def rejoin(sql: str, issues: Sequence[Issue], *, dialect: str) -> Fixed | None:
    """``sql`` with each table joined on a column it lacks joined through the bridge table the
    gate named instead.

    ``JOIN dim_category AS d ON s.product_code = d.product_code``: the category table has no
    product code, and told "write s.product_code" the local model sent the same query three
    times (issue 23's flagship question, 245 s for nothing). When the gate found one table
    keyed to both ends (``rejoin`` in the issue), there is one way to read the join: the
    bridge joins the FROM item on that column and the table joins the bridge on their shared
    key. None unless every issue is such a join.

    Example:
        >>> from tablerag.sql.exposed import ExposedCatalog
        >>> from tablerag.sql.validate import validate
        >>> cat = ExposedCatalog.from_mapping({"sales": ["order_id", "product_code"],
        ...     "product": ["product_code", "category_code"],
        ...     "category": ["category_code", "name"]})
        >>> sql = ("SELECT c.name, COUNT(*) FROM sales AS s "
        ...        "LEFT JOIN category AS c ON s.product_code = c.product_code GROUP BY c.name")
        >>> fixed = rejoin(sql, validate(sql, dialect="duckdb", catalog=cat), dialect="duckdb")
        >>> fixed.sql  # doctest: +NORMALIZE_WHITESPACE
        'SELECT c.name, COUNT(*) FROM sales AS s JOIN product AS product ON
         product.product_code = s.product_code LEFT JOIN category AS c ON
         c.category_code = product.category_code GROUP BY c.name'
        >>> fixed.note
        'tablerag joined c through product (category has no product_code)'
    """
    hints: dict[tuple[int, int], JoinHint] = {}
    for issue in issues:
        hint = issue.detail.get("rejoin")
        if issue.code != "unknown_column" or not isinstance(hint, JoinHint) or issue.span is None:
            return None
        hints[issue.span] = hint
    tree = parse_or_none(sql, dialect) if hints else None
    if tree is None:
        return None
    notes: list[str] = []
    for column in list(tree.find_all(exp.Column)):
        where = span(column)
        hint = hints.pop(where, None) if where is not None else None
        join = column.find_ancestor(exp.Join) if hint is not None else None
        select = join.parent if join is not None else None
        if hint is None or join is None or not isinstance(select, exp.Select):
            continue
        taken = [t.alias_or_name for t in select.find_all(exp.Table)]
        bridge, onward = hint.joins(column.table, fresh_name(taken, hint.via))
        eq = column.parent  # the gate checked: the column sits in an equality of the ON
        assert eq is not None
        eq.replace(onward.args["on"])
        joins = list(select.args.get("joins") or [])
        at = next(i for i, j in enumerate(joins) if j is join)
        select.set("joins", [*joins[:at], bridge, *joins[at:]])
        notes.append(f"{column.table} through {hint.via} ({hint.table} has no {column.name})")
    if hints:
        return None
    return Fixed(tree.sql(dialect=dialect), "tablerag joined " + "; ".join(notes))


def _qualify_key(select: exp.Select, hint: JoinHint) -> None:
    """Qualify ``select``'s bare references to the join key with the FROM item that had it:
    once the joined table holds a column of that name too, a bare one is ambiguous."""
    key = hint.via_key or hint.key  # the column the FROM item shares with the first join
    for column in select.find_all(exp.Column):
        bare = not column.table and column.name.lower() == key.lower()
        if bare and column.find_ancestor(exp.Select) is select:
            column.set("table", exp.to_identifier(hint.alias))


def fresh_name(taken: Iterable[str], name: str) -> str:
    """``name``, or ``name_2``…, whichever ``taken`` lacks (case-insensitive): an alias for a
    table a mend adds to a query.

    Example:
        >>> fresh_name(["p", "Category"], "category"), fresh_name(["p"], "category")
        ('category_2', 'category')
    """
    low = {t.lower() for t in taken}
    out, n = name, 1
    while out.lower() in low:
        n += 1
        out = f"{name}_{n}"
    return out


CLIP = "…"


def unclip(sql: str, *, dialect: str) -> Fixed | None:
    """``sql`` with every comparison to a cut sample value (``= 'text…'``) made a prefix match.

    None when no literal ends in "…" in an equality or a LIKE (or the SQL does not parse).

    Example:
        >>> fixed = unclip("SELECT x FROM t WHERE item = 'Total Prop…'", dialect="duckdb")
        >>> fixed.sql
        "SELECT x FROM t WHERE SUBSTRING(item, 1, 10) = 'Total Prop'"
        >>> fixed.note
        "tablerag read 'Total Prop…' as a prefix (the schema cuts long sample values)"
        >>> unclip("SELECT x FROM t WHERE a LIKE 'Net loss…'", dialect="duckdb").sql
        "SELECT x FROM t WHERE a LIKE 'Net loss%'"
        >>> unclip("SELECT 'wait…' AS x", dialect="duckdb") is None
        True
    """
    if CLIP not in sql:
        return None
    tree = parse_or_none(sql, dialect)
    if tree is None:
        return None
    cut: list[str] = []
    for node in list(tree.find_all(exp.EQ, exp.Like, exp.ILike)):
        left, right = node.this, node.expression
        if _clipped(left) and not _clipped(right):
            left, right = right, left
        if not _clipped(right):
            continue
        text = right.this
        prefix = text[: -len(CLIP)].rstrip()
        cut.append(f"'{text}'")
        if isinstance(node, exp.EQ):
            start, length = exp.Literal.number(1), exp.Literal.number(len(prefix))
            head = exp.Substring(this=left.copy(), start=start, length=length)
            node.replace(exp.EQ(this=head, expression=exp.Literal.string(prefix)))
        else:
            node.set("this", left.copy())
            node.set("expression", exp.Literal.string(prefix + "%"))
    if not cut:
        return None
    what = ", ".join(cut)
    return Fixed(
        tree.sql(dialect=dialect),
        f"tablerag read {what} as a prefix (the schema cuts long sample values)",
    )


def _clipped(node: exp.Expression) -> bool:
    return (
        isinstance(node, exp.Literal)
        and node.is_string
        and node.this.endswith(CLIP)
        and len(node.this) > len(CLIP)
    )


MYSQL_FUNCTIONS = frozenset(
    {"date_sub", "date_add", "subdate", "adddate", "date_format", "curdate", "str_to_date"}
)
"""MySQL date functions a model writes for any dialect; sqlglot reads them as MySQL."""


def from_mysql(sql: str, issues: Sequence[Issue], *, dialect: str) -> Fixed | None:
    """``sql`` with every MySQL date function the gate refused written in ``dialect``.

    None unless every issue is such a function (any other problem needs the model). Only the
    calls are translated: the rest of the query keeps its own quoting.

    Example:
        >>> from tablerag.sql.exposed import ExposedCatalog
        >>> from tablerag.sql.validate import validate
        >>> cat = ExposedCatalog.from_mapping({"t": ["d", "x"]})
        >>> sql = "SELECT x FROM t WHERE d >= DATE_SUB(CURDATE(), INTERVAL 1 DAY)"
        >>> fixed = from_mysql(sql, validate(sql, dialect="duckdb", catalog=cat), dialect="duckdb")
        >>> print(fixed.sql)
        SELECT x FROM t WHERE d >= (CURRENT_DATE - INTERVAL '1' DAY)
        >>> print(fixed.note)
        tablerag wrote CURRENT_DATE - INTERVAL '1' DAY for DATE_SUB(CURDATE(), INTERVAL '1' DAY)
        >>> sql = "SELECT DATE_FORMAT(d, '%Y-%m') AS m FROM t"
        >>> issues = validate(sql, dialect="duckdb", catalog=cat)
        >>> print(from_mysql(sql, issues, dialect="duckdb").sql)
        SELECT STRFTIME(CAST(d AS TIMESTAMP), '%Y-%m') AS m FROM t
    """
    names = {str(i.detail.get("function", "")).lower() for i in issues}
    if not issues or any(i.code != "function_not_allowed" for i in issues):
        return None
    if not names <= MYSQL_FUNCTIONS:
        return None
    tree = parse_or_none(sql, dialect)
    if tree is None:
        return None
    notes: list[str] = []
    calls = [n for n in tree.find_all(exp.Anonymous) if _is_mysql(n) and not _inside_mysql(n)]
    for call in calls:  # outermost first; an inner call is translated with the one around it
        before = call.sql(dialect=dialect)
        after = parse_or_none(call.sql(dialect="mysql"), "mysql")
        if after is None or isinstance(after, exp.Anonymous):
            return None
        call.replace(after)
        notes.append(f"{after.sql(dialect=dialect)} for {before}")
    if not notes:
        return None
    return Fixed(tree.sql(dialect=dialect), "tablerag wrote " + "; ".join(notes))


def parse_or_none(sql: str, dialect: str) -> exp.Expr | None:
    """``sql`` parsed in ``dialect``, or None when it does not parse (the gate reports that)."""
    try:
        return sqlglot.parse_one(sql, read=dialect)
    except (ParseError, TokenError):
        return None


def _is_mysql(node: exp.Expr) -> bool:
    return isinstance(node, exp.Anonymous) and str(node.name).lower() in MYSQL_FUNCTIONS


def _inside_mysql(node: exp.Expr) -> bool:
    parent = node.parent
    while parent is not None:
        if _is_mysql(parent):
            return True
        parent = parent.parent
    return False


def pin_today(sql: str, today: dt.date, *, dialect: str) -> str:
    """``sql`` with ``CURRENT_DATE`` (and ``CURRENT_TIMESTAMP``, ``NOW()``) read as ``today``.

    The prompt tells the model what "today" is (the ``today`` setting, e.g. the date a sample
    or a snapshot is as of); SQL that asks the database instead would see another day.
    Unparsable SQL comes back unchanged (the gate reports it).

    Example:
        >>> pin_today("SELECT * FROM t WHERE d >= CURRENT_DATE - INTERVAL 1 MONTH",
        ...           dt.date(2026, 11, 15), dialect="duckdb")
        "SELECT * FROM t WHERE d >= CAST('2026-11-15' AS DATE) - INTERVAL '1' MONTH"
        >>> pin_today("SELECT now() AS x", dt.date(2026, 11, 15), dialect="duckdb")
        "SELECT CAST('2026-11-15 00:00:00' AS TIMESTAMP) AS x"
    """
    if not _CLOCK_WORD.search(sql):
        return sql
    tree = parse_or_none(sql, dialect)
    if tree is None:
        return sql
    day = exp.Literal.string(today.isoformat())
    moment = exp.Literal.string(f"{today.isoformat()} 00:00:00")
    changed = False
    for node in list(tree.find_all(exp.CurrentDate, exp.CurrentTimestamp, exp.Anonymous)):
        if isinstance(node, exp.CurrentDate):
            node.replace(exp.cast(day.copy(), "DATE"))
        elif isinstance(node, exp.CurrentTimestamp) or str(node.name).lower() == "now":
            node.replace(exp.cast(moment.copy(), "TIMESTAMP"))
        else:
            continue
        changed = True
    return tree.sql(dialect=dialect) if changed else sql


_CLOCK_WORD = re.compile(r"current_date|current_timestamp|\bnow\s*\(|\btoday\s*\(", re.I)
