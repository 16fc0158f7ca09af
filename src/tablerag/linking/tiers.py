"""The "maybe" tier of a linked schema: tables shown by name, keys and column names only.

The linker renders the tables it is sure of in full (types, comments, samples, enums). A table
one key away from those, or a runner-up that scored just under the seed bar, is often the one a
question means without naming it (a dimension whose label the answer shows: 电视台 for 电视剧's
电视台id). Rendering such tables in full costs about a quarter of a small database's schema
each; as one line of names (``-- also: 电视台(id = 电视剧.电视台id, 名称, 所属省份)``) it costs a
few tokens and still lets the model join them. No types, comments or sample values are shown for
them; every column listed is shown, so the linking eval counts it as shown (and reports the
full tier's recall apart).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from tablerag.linking.catalog import SchemaCatalog
from tablerag.linking.fkgraph import JoinEdge


@dataclass(frozen=True)
class CompactTable:
    """A table of the compact tier: its name, the columns listed, and how it joins."""

    name: str
    score: float
    reasons: tuple[str, ...]
    columns: tuple[str, ...]
    """The columns listed, in the table's order."""
    via: tuple[JoinEdge, ...] = ()
    """The keys joining it to the other shown tables; empty for a runner-up without one."""
    more: int = 0
    """How many of its columns were left out of the list (wide tables only)."""


@dataclass(frozen=True)
class TierOptions:
    """Where the line between the tiers goes, and what enters the compact tier."""

    demote: bool = False
    """Show weaker seeds and bridges compactly too (``full_ratio``, ``full_if_value``). Off by
    default: every linked table is shown in full and the compact tier holds only the extra
    tables. On: fewer tokens (CHASE 49 % of the schema instead of more), but on the local model
    the NL2SQL demo lost two right answers (a compact fact table's columns were not used) and
    Spider execution accuracy did not rise (bench/RESULTS.md)."""
    full_ratio: float = 1.0
    """A linked table is shown in full when it is the best one, or a seed scoring at least this
    share of the best (1.0: the best and its ties); the other linked tables (weaker seeds,
    bridges) are shown compactly. On CHASE, seeds under 0.8 of the best are gold 38 % of the
    time, bridges 40 %, the best table 90 % (bench/RESULTS.md)."""
    full_if_value: bool = True
    """A seed with a column matching a value of the question is shown in full too."""
    max_tables: int = 0
    """At most this many more tables (key neighbours, runner-ups) join the compact tier, per
    database (``db.`` prefix) holding a linked table. Default 0 (no compact tier): with 2 the
    linking recall rises (CHASE 0.849 -> 0.993 tables) but the local model's demo lost its
    refund-rate answer to a longer prompt; measured in bench/RESULTS.md, opt in per use."""
    neighbours: bool = True
    """Tables one key away from a linked table are candidates."""
    min_runner_up_score: float = 0.3
    """Tables without a key to the linked ones are candidates from this score on (in a part of
    the key graph that holds a linked table)."""
    max_columns: int = 4
    """Wider tables list their keys, label and matched columns first, up to this many."""
    small_database: int = 0
    """In a database (the tables sharing a ``db.`` prefix, or all unprefixed tables) of at
    most this many tables, any of its tables may fill the tier's free places, best score
    first: keys are often missing there and each table is a fair guess."""


TIER_PRESETS: Mapping[str, TierOptions] = {
    "off": TierOptions(),
    "extra": TierOptions(max_tables=2, small_database=6),
    "demote": TierOptions(max_tables=2, small_database=6, demote=True),
}
"""Named configurations measured in bench/RESULTS.md: ``off`` (the default), ``extra`` (up to two
more tables as compact lines, every linked table in full) and ``demote`` (weaker linked tables
compact too: the fewest tokens)."""


@dataclass(frozen=True)
class Evidence:
    """What the linker knows, as the tier needs it."""

    table_scores: Mapping[str, float]
    column_scores: Mapping[tuple[str, str], float]
    keys: Mapping[str, set[str]]
    """Per table, its key columns (primary and foreign)."""
    labels: Mapping[str, str]
    """Per table, its label column."""


def compact_tier(
    catalog: SchemaCatalog,
    full: Sequence[str],
    demoted: Sequence[tuple[str, tuple[str, ...]]],
    joins: Sequence[JoinEdge],
    evidence: Evidence,
    options: TierOptions,
) -> tuple[CompactTable, ...]:
    """Describe the demoted tables and pick more compact tables for a question.

    Args:
        catalog: the catalog.
        full: the tables shown in full, best first.
        demoted: the other linked tables (name, reasons), best first: always in the tier.
        joins: the joins of the linker's tree.
        evidence: the linker's scores, keys and labels.
        options: the tier's knobs.

    Returns:
        The demoted tables, then at most ``options.max_tables`` more per database: tables a
        linked table references (dimensions), then tables referencing one, then runner-ups,
        then any table of a small database, each group best score first.
    """
    if not full:
        return ()
    scores = evidence.table_scores
    out = [
        compact_table(
            catalog,
            name,
            why,
            tuple(e for e in joins if name in (e.table, e.ref_table)),
            evidence,
            options.max_columns,
        )
        for name, why in demoted
    ]
    linked = [*full, *(name for name, _ in demoted)]
    taken = set(linked)
    ranked: list[tuple[int, float, str, tuple[JoinEdge, ...], str]] = []
    if options.neighbours:
        for t in linked:
            for n in catalog.graph.neighbours(t):
                if n in taken:
                    continue
                edge = _best_edge(catalog, t, n)
                referenced = edge.ref_table == n
                why = f"key {'from' if referenced else 'to'} {t}"
                ranked.append((0 if referenced else 1, scores.get(n, 0.0), n, (edge,), why))
                taken.add(n)
    part = catalog.graph.component
    parts = {part[t] for t in linked}
    home = {namespace(t) for t in linked}
    for name, score in scores.items():
        near = part[name] in parts or namespace(name) in home
        if name not in taken and near and score >= options.min_runner_up_score:
            ranked.append((2, score, name, (), f"runner-up (score {score:.2f})"))
            taken.add(name)
    spaces = _namespaces(catalog)
    for space in home:
        if len(spaces[space]) <= options.small_database:
            ranked += [
                (3, scores.get(n, 0.0), n, (), "same small database")
                for n in spaces[space]
                if n not in taken
            ]
    ranked.sort(key=lambda r: (r[0], -r[1], r[2]))
    # Places are counted per database: in a catalog of many, each linked one gets its own.
    used: Counter[str] = Counter()
    for _, _, name, via, why in ranked:
        if used[namespace(name)] < options.max_tables:
            used[namespace(name)] += 1
            out.append(compact_table(catalog, name, (why,), via, evidence, options.max_columns))
    return tuple(out)


def compact_table(
    catalog: SchemaCatalog,
    name: str,
    why: tuple[str, ...],
    via: tuple[JoinEdge, ...],
    evidence: Evidence,
    limit: int,
) -> CompactTable:
    """Table ``name`` as a compact line: every column when it has at most ``limit``, else its
    keys, label and join columns first, then its best-scored columns, up to ``limit`` (keys
    always), in the table's order."""
    names = [c.name for c in catalog.tables[name].columns]
    score = round(evidence.table_scores.get(name, 0.0), 3)
    if len(names) <= limit:
        return CompactTable(name, score, why, tuple(names), via)
    first = set(evidence.keys.get(name, set()))
    if name in evidence.labels:
        first.add(evidence.labels[name])
    for e in via:
        first.update(e.columns if e.table == name else e.ref_columns)
    cols = evidence.column_scores
    order = sorted(
        range(len(names)),
        key=lambda i: (names[i] not in first, -cols.get((name, names[i]), 0.0), i),
    )
    picked = sorted(order[: max(limit, len(first & set(names)))])
    listed = tuple(names[i] for i in picked)
    return CompactTable(name, score, why, listed, via, len(names) - len(picked))


def namespace(table: str) -> str:
    """The database (or schema) part of a table name, "" for a bare name.

    Example:
        >>> namespace("concert_singer.singer"), namespace("fact_sales")
        ('concert_singer', '')
    """
    return table.rpartition(".")[0]


def _namespaces(catalog: SchemaCatalog) -> dict[str, list[str]]:
    cached = catalog.memo.get("namespaces")
    if isinstance(cached, dict):
        return cached
    spaces: dict[str, list[str]] = {}
    for t in catalog.tables:
        spaces.setdefault(namespace(t), []).append(t)
    catalog.memo["namespaces"] = spaces
    return spaces


def _best_edge(catalog: SchemaCatalog, a: str, b: str) -> JoinEdge:
    return max(catalog.graph.edges_between(a, b), key=lambda e: e.confidence)
