"""The schema catalog the linker works on: tables, column profiles, join keys, value index.

It is built from ``TableInfo`` objects plus, optionally, a :class:`~tablerag.linking.rows.RowSource`
for values, so a workspace, a SQLite file or a bare ``tables.json`` can all feed it. Sensitive
columns are dropped here, before anything else sees them: they are never profiled, indexed,
linked or rendered.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace

from tablerag.errors import ConfigError
from tablerag.linking.fkgraph import FKGraph, JoinEdge, declared_edges, infer_edges
from tablerag.linking.profile import ColumnProfile, profile_column
from tablerag.linking.rows import SAMPLE_ROWS, RowSource
from tablerag.linking.values import MAX_VALUES_PER_COLUMN, ValueIndex
from tablerag.sql.sensitive import redact_table
from tablerag.types import ColumnInfo, TableInfo


@dataclass(frozen=True)
class TableSample:
    """What was read from one table: its profiles and the distinct values of each column."""

    profiles: tuple[ColumnProfile, ...]
    distinct: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    """Column → distinct non-null sampled values (capped), for key inference and the index."""
    composite_key: tuple[str, ...] = ()
    """Two leading columns unique together (none alone), e.g. (order_id, line_no)."""


@dataclass
class SchemaCatalog:
    """Everything the linker and the renderer need, built once and reused for many questions."""

    tables: dict[str, TableInfo]
    profiles: dict[tuple[str, str], ColumnProfile]
    graph: FKGraph
    values: ValueIndex | None
    glossary: dict[str, tuple[str, ...]] = field(default_factory=dict)
    """Business term → words it stands for (e.g. 毛利 → 净额, 成本, net, cost)."""
    memo: dict[str, object] = field(default_factory=dict, repr=False, compare=False)
    """Data derived once per catalog by its users (e.g. the linker's name features)."""

    @property
    def edges(self) -> list[JoinEdge]:
        """Declared and inferred foreign keys."""
        return self.graph.edges

    def profile(self, table: str, column: str) -> ColumnProfile | None:
        """The profile of ``table.column``, if it was profiled."""
        return self.profiles.get((table, column))


def sample_table(info: TableInfo, rows: RowSource, limit: int = SAMPLE_ROWS) -> TableSample:
    """Read a bounded sample of ``info`` and profile each column.

    Raises:
        EngineError: the row source could not read the table.
    """
    names = [c.name for c in info.columns]
    data = rows.sample(info.name, names, limit) if names else []
    profiles = []
    distinct: dict[str, tuple[str, ...]] = {}
    for i, col in enumerate(info.columns):
        values = [r[i] for r in data]
        profiles.append(profile_column(info.name, col, values, max(info.row_count, len(data))))
        seen = dict.fromkeys(str(v) for v in values if v is not None and str(v).strip() != "")
        distinct[col.name] = tuple(list(seen)[:MAX_VALUES_PER_COLUMN])
    return TableSample(tuple(profiles), distinct, _composite_key(info, data, profiles))


def _composite_key(
    info: TableInfo, data: Sequence[tuple[object, ...]], profiles: Sequence[ColumnProfile]
) -> tuple[str, ...]:
    """The first pair of the leading four columns that is unique together in the sample."""
    lead = min(4, len(info.columns))
    if len(data) < 2 or any(p.is_unique and p.null_ratio == 0 for p in profiles[:lead]):
        return ()
    for i in range(lead):
        for j in range(i + 1, lead):
            pairs = [(r[i], r[j]) for r in data]
            if None not in {v for pair in pairs for v in pair} and len(set(pairs)) == len(pairs):
                return (info.columns[i].name, info.columns[j].name)
    return ()


def build_catalog(
    tables: Sequence[TableInfo],
    *,
    rows: RowSource | None = None,
    samples: Mapping[str, TableSample] | None = None,
    infer_keys: bool = True,
    use_declared_keys: bool = True,
    index_values: bool = True,
    redact: bool = True,
    glossary: Mapping[str, Iterable[str]] | None = None,
) -> SchemaCatalog:
    """Build the catalog: hide sensitive columns, profile, index values, build the key graph.

    Args:
        tables: the tables (with declared keys, descriptions, units, sensitive flags).
        rows: where to read sample rows from; None works from names and types alone.
        samples: samples already taken (e.g. from the workspace cache), by table name; tables
            missing here are read from ``rows``.
        infer_keys: infer undeclared foreign keys.
        use_declared_keys: keep the declared foreign keys (False to test inference alone).
        index_values: build the value index (needs ``rows`` or ``samples``).
        redact: also hide columns that look sensitive by name or content (columns flagged
            ``sensitive`` are always hidden).
        glossary: business terms and the words they stand for, to seed linking.

    Returns:
        The catalog.

    Raises:
        EngineError: a table could not be read.
    """
    visible = [_visible(t, redact=redact) for t in tables]
    taken: dict[str, TableSample] = dict(samples or {})
    if rows is not None:
        for t in visible:
            if t.name not in taken:
                taken[t.name] = sample_table(t, rows)
    profiles: dict[tuple[str, str], ColumnProfile] = {}
    for t in visible:
        got = taken.get(t.name)
        shown = {c.name for c in t.columns}
        for p in got.profiles if got else _bare_profiles(t):
            if p.column in shown:
                profiles[(t.name, p.column)] = p
    edges = declared_edges(visible) if use_declared_keys else []
    if infer_keys:
        have = {(e.table, e.columns) for e in edges}
        unique = {k: p.is_unique for k, p in profiles.items() if p.sampled_rows}
        value_sets = {
            (name, col): frozenset(vals)
            for name, s in taken.items()
            for col, vals in s.distinct.items()
        }
        composite = {n: s.composite_key for n, s in taken.items() if s.composite_key}
        inferred = infer_edges(visible, unique=unique, values=value_sets, composite=composite)
        for e in inferred:
            if (e.table, e.columns) not in have:
                edges.append(e)
    index = None
    if index_values and taken:
        index = ValueIndex()
        for t in visible:
            s = taken.get(t.name)
            if s is None:
                continue
            for c in t.columns:
                if _is_text(c):
                    index.add(t.name, c.name, s.distinct.get(c.name, ()))
        index.freeze()
    return SchemaCatalog(
        tables={t.name: t for t in visible},
        profiles=profiles,
        graph=FKGraph([t.name for t in visible], edges),
        values=index,
        glossary={k: tuple(v) for k, v in (glossary or {}).items()},
    )


def combine(parts: Sequence[SchemaCatalog]) -> SchemaCatalog:
    """One catalog holding the tables, profiles, keys and values of several (names must differ).

    Raises:
        ConfigError: two parts hold a table with the same name.
    """
    tables: dict[str, TableInfo] = {}
    profiles: dict[tuple[str, str], ColumnProfile] = {}
    edges: list[JoinEdge] = []
    glossary: dict[str, tuple[str, ...]] = {}
    index: ValueIndex | None = None
    for part in parts:
        clash = tables.keys() & part.tables.keys()
        if clash:
            raise ConfigError(
                f"Tables {sorted(clash)[:3]!r} appear in two catalogs; prefix them with their "
                "database name before combining."
            )
        tables.update(part.tables)
        profiles.update(part.profiles)
        edges += part.edges
        glossary.update(part.glossary)
        if part.values is not None:
            index = index or ValueIndex()
            index.extend(part.values)
    if index is not None:
        index.freeze()
    return SchemaCatalog(tables, profiles, FKGraph(list(tables), edges), index, glossary)


def _visible(table: TableInfo, *, redact: bool) -> TableInfo:
    shown = replace(table, columns=tuple(c for c in table.columns if not c.sensitive))
    return redact_table(shown) if redact else shown


def _bare_profiles(table: TableInfo) -> list[ColumnProfile]:
    """Profiles from names, types and catalog samples only (no rows read)."""
    return [
        replace(
            profile_column(table.name, c, list(c.samples), table.row_count),
            sampled_rows=0,
            distinct_count=0,
            null_ratio=0.0,
            enum_values=(),
            is_unique=False,
        )
        for c in table.columns
    ]


def _is_text(column: ColumnInfo) -> bool:
    t = column.type.upper()
    return t.startswith(("VARCHAR", "TEXT", "CHAR", "STRING", "NVARCHAR")) or t == ""
