"""Roll-up notes: a question value that is a parent row of a self-referencing hierarchy.

"华东" is a row of ``dim_region`` whose ``parent_code`` points back at ``region_code``; the sales
rows point at its children (上海, 江苏...), never at 华东 itself, so ``region_name = '华东'``
finds nothing. When the question names such a parent, the schema text gets one line that says
so, lists the children and gives the filter that covers the parent and all its descendants.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from tablerag.linking.catalog import SchemaCatalog
from tablerag.linking.fkgraph import JoinEdge
from tablerag.linking.linker import LinkedSchema
from tablerag.nl2sql.lookup import literal, quote, rows, specific_matches
from tablerag.sql.engines.base import SQLEngine

MAX_CODES = 40
"""Keys listed in the filter at most; a bigger subtree is filtered by its direct children."""
MAX_DEPTH = 4
MAX_VALUES = 3
MAX_CHILD_NAMES = 8


@dataclass(frozen=True)
class RollUp:
    """A question value found at a parent row of a hierarchy, and what lies under it."""

    value: str
    table: str
    column: str
    key: str
    """The key column the hierarchy refers to (``region_code``)."""
    parent: str
    """The column pointing at the parent's key (``parent_code``)."""
    code: object
    """The key of the value's row (``'EAST'``)."""
    children: tuple[str, ...]
    """Labels of the rows directly under it."""
    codes: tuple[object, ...]
    """Its own key and the keys of all its descendants; empty when there were too many."""
    target: str
    """``table.column`` to filter: a linked table's reference to the key, else the key."""


def hierarchy_edges(catalog: SchemaCatalog) -> dict[str, JoinEdge]:
    """Table → its one-column self-reference (child column → key), declared or inferred."""
    out: dict[str, JoinEdge] = {}
    for e in sorted(catalog.edges, key=lambda e: (not e.declared, -e.confidence)):
        if e.table == e.ref_table and len(e.columns) == 1 and e.columns != e.ref_columns:
            out.setdefault(e.table, e)
    return out


def rollups(
    question: str, linked: LinkedSchema, catalog: SchemaCatalog, engine: SQLEngine
) -> tuple[RollUp, ...]:
    """The parent rows of linked hierarchies that the question names by value.

    Args:
        question: the user's question.
        linked: the linker's answer (its value matches and tables).
        catalog: the linking catalog (its self-referencing keys).
        engine: the read-only engine the rows are read through.

    Returns:
        One :class:`RollUp` per named parent row (leaf rows give none), at most
        :data:`MAX_VALUES`.
    """
    edges = hierarchy_edges(catalog)
    found: list[RollUp] = []
    seen: set[tuple[str, str]] = set()
    for m in specific_matches(question, linked.values):
        edge = edges.get(m.table)
        if edge is None or m.table not in linked.table_names or (m.table, m.value) in seen:
            continue
        seen.add((m.table, m.value))
        got = _rollup(m.value, m.column, edge, linked, catalog, engine)
        if got is not None:
            found.append(got)
        if len(found) == MAX_VALUES:
            break
    return tuple(found)


def _rollup(
    value: str,
    column: str,
    edge: JoinEdge,
    linked: LinkedSchema,
    catalog: SchemaCatalog,
    engine: SQLEngine,
) -> RollUp | None:
    table, parent, key = edge.table, edge.columns[0], edge.ref_columns[0]
    t, k, p = quote(table), quote(key), quote(parent)
    own = rows(engine, f"SELECT DISTINCT {k} FROM {t} WHERE {quote(column)} = {literal(value)}")
    if not own or len(own) > 1 or own[0][0] is None:
        return None  # not found, or several rows share the name: no safe single parent
    code = own[0][0]
    codes: list[object] = [code]
    children: tuple[str, ...] = ()
    frontier: Sequence[object] = [code]
    for depth in range(MAX_DEPTH):
        listed = ", ".join(literal(c) for c in frontier)
        below = rows(
            engine,
            f"SELECT {k}, {quote(column)} FROM {t} WHERE {p} IN ({listed}) ORDER BY {k}",
        )
        if below is None:
            return None
        fresh = [r for r in below if r[0] is not None and r[0] not in codes]
        if depth == 0:
            children = tuple(str(r[1]) for r in fresh)
        if not fresh:
            break
        codes += [r[0] for r in fresh]
        frontier = [r[0] for r in fresh]
        if len(codes) > MAX_CODES:
            codes = []
            break
    if not children:
        return None  # a leaf: filtering by its name is right
    target = _target(table, key, linked, catalog)
    return RollUp(value, table, column, key, parent, code, children, tuple(codes), target)


def _target(table: str, key: str, linked: LinkedSchema, catalog: SchemaCatalog) -> str:
    """The column to filter: the best-ranked linked table with a key referencing the
    hierarchy's key (the facts then need no join), else the key itself."""
    for name in linked.table_names:
        for e in catalog.edges:
            if e.table == name != table and e.ref_table == table and e.ref_columns == (key,):
                return f"{name}.{e.columns[0]}"
    return f"{table}.{key}"


def rollup_note(r: RollUp) -> str:
    """The schema comment for one roll-up.

    Example:
        >>> r = RollUp("华东", "dim_region", "region_name", "region_code", "parent_code", "EAST",
        ...            ("上海", "江苏"), ("EAST", "SH", "JS"), "fact_sales.region_code")
        >>> head, tail = rollup_note(r).split(": ", 1)
        >>> head
        "-- 华东 is a parent row of dim_region (region_code 'EAST') over 上海, 江苏"
        >>> tail
        "for 华东 filter fact_sales.region_code IN ('EAST', 'SH', 'JS'), not region_name = '华东'."
    """
    names = ", ".join(r.children[:MAX_CHILD_NAMES]) + (
        ", …" if len(r.children) > MAX_CHILD_NAMES else ""
    )
    if r.codes:
        where = f"{r.target} IN ({', '.join(literal(c) for c in r.codes)})"
    else:
        table, key = r.table, r.key
        where = (
            f"{r.target} IN (SELECT {key} FROM {table} WHERE {r.parent} = {literal(r.code)} "
            f"OR {key} = {literal(r.code)})"
        )
    return (
        f"-- {r.value} is a parent row of {r.table} ({r.key} {literal(r.code)}) over {names}: "
        f"for {r.value} filter {where}, not {r.column} = {literal(r.value)}."
    )
