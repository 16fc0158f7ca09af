"""The workspace's semantic model as the compiler and the answer path read it.

:class:`Knowledge` wraps an :class:`~tablerag.semantic.ossie.OssieDocument` (one or more Ossie
semantic models, one namespace) with lookups by name and synonym, and reads tablerag's
extension of each entry (:data:`~tablerag.semantic.ossie.VENDOR`): units, calibers, default
filters, draft or confirmed.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from tablerag.semantic.ossie import (
    Dataset,
    Expression,
    Metric,
    OssieDocument,
    OssieField,
    Relationship,
    Status,
    ansi,
)

DRAFT_MODEL = "drafted"
"""Name of the semantic model ``tablerag knowledge draft`` writes; the models people imported
take precedence over it (rename it when you confirm it)."""
DEFAULT_CALIBER = "default"
"""Name of a metric's own expression when its extension names no caliber."""


@dataclass(frozen=True)
class Caliber:
    """One way to compute a metric: its expression and the filters that always apply to it."""

    name: str
    expression: Expression
    filters: tuple[str, ...] = ()
    """Field references (``dataset.field`` of a boolean field) or boolean SQL expressions."""
    description: str = ""
    is_default: bool = True


@dataclass(frozen=True)
class MetricView:
    """A metric with its calibers (the default first), unit and status."""

    metric: Metric
    calibers: tuple[Caliber, ...]
    unit: str | None
    time_field: str | None
    """``dataset.field`` the metric's time range applies to (None: the first time dimension of
    the dataset its expression reads)."""
    status: Status

    @property
    def name(self) -> str:
        return self.metric.name

    def caliber(self, name: str | None = None) -> Caliber:
        """The caliber called ``name`` (the default when None or unknown)."""
        for c in self.calibers:
            if name is not None and c.name.lower() == name.lower():
                return c
        return self.calibers[0]

    def label(self, language: str) -> str:
        """The name a reader of ``language`` knows it by: the first synonym in that script."""
        for word in self.metric.synonyms:
            if (language == "zh") == bool(_HAN.search(word)):
                return word
        return self.metric.name


_HAN = re.compile(r"[\u3400-\u9fff]")


@dataclass
class Knowledge:
    """Lookups over a semantic model document."""

    document: OssieDocument
    datasets: dict[str, Dataset] = field(init=False)
    relationships: list[Relationship] = field(init=False)
    metrics: dict[str, MetricView] = field(init=False)
    values: dict[str, tuple[str, ...]] = field(default_factory=dict)
    """``dataset.field`` (lower case) → values the data holds (catalog samples), for the
    prompt, so a filter value is written as the data writes it."""

    def __post_init__(self) -> None:
        self.datasets, self.relationships, self.metrics = {}, [], {}
        models = sorted(self.document.semantic_model, key=lambda m: m.name == DRAFT_MODEL)
        for model in models:  # the people's models first: a drafted entry never shadows them
            for ds in model.datasets:
                self.datasets.setdefault(ds.name.lower(), ds)
            self.relationships += model.relationships or []
            for m in model.metrics or []:
                self.metrics.setdefault(m.name.lower(), metric_view(m))

    def dataset(self, name: str) -> Dataset | None:
        return self.datasets.get(name.lower())

    def field(self, ref: str) -> tuple[Dataset, OssieField] | None:
        """The dataset and field of ``dataset.field``, or None."""
        ds_name, _, f_name = ref.rpartition(".")
        ds = self.dataset(ds_name)
        found = ds.field(f_name) if ds is not None else None
        return (ds, found) if ds is not None and found is not None else None

    def metric(self, name: str) -> MetricView | None:
        return self.metrics.get(name.lower())

    def fields(self) -> Iterable[tuple[Dataset, OssieField]]:
        for ds in self.datasets.values():
            for f in ds.fields or []:
                yield ds, f

    def dimensions(self) -> list[str]:
        """``dataset.field`` of every field a question may group by (not named filters)."""
        return [f"{ds.name}.{f.name}" for ds, f in self.fields() if not f.is_filter]

    def named_filters(self) -> list[str]:
        """``dataset.field`` of every computed boolean field."""
        return [f"{ds.name}.{f.name}" for ds, f in self.fields() if f.is_filter]

    def filters_named(self, question: str) -> list[str]:
        """``dataset.field`` of the named filters (boolean fields: 流浪狗, senior dogs) the
        question names by name or synonym, outside the words that name a metric ("vet" in
        "vet bill", 省油车 in 省油车的占比 when that metric is the share of them)."""
        text = question.lower()
        metric_words = [w.lower() for m in self.metrics.values() for w in _names(m) if w]
        spans = [(s, s + len(w)) for w in metric_words for s in _find(text, w)]
        out = []
        for ds, f in self.fields():
            if not f.is_filter:
                continue
            words = [w.lower() for w in (f.name.replace("_", " "), *f.synonyms) if w]
            if any(
                not any(a <= s and s + len(w) <= b for a, b in spans)
                for w in words
                for s in _find(text, w)
            ):
                out.append(f"{ds.name}.{f.name}")
        return out

    def mentioned(self, question: str) -> list[MetricView]:
        """Metrics the question names by name or synonym, longest match first (a question
        naming 毛利率 is about 毛利率, not 毛利)."""
        text = question.lower()
        hits: list[tuple[int, MetricView]] = []
        taken: list[tuple[int, int]] = []
        words = sorted(
            ((w.lower(), m) for m in self.metrics.values() for w in _names(m)),
            key=lambda pair: -len(pair[0]),
        )
        for word, view in words:
            start = next(
                (s for s in _find(text, word) if not any(a <= s < b for a, b in taken)), -1
            )
            if start < 0:
                continue
            taken.append((start, start + len(word)))
            if all(view is not v for _, v in hits):
                hits.append((start, view))
        if not hits:
            return self._by_unit(question)
        return [v for _, v in sorted(hits, key=lambda pair: pair[0])]

    def _by_unit(self, question: str) -> list[MetricView]:
        """The one metric whose unit the question counts in ("卖了多少件" → the metric in 件),
        when no other metric has that unit; money and ratio units name no single metric."""
        owners: dict[str, list[MetricView]] = {}
        for view in self.metrics.values():
            if view.unit and view.unit not in ("元", "%"):
                owners.setdefault(view.unit, []).append(view)
        for unit, views in owners.items():
            if len(views) == 1 and f"多少{unit}" in question:
                return views
        return []


def _names(view: MetricView) -> list[str]:
    return [view.name, view.name.replace("_", " "), *view.metric.synonyms]


def _find(text: str, word: str) -> list[int]:
    """Where ``word`` occurs in ``text``; Latin words only as whole words."""
    if _HAN.search(word):
        return [m.start() for m in re.finditer(re.escape(word), text)]
    pattern = rf"(?<![a-z0-9_]){re.escape(word)}(?![a-z0-9_])"
    return [m.start() for m in re.finditer(pattern, text)]


def metric_view(metric: Metric) -> MetricView:
    """Read a metric's extension into a :class:`MetricView`.

    Example:
        >>> m = Metric(name="gp", expression=ansi("SUM(t.a)"))
        >>> m.set_ext({"caliber": "净额口径", "filters": ["t.is_paid"], "unit": "元",
        ...            "calibers": [{"name": "含未支付", "expression": "SUM(t.a)"}]})
        >>> v = metric_view(m)
        >>> [c.name for c in v.calibers], v.caliber().filters, v.unit
        (['净额口径', '含未支付'], ('t.is_paid',), '元')
    """
    ext: dict[str, Any] = metric.ext
    calibers = [
        Caliber(
            name=str(ext.get("caliber") or DEFAULT_CALIBER),
            expression=metric.expression,
            filters=tuple(ext.get("filters") or ()),
            description=str(ext.get("caliber_description") or metric.description or ""),
        )
    ]
    for alt in ext.get("calibers") or []:
        calibers.append(
            Caliber(
                name=str(alt["name"]),
                expression=ansi(str(alt["expression"])),
                filters=tuple(alt.get("filters") or ()),
                description=str(alt.get("description") or ""),
                is_default=False,
            )
        )
    return MetricView(
        metric=metric,
        calibers=tuple(calibers),
        unit=ext.get("unit"),
        time_field=ext.get("time_field"),
        status=metric.status,
    )


def metric_terms(document: OssieDocument) -> tuple[tuple[str, str], ...]:
    """(English, Chinese) names of one metric, from each metric's name and synonyms: what the
    linker adds to a question in one language to find the other's words (a definition row
    退货率 for "return rate"). English names of one word ("sales", "profit") are left out, so
    that a common word in an English-only schema's question adds nothing.

    Example:
        >>> from tablerag.semantic.ossie import loads
        >>> doc = loads('''
        ... version: 0.2.0.dev0
        ... semantic_model:
        ... - name: m
        ...   datasets: [{name: t, source: t}]
        ...   metrics:
        ...   - name: return_rate
        ...     expression: {dialects: [{dialect: ANSI_SQL, expression: COUNT(*)}]}
        ...     ai_context: {synonyms: [退货率, refund rate, returns]}
        ... ''')
        >>> metric_terms(doc)
        (('return rate', '退货率'), ('refund rate', '退货率'))
    """
    out: dict[tuple[str, str], None] = {}
    for view in Knowledge(document).metrics.values():
        names = [view.name.replace("_", " "), *view.metric.synonyms]
        chinese = [n for n in names if _HAN.search(n)]
        english = [n.lower() for n in names if not _HAN.search(n) and " " in n.strip()]
        out.update(dict.fromkeys((en, zh) for en in english for zh in chinese))
    return tuple(out)
