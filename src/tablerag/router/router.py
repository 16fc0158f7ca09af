"""Router v1: which path answers a question — documents, tables, both, small talk, or ask back.

Rules and a hand-weighted linear model over :mod:`tablerag.router.features` (cue words, catalog
words and values, time expressions, length) plus, optionally, a BM25 probe of the workspace's
text index. No LLM call; a decision takes well under a millisecond without the probe.

Scores: *data* and *knowledge* evidence are weighted sums of features; each side's intent
score is its evidence minus ``cross_penalty`` times the other side's; *hybrid* scores
``min(data, knowledge) + bias``, so it wins only when both sides are strong. A softmax turns
the five scores into probabilities; when the top of data/knowledge is below
``low_confidence.top_below`` and the other side is not negligible, the route is *hybrid* (the
caller runs both paths and fuses the answers).

Two-part questions (a figure *and* what a document says): :mod:`tablerag.router.parts` splits
the question into its parts, :func:`two_part` measures each part with the same evidence, and
when one part is clearly data and another clearly a document part the route is *hybrid* with
``needs_both`` (the answer is whole only when both paths answered).
"""

from __future__ import annotations

import json
import math
import re
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from typing import TYPE_CHECKING, Any, Literal, get_args

from tablerag.errors import RetrievalError
from tablerag.linking.cache import workspace_catalog
from tablerag.linking.catalog import SchemaCatalog, is_text_column
from tablerag.linking.linker import is_document_table
from tablerag.linking.values import ValueIndex
from tablerag.rag.retrieve import search
from tablerag.router.features import Features, Vocabulary, extract_features
from tablerag.router.parts import LeanRule, PartEvidence, split_parts, two_sides
from tablerag.types import Hit

if TYPE_CHECKING:
    from tablerag.store.workspace import Workspace

Intent = Literal["knowledge", "data", "hybrid", "chitchat", "ambiguous"]
INTENTS: tuple[Intent, ...] = get_args(Intent)
Probe = Callable[[str], Sequence[Hit]]
#: Values above this count make a column an identifier column: none of its values is vocabulary.
MAX_VALUES_PER_COLUMN = 200
#: Longer values (sentences, formulas) are not matched as catalog values.
MAX_VALUE_CHARS = 24
PROBE_K = 8
#: Least probe strength of both the table and the prose side for a data/knowledge question with
#: multi-hop cues to go to the TableRAG loop.
LOOP_MIN_STRENGTH = 0.5
#: Parts of a question measured for :func:`two_part`; later parts are not looked at.
MAX_PARTS = 4
_NUMBERISH = re.compile(r"^[\d\s.,:/%+-]+$")
_CLAUSE = re.compile(r"[；;，,（(：:。.=]")


@dataclass(frozen=True)
class Route:
    """The router's decision: intent, confidence in [0, 1], why, and every intent's score."""

    intent: Intent
    confidence: float
    reasons: tuple[str, ...]
    scores: Mapping[str, float]
    """Probability of each intent (softmax of the linear scores); they sum to 1."""
    evidence: Mapping[str, float] = field(default_factory=dict)
    """Raw data / knowledge evidence and probe strengths, for debugging and benchmarks."""
    loop: bool = False
    """Multi-hop or set-level over tables and text: the caller runs the TableRAG loop."""
    needs_both: bool = False
    """The question has a data part *and* a document part (a figure and a rule): intent
    ``hybrid``, and the answer is whole only when both paths answered their part."""

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: ``intent``, ``confidence``, ``reasons``, ``scores``, ``evidence``."""
        return {
            "intent": self.intent,
            "confidence": self.confidence,
            "reasons": list(self.reasons),
            "scores": dict(self.scores),
            "evidence": dict(self.evidence),
            "loop": self.loop,
            "needs_both": self.needs_both,
        }


@dataclass(frozen=True)
class RouterContext:
    """What the router knows about a workspace; build it once with :meth:`from_catalog`.

    ``probe`` (optional) searches the text index; the router derives document-side strength
    from prose hits and table-side strength from hits whose chunk belongs to a table.
    """

    vocabulary: Vocabulary = field(default_factory=Vocabulary)
    probe: Probe | None = None
    value_columns: Mapping[str, str] = field(default_factory=dict)
    note: str = ""
    """Said in every route's reasons (e.g. that no workspace was available)."""
    document_tables: frozenset[str] = frozenset()
    """Tables cut from documents (the handbook's commission table): a probe hit on one is a
    hit on the document's text, so it counts for the document side."""

    @classmethod
    def empty(cls, note: str = "no workspace: rules and question features only") -> RouterContext:
        """A context with no catalog and no probe: rules and features alone."""
        return cls(note=note)

    @classmethod
    def from_catalog(
        cls, catalog: SchemaCatalog | None, *, probe: Probe | None = None
    ) -> RouterContext:
        """Catalog words and short values of the linking ``catalog``, and an optional probe.

        The values come from the catalog's :class:`~tablerag.linking.values.ValueIndex`, the
        one the linker uses, filtered by :func:`router_values`. Hidden (sensitive) columns are
        not in the catalog, so neither their names nor their values reach the router.

        Args:
            catalog: the linking catalog, e.g. :func:`~tablerag.linking.cache.workspace_catalog`;
                None when the workspace has no tables.
            probe: searches the text index (see the class docstring).
        """
        if catalog is None:
            return cls(probe=probe)
        words: list[str] = []
        for table in catalog.tables.values():
            words.append(table.name)
            words.extend(_head_clauses(table.description))
            for column in table.columns:
                words.append(column.name)
                words.extend(_head_clauses(column.description))
        values = router_values(catalog.values) if catalog.values is not None else {}
        # Tables queried in place have no rows in the index; their catalog samples stand in.
        for table in catalog.tables.values():
            if table.stored:
                continue
            for column in table.columns:
                if is_text_column(column):
                    for value in column.samples:
                        if 2 <= len(value) <= MAX_VALUE_CHARS and not _NUMBERISH.match(value):
                            values.setdefault(value, f"{table.name}.{column.name}")
        documents = frozenset(n for n, t in catalog.tables.items() if is_document_table(t))
        return cls(Vocabulary.build(words, values), probe, values, document_tables=documents)

    @classmethod
    def from_workspace(cls, workspace: Workspace, *, probe: bool = True) -> RouterContext:
        """:meth:`from_catalog` of the workspace's linking catalog, plus (optionally) a BM25 probe.

        The probe uses the workspace, so keep it open while routing. Callers that already hold
        the catalog (``QA.open``) should call :meth:`from_catalog` instead of building it again.

        Raises:
            EngineError: a table could not be read while profiling it.
        """
        search_probe: Probe | None = None
        if probe:

            def search_probe(question: str) -> Sequence[Hit]:
                return search(workspace, question, k=PROBE_K, mode="bm25")

        return cls.from_catalog(workspace_catalog(workspace), probe=search_probe)


def router_values(index: ValueIndex) -> dict[str, str]:
    """The values of ``index`` the router matches, each with the first column that stores it.

    Router v1's filters, kept when its own DISTINCT scan gave way to the linker's index: at
    most :data:`MAX_VALUE_CHARS` characters, not number-like (``12.5%``, ``2026-10``), and
    none from a column with more than :data:`MAX_VALUES_PER_COLUMN` such values (order ids,
    customer ids: identifiers, not vocabulary). Values keep their case, so upper-case codes
    still match case-sensitively.

    Example:
        >>> from tablerag.linking.values import ValueIndex
        >>> ix = ValueIndex()
        >>> ix.add("region", "name", ["华东", "华北"])
        >>> ix.add("sales", "status", ["PAID", "2026-10-01", "12.5%"])
        >>> ix.add("sales", "order_id", [f"SO{n:05d}" for n in range(MAX_VALUES_PER_COLUMN + 1)])
        >>> router_values(ix)
        {'华东': 'region.name', '华北': 'region.name', 'PAID': 'sales.status'}
    """
    short = [(value, owners) for value, owners in index.items() if len(value) <= MAX_VALUE_CHARS]
    per_column = Counter(owner for _, owners in short for owner in owners)
    out: dict[str, str] = {}
    for value, owners in short:
        kept = [o for o in owners if per_column[o] <= MAX_VALUES_PER_COLUMN]
        if kept and not _NUMBERISH.match(value):
            out[value] = f"{kept[0][0]}.{kept[0][1]}"
    return out


def _head_clauses(description: str) -> list[str]:
    """The first clause of each language part of a description ("商品名称 / Product name")."""
    return [_CLAUSE.split(part, maxsplit=1)[0].strip() for part in description.split(" / ")]


@lru_cache(maxsize=1)
def load_weights() -> dict[str, Any]:
    """The packaged weights (``tablerag/router/data/router_weights.json``)."""
    text = resources.files("tablerag.router").joinpath("data/router_weights.json")
    weights: dict[str, Any] = json.loads(text.read_text("utf-8"))
    return weights


def route(question: str, context: RouterContext | None = None) -> Route:
    """Decide which path answers ``question``.

    Args:
        question: the user's question, Chinese or English.
        context: catalog vocabulary and optional probe; default: rules and features only.

    Returns:
        The intent with a confidence, human-readable reasons and every intent's probability.

    Example:
        >>> route("上月华东的毛利是多少？").intent
        'data'
        >>> route("毛利是怎么定义的？").intent
        'knowledge'
        >>> route("谢谢！").intent, route("那个呢").intent
        ('chitchat', 'ambiguous')
    """
    ctx = context or RouterContext.empty()
    w = load_weights()
    reasons: list[str] = [ctx.note] if ctx.note else []
    ev = measure(question, ctx, reasons)
    raw = _raw_scores(ev, w)
    if not ev.features.length:
        raw = {k: (5.0 if k == "ambiguous" else 0.0) for k in raw}
        reasons.append("rule: the question has no words")
    probs = _softmax(raw)
    intent, confidence = _decide(probs, w["low_confidence"], reasons)
    reasons.extend(_explain(ev, ctx))
    sides = two_part(question, ctx) if intent != "chitchat" else None
    if sides is not None:
        intent = "hybrid"
        confidence = probs["data"] + probs["knowledge"] + probs["hybrid"]
        data_part, document_part = (repr(side.text) for side in sides)
        reasons.insert(
            0, f"two-part question: data part {data_part}, document part {document_part}"
        )
    loop = needs_loop(intent, ev.features, ev.doc, ev.table)
    if loop:
        reasons.insert(
            0,
            f"multi-hop/set-level cues ({', '.join(ev.features.multi_hop)}) over tables and "
            "text: the TableRAG loop",
        )
    evidence = {
        "data": round(ev.data, 3),
        "knowledge": round(ev.knowledge, 3),
        "doc": ev.doc,
        "table": ev.table,
    }
    return Route(
        intent, round(confidence, 3), tuple(reasons), probs, evidence, loop, sides is not None
    )


@dataclass(frozen=True)
class Evidence:
    """What the router measured of one text: its features and the evidence of each side."""

    features: Features
    vector: Mapping[str, float]
    """The capped feature counts the weights multiply."""
    data: float
    knowledge: float
    doc: float
    """Document-side strength of the probe, in [0, 1)."""
    table: float
    """Table-side strength of the probe, in [0, 1)."""


def measure(text: str, ctx: RouterContext, reasons: list[str]) -> Evidence:
    """Features, probe strengths and the data and knowledge evidence of ``text``.

    Args:
        text: a question, or one part of it.
        ctx: what the router knows of the workspace.
        reasons: a failing probe says so here.
    """
    w = load_weights()
    f = extract_features(text, ctx.vocabulary)
    doc, table = _probe(ctx, text, reasons) if f.length else (0.0, 0.0)
    x = _vector(f, w["caps"])
    data = _dot(w["data"], x) + w["data"]["table_strength"] * table
    knowledge = _dot(w["knowledge"], x) + w["knowledge"]["doc_strength"] * doc
    return Evidence(f, x, data, knowledge, doc, table)


def two_part(question: str, ctx: RouterContext) -> tuple[PartEvidence, PartEvidence] | None:
    """A clear data part and a clear document part of ``question``, or None (issue 23).

    Each part of :func:`~tablerag.router.parts.split_parts` (at most :data:`MAX_PARTS`) is
    measured on its own, probe included; the thresholds are ``two_part`` in the weights.

    Example:
        >>> sides = two_part("上月华东的毛利是多少？按制度毛利率不得低于多少？", RouterContext())
        >>> [p.text for p in sides or ()]
        ['上月华东的毛利是多少', '按制度毛利率不得低于多少']
        >>> two_part("华东和华北上月的毛利分别是多少？", RouterContext()) is None
        True
    """
    parts = split_parts(question)[:MAX_PARTS]
    if len(parts) < 2:
        return None
    rule = LeanRule(**load_weights()["two_part"])
    measured = []
    for text in parts:
        ev = measure(text, ctx, [])
        cues = ev.features.cues["policy"] + ev.features.cues["meta"]
        measured.append(PartEvidence(text, ev.data, ev.knowledge, cues, ev.doc, ev.table))
    return two_sides(measured, rule)


def _raw_scores(ev: Evidence, w: Mapping[str, Any]) -> dict[str, float]:
    """The linear score of each intent (see the module docstring)."""
    x, data, know = ev.vector, ev.data, ev.knowledge
    pen = w["cross_penalty"]
    content = (
        x["aggregate"]
        + x["measure"]
        + x["measure_alone"]
        + x["policy"]
        + x["meta"]
        + x["catalog_values"]
    )
    short = max(0.0, 1 - ev.features.length / w["ambiguous"]["short_length"])
    return {
        "knowledge": know - pen * data,
        "data": data - pen * know,
        "hybrid": min(data, know)
        + w["hybrid"]["bias"]
        - (w["hybrid"]["meta_penalty"] if x["meta"] > 0 else 0),
        "chitchat": w["chitchat"]["chitchat"] * x["chitchat"]
        + w["chitchat"]["bias"]
        + w["chitchat"]["leftover"] * x["leftover"]
        - w["chitchat"]["content_penalty"] * min(content, 1.0),
        "ambiguous": w["ambiguous"]["bias"]
        + w["ambiguous"]["vague"] * x["vague"]
        + w["ambiguous"]["shortness"] * short
        + w["ambiguous"]["leftover"] * x["leftover"]
        - w["ambiguous"]["content_penalty"] * content,
    }


def needs_loop(intent: Intent, f: Features, doc: float, table: float) -> bool:
    """Whether a question goes to the TableRAG loop instead of a one-call path.

    It must carry a multi-hop or set-level cue and concern tables *and* text: routed hybrid,
    or a data/knowledge question whose probe found both table and prose chunks
    (:data:`LOOP_MIN_STRENGTH` each). Simple questions keep the one-call paths.

    Example:
        >>> from tablerag.router.features import extract_features
        >>> f = extract_features("What was the change in revenue from 2018 to 2019?")
        >>> needs_loop("data", f, 0.6, 0.7), needs_loop("data", f, 0.0, 0.7)
        (True, False)
        >>> needs_loop("data", extract_features("What was revenue in 2019?"), 0.6, 0.7)
        False
    """
    if not f.multi_hop or intent in ("chitchat", "ambiguous"):
        return False
    if intent == "hybrid":
        return True
    return doc >= LOOP_MIN_STRENGTH and table >= LOOP_MIN_STRENGTH


def _vector(f: Features, caps: Mapping[str, int]) -> dict[str, float]:
    # A metric word alone ("退款的流程") is weak; with an aggregate, time or "how many" it counts.
    anchored = bool(f.cues["aggregate"] or f.cues["time"] or f.quantity_words)
    counts = {
        "aggregate": f.count("aggregate"),
        "measure": f.count("measure") if anchored else 0,
        "measure_alone": 0 if anchored else f.count("measure"),
        "time": f.count("time"),
        "policy": f.count("policy"),
        "meta": min(f.count("meta"), 1),
        "chitchat": f.count("chitchat"),
        "vague": f.count("vague"),
        "quantity_question": min(len(f.quantity_words), 1),
        "reason_question": min(len(f.reason_words), 1),
        "catalog_values": len(f.catalog_values),
        "catalog_words": len(f.catalog_words),
        "digits": 1 if f.digits else 0,
        "leftover": len(f.leftover),
    }
    return {k: float(min(v, caps.get(k, v))) for k, v in counts.items()}


def _dot(weights: Mapping[str, float], x: Mapping[str, float]) -> float:
    return sum(weights[k] * x[k] for k in weights if k in x)


def _softmax(raw: Mapping[str, float]) -> dict[str, float]:
    top = max(raw.values())
    exp = {k: math.exp(v - top) for k, v in raw.items()}
    total = sum(exp.values())
    return {k: round(exp[k] / total, 4) for k in INTENTS}


def _decide(
    probs: Mapping[str, float], rule: Mapping[str, float], reasons: list[str]
) -> tuple[Intent, float]:
    best: Intent = max(INTENTS, key=lambda k: probs[k])
    if best in ("data", "knowledge"):
        other = "knowledge" if best == "data" else "data"
        rest = probs[other] + probs["hybrid"]
        if probs[best] < rule["top_below"] and rest >= rule["other_and_hybrid_at_least"]:
            reasons.append(
                f"low confidence between data ({probs['data']:.2f}) and knowledge "
                f"({probs['knowledge']:.2f}): run both paths and fuse"
            )
            return "hybrid", probs["data"] + probs["knowledge"] + probs["hybrid"]
    return best, probs[best]


def _probe(ctx: RouterContext, question: str, reasons: list[str]) -> tuple[float, float]:
    """Document-side and table-side strength in [0, 1) from the top BM25 scores.

    Hits on a table cut from a document count for the document side.
    """
    if ctx.probe is None:
        return 0.0, 0.0
    try:
        hits = ctx.probe(question)
    except RetrievalError as exc:
        reasons.append(f"retrieval probe skipped: {exc}")
        return 0.0, 0.0
    half = float(load_weights()["probe"]["half_score"])
    prose = [h.score for h in hits if h.table is None or h.table in ctx.document_tables]
    tables = [h.score for h in hits if h.table is not None and h.table not in ctx.document_tables]
    doc, table = max(prose, default=0.0), max(tables, default=0.0)
    return round(doc / (doc + half), 3), round(table / (table + half), 3)


def _explain(ev: Evidence, ctx: RouterContext) -> list[str]:
    f = ev.features
    meta = ev.vector["meta"] > 0
    out: list[str] = []
    if f.cues["chitchat"]:
        out.append(f"small-talk cues: {', '.join(f.cues['chitchat'])}")
    if meta:
        out.append(f"meta-question ({', '.join(f.cues['meta'])}): definitions live in documents")
    data_cues = [f"{c} ({fam})" for fam in ("aggregate", "measure", "time") for c in f.cues[fam]]
    if data_cues:
        out.append("data cues: " + ", ".join(data_cues))
    if f.catalog_values:
        found = [f"{v} → {ctx.value_columns.get(v, _lookup(ctx, v))}" for v in f.catalog_values]
        out.append("catalog values: " + ", ".join(found))
    if f.catalog_words:
        out.append("catalog words: " + ", ".join(f.catalog_words))
    if f.cues["policy"]:
        out.append("document cues: " + ", ".join(f.cues["policy"]))
    if f.cues["vague"]:
        out.append("vague words: " + ", ".join(f.cues["vague"]))
    if ctx.probe is not None:
        out.append(f"retrieval probe: documents {ev.doc:.2f}, tables {ev.table:.2f}")
    out.append(f"evidence: data {ev.data:.2f}, knowledge {ev.knowledge:.2f}")
    return out


def _lookup(ctx: RouterContext, lowered: str) -> str:
    for value, column in ctx.value_columns.items():
        if value.lower() == lowered:
            return column
    return "?"
