"""The schema-linking evaluation: recall of gold tables and columns, prompt size, latency.

Per question: the gold tables and columns come from the gold SQL (:mod:`tablerag.evals.gold`);
the linker's output is *strict* hit when it contains every gold table (every gold column).
A table or column the schema text names in any tier counts, the compact tier's one-line
listings (name and column names, no types or samples) and the "other columns" lists included:
the model sees those names. The ``*_full`` figures count only what is shown in full.
Prompt tokens compare the linked schema text with the full schema text of the same database,
rendered the same way. Baselines: "all tables" (the full schema) and "top-k tables by text
similarity" (BM25 over each table's name, columns and descriptions, all columns kept).
The merged run puts every schema of the dataset(s) in one catalog (tables renamed
``<db>.<table>``) and links each question against all of them.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, replace
from pathlib import Path

from tablerag.evals.datasets.spider import Dataset, LinkingCase
from tablerag.evals.gold import gold_schema
from tablerag.evals.stats import percentile
from tablerag.lang.tokenize import tokenize
from tablerag.linking.catalog import SchemaCatalog, build_catalog
from tablerag.linking.linker import LinkedSchema, LinkOptions, link
from tablerag.linking.render import render_full, render_linked, render_table
from tablerag.linking.rows import SQLiteRows
from tablerag.rag.bm25 import BM25Index
from tablerag.tokens import count_tokens
from tablerag.types import ForeignKey, TableInfo


@dataclass(frozen=True)
class CaseResult:
    """One question's outcome."""

    db_id: str
    question: str
    table_hit: bool
    column_hit: bool
    tables_selected: int
    tables_gold: int
    columns_selected: int
    columns_gold: int
    tokens: int
    full_tokens: int
    latency_ms: float
    missing_tables: tuple[str, ...] = ()
    missing_columns: tuple[str, ...] = ()
    table_hit_full: bool = False
    """Every gold table is among the tables shown in full (not only by name)."""
    column_hit_full: bool = False
    """Every gold column is shown in full (with its type, comments and samples)."""
    tables_full: int = 0


@dataclass(frozen=True)
class Summary:
    """The numbers a linking run reports."""

    dataset: str
    method: str
    n_questions: int
    n_unparsed: int
    strict_table_recall: float
    strict_column_recall: float
    mean_tables_selected: float
    mean_tables_gold: float
    mean_columns_selected: float
    mean_columns_gold: float
    prompt_tokens_mean: float
    full_schema_tokens_mean: float
    prompt_token_ratio: float
    """Mean over questions of (linked schema tokens / full schema tokens)."""
    linking_p50_ms: float
    linking_p95_ms: float
    catalog_tables: int
    build_seconds: float
    strict_table_recall_full: float = 0.0
    """Strict table recall counting only the tables shown in full (no compact tier)."""
    strict_column_recall_full: float = 0.0
    """Strict column recall counting only the columns shown in full."""
    mean_tables_full: float = 0.0
    """Tables shown in full per question (``mean_tables_selected`` counts every tier)."""

    def as_dict(self) -> dict[str, object]:
        """The summary as a plain dict (for ``--json``)."""
        return asdict(self)


def summarise(
    dataset: str,
    method: str,
    results: Sequence[CaseResult],
    unparsed: int,
    tables: int,
    build_seconds: float,
) -> Summary:
    """Aggregate per-question results."""
    n = len(results) or 1
    lat = [r.latency_ms for r in results]

    def mean(values: Iterable[float]) -> float:
        return round(sum(values) / n, 3)

    return Summary(
        dataset=dataset,
        method=method,
        n_questions=len(results),
        n_unparsed=unparsed,
        strict_table_recall=mean(r.table_hit for r in results),
        strict_column_recall=mean(r.column_hit for r in results),
        mean_tables_selected=mean(r.tables_selected for r in results),
        mean_tables_gold=mean(r.tables_gold for r in results),
        mean_columns_selected=mean(r.columns_selected for r in results),
        mean_columns_gold=mean(r.columns_gold for r in results),
        prompt_tokens_mean=mean(r.tokens for r in results),
        full_schema_tokens_mean=mean(r.full_tokens for r in results),
        prompt_token_ratio=mean(r.tokens / max(1, r.full_tokens) for r in results),
        linking_p50_ms=round(statistics.median(lat), 3) if lat else 0.0,
        linking_p95_ms=round(percentile(lat, 95), 3),
        catalog_tables=tables,
        build_seconds=round(build_seconds, 3),
        strict_table_recall_full=mean(r.table_hit_full for r in results),
        strict_column_recall_full=mean(r.column_hit_full for r in results),
        mean_tables_full=mean(r.tables_full for r in results),
    )


def build_catalogs(
    data: Dataset, *, use_values: bool, use_declared_keys: bool = True
) -> dict[str, SchemaCatalog]:
    """One catalog per database; values (and profiles) from the SQLite file when used."""
    out = {}
    for db, tables in data.schemas.items():
        path = data.databases.get(db) if use_values else None
        rows = SQLiteRows(path) if path is not None else None
        try:
            out[db] = build_catalog(
                _with_row_counts(tables, rows),
                rows=rows,
                redact=False,
                use_declared_keys=use_declared_keys,
            )
        finally:
            if rows is not None:
                rows.close()
    return out


def _with_row_counts(
    tables: list[TableInfo], rows: SQLiteRows | None, prefix: str = ""
) -> list[TableInfo]:
    if rows is None:
        return tables
    out = []
    for t in tables:
        name = t.name.removeprefix(prefix + ".") if prefix else t.name
        (count,) = rows.con.execute(f'SELECT count(*) FROM "{name}"').fetchone()
        out.append(replace(t, row_count=int(count)))
    return out


@dataclass(frozen=True)
class Selection:
    """What a method under test shows the model for one question.

    ``tables`` and ``columns`` are everything the schema text names, in any tier: a table or
    column listed by name only is shown, so it counts. ``full_tables`` and ``full_columns`` are
    the part shown in full (types, comments, samples); None when everything is.
    """

    tables: set[str]
    columns: set[tuple[str, str]]
    text: str
    full_tables: set[str] | None = None
    full_columns: set[tuple[str, str]] | None = None


Linker = Callable[[LinkingCase, SchemaCatalog], Selection]
"""A method under test: (case, catalog) → what the prompt shows."""


def graph_linker(options: LinkOptions | None = None) -> Linker:
    """The graph linker of :mod:`tablerag.linking` as a method under test."""

    def run(case: LinkingCase, catalog: SchemaCatalog) -> Selection:
        linked: LinkedSchema = link(case.question, catalog, history=case.history, options=options)
        return Selection(
            set(linked.shown_table_names),
            linked.shown_column_pairs,
            render_linked(catalog, linked).text,
            set(linked.table_names),
            linked.column_pairs,
        )

    return run


def all_tables_linker(case: LinkingCase, catalog: SchemaCatalog) -> Selection:
    """Baseline: the whole schema."""
    cols = {(t.name, c.name) for t in catalog.tables.values() for c in t.columns}
    return Selection(set(catalog.tables), cols, render_full(catalog).text)


def topk_linker(k: int) -> Linker:
    """Baseline: the ``k`` tables whose text (name, columns, descriptions) best matches (BM25)."""
    indexes: dict[int, tuple[BM25Index, list[str]]] = {}

    def run(case: LinkingCase, catalog: SchemaCatalog) -> Selection:
        if id(catalog) not in indexes:
            names = list(catalog.tables)
            docs = [_table_tokens(catalog.tables[n]) for n in names]
            indexes[id(catalog)] = (BM25Index.build(docs), names)
        index, names = indexes[id(catalog)]
        query = tokenize(" ".join([*case.history, case.question]))
        hits = index.search(query, k) if query else []
        picked = [names[i] for i, _ in hits] or names[:k]
        cols = {(t, c.name) for t in picked for c in catalog.tables[t].columns}
        text = "\n\n".join(render_table(catalog, t, None, catalog.edges) for t in picked)
        return Selection(set(picked), cols, text)

    return run


def _table_tokens(t: TableInfo) -> list[str]:
    words = [t.name.replace("_", " "), t.description]
    for c in t.columns:
        words += [c.name.replace("_", " "), c.description]
    return tokenize(" ".join(words)) or ["_"]


def evaluate(
    data: Dataset,
    catalogs: dict[str, SchemaCatalog],
    method: Linker,
    *,
    name: str,
    limit: int | None = None,
    merged: SchemaCatalog | None = None,
    build_seconds: float = 0.0,
) -> tuple[Summary, list[CaseResult]]:
    """Run ``method`` on every case (or the first ``limit``) and summarise.

    With ``merged``, every question is linked against the merged catalog and gold names are
    prefixed with the case's database (``<db>.<table>``); the full-schema size stays the
    case's own database so the token ratio means the same in both runs.
    """
    results: list[CaseResult] = []
    unparsed = 0
    full_tokens = {db: render_full(c).tokens for db, c in catalogs.items()}
    for case in data.cases[:limit]:
        gold = gold_schema(case.sql, data.schemas[case.db_id])
        if gold is None:
            unparsed += 1
            continue
        gold_tables, gold_cols = gold
        catalog = catalogs[case.db_id]
        if merged is not None:
            gold_tables = {f"{case.db_id}.{t}" for t in gold_tables}
            gold_cols = {(f"{case.db_id}.{t}", c) for t, c in gold_cols}
            catalog = merged
        started = time.perf_counter()
        shown = method(case, catalog)
        elapsed = (time.perf_counter() - started) * 1000
        tables, cols = shown.tables, shown.columns
        full_tables = tables if shown.full_tables is None else shown.full_tables
        full_cols = cols if shown.full_columns is None else shown.full_columns
        results.append(
            CaseResult(
                db_id=case.db_id,
                question=case.question,
                table_hit=gold_tables <= tables,
                column_hit=gold_cols <= cols,
                tables_selected=len(tables),
                tables_gold=len(gold_tables),
                columns_selected=len(cols),
                columns_gold=len(gold_cols),
                tokens=count_tokens(shown.text),
                full_tokens=full_tokens[case.db_id],
                latency_ms=round(elapsed, 3),
                missing_tables=tuple(sorted(gold_tables - tables)),
                missing_columns=tuple(sorted(f"{t}.{c}" for t, c in gold_cols - cols)),
                table_hit_full=gold_tables <= full_tables,
                column_hit_full=gold_cols <= full_cols,
                tables_full=len(full_tables),
            )
        )
    table_count = len(merged.tables) if merged else sum(len(c.tables) for c in catalogs.values())
    return summarise(data.name, name, results, unparsed, table_count, build_seconds), results


def merge_schemas(datasets: Sequence[Dataset]) -> dict[str, list[TableInfo]]:
    """All schemas in one, tables renamed ``<db>.<table>`` (keys renamed with them).

    A database id already taken by an earlier dataset becomes ``<db>@<dataset>``: CHASE's
    translated Spider databases keep Spider's ids, yet they are other databases.
    """
    return {name: tables for name, _, _, tables in _renamed(datasets)}


def _renamed(
    datasets: Sequence[Dataset],
) -> list[tuple[str, Dataset, str, list[TableInfo]]]:
    """(merged name, dataset, database id, renamed tables) of every database."""
    out: list[tuple[str, Dataset, str, list[TableInfo]]] = []
    taken: set[str] = set()
    for data in datasets:
        for db, tables in data.schemas.items():
            name = db if db not in taken else f"{db}@{data.name}"
            taken.add(name)
            renamed = [
                replace(
                    t,
                    name=f"{name}.{t.name}",
                    foreign_keys=tuple(
                        ForeignKey(fk.columns, f"{name}.{fk.ref_table}", fk.ref_columns)
                        for fk in t.foreign_keys
                    ),
                )
                for t in tables
            ]
            out.append((name, data, db, renamed))
    return out


def merged_catalog(
    datasets: Sequence[Dataset], *, use_values: bool, use_declared_keys: bool = True
) -> SchemaCatalog:
    """One catalog holding every database of ``datasets`` (see :func:`merge_schemas`).

    Keys are inferred within each database only (names like ``id`` would otherwise join
    unrelated databases), then the per-database catalogs are combined.
    """
    from tablerag.linking.catalog import combine

    parts = []
    for name, data, db, tables in _renamed(datasets):
        path = data.databases.get(db) if use_values else None
        rows = _RenamedRows(path, name) if path is not None else None
        try:
            parts.append(
                build_catalog(
                    _with_row_counts(tables, rows.inner, prefix=name) if rows else tables,
                    rows=rows,
                    redact=False,
                    use_declared_keys=use_declared_keys,
                )
            )
        finally:
            if rows is not None:
                rows.close()
    return combine(parts)


class _RenamedRows:
    """A SQLite row source addressed with ``<db>.<table>`` names."""

    def __init__(self, path: Path, db: str) -> None:
        self.inner = SQLiteRows(path)
        self.prefix = db + "."

    def close(self) -> None:
        self.inner.close()

    def sample(self, table: str, columns: Sequence[str], limit: int) -> list[tuple[object, ...]]:
        return self.inner.sample(table.removeprefix(self.prefix), columns, limit)


DATASETS = ("spider", "chase")


def load_dataset(kind: str, path: Path, *, infer_only: bool = False) -> Dataset:
    """Read a dataset by kind (``spider`` or ``chase``) from ``path``.

    Raises:
        ConfigError: unknown kind, or missing/malformed files.
    """
    from tablerag.errors import ConfigError
    from tablerag.evals.datasets.chase import load_chase
    from tablerag.evals.datasets.spider import load_spider

    if kind == "spider":
        return load_spider(path, keep_foreign_keys=not infer_only)
    if kind == "chase":
        return load_chase(path)
    raise ConfigError(f"Unknown dataset {kind!r}; use one of {', '.join(DATASETS)}.")


@dataclass(frozen=True)
class LinkingReport:
    """A linking run: the graph linker, the baselines, and the merged-catalog run if asked."""

    linker: Summary
    baselines: tuple[Summary, ...]
    merged: Summary | None = None

    def as_dict(self) -> dict[str, object]:
        """The linker's summary at the top level, baselines and merged run nested."""
        out = self.linker.as_dict()
        out["baselines"] = [b.as_dict() for b in self.baselines]
        out["merged"] = self.merged.as_dict() if self.merged else None
        return out


def run_linking(
    data: Dataset,
    *,
    use_values: bool = True,
    limit: int | None = None,
    merge_with: Sequence[Dataset] = (),
    merged: bool = False,
    options: LinkOptions | None = None,
    top_k: Sequence[int] = (2, 3),
) -> LinkingReport:
    """Evaluate the graph linker and the baselines on ``data`` (optionally merged).

    Args:
        data: the dataset.
        use_values: read the SQLite files for values and profiles (False: ``tables.json`` only).
        limit: only the first ``limit`` questions.
        merge_with: other datasets whose schemas join the merged catalog.
        merged: also run against one catalog holding every schema of ``data`` and
            ``merge_with``.
        options: linker knobs.
        top_k: the k of the "top-k tables by text similarity" baselines.
    """
    started = time.perf_counter()
    catalogs = build_catalogs(data, use_values=use_values)
    built = time.perf_counter() - started
    linker, _ = evaluate(
        data,
        catalogs,
        graph_linker(options),
        name="graph linker",
        limit=limit,
        build_seconds=built,
    )
    baselines = [evaluate(data, catalogs, all_tables_linker, name="all tables", limit=limit)[0]]
    baselines += [
        evaluate(data, catalogs, topk_linker(k), name=f"top-{k} tables (BM25)", limit=limit)[0]
        for k in top_k
    ]
    merged_summary = None
    if merged:
        started = time.perf_counter()
        big = merged_catalog([data, *merge_with], use_values=use_values)
        built = time.perf_counter() - started
        merged_summary, _ = evaluate(
            data,
            catalogs,
            graph_linker(options),
            name="graph linker, merged catalog",
            limit=limit,
            merged=big,
            build_seconds=built,
        )
    return LinkingReport(linker, tuple(baselines), merged_summary)
