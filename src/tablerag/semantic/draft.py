"""Propose a semantic model from what the workspace already knows; every entry is a draft.

From the catalog: one dataset per data table (tables read out of documents are knowledge, not
data), its keys, a field per column (dates as time dimensions; a number in 分 — by its unit or
its description — as an amount in 元, ``col / 100.0``, so every later sum is in 元 by
construction), a ``SUM`` metric per amount and quantity column and a row count per table,
relationships from the foreign keys. From definition tables inside documents (a column naming
the metric, one its formula): metrics whose formula translates (Σ → SUM, × ÷ − → * / -, a
trailing ``，status = 'PAID'`` → the metric's filter, columns qualified by the one dataset that
has them, "x / 100" of a 分 column → its converted field) and passes the gate. Whatever does
not translate is left out, never guessed.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable, Sequence
from typing import Any

import duckdb
from pydantic import BaseModel, Field

from tablerag.errors import ProviderError, TableragError
from tablerag.linking.fkgraph import is_idlike
from tablerag.linking.linker import definition_columns, is_document_table
from tablerag.llm.base import LLM
from tablerag.semantic.check import check_metric
from tablerag.semantic.knowledge import DRAFT_MODEL, Knowledge
from tablerag.semantic.ossie import (
    WRITE_VERSION,
    AIContext,
    Dataset,
    Dimension,
    Metric,
    OssieDocument,
    OssieField,
    Relationship,
    SemanticModel,
    ansi,
)
from tablerag.sql.sensitive import hidden_columns
from tablerag.sql.units import column_unit, is_measure
from tablerag.store.workspace import Workspace
from tablerag.types import ColumnInfo, TableInfo

log = logging.getLogger(__name__)


def draft_model(
    tables: Sequence[TableInfo],
    definitions: Sequence[tuple[str, str]] = (),
    *,
    llm: LLM | None = None,
) -> OssieDocument:
    """A draft model of ``tables`` plus the metrics of ``definitions`` (term, formula text)
    that translate and pass the gate.

    Args:
        tables: the workspace's catalog.
        definitions: (term, formula) pairs read from definition tables or documents.
        llm: when given, a definition the rules cannot translate is translated by the model
            (one call each, JSON constrained); its expression must pass the gate like any other.
    """
    data = [t for t in tables if not is_document_table(t)]
    datasets = [_dataset(t) for t in data]
    names = {d.name.lower() for d in datasets}
    edges = {
        (t.name, fk.ref_table, tuple(fk.columns), tuple(fk.ref_columns)): (t, fk)
        for t in data
        for fk in t.foreign_keys
        if fk.ref_table.lower() in names
    }  # a key declared twice is one relationship
    relationships = _named_apart([_relationship(t, fk) for t, fk in edges.values()])
    measures = {t.name: _measures(t) for t in data}
    shared = _shared(c.name for cs in measures.values() for c in cs)
    metrics: list[Metric] = []
    for t in data:
        metrics.append(_metric(f"{t.name}_count", "COUNT(*)", f"Rows of {t.name}", None, t.name))
        for c in measures[t.name]:
            unit = "元" if _in_fen(c) else _unit(c)
            total = f"total_{t.name}_{c.name}" if c.name.lower() in shared else f"total_{c.name}"
            described = f" ({c.description})" if c.description else ""
            metrics.append(
                _metric(
                    total,
                    f"SUM({t.name}.{c.name})",
                    f"Sum of {t.name}.{c.name}{described}",
                    unit,
                    t.name,
                )
            )
    model = SemanticModel(
        name=DRAFT_MODEL,
        description="Drafted by tablerag from the catalog and the definition documents.",
        datasets=datasets or [Dataset(name="empty", source="empty")],
        relationships=relationships or None,
        metrics=metrics or None,
    )
    doc = OssieDocument(version=WRITE_VERSION, semantic_model=[model])
    taken = {m.name.lower() for m in metrics}
    for term, formula in definitions:
        name = _metric_name(term)
        if name is None or name.lower() in taken:
            continue
        candidates = [_from_definition(term, formula, datasets, tables)]
        if llm is not None and not _passes(doc, candidates[0], tables):
            candidates.append(_translated(term, formula, doc, llm))
        for metric in candidates:
            if metric is not None and _passes(doc, metric, tables):
                doc = _with_metric(doc, metric)
                taken.add(metric.name.lower())
                break
    return doc


def _with_metric(doc: OssieDocument, metric: Metric) -> OssieDocument:
    trial = doc.model_copy(deep=True)
    trial.semantic_model[0].metrics = [*(trial.semantic_model[0].metrics or []), metric]
    return trial


def _passes(doc: OssieDocument, metric: Metric | None, tables: Sequence[TableInfo]) -> bool:
    """The metric compiles against the catalog through the gate (with the draft so far)."""
    if metric is None:
        return False
    return not check_metric(Knowledge(_with_metric(doc, metric)), metric.name, tables)


class _Translation(BaseModel):
    translatable: bool = True
    expression: str = ""
    filters: list[str] = Field(default_factory=list)


def _translated(term: str, formula: str, doc: OssieDocument, llm: LLM) -> Metric | None:
    """The model's translation of one definition (None when it says it cannot, or fails)."""
    from tablerag.prompts import render

    knowledge = Knowledge(doc)
    lines = ["Fields (dataset.field, unit):"]
    for ds, f in knowledge.fields():
        unit = f.ext.get("unit")
        lines.append(f"- {ds.name}.{f.name}{f' ({unit})' if unit else ''}: {f.description or ''}")
    lines.append("Metrics: " + ", ".join(v.name for v in knowledge.metrics.values()))
    chat = render("semantic_draft", schema="\n".join(lines), question=f"{term} = {formula}")
    try:
        reply = llm.complete_structured(chat, _Translation, retries=1, max_tokens=200)
    except ProviderError as exc:
        log.info("draft: the model could not translate %r: %s", term, exc)
        return None
    name = _metric_name(term)
    if not reply.translatable or not reply.expression.strip() or name is None:
        return None
    metric = Metric(
        name=name, expression=ansi(reply.expression.strip()), description=f"{term}: {formula}",
        ai_context=AIContext(synonyms=[term]) if term != name else None,
    )  # fmt: skip
    ext: dict[str, Any] = {"status": "draft", "translated_by": llm.spec}
    if reply.filters:
        ext["filters"] = [f for f in reply.filters if f.strip()]
    metric.set_ext(ext)
    return metric


def _metric_name(term: str) -> str | None:
    name = _PAREN.sub("", term).strip()
    return name if name and re.fullmatch(r"\w+", name) else None


def draft_workspace(ws: Workspace, *, llm: LLM | None = None) -> OssieDocument:
    """:func:`draft_model` of the workspace: its catalog, its definition tables' rows and the
    definitions its documents state in prose (``毛利 = 净额 − 成本``).

    Ingest can call this at its end without ``llm`` (cheap: no model call, one small query per
    definition table) and store the result with :func:`store_draft`.
    """
    tables = ws.tables()
    definitions = [*definition_rows(ws, tables), *prose_definitions(c.text for c in ws.chunks())]
    return draft_model(tables, definitions, llm=llm)


_PROSE = re.compile(
    r"^\s*(?:[-*]\s*)?(?P<term>[\w（）()]{1,16}?)\s*[=＝]\s*"
    r"(?P<formula>[^=＝\n。；;]{3,120}?)\s*(?:[。；;].*)?$"
)
_OPERATOR = re.compile(r"[÷×−+\-*/Σ]")


def prose_definitions(texts: Iterable[str]) -> list[tuple[str, str]]:
    """(term, formula) of lines that state a definition: a short term, ``=``, a formula with an
    operator (``客单价 = 销售额（净额） ÷ 订单数。``); the first statement of a term wins.

    Example:
        >>> texts = ["## 毛利\\n毛利 = 净额 − 成本。", "x = 1", "客单价 = 销售额 ÷ 订单数"]
        >>> prose_definitions(texts)
        [('毛利', '净额 − 成本'), ('客单价', '销售额 ÷ 订单数')]
    """
    out: dict[str, str] = {}
    for text in texts:
        for line in text.splitlines():
            found = _PROSE.match(line)
            if found and _OPERATOR.search(found["formula"]) and not found["term"].isdigit():
                out.setdefault(found["term"], found["formula"].strip())
    return list(out.items())


def store_draft(ws: Workspace, document: OssieDocument) -> int:
    """Store the draft as the workspace's ``drafted`` model, without what people's models
    already define (:func:`~tablerag.semantic.library.fit_draft`). An entry of the stored
    ``drafted`` model a person confirmed (its ``status`` mark removed) is kept as it is and
    never replaced by a new proposal. Returns the number of drafted entries stored (0: nothing
    was left to draft)."""
    from tablerag.semantic.library import stored_document, without_draft
    from tablerag.semantic.ossie import to_data
    from tablerag.store.knowledge import drop_model, replace_models

    stored = stored_document(ws.con)
    kept = confirmed_part(stored)
    people = without_draft(stored)
    if kept is not None:
        people = OssieDocument(
            version=WRITE_VERSION,
            semantic_model=[*(people.semantic_model if people else []), kept],
        )
    model = proposal(document, people, ws.tables())
    drafted = 0 if model is None else sum(1 for _ in _doc(model).entities())
    merged = _merged(kept, model)
    if merged is None and kept is not None:
        return 0  # confirmed entries that need no drafted dataset: leave them as they are
    with ws.transaction() as con:
        drop_model(con, DRAFT_MODEL)
        if merged is not None:
            data = to_data(_doc(merged))
            replace_models(con, data["semantic_model"], version=WRITE_VERSION, origin="draft")
    return drafted


def proposal(
    document: OssieDocument, people: OssieDocument | None, tables: Sequence[TableInfo]
) -> SemanticModel | None:
    """The drafted model :func:`store_draft` stores beside ``people``'s models: without what
    they define (:func:`~tablerag.semantic.library.fit_draft`), every dataset, relationship
    and metric marked ``draft``; None when nothing is left to draft."""
    from tablerag.semantic.library import fit_draft

    model = fit_draft(document.semantic_model[0], people, tables)
    if model is not None:
        for entity in [*model.datasets, *(model.relationships or []), *(model.metrics or [])]:
            entity.set_ext({**entity.ext, "status": "draft"})
    return model


def draft_quietly(ws: Workspace) -> int | None:
    """:func:`draft_workspace` and :func:`store_draft`, for the end of an ingest: a failure is
    logged and never raised (the sources are stored; ``tablerag knowledge draft`` says what is
    wrong). Returns the entries drafted, or None when drafting failed."""
    try:
        drafted = store_draft(ws, draft_workspace(ws))
    except (TableragError, duckdb.Error) as exc:
        log.warning("the semantic model was not drafted: %s", exc)
        return None
    log.info("drafted %d semantic model entries", drafted)
    return drafted


def _doc(model: SemanticModel) -> OssieDocument:
    return OssieDocument(version=WRITE_VERSION, semantic_model=[model])


def confirmed_part(document: OssieDocument | None) -> SemanticModel | None:
    """The entries of the stored ``drafted`` model a person confirmed (datasets,
    relationships and metrics without the ``draft`` mark), or None when there are none."""
    models = document.semantic_model if document is not None else []
    old = next((m for m in models if m.name == DRAFT_MODEL), None)
    if old is None:
        return None
    kept = old.model_copy(deep=True)
    kept.datasets = [d for d in kept.datasets if d.status == "confirmed"]
    kept.relationships = [r for r in kept.relationships or [] if r.status == "confirmed"] or None
    kept.metrics = [m for m in kept.metrics or [] if m.status == "confirmed"] or None
    if not kept.datasets and not kept.relationships and not kept.metrics:
        return None
    return kept


def _merged(kept: SemanticModel | None, model: SemanticModel | None) -> SemanticModel | None:
    """One ``drafted`` model: the confirmed entries kept, then the new proposals."""
    if kept is None or model is None:
        return model if kept is None else (kept if kept.datasets else None)
    return model.model_copy(
        update={
            "datasets": [*kept.datasets, *model.datasets],
            "relationships": [*(kept.relationships or []), *(model.relationships or [])] or None,
            "metrics": [*(kept.metrics or []), *(model.metrics or [])] or None,
        }
    )


def definition_rows(ws: Workspace, tables: Sequence[TableInfo]) -> list[tuple[str, str]]:
    """(term, formula) of every row of a document's definition table."""
    out = []
    for t in tables:
        found = definition_columns(t)
        if found is None:
            continue
        term, formula = found
        for row in _rows(ws, t.name, term, formula):
            if row[0] and row[1]:
                out.append((str(row[0]), str(row[1])))
    return out


def _rows(ws: Workspace, table: str, *columns: str) -> list[tuple[Any, ...]]:
    quoted = ", ".join('"' + c.replace('"', '""') + '"' for c in columns)
    name = '"' + table.replace('"', '""') + '"'
    return ws.con.execute(f"SELECT {quoted} FROM data.{name}").fetchall()


def _datatype(c: ColumnInfo) -> str | None:
    t = c.type.upper()
    if "TIMESTAMP" in t and "TZ" in t:
        return "DateTimeTz"
    if "TIMESTAMP" in t or "DATETIME" in t:
        return "DateTime"
    if t.startswith("DATE"):
        return "Date"
    if "BOOL" in t:
        return "Boolean"
    if "INT" in t:
        return "Integer"
    if any(w in t for w in ("DEC", "NUMERIC")):
        return "Decimal"
    if any(w in t for w in ("DOUBLE", "FLOAT", "REAL")):
        return "Float"
    if any(w in t for w in ("CHAR", "TEXT", "STRING")):
        return "String"
    return None


def _in_fen(c: ColumnInfo) -> bool:
    return column_unit(c) == "分"


def _unit(c: ColumnInfo) -> str | None:
    if not c.unit:
        return None
    return c.unit.split()[0]


def _field(c: ColumnInfo) -> OssieField:
    fen = _in_fen(c)
    datatype = "Decimal" if fen else _datatype(c)
    f = OssieField(
        name=c.name,
        expression=ansi(f"{_ident(c.name)} / 100.0" if fen else _ident(c.name)),
        description=c.description or None,
        datatype=datatype,
        dimension=Dimension(is_time=True) if datatype in ("Date", "DateTime") else None,
    )
    ext: dict[str, Any] = {"status": "draft"}
    if fen:
        ext.update(unit="元", source_unit="分")
    elif is_measure(c) and _unit(c):
        ext["unit"] = _unit(c)
    f.set_ext(ext)
    return f


def _dataset(t: TableInfo) -> Dataset:
    hidden = set(hidden_columns(t))  # never in the model: it would name them to the model
    ds = Dataset(
        name=t.name,
        source=t.name,
        primary_key=list(t.primary_key) or None,
        description=t.description or None,
        fields=[_field(c) for c in t.columns if c.name not in hidden],
    )
    ds.set_ext({"status": "draft"})
    return ds


def _measures(t: TableInfo) -> list[ColumnInfo]:
    """The columns of ``t`` a draft sums: numbers that are not keys (its primary and foreign
    key columns, and names like ``StuID``, ``学生ID``) nor hidden."""
    keys = {k.lower() for k in t.primary_key}
    keys |= {c.lower() for fk in t.foreign_keys for c in fk.columns}
    hidden = set(hidden_columns(t))
    return [
        c
        for c in t.columns
        if is_measure(c)
        and c.name not in hidden
        and c.name.lower() not in keys
        and not is_idlike(c.name)
    ]


def _shared(names: Iterable[str]) -> set[str]:
    """The names (lower-case) that occur more than once.

    Example:
        >>> sorted(_shared(["Age", "age", "Sales"]))
        ['age']
    """
    seen: set[str] = set()
    twice: set[str] = set()
    for name in names:
        low = name.lower()
        (twice if low in seen else seen).add(low)
    return twice


def _named_apart(relationships: list[Relationship]) -> list[Relationship]:
    """``relationships`` with a name used twice (two keys of one table on the same columns,
    to two tables) made unique by the table each points to."""
    shared = _shared(r.name for r in relationships)
    for r in relationships:
        if r.name.lower() in shared:
            r.name = f"{r.name}_{r.to}"
    return relationships


def _relationship(t: TableInfo, fk: Any) -> Relationship:
    rel = Relationship.model_validate(
        {
            "name": f"{t.name}_{'_'.join(fk.columns)}",
            "from": t.name,
            "to": fk.ref_table,
            "from_columns": list(fk.columns),
            "to_columns": list(fk.ref_columns),
        }
    )
    rel.set_ext({"status": "draft"})
    return rel


def _metric(name: str, expr: str, description: str, unit: str | None, table: str) -> Metric:
    m = Metric(name=name, expression=ansi(expr), description=description)
    m.set_ext({"status": "draft", "dataset": table, **({"unit": unit} if unit else {})})
    return m


def _ident(name: str) -> str:
    return name if re.fullmatch(r"[a-z_][a-z0-9_]*", name) else '"' + name.replace('"', '""') + '"'


_PAREN = re.compile(r"[（(][^）)]*[）)]")
_FILTER_TAIL = re.compile(r"[，,;；]\s*(.+)$")
_SYMBOLS = {"−": "-", "–": "-", "×": "*", "÷": "/", "Σ": "SUM", "＝": "=", "，": ",", "’": "'",
            "‘": "'"}  # fmt: skip


def _from_definition(
    term: str, formula: str, datasets: list[Dataset], tables: Sequence[TableInfo]
) -> Metric | None:
    """A draft metric for one definition row, or None when its formula does not translate."""
    name = _metric_name(term)
    if name is None:
        return None
    text = formula
    filters: list[str] = []
    tail = _FILTER_TAIL.search(text)
    if tail and "=" in tail.group(1):
        filters.append(tail.group(1).strip())
        text = text[: tail.start()]
    for old, new in _SYMBOLS.items():
        text = text.replace(old, new)
    text = _PAREN.sub("", text) if not re.search(r"\w\s*\(", text) else text
    owners = _owners(tables, datasets)
    fen = {c.name.lower() for t in tables for c in t.columns if _in_fen(c)}
    text = re.sub(
        r"\b(SUM\s*\(\s*)?([A-Za-z_]\w*)(\s*\))?\s*/\s*100(?:\.0+)?\b",
        lambda m: (
            (m.group(1) or "") + m.group(2) + (m.group(3) or "")
            if m.group(2).lower() in fen and bool(m.group(1)) == bool(m.group(3))
            else m.group(0)
        ),
        text,
    )
    home = _home(" ".join([text, *filters]), owners)
    text = _qualify(text, owners, home)
    filters = [_qualify(f, owners, home) for f in filters]
    if text is None or any(f is None for f in filters):
        return None
    metric = Metric(
        name=name, expression=ansi(text), description=f"{term}: {formula}",
        ai_context=AIContext(synonyms=[term]) if term != name else None,
    )  # fmt: skip
    metric.set_ext({"status": "draft", **({"filters": filters} if filters else {})})
    return metric


def _owners(tables: Sequence[TableInfo], datasets: list[Dataset]) -> dict[str, list[str]]:
    names = {d.name.lower() for d in datasets}
    out: dict[str, list[str]] = {}
    for t in tables:
        if t.name.lower() in names:
            for c in t.columns:
                out.setdefault(c.name.lower(), []).append(t.name)
    return out


def _home(text: str, owners: dict[str, list[str]]) -> str | None:
    """The one dataset that alone has some column the formula names (it settles a column two
    datasets have: ``order_id`` with ``status`` is ``fact_sales.order_id``)."""
    words = {w.lower() for w in re.findall(r"[A-Za-z_]\w*", text)}
    alone = {owners[w][0] for w in words if len(owners.get(w, [])) == 1}
    return alone.pop() if len(alone) == 1 else None


def _qualify(text: str | None, owners: dict[str, list[str]], home: str | None = None) -> Any:
    """Qualify bare column names with the one dataset that has them (None if two do and the
    formula's other columns do not settle which)."""
    if text is None:
        return None
    ambiguous = False

    def repl(m: re.Match[str]) -> str:
        nonlocal ambiguous
        word = m.group(0)
        who = owners.get(word.lower())
        if who is None:
            return word
        if len(who) > 1:
            if home in who:
                return f"{home}.{word}"
            ambiguous = True
        return f"{who[0]}.{word}"

    out = re.sub(r"(?<![\w.'])[A-Za-z_]\w*(?![\w'(])", repl, text)
    return None if ambiguous else out
