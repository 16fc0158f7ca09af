"""The workspace's semantic model: import (checked, all or nothing), export, list, show.

One workspace holds one namespace of Ossie semantic models (:mod:`tablerag.store.knowledge`).
An import is checked against the workspace's catalog first (:func:`check_model` on the models
it would leave in the workspace); any problem refuses the whole file.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import duckdb

from tablerag.errors import ConfigError
from tablerag.rag.rewrite import Synonym
from tablerag.semantic.check import Finding, check_metric, check_model
from tablerag.semantic.knowledge import DRAFT_MODEL, Knowledge
from tablerag.semantic.ossie import (
    WRITE_VERSION,
    KnowledgeInvalid,
    OssieDocument,
    SemanticModel,
    expression_for,
    loads,
    to_data,
)
from tablerag.semantic.terms import document_terms, model_terms
from tablerag.store.knowledge import drop_model, read_models, replace_models
from tablerag.types import TableInfo

DRAFT_ORIGIN = "draft"


@dataclass(frozen=True)
class Entry:
    """One entry of the model as ``knowledge list`` shows it."""

    kind: str
    name: str
    status: str
    expression: str
    synonyms: tuple[str, ...]
    description: str
    model: str


def stored_document(con: duckdb.DuckDBPyConnection) -> OssieDocument | None:
    """The workspace's semantic model (None when none was imported or drafted).

    Raises:
        KnowledgeInvalid: a stored model no longer parses (written by another version).
    """
    rows = read_models(con)
    if not rows:
        return None
    versions = {r.version for r in rows}
    version = versions.pop() if len(versions) == 1 else WRITE_VERSION
    return OssieDocument.model_validate(
        {"version": version, "semantic_model": [r.data for r in rows]}
    )


def stored_terms(con: duckdb.DuckDBPyConnection) -> tuple[Synonym, ...]:
    """The document terms of the workspace's semantic model, ``(words, term)`` each; none
    when there is no model or the stored one no longer parses (``knowledge check`` says why)."""
    try:
        return document_terms(stored_document(con))
    except KnowledgeInvalid:
        return ()


def read_file(path: Path) -> OssieDocument:
    """Parse an Ossie YAML or JSON file.

    Raises:
        KnowledgeInvalid: unreadable, not Ossie, a foreign version, or malformed.
    """
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise KnowledgeInvalid([f"cannot read {str(path)!r}: {exc}"]) from exc
    return loads(text, where=repr(str(path)))


def import_document(
    con: duckdb.DuckDBPyConnection,
    document: OssieDocument,
    tables: list[TableInfo],
    *,
    origin: str,
    replace_all: bool = False,
) -> list[Finding]:
    """Check ``document`` with what stays in the workspace, then store it atomically.

    Returns:
        The findings (empty); nothing is stored when there are any, and they are raised.

    Raises:
        KnowledgeInvalid: every problem found; the workspace's model is unchanged.
    """
    stored = None if replace_all else stored_document(con)
    draft = _draft_of(stored) if DRAFT_MODEL not in _names_of(document) else None
    merged = merge(without_draft(stored), document)
    findings = check_model(merged, tables)
    if findings:
        raise KnowledgeInvalid([str(f) for f in findings], what=f"The semantic model from {origin}")
    kept = fit_draft(draft, merged, tables) if draft is not None else None
    con.execute("BEGIN TRANSACTION")
    try:
        replace_models(
            con,
            [_model_data(m) for m in document.semantic_model],
            version=document.version,
            origin=origin,
            keep_others=not replace_all,
        )
        if draft is not None:  # the draft gives way to what people imported
            drop_model(con, DRAFT_MODEL)
            if kept is not None:
                replace_models(con, [_model_data(kept)], version=WRITE_VERSION, origin=DRAFT_ORIGIN)
    except BaseException:
        con.execute("ROLLBACK")
        raise
    con.execute("COMMIT")
    return findings


def _names_of(document: OssieDocument) -> set[str]:
    return {m.name for m in document.semantic_model}


def _draft_of(document: OssieDocument | None) -> SemanticModel | None:
    if document is None:
        return None
    return next((m for m in document.semantic_model if m.name == DRAFT_MODEL), None)


def without_draft(document: OssieDocument | None) -> OssieDocument | None:
    if document is None:
        return None
    kept = [m for m in document.semantic_model if m.name != DRAFT_MODEL]
    return OssieDocument(version=document.version, semantic_model=kept) if kept else None


def fit_draft(
    draft: SemanticModel, confirmed: OssieDocument | None, tables: Sequence[TableInfo]
) -> SemanticModel | None:
    """The drafted model without what people's models already define (same kind and name, or a
    metric name or synonym theirs claim), and without the drafted metrics that no longer
    compile beside them; None when no drafted dataset is left (an Ossie model needs one)."""
    model = draft.model_copy(deep=True)
    if confirmed is None:
        return model
    taken = {(kind, name.lower()) for kind, name, _ in confirmed.entities()}
    model.datasets = [d for d in model.datasets if ("dataset", d.name.lower()) not in taken]
    if not model.datasets:
        return None
    rels = model.relationships or []
    model.relationships = [r for r in rels if ("relationship", r.name.lower()) not in taken] or None
    claimed = {
        w.lower()
        for m in Knowledge(confirmed).metrics.values()
        for w in (m.name, *m.metric.synonyms)
    }  # a drafted metric under a word people gave their own metric would make it ambiguous
    metrics = [
        m for m in model.metrics or [] if not {w.lower() for w in (m.name, *m.synonyms)} & claimed
    ]
    model.metrics = metrics or None
    merged = OssieDocument(
        version=confirmed.version, semantic_model=[*confirmed.semantic_model, model]
    )
    knowledge = Knowledge(merged)
    model.metrics = [m for m in metrics if not check_metric(knowledge, m.name, tables)] or None
    return model


def _model_data(model: SemanticModel) -> dict[str, Any]:
    data = to_data(OssieDocument(version=WRITE_VERSION, semantic_model=[model]))["semantic_model"][
        0
    ]
    assert isinstance(data, dict)
    return data


def merge(base: OssieDocument | None, added: OssieDocument) -> OssieDocument:
    """``base`` with ``added``'s models replacing those of the same name."""
    if base is None:
        return added
    names = {m.name for m in added.semantic_model}
    kept = [m for m in base.semantic_model if m.name not in names]
    return OssieDocument(version=added.version, semantic_model=[*kept, *added.semantic_model])


def entries(document: OssieDocument) -> list[Entry]:
    """Every dataset, field, relationship and metric (with its calibers' names), then each
    model's document terms (kind ``term``, the words people use as its synonyms)."""
    out = []
    for model in document.semantic_model:
        sub = OssieDocument(version=document.version, semantic_model=[model])
        for kind, name, entity in sub.entities():
            expression = getattr(entity, "expression", None)
            text = expression_for(expression) if expression is not None else None
            if kind == "dataset":
                shown = str(getattr(entity, "source", ""))
            elif kind == "relationship":
                rel = entity
                shown = (
                    f"{getattr(rel, 'from_', '')}({', '.join(getattr(rel, 'from_columns', []))})"
                    f" → {getattr(rel, 'to', '')}({', '.join(getattr(rel, 'to_columns', []))})"
                )
            else:
                shown = text[0] if text else ""
            out.append(
                Entry(
                    kind=kind,
                    name=name,
                    status=entity.status,
                    expression=shown,
                    synonyms=tuple(entity.synonyms),
                    description=str(getattr(entity, "description", "") or ""),
                    model=model.name,
                )
            )
        for term, words in model_terms(model):
            out.append(Entry("term", term, model.status, "", words, "document term", model.name))
    return out


def show(document: OssieDocument, name: str) -> dict[str, Any]:
    """One entry (metric, dataset, ``dataset.field`` or relationship; a metric also by a
    synonym) as Ossie data, with its calibers for a metric.

    Raises:
        ConfigError: no entry has that name (close names suggested).
    """
    import difflib

    for _, entry_name, entity in document.entities():
        if entry_name.lower() == name.lower():
            data = entity.model_dump(by_alias=True, exclude_none=True, mode="json")
            view = Knowledge(document).metric(name)
            if view is not None:
                data["calibers"] = [
                    {"name": c.name, "default": c.is_default, "filters": list(c.filters)}
                    for c in view.calibers
                ]
                data["unit"] = view.unit
            data["status"] = entity.status
            return data
    for view in Knowledge(document).metrics.values():  # a metric by one of its synonyms
        if name.lower() in (w.lower() for w in view.metric.synonyms):
            return show(document, view.name)
    names = [n for _, n, _ in document.entities()]
    close = difflib.get_close_matches(name, names, n=3)
    hint = f" Did you mean {', '.join(repr(c) for c in close)}?" if close else ""
    raise ConfigError(
        f"No entry of the semantic model is called {name!r}.{hint} `tablerag knowledge list` "
        "shows them all."
    )
