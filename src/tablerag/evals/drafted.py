"""A benchmark database's drafted semantic model, and how its answers used it (``--knowledge``).

``tablerag eval sql --knowledge draft`` answers each database's questions as ``ask`` would in
a workspace where ``tablerag knowledge draft`` was run over that database alone: the same
drafting function over the catalog the product sees (no documents, so no definitions and no
model call: the draft is deterministic), stored as :func:`~tablerag.semantic.draft.store_draft`
stores it, read back as ``ask`` reads it. The outcome of each answer records whether the
semantic path answered it (:func:`semantic_use`); :func:`semantic_figures` splits the accuracy
of those answers from the rest.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

from tablerag.answer import Answer
from tablerag.evals.heldout import latest_per_method
from tablerag.evals.runner import Outcome
from tablerag.semantic.draft import draft_model, proposal
from tablerag.semantic.ossie import WRITE_VERSION, OssieDocument, dumps, to_data
from tablerag.semantic.path import NO_DEFINITION
from tablerag.types import TableInfo

KNOWLEDGE = ("none", "draft")
"""The semantic model each database of a run has: none, or the draft of its catalog."""
Knowledge = Literal["none", "draft"]
SEMANTIC = "semantic"
"""The outcome detail key: ``answered`` (the semantic path answered), ``declined`` (the
question named a metric of the model; the free-SQL path answered instead) or None."""
SemanticUse = Literal["answered", "declined"]
DRAFTS = "drafts"
"""The run folder's subfolder of the drafted models, one Ossie file per database."""
MODEL_KINDS = ("metric", "field", "dataset", "relationship")
"""``Answer.knowledge`` kinds that are the semantic model's (``example`` is a verified query)."""


def drafted_document(tables: Sequence[TableInfo]) -> OssieDocument | None:
    """The semantic model a workspace holding only ``tables`` has after ``tablerag knowledge
    draft``: :func:`~tablerag.semantic.draft.draft_model` of the catalog (no definitions, no
    model), the entries :func:`~tablerag.semantic.draft.store_draft` would store, read back
    as the workspace's stored data. None when nothing was drafted."""
    model = proposal(draft_model(tables), None, tables)
    if model is None:
        return None
    data = to_data(OssieDocument(version=WRITE_VERSION, semantic_model=[model]))
    return OssieDocument.model_validate(
        {"version": WRITE_VERSION, "semantic_model": data["semantic_model"]}
    )


def metric_names(document: OssieDocument | None) -> list[str]:
    """The metrics of ``document`` (none without one)."""
    if document is None:
        return []
    return [m.name for model in document.semantic_model for m in model.metrics or []]


def write_drafts(
    semantic: Callable[[str], OssieDocument | None], databases: Sequence[str], folder: Path
) -> dict[str, Any]:
    """Draft the model of each of ``databases`` (``semantic``, which keeps it for the run),
    write each to ``folder/drafts/<db>.yaml`` for reading, and return the figures ``run.json``
    records: databases, those with a drafted metric, metrics, and the metrics per database.

    Raises:
        EngineError: a database's SQLite file could not be read.
    """
    out = folder / DRAFTS
    out.mkdir(parents=True, exist_ok=True)
    per: dict[str, int] = {}
    for db in databases:
        document = semantic(db)
        per[db] = len(metric_names(document))
        if document is not None:
            (out / f"{db}.yaml").write_text(dumps(document), encoding="utf-8")
    return {
        "databases": len(per),
        "with_metrics": sum(1 for n in per.values() if n),
        "metrics": sum(per.values()),
        "metrics_per_database": per,
    }


def semantic_use(answer: Answer) -> SemanticUse | None:
    """Whether the semantic path answered (an entry of the model among ``answer.knowledge``),
    or declined a question naming one of its metrics (the free-SQL answer's ``no_definition``
    check); None when the model played no part."""
    if any(k.kind in MODEL_KINDS for k in answer.knowledge):
        return "answered"
    return "declined" if NO_DEFINITION in answer.checks else None


def model_entries(answer: Answer) -> list[dict[str, Any]]:
    """The semantic model's entries ``answer`` followed, as the outcome detail records them."""
    return [
        k.model_dump(mode="json", exclude_none=True)
        for k in answer.knowledge
        if k.kind in MODEL_KINDS
    ]


def semantic_figures(outcomes: Iterable[Outcome]) -> dict[str, Any]:
    """Per method that answered with a semantic model: how many answers the semantic path
    gave and how accurate they were, the questions it declined, and the accuracy of the
    rest (the last outcome of a repeated pair wins).

    Example:
        >>> o = [Outcome("1", "m", True, 1.0, detail={SEMANTIC: "answered"}),
        ...      Outcome("2", "m", False, 0.0, detail={SEMANTIC: "declined"}),
        ...      Outcome("3", "m", True, 1.0, detail={SEMANTIC: None})]
        >>> semantic_figures(o)["semantic"]["m"]["answered_accuracy"]
        1.0
        >>> semantic_figures(o)["semantic"]["m"]["other_accuracy"]
        0.5
    """
    per = latest_per_method(outcomes, SEMANTIC)
    figures = {}
    for method, done in per.items():
        answered = [o for o in done if o.detail.get(SEMANTIC) == "answered"]
        declined = [o for o in done if o.detail.get(SEMANTIC) == "declined"]
        others = [o for o in done if o.detail.get(SEMANTIC) != "answered"]
        figures[method] = {
            "n": len(done),
            "answered": len(answered),
            "answered_accuracy": _accuracy(answered),
            "declined": len(declined),
            "declined_accuracy": _accuracy(declined),
            "other_accuracy": _accuracy(others),
        }
    return {SEMANTIC: figures} if figures else {}


def semantic_markdown(figures: Mapping[str, Mapping[str, Any]]) -> list[str]:
    """The report's section of :func:`semantic_figures` (nothing when empty).

    Example:
        >>> semantic_markdown({"m": {"n": 3, "answered": 1, "answered_accuracy": 1.0,
        ...     "declined": 1, "declined_accuracy": 0.0, "other_accuracy": 0.5}})[-2]
        '| m | 3 | 1 | 100.0% | 1 | 0.0% | 50.0% |'
    """
    if not figures:
        return []
    lines = [
        "## Semantic path",
        "",
        "Answers the semantic path gave (the model filled a request over the semantic model "
        "and tablerag compiled the SQL), questions that named a metric of the model but were "
        "answered by free SQL (declined), and the accuracy of every answer the semantic path "
        "did not give.",
        "",
        "| method | n | semantic answers | accuracy | declined | accuracy | other answers' "
        "accuracy |",
        "|---|---|---|---|---|---|---|",
    ]
    for method, f in figures.items():
        lines.append(
            f"| {method} | {f['n']} | {f['answered']} | {_share(f['answered_accuracy'])} | "
            f"{f['declined']} | {_share(f['declined_accuracy'])} | "
            f"{_share(f['other_accuracy'])} |"
        )
    return [*lines, ""]


def _share(value: float | None) -> str:
    return "—" if value is None else f"{100 * value:.1f}%"


def _accuracy(outcomes: Sequence[Outcome]) -> float | None:
    return round(sum(o.correct for o in outcomes) / len(outcomes), 4) if outcomes else None
