"""Mend a query that found nothing because it compared a column with a value it does not store.

The model writes a row label from the question or from memory (``WHERE item = 'Expected life of
the option'``) where the table stores a longer one (``'Expected life of the option term (in
years)'``), or leaves off the stored colon; the query runs, finds nothing, and the answer is "no
data" (or it writes 'france' for 'France'). After such a query, each ``column = 'literal'``
whose literal the column does not store is rewritten to the one stored value that is the same
but for case and spaces, or else to the one stored value it begins (trailing punctuation of the
literal ignored). The mended query goes through the gate again like any other; its attempt says
what changed. The lookups go through the same engine (:mod:`tablerag.nl2sql.lookup`): gate,
read-only connection, row cap, time limit.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from sqlglot import exp

from tablerag.linking.values import ValueIndex
from tablerag.nl2sql.autofix import Fixed, parse_or_none
from tablerag.nl2sql.lookup import literal, quote, rows
from tablerag.sql.engines.base import SQLEngine

MIN_CHARS = 4
"""A shorter literal ('Q1', 'EU') begins too many labels to stand for one."""
_TRAILING = " .:;,"


def found_nothing(rows_: Sequence[Sequence[object]]) -> bool:
    """Whether a result is empty or one row of NULLs (an aggregate over no rows).

    Example:
        >>> found_nothing([]), found_nothing([[None]]), found_nothing([[0]])
        (True, True, False)
    """
    return not rows_ or all(v is None for row in rows_ for v in row)


def all_zero(rows_: Sequence[Sequence[object]]) -> bool:
    """Whether a result is one row of zeros (``COUNT(*)`` over no rows is 0, not empty).

    Example:
        >>> all_zero([[0, None]]), all_zero([[0], [0]]), all_zero([[False]])
        (True, False, False)
    """
    return len(rows_) == 1 and all(v in (0, None) and v is not False for v in rows_[0])


@dataclass(frozen=True)
class LabelHome:
    """A table outside the query that stores a label the query compared with."""

    label: str
    table: str
    column: str


def label_homes(sql: str, values: ValueIndex | None, dialect: str) -> list[LabelHome]:
    """Where the labels a query compared with live, when none of its own tables stores them.

    Retrieval chose a look-alike table (another report with ``item``, ``2019``, ``2018``), the
    model filtered on the line the question names (``item = 'Total Other'``), and the query
    found nothing: that line is a row of a table no chunk of the question mapped to. For each
    ``column = 'label'`` (or ``IN``) whose label no table of the query stores in any indexed
    column and exactly one other table stores (the value index, compared as it normalises),
    that table; first mention first, each table once. A label many tables store ('Other') names
    no table. Empty when the SQL does not parse or there is no value index.

    Example:
        >>> ix = ValueIndex()
        >>> ix.add("cash_flow", "item", ["Net cash used in investing activities"])
        >>> ix.add("tax", "item", ["Non-current deferred tax liabilities", "Other"])
        >>> ix.add("leases", "item", ["Other"])
        >>> ix.freeze()
        >>> sql = "SELECT x FROM cash_flow WHERE item = 'Non-current deferred tax liabilities'"
        >>> [(h.table, h.column) for h in label_homes(sql, ix, "duckdb")]
        [('tax', 'item')]
        >>> label_homes("SELECT 1 FROM cash_flow WHERE item IN ('Other')", ix, "duckdb")
        []
    """
    tree = parse_or_none(sql, dialect)
    if tree is None or values is None:
        return []
    own = {t.name for t in tree.find_all(exp.Table)}
    homes: dict[str, LabelHome] = {}
    for label in dict.fromkeys(label for _, label in _compared_labels(tree)):
        owners = values.owners(label)
        if any(t in own for t, _ in owners):
            continue
        tables = {t for t, _ in owners}
        if len(tables) == 1 and owners[0][0] not in homes:
            homes[owners[0][0]] = LabelHome(label, *owners[0])
    return list(homes.values())


def stored_labels(sql: str, engine: SQLEngine) -> Fixed | None:
    """``sql`` with each literal its column lacks replaced by the one stored value it means.

    None when no comparison could be mended (or the SQL does not parse): a literal must be
    absent from its column, and either the same as exactly one stored value but for case and
    spaces, or at least :data:`MIN_CHARS` long and the start of exactly one stored value.
    """
    tree = parse_or_none(sql, engine.dialect)
    if tree is None:
        return None
    notes: list[str] = []
    for eq in list(tree.find_all(exp.EQ)):
        column, value = eq.this, eq.expression
        if isinstance(value, exp.Column):
            column, value = value, column
        if not (isinstance(column, exp.Column) and _is_text(value)):
            continue
        table = _table_of(column, tree)
        if table is None:
            continue
        written = str(value.this)
        stored = _one_stored(engine, table, column.name, written)
        if stored is None:
            continue
        value.replace(exp.Literal.string(stored))
        notes.append(f"{literal(stored)} for {literal(written)}")
    if not notes:
        return None
    return Fixed(
        tree.sql(dialect=engine.dialect),
        "tablerag read " + "; ".join(notes) + " (the stored value it stands for)",
    )


def _is_text(node: exp.Expr) -> bool:
    return isinstance(node, exp.Literal) and node.is_string


def _table_of(column: exp.Column, tree: exp.Expr) -> str | None:
    """The quoted table a column reads from: its qualifier's table, or the query's only table."""
    t = _table_node(column, tree)
    if t is None:
        return None
    return f"{quote(t.db)}.{quote(t.name)}" if t.db else quote(t.name)


def _table_node(column: exp.Column, tree: exp.Expr) -> exp.Table | None:
    select = column.find_ancestor(exp.Select)
    scope = select if select is not None else tree
    tables = [t for t in scope.find_all(exp.Table) if t.find_ancestor(exp.Select) is scope]
    if column.table:
        tables = [t for t in tables if t.alias_or_name == column.table]
    return tables[0] if len(tables) == 1 else None


def _compared_labels(tree: exp.Expr) -> list[tuple[exp.Column, str]]:
    """(column, label) for each ``column = 'label'`` and each label of ``column IN (...)``."""
    out: list[tuple[exp.Column, str]] = []
    for cmp in tree.find_all(exp.EQ, exp.In):
        if isinstance(cmp, exp.In):
            pairs = [(cmp.this, v) for v in cmp.expressions]
        else:
            column, value = cmp.this, cmp.expression
            pairs = [(value, column) if isinstance(value, exp.Column) else (column, value)]
        out += [(c, str(v.this)) for c, v in pairs if isinstance(c, exp.Column) and _is_text(v)]
    return out


def _one_stored(engine: SQLEngine, table: str, column: str, text: str) -> str | None:
    """The one stored value of ``column`` that ``text`` means, when ``text`` is not stored:
    the value spelled the same but for case and spaces, else the one value ``text`` begins."""
    raw = f"CAST({quote(column)} AS VARCHAR)"
    exact = rows(engine, f"SELECT 1 FROM {table} WHERE {raw} = {literal(text)} LIMIT 1")
    if exact is None or exact:
        return None
    folded = f"lower(trim({raw}))"
    wanted = text.strip().lower()
    same = rows(
        engine,
        f"SELECT DISTINCT {quote(column)} FROM {table} WHERE {folded} = {literal(wanted)} LIMIT 2",
    )
    if same:
        return str(same[0][0]) if len(same) == 1 else None
    head = wanted.rstrip(_TRAILING)
    if len(head) < MIN_CHARS:
        return None
    got = rows(
        engine,
        f"SELECT DISTINCT {quote(column)} FROM {table} "
        f"WHERE substr({folded}, 1, {len(head)}) = {literal(head)} LIMIT 2",
    )
    if got is None or len(got) != 1 or got[0][0] is None:
        return None
    return str(got[0][0])
