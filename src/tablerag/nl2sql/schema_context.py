"""The schema an NL2SQL prompt carries for one question: the linker's tables, cut to a budget.

The graph linker (:mod:`tablerag.linking`) picks the tables and columns and renders them as
compact DDL. Given the engine, notes about the question's values follow the DDL: a value that is
a parent row of a hierarchy (:mod:`tablerag.nl2sql.rollup`) and definition rows of document tables
(:mod:`tablerag.nl2sql.definitions`) and the stored spelling of a value the samples do not show
(:mod:`tablerag.nl2sql.spelling`). A small local model reads about 60 prompt tokens a second,
so the text is then fitted to ``max_tokens`` (notes first, they are short and specific). Narrow
tables (at most ``WHOLE_TABLE_MAX_COLUMNS`` columns) are shown whole when that fits: a column the
linker left out of a small table costs a wrong answer, its few tokens cost little. Then come the
linker's columns alone, then no sample values, then without the compact tier (the tables the
linker lists by name and columns only), then listing the lowest-ranked linked tables as compact
lines (their keys, label and best columns, and how they join: a dimension the answer groups by is
useless dropped, and costs a tenth as a line), and only then dropping them (joins that lose an end
are dropped with them).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from tablerag.linking.catalog import SchemaCatalog
from tablerag.linking.fkgraph import JoinEdge
from tablerag.linking.linker import LinkedColumn, LinkedSchema, LinkedTable, LinkOptions, link
from tablerag.linking.render import SchemaText, render_linked
from tablerag.linking.tiers import CompactTable, Evidence, compact_table
from tablerag.nl2sql.canonical import canonical_format
from tablerag.nl2sql.definitions import Glossary
from tablerag.nl2sql.stages import ALL_ON, VALUE_NOTES, NoteInput, Switches
from tablerag.sql.engines.base import SQLEngine
from tablerag.tokens import count_tokens
from tablerag.types import Hit

DEFAULT_MAX_TOKENS = 700
WHOLE_TABLE_MAX_COLUMNS = 12
"""A linked table with at most this many columns is shown whole when the budget allows."""
COMPACT_COLUMNS = 4
"""Columns listed for a table the budget turns into a compact line (its keys always)."""


@dataclass(frozen=True)
class SchemaContext:
    """Schema text for the prompt, the tables in it, and its estimated size."""

    text: str
    tables: tuple[str, ...]
    """The tables the text names: shown in full, then the compact tier."""
    tokens: int
    samples: bool = True
    """False when sample values were left out to fit the budget."""
    dropped: tuple[str, ...] = ()
    """Linked tables left out to fit the budget, lowest-ranked first."""
    canonical: dict[tuple[str, str], str] = field(default_factory=dict)
    """(table, column) -> the one format generated SQL reads a mixed-format column in."""
    notes: tuple[str, ...] = ()
    """Comment lines about the question's values, at the end of ``text``."""
    edges: tuple[JoinEdge, ...] = ()
    """The keys between the tables the text names (to check a query's joins against)."""
    linked: LinkedSchema | None = field(default=None, compare=False, repr=False)
    """The linker's answer (tables, columns, value matches), for the answer checks."""
    catalog: SchemaCatalog | None = field(default=None, compare=False, repr=False)
    """The catalog linked against (row counts, samples), for the answer checks."""
    passages: tuple[Hit, ...] = field(default=(), compare=False, repr=False)
    """Document passages retrieved for the question (metric definitions in prose), for the
    notes and the answer checks."""
    glossary: Glossary | None = field(default=None, compare=False, repr=False)
    """The document tables of another place (the workspace's files when a database is
    asked), whose definition rows the notes quote and the answer checks read."""


def schema_context(
    question: str,
    catalog: SchemaCatalog,
    *,
    max_tokens: int = DEFAULT_MAX_TOKENS,
    engine: SQLEngine | None = None,
    options: LinkOptions | None = None,
    stages: Switches = ALL_ON,
    passages: Sequence[Hit] = (),
    glossary: Glossary | None = None,
    retrieved: Sequence[str] = (),
) -> SchemaContext:
    """Link ``question`` to ``catalog`` and render the linked schema within ``max_tokens``.

    Args:
        question: the user's question.
        catalog: the linking catalog (sensitive columns already hidden).
        max_tokens: budget of the schema text, in estimated tokens; at least one table is
            always kept, even if it alone is over the budget.
        engine: the read-only engine, to read the few rows the value notes need; None
            leaves the notes out.
        options: linker options (default: the linker's defaults).
        stages: which value notes run (:data:`~tablerag.nl2sql.stages.VALUE_NOTES`).
        passages: document passages retrieved for the question; one that defines a metric
            the question names is quoted (``definition_passages``) and checked against.
        glossary: the document tables of another place, whose rows defining a metric the
            question names are quoted and checked against like the catalog's own.
        retrieved: the catalog's tables whose chunks a search for the question found, best
            first: evidence for the linker (``LinkOptions.retrieved_weight``).

    Returns:
        The schema text and the tables it describes (empty when the catalog has no tables).
    """
    linked = link(question, catalog, options=options, retrieved=retrieved)
    if not linked.tables:
        return SchemaContext("", (), 0)
    notes = (
        value_notes(question, linked, catalog, engine, stages, passages, glossary)
        if engine is not None
        else ()
    )
    spent = count_tokens("\n".join(notes)) if notes else 0
    context = _fit(catalog, linked, max(max_tokens - spent, 0))
    if notes:
        text = context.text + "\n\n" + "\n".join(notes)
        context = replace(context, text=text, tokens=count_tokens(text), notes=notes)
    return replace(
        context,
        canonical=mixed_format_columns(catalog, context.tables),
        edges=keys_between(catalog, context.tables),
        linked=linked,
        catalog=catalog,
        passages=tuple(passages),
        glossary=glossary,
    )


def keys_between(catalog: SchemaCatalog, tables: tuple[str, ...]) -> tuple[JoinEdge, ...]:
    """The catalog's keys (declared and inferred) with both ends among ``tables``."""
    shown = set(tables)
    return tuple(e for e in catalog.edges if e.table in shown and e.ref_table in shown)


def value_notes(
    question: str,
    linked: LinkedSchema,
    catalog: SchemaCatalog,
    engine: SQLEngine,
    stages: Switches = ALL_ON,
    passages: Sequence[Hit] = (),
    glossary: Glossary | None = None,
) -> tuple[str, ...]:
    """Comment lines about the question's values, from the value notes in their order:
    roll-ups of hierarchy parents, definition rows quoted from documents, definitions in the
    retrieved passages, then stored spellings the schema does not show."""
    given = NoteInput(question, linked, catalog, engine, passages=passages, glossary=glossary)
    return tuple(line for note in stages.enabled(VALUE_NOTES) for line in note.run(given))


def mixed_format_columns(
    catalog: SchemaCatalog, tables: tuple[str, ...]
) -> dict[tuple[str, str], str]:
    """Columns of ``tables`` whose values mix a dashed and a compact date form, and the form
    to read them in (see :mod:`tablerag.nl2sql.canonical`)."""
    out: dict[tuple[str, str], str] = {}
    for (table, column), profile in catalog.profiles.items():
        if table in tables:
            fmt = canonical_format(tuple(f for f, _ in profile.formats))
            if fmt is not None:
                out[(table, column)] = fmt
    return out


def _fit(catalog: SchemaCatalog, linked: LinkedSchema, max_tokens: int) -> SchemaContext:
    whole = whole_narrow_tables(catalog, linked)
    if whole != linked:
        text = render_linked(catalog, whole, samples=True)
        if text.tokens <= max_tokens:
            return _context(whole, text, True, ())
    for samples in (True, False):
        text = render_linked(catalog, linked, samples=samples)
        if text.tokens <= max_tokens:
            return _context(linked, text, samples, ())
    lost = tuple(t.name for t in reversed(linked.compact))
    if lost:
        linked = replace(linked, compact=())
        text = render_linked(catalog, linked, samples=False)
        if text.tokens <= max_tokens:
            return _context(linked, text, False, lost)
    for keep in range(len(linked.tables) - 1, 0, -1):
        cut = compact_tail(catalog, linked, keep)
        text = render_linked(catalog, cut, samples=False)
        if text.tokens <= max_tokens:
            return _context(cut, text, False, lost)
    for keep in range(len(linked.tables) - 1, 0, -1):
        cut = _first_tables(linked, keep)
        text = render_linked(catalog, cut, samples=False)
        if text.tokens <= max_tokens or keep == 1:
            dropped = lost + tuple(t.name for t in reversed(linked.tables[keep:]))
            return _context(cut, text, False, dropped)
    return _context(linked, render_linked(catalog, linked, samples=False), False, lost)


def whole_narrow_tables(catalog: SchemaCatalog, linked: LinkedSchema) -> LinkedSchema:
    """``linked`` with every column of each table that has at most ``WHOLE_TABLE_MAX_COLUMNS``.

    Columns keep the table's own order; the linker's columns keep their scores and reasons.
    """
    tables = []
    for table in linked.tables:
        info = catalog.tables.get(table.name)
        if info is None or len(info.columns) > WHOLE_TABLE_MAX_COLUMNS:
            tables.append(table)
            continue
        kept = {c.name: c for c in table.columns}
        columns = tuple(
            kept.get(c.name, LinkedColumn(c.name, 0.0, ("whole table",))) for c in info.columns
        )
        whole = replace(table, columns=columns, other_columns=())
        tables.append(whole if columns != table.columns else table)
    return replace(linked, tables=tuple(tables))


def compact_tail(catalog: SchemaCatalog, linked: LinkedSchema, keep: int) -> LinkedSchema:
    """``linked`` with its first ``keep`` tables in full and the others as compact lines,
    before the compact tier it had; joins to a compact table move into its line."""
    tail = tuple(_as_compact(catalog, t, linked) for t in linked.tables[keep:])
    cut = _first_tables(linked, keep)
    return replace(cut, compact=(*tail, *linked.compact))


def _as_compact(catalog: SchemaCatalog, table: LinkedTable, linked: LinkedSchema) -> CompactTable:
    """A linked table as a compact line (:func:`~tablerag.linking.tiers.compact_table`): its
    key, join and label columns, then its best-scored ones, up to :data:`COMPACT_COLUMNS`."""
    via = tuple(j for j in linked.joins if table.name in (j.table, j.ref_table))
    keys = {c.name for c in table.columns if {"primary key", "join key"} & set(c.reasons)}
    label = next((c.name for c in table.columns if "label column" in c.reasons), None)
    evidence = Evidence(
        {table.name: table.score},
        {(table.name, c.name): c.score for c in table.columns},
        {table.name: keys},
        {table.name: label} if label else {},
    )
    return compact_table(catalog, table.name, table.reasons, via, evidence, COMPACT_COLUMNS)


def _first_tables(linked: LinkedSchema, keep: int) -> LinkedSchema:
    tables = linked.tables[:keep]
    names = {t.name for t in tables}
    joins = tuple(j for j in linked.joins if j.table in names and j.ref_table in names)
    return replace(linked, tables=tables, joins=joins)


def _context(
    linked: LinkedSchema, text: SchemaText, samples: bool, dropped: tuple[str, ...]
) -> SchemaContext:
    return SchemaContext(text.text, linked.shown_table_names, text.tokens, samples, dropped)
