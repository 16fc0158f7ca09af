"""The schema catalog the linker works on: tables, column profiles, join keys, value index.

It is built from ``TableInfo`` objects plus, optionally, a :class:`~tablerag.linking.rows.RowSource`
for values, so a workspace, a SQLite file or a bare ``tables.json`` can all feed it. Sensitive
columns are dropped here, before anything else sees them: they are never profiled, indexed,
linked or rendered.

A column that references a small lookup table (a code column and a label column, at most
:data:`LOOKUP_MAX_ROWS` rows) gets that table's code → label pairs as its enum, e.g.
``fact_refund.reason_code`` → ``R02=商品破损`` from ``dim_refund_reason``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace

from tablerag.errors import ConfigError
from tablerag.linking.fkgraph import FKGraph, JoinEdge, declared_edges, infer_edges, is_idlike
from tablerag.linking.profile import ColumnProfile, column_checks, profile_column
from tablerag.linking.rows import SAMPLE_ROWS, RowSource
from tablerag.linking.values import MAX_VALUES_PER_COLUMN, ValueIndex
from tablerag.sql.sensitive import DEFAULT_RULES, WITHHELD, SensitiveRules, redact_table
from tablerag.sqltypes import type_family
from tablerag.types import ColumnInfo, TableInfo

LOOKUP_MAX_ROWS = 50
"""A referenced table with at most this many rows can be a lookup (code → label) table."""
LOOKUP_MAX_COLUMNS = 4
"""... and at most this many columns (code, name, perhaps an English name and a type)."""
LOOKUP_MIN_CONFIDENCE = 0.7
"""Inferred foreign keys below this confidence do not make a lookup enum."""
_LABEL_WORDS = ("name", "label", "title", "desc", "text", "名称", "名", "描述", "说明")


@dataclass(frozen=True)
class TableSample:
    """What was read from one table: its profiles and the distinct values of each column."""

    profiles: tuple[ColumnProfile, ...]
    distinct: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    """Column → distinct non-null sampled values (capped), for key inference and the index."""
    composite_key: tuple[str, ...] = ()
    """Two leading columns unique together (none alone), e.g. (order_id, line_no)."""
    lookup_rows: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    """Every row of a small table (at most :data:`LOOKUP_MAX_ROWS` rows and
    :data:`LOOKUP_MAX_COLUMNS` columns, all read), column → values in row order (NULL as "");
    empty for other tables. Sensitive columns are left out."""


@dataclass
class SchemaCatalog:
    """Everything the linker and the renderer need, built once and reused for many questions."""

    tables: dict[str, TableInfo]
    profiles: dict[tuple[str, str], ColumnProfile]
    graph: FKGraph
    values: ValueIndex | None
    glossary: dict[str, tuple[str, ...]] = field(default_factory=dict)
    """Business term → words it stands for (e.g. 毛利 → 净额, 成本, net, cost)."""
    terms: tuple[tuple[str, str], ...] = ()
    """(English, Chinese) names of one metric, from the workspace's semantic model; empty:
    the built-in pairs (:func:`tablerag.lang.messages.term_pairs`) are used."""
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
    checks = column_checks(info.checks, names)
    profiles = []
    distinct: dict[str, tuple[str, ...]] = {}
    for i, col in enumerate(info.columns):
        values = [r[i] for r in data]
        row_count = max(info.row_count, len(data))
        profiles.append(
            profile_column(info.name, col, values, row_count, check=checks.get(col.name))
        )
        seen = dict.fromkeys(str(v) for v in values if v is not None and str(v).strip() != "")
        distinct[col.name] = tuple(list(seen)[:MAX_VALUES_PER_COLUMN])
    lookup: dict[str, tuple[str, ...]] = {}
    small = len(data) <= LOOKUP_MAX_ROWS and len(data) < limit and len(names) <= LOOKUP_MAX_COLUMNS
    if data and small:
        lookup = {
            c.name: tuple("" if r[i] is None else str(r[i]) for r in data)
            for i, c in enumerate(info.columns)
            if not c.sensitive
        }
    return TableSample(tuple(profiles), distinct, _composite_key(info, data, profiles), lookup)


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
    terms: Iterable[tuple[str, str]] = (),
    rules: SensitiveRules = DEFAULT_RULES,
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
        terms: (English, Chinese) names of one metric (the workspace's semantic model).
        rules: the operator's ``sensitive_columns``/``allow_columns``
            (:func:`tablerag.sql.sensitive.is_hidden`).

    Returns:
        The catalog.

    Raises:
        EngineError: a table could not be read.
    """
    visible = [_visible(t, redact=redact, rules=rules) for t in tables]
    taken: dict[str, TableSample] = dict(samples or {})
    if rows is not None:
        for t in visible:
            if t.name not in taken:
                taken[t.name] = sample_table(t, rows)
    profiles: dict[tuple[str, str], ColumnProfile] = {}
    for t in visible:
        got = taken.get(t.name)
        shown = {c.name for c in t.columns}
        for p in got.profiles if got else bare_profiles(t):
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
    _add_lookup_enums(profiles, {t.name: t for t in visible}, edges, taken)
    index = None
    if index_values:
        index = _sampled_index(visible, taken) if taken else column_samples_index(visible)
    return SchemaCatalog(
        tables={t.name: t for t in visible},
        profiles=profiles,
        graph=FKGraph([t.name for t in visible], edges),
        values=index,
        glossary={k: tuple(v) for k, v in (glossary or {}).items()},
        terms=tuple(terms),
    )


def _sampled_index(tables: Sequence[TableInfo], taken: Mapping[str, TableSample]) -> ValueIndex:
    """The value index of the distinct values sampled from the tables' rows."""
    index = ValueIndex()
    for t in tables:
        s = taken.get(t.name)
        if s is None:
            continue
        for c in t.columns:
            if is_text_column(c):
                index.add(t.name, c.name, s.distinct.get(c.name, ()))
    index.freeze()
    return index


def column_samples_index(tables: Sequence[TableInfo]) -> ValueIndex | None:
    """The value index of the samples the tables' columns carry, None when none carries any:
    a database asked in place keeps the values ingest sampled per column (not rows), and a
    question naming one of them (手机数码, 门店) is linked to its table by it.

    Example:
        >>> cats = TableInfo("categories", "", (ColumnInfo("name", "VARCHAR",
        ...                  samples=("手机数码", "家用电器")),), 5)
        >>> [(m.table, m.value) for m in column_samples_index([cats]).search("手机数码卖了多少")]
        [('categories', '手机数码')]
        >>> column_samples_index([TableInfo("t", "", (ColumnInfo("n", "VARCHAR"),), 5)]) is None
        True
    """
    index = ValueIndex()
    added = False
    for t in tables:
        for c in t.columns:
            values = tuple(v for v in c.samples if v and v != WITHHELD)
            if values and is_text_column(c):
                index.add(t.name, c.name, values)
                added = True
    if not added:
        return None
    index.freeze()
    return index


def lookup_enums(
    tables: Mapping[str, TableInfo],
    edges: Iterable[JoinEdge],
    samples: Mapping[str, TableSample],
) -> list[tuple[tuple[str, str], tuple[tuple[str, str], ...], str]]:
    """Columns that reference a small code → label table, with that table's pairs.

    A single-column foreign key (declared, or inferred with confidence at least
    :data:`LOOKUP_MIN_CONFIDENCE`) to a table whose every row was read
    (:attr:`TableSample.lookup_rows`) and which has a label column: a visible text column
    other than the key, named like a name or label (``reason_name``, ``名称``), else the first
    one that is not an identifier.

    Returns:
        ``((table, column), ((code, label), ...) sorted by code, lookup table)`` per column.

    Example:
        >>> from tablerag.types import ForeignKey
        >>> dim = TableInfo("dim_reason", "", (ColumnInfo("code", "VARCHAR"),
        ...                 ColumnInfo("reason_name", "VARCHAR")), 2, primary_key=("code",))
        >>> fact = TableInfo("fact", "", (ColumnInfo("code", "VARCHAR"),), 9,
        ...                  foreign_keys=(ForeignKey(("code",), "dim_reason", ("code",)),))
        >>> small = TableSample((), lookup_rows={"code": ("R2", "R1"),
        ...                                      "reason_name": ("破损", "无理由")})
        >>> lookup_enums({"dim_reason": dim, "fact": fact}, declared_edges([dim, fact]),
        ...              {"dim_reason": small})
        [(('fact', 'code'), (('R1', '无理由'), ('R2', '破损')), 'dim_reason')]
    """
    out: list[tuple[tuple[str, str], tuple[tuple[str, str], ...], str]] = []
    for e in edges:
        if len(e.columns) != 1 or e.table == e.ref_table or e.ref_table not in tables:
            continue
        if not e.declared and e.confidence < LOOKUP_MIN_CONFIDENCE:
            continue
        sample = samples.get(e.ref_table)
        rows = sample.lookup_rows if sample is not None else {}
        code = e.ref_columns[0]
        label = _label_column(tables[e.ref_table], code, rows)
        if label is None:
            continue
        pairs = {
            c: lab for c, lab in zip(rows[code], rows[label], strict=True) if c != "" and lab != ""
        }
        if pairs and any(c != lab for c, lab in pairs.items()):
            out.append(((e.table, e.columns[0]), tuple(sorted(pairs.items())), e.ref_table))
    return out


def _add_lookup_enums(
    profiles: dict[tuple[str, str], ColumnProfile],
    tables: Mapping[str, TableInfo],
    edges: Iterable[JoinEdge],
    samples: Mapping[str, TableSample],
) -> None:
    """Give referencing columns their lookup table's codes (a CHECK value list stays).

    When the whole referencing column was read, only the codes it holds are kept (a fact
    table of provinces does not list the regions of its lookup table).
    """
    for key, pairs, ref in lookup_enums(tables, edges, samples):
        found = profiles.get(key)
        if found is None or found.enum_origin == "check":
            continue
        seen = samples[key[0]].distinct.get(key[1], ()) if key[0] in samples else ()
        if found.sampled_rows and found.exact and 0 < found.distinct_count == len(seen):
            pairs = tuple(pair for pair in pairs if pair[0] in set(seen)) or pairs
        if pairs:
            codes = tuple(code for code, _ in pairs)
            profiles[key] = replace(
                found, enum_values=codes, enum_labels=pairs, enum_origin=f"lookup:{ref}"
            )


def _label_column(table: TableInfo, code: str, rows: Mapping[str, tuple[str, ...]]) -> str | None:
    if code not in rows:
        return None
    texts = [
        c.name for c in table.columns if c.name != code and c.name in rows and is_text_column(c)
    ]
    named = [n for n in texts if any(w in n.lower() for w in _LABEL_WORDS)]
    plain = [n for n in texts if not is_idlike(n)]
    found = named or plain
    return found[0] if found else None


def combine(parts: Sequence[SchemaCatalog]) -> SchemaCatalog:
    """One catalog holding the tables, profiles, keys and values of several (names must differ).

    Raises:
        ConfigError: two parts hold a table with the same name.
    """
    tables: dict[str, TableInfo] = {}
    profiles: dict[tuple[str, str], ColumnProfile] = {}
    edges: list[JoinEdge] = []
    glossary: dict[str, tuple[str, ...]] = {}
    terms: dict[tuple[str, str], None] = {}
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
        terms.update(dict.fromkeys(part.terms))
        if part.values is not None:
            index = index or ValueIndex()
            index.extend(part.values)
    if index is not None:
        index.freeze()
    graph = FKGraph(list(tables), edges)
    return SchemaCatalog(tables, profiles, graph, index, glossary, terms=tuple(terms))


def _visible(table: TableInfo, *, redact: bool, rules: SensitiveRules) -> TableInfo:
    shown = replace(table, columns=tuple(c for c in table.columns if not c.sensitive))
    return redact_table(shown, rules=rules) if redact else shown


def bare_profiles(table: TableInfo) -> list[ColumnProfile]:
    """Profiles from names, types, CHECK constraints and catalog samples only (no rows read)."""
    checks = column_checks(table.checks, [c.name for c in table.columns])
    out = []
    for c in table.columns:
        p = profile_column(
            table.name, c, list(c.samples), table.row_count, check=checks.get(c.name)
        )
        sampled = p.enum_origin == "sample"
        out.append(
            replace(
                p,
                sampled_rows=0,
                distinct_count=0,
                null_ratio=0.0,
                enum_values=() if sampled else p.enum_values,
                enum_origin="" if sampled else p.enum_origin,
                is_unique=False,
            )
        )
    return out


def is_text_column(column: ColumnInfo) -> bool:
    """Whether the column holds text (or its type is unknown)."""
    return type_family(column.type) == "text"
