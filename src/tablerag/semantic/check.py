"""Check a semantic model against the catalog: every problem, each naming its entry.

Structure (duplicate names, a synonym two metrics claim, a relationship to an unknown dataset or
between columns of different types, a dataset whose table no source has, a malformed document
term) is checked from the model and the catalog; every field, filter and metric caliber is then
compiled into a small query and sent through the SQL gate
(:func:`tablerag.sql.validate.validate`), which names an expression that does not parse or a
column that does not exist.
"""

from __future__ import annotations

import datetime as dt
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from tablerag.semantic.compile import NotCompiled, compile_request, units_of
from tablerag.semantic.knowledge import Knowledge
from tablerag.semantic.ossie import Metric, OssieDocument, ansi, expression_for
from tablerag.semantic.request import Request
from tablerag.semantic.terms import term_problems
from tablerag.sql.exposed import ExposedCatalog
from tablerag.sql.validate import validate
from tablerag.types import ColumnInfo, TableInfo

_TODAY = dt.date(2000, 1, 1)  # checks compile no time range; any date does


@dataclass(frozen=True)
class Finding:
    """One problem of one entry."""

    kind: str
    name: str
    message: str

    def __str__(self) -> str:
        return f"{self.kind} {self.name!r}: {self.message}"


def check_model(
    document: OssieDocument, tables: Sequence[TableInfo], *, dialect: str = "duckdb"
) -> list[Finding]:
    """Every problem of ``document`` against the catalog ``tables`` (empty: all entries pass).

    Args:
        document: the semantic model.
        tables: the catalog of the workspace (every source's tables).
        dialect: the dialect the gate parses the compiled checks in.
    """
    knowledge = Knowledge(document)
    by_table = _tables(tables)
    catalog = ExposedCatalog.from_tables(tables)  # a hidden column is refused, as at answer time
    found = _names(document) + _synonyms(knowledge)
    found += _datasets(knowledge, by_table, catalog, dialect)
    found += _relationships(knowledge, by_table)
    found += [Finding("model", name, problem) for name, problem in term_problems(document)]
    for view in knowledge.metrics.values():
        found += check_metric(knowledge, view.name, tables, dialect=dialect, catalog=catalog)
    return found


def check_metric(
    knowledge: Knowledge,
    name: str,
    tables: Sequence[TableInfo],
    *,
    dialect: str = "duckdb",
    catalog: ExposedCatalog | None = None,
) -> list[Finding]:
    """The problems of one metric's calibers (units, and each compiled through the gate)."""
    view = knowledge.metric(name)
    if view is None:
        return [Finding("metric", name, "is not defined")]
    catalog = catalog or ExposedCatalog.from_tables(tables)
    found: list[Finding] = []
    for caliber in view.calibers:
        label = view.name if caliber.is_default else f"{view.name} ({caliber.name})"
        text = expression_for(caliber.expression)
        if text is not None:
            found += [Finding("metric", label, p) for p in units_of(text[0], knowledge, text[1])]
        request = Request(metrics=[view.name], calibers={view.name: caliber.name})
        found += _gate(request, knowledge, catalog, dialect, "metric", label)
    return found


def _datasets(
    knowledge: Knowledge, by_table: dict[str, TableInfo], catalog: ExposedCatalog, dialect: str
) -> list[Finding]:
    found: list[Finding] = []
    probing = _probing(knowledge)  # one copy for every field: a copy per field was quadratic
    for ds in knowledge.datasets.values():
        info = by_table.get(ds.table.lower())
        if info is None:
            found.append(
                Finding(
                    "dataset",
                    ds.name,
                    f"its source {ds.source!r} names table {ds.table!r}, which no source of the "
                    f"workspace has (`tablerag tables` lists them)",
                )
            )
            continue
        for key in ds.primary_key or []:
            if _column(info, key) is None:
                found.append(
                    Finding("dataset", ds.name, f"primary key column {key!r} not in {info.name!r}")
                )
        for f in ds.fields or []:
            found += _gate_field(ds.name, f.name, probing, catalog, dialect)
    return found


def _tables(tables: Sequence[TableInfo]) -> dict[str, TableInfo]:
    out: dict[str, TableInfo] = {}
    for t in tables:
        out.setdefault(t.name.lower(), t)
        out.setdefault(t.name.rpartition(".")[2].lower(), t)
    return out


def _column(info: TableInfo, name: str) -> ColumnInfo | None:
    return next((c for c in info.columns if c.name.lower() == name.lower()), None)


def _names(document: OssieDocument) -> list[Finding]:
    out = []
    kinds = Counter((kind, name.lower()) for kind, name, _ in document.entities())
    for (kind, name), n in sorted(kinds.items()):
        if n > 1:
            out.append(Finding(kind, name, f"is defined {n} times; names must be unique"))
    return out


def _synonyms(knowledge: Knowledge) -> list[Finding]:
    """A word two metrics claim (as name or synonym) would make a question ambiguous."""
    owners: dict[str, list[str]] = {}
    for view in knowledge.metrics.values():
        for word in {view.name.lower(), *(s.lower() for s in view.metric.synonyms)}:
            owners.setdefault(word, []).append(view.name)
    return [
        Finding("metric", names[1], f"synonym {word!r} is also claimed by metric {names[0]!r}")
        for word, names in sorted(owners.items())
        if len(names) > 1
    ]


def _relationships(knowledge: Knowledge, by_table: dict[str, TableInfo]) -> list[Finding]:
    out = []
    for rel in knowledge.relationships:
        ends: list[list[ColumnInfo | None] | None] = []
        for side, cols in ((rel.from_, rel.from_columns), (rel.to, rel.to_columns)):
            ds = knowledge.dataset(side)
            if ds is None:
                out.append(Finding("relationship", rel.name, f"dataset {side!r} is not defined"))
                ends.append(None)
                continue
            info = by_table.get(ds.table.lower())
            columns = [(_column(info, c) if info else None) for c in cols]
            for c, col in zip(cols, columns, strict=True):
                if info is not None and col is None:
                    out.append(
                        Finding("relationship", rel.name, f"column {c!r} is not in {ds.table!r}")
                    )
            ends.append(columns)
        if len(rel.from_columns) != len(rel.to_columns):
            out.append(
                Finding("relationship", rel.name, "from_columns and to_columns differ in length")
            )
            continue
        left, right = ends
        for a, b in zip(left or [], right or [], strict=False):
            if a is not None and b is not None and _family(a.type) != _family(b.type):
                out.append(
                    Finding(
                        "relationship",
                        rel.name,
                        f"joins {a.name!r} ({a.type}) to {b.name!r} ({b.type}): different "
                        "types never match; fix the columns or cast in a field",
                    )
                )
    return out


def _family(sql_type: str) -> str:
    t = sql_type.upper()
    if any(w in t for w in ("INT", "DEC", "NUMERIC", "DOUBLE", "FLOAT", "REAL", "HUGEINT")):
        return "number"
    if "TIME" in t or "DATE" in t:
        return "time"
    if "BOOL" in t:
        return "boolean"
    return "text"


def _gate_field(
    ds_name: str, f_name: str, probing: Knowledge, catalog: ExposedCatalog, dialect: str
) -> list[Finding]:
    """A field compiled into a whole query: ``COUNT(*)`` (the probe metric of ``probing``, the
    model with that one metric more) over its dataset, grouped by it or filtered on it."""
    ref = f"{ds_name}.{f_name}"
    found = probing.field(ref)
    assert found is not None
    if found[1].is_filter:
        request = Request(metrics=[_PROBE], filters=[{"field": ref}])  # type: ignore[list-item]
    else:
        request = Request(metrics=[_PROBE], dimensions=[ref])
    return _gate(request, probing, catalog, dialect, "field", ref)


def _gate(
    request: Request,
    knowledge: Knowledge,
    catalog: ExposedCatalog,
    dialect: str,
    kind: str,
    name: str,
) -> list[Finding]:
    try:
        compiled = compile_request(request, knowledge, dialect=dialect, today=_TODAY)
    except NotCompiled as exc:
        return [Finding(kind, name, p) for p in exc.problems]
    return [Finding(kind, name, issue.message) for issue in validate(
        compiled.sql, dialect=dialect, catalog=catalog
    )]  # fmt: skip


def _probing(knowledge: Knowledge) -> Knowledge:
    """``knowledge`` with one more metric, ``COUNT(*)``, so a field compiles into a whole query
    over its dataset."""
    doc = knowledge.document.model_copy(deep=True)
    first = doc.semantic_model[0]
    first.metrics = [*(first.metrics or []), Metric(name=_PROBE, expression=ansi("COUNT(*)"))]
    return Knowledge(doc)


_PROBE = "__tablerag_probe__"
