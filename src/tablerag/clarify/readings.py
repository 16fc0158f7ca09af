"""The readings of a data question that give different numbers, found without a model call.

A question is asked back, with 2-4 concrete choices, only when what tablerag knows of the
workspace shows two readings that compute different numbers (issue 34):

* ``period``: it names a metric of the semantic model that adds up over time (a sum or a
  count: 销售额, 订单数) and no period ("销售额是多少？"); the choices are last month, this year
  and all the data.
* ``value``: a word of it is a value of two tables that no key joins ("华东" in the region
  table and in a document's table of sales targets), and the linker kept both tables.
* ``column``: it asks for a number, names no metric, and two or more measure columns of the
  linked tables score alike ("上月华东的金额" fits 应收金额, 优惠金额 ...).

A question with one sensible reading (a metric's default caliber, a value one table holds)
gets none: it is answered as asked, and the answer states what it assumed. Each choice carries
a question that stands alone and names its reading, so that the reading is not asked about
again when it is picked; the words of the choices are data (``lang/messages.json``), the cue
words are data too (``lang/readings.json``). Everything here is pure.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Literal

from tablerag.lang.messages import Language, message
from tablerag.linking.catalog import SchemaCatalog
from tablerag.linking.fkgraph import is_idlike
from tablerag.linking.linker import LinkedSchema
from tablerag.semantic.knowledge import Knowledge, MetricView
from tablerag.semantic.ossie import expression_for
from tablerag.sqltypes import type_family

ReadingKind = Literal["period", "value", "column"]
_END = re.compile(r"[\s?？。.!！]+\Z")
_ADDITIVE = re.compile(r"^\s*(?:sum|count)\s*\(", re.I)
_HAN = re.compile(r"[\u3400-\u9fff]")
_DATASET = re.compile(r"([A-Za-z_]\w*)\.[A-Za-z_\"]")
_TIME_TYPES = frozenset({"date", "datetime", "timestamp", "time"})


@dataclass(frozen=True)
class Choice:
    """One reading: what it computes (``label``) and the question that asks for it alone."""

    label: str
    question: str


@dataclass(frozen=True)
class Readings:
    """The readings of one question: what they differ on, and the choices."""

    kind: ReadingKind
    subject: str
    """The metric, value or columns the readings differ on, as the reader knows them."""
    places: tuple[str, ...]
    choices: tuple[Choice, ...]

    def text(self, language: Language) -> str:
        """The ask-back sentence, in ``language``."""
        places = "、".join(self.places) if language == "zh" else ", ".join(self.places)
        fields = {"subject": self.subject, "n": len(self.places), "places": places}
        if self.kind == "period":
            return message("clarify.period", language, **fields)
        if self.kind == "value":
            return message("clarify.value", language, **fields)
        return message("clarify.column", language, **fields)


@dataclass(frozen=True)
class _Cues:
    periods: re.Pattern[str]
    amounts: re.Pattern[str]
    counts: re.Pattern[str]
    not_measures: re.Pattern[str]
    min_column_score: float
    column_tie: float
    max_choices: int


@lru_cache(maxsize=1)
def cues() -> _Cues:
    """The cue words of ``lang/readings.json``, compiled once."""
    data = json.loads(resources.files("tablerag.lang").joinpath("readings.json").read_text("utf-8"))
    return _Cues(
        periods=re.compile("|".join(data["periods"]), re.I),
        amounts=re.compile("|".join(data["amounts"]), re.I),
        counts=re.compile("|".join(data["counts"]), re.I),
        not_measures=re.compile(data["not_measures"], re.I),
        min_column_score=float(data["min_column_score"]),
        column_tie=float(data["column_tie"]),
        max_choices=int(data["max_choices"]),
    )


def names_period(question: str) -> bool:
    """Whether ``question`` names its period, or asks over time.

    Example:
        >>> [names_period(q) for q in ("销售额是多少？", "上月的销售额", "2026年9月的毛利",
        ...  "What is net revenue?", "Net revenue in 2026-10?", "按月的订单数")]
        [False, True, True, False, True, True]
    """
    return cues().periods.search(question) is not None


def find_readings(
    question: str,
    *,
    language: Language,
    today: dt.date,
    catalog: SchemaCatalog,
    linked: LinkedSchema | None,
    knowledge: Knowledge | None,
) -> Readings | None:
    """The readings of ``question`` that give different numbers, or None when it has one.

    Args:
        question: the question (standalone).
        language: the language of the choices.
        today: the date "last month" is counted from.
        catalog: the catalog of the source that answers it (its value index and keys).
        linked: the linker's answer for the question on that catalog.
        knowledge: the semantic model the source can use, None without one.
    """
    if knowledge is not None and knowledge.mentioned(question):
        # a metric's definition fixes the columns and the tables it reads
        named = named_metrics(question, knowledge)
        timed = [
            m
            for m in named
            if over_time(m, knowledge, catalog) and not historical(m, knowledge, catalog, today)
        ]
        return period_readings(question, timed, language=language, today=today)
    return value_readings(question, catalog, linked, language=language) or column_readings(
        question, catalog, linked, language=language
    )


def named_metrics(question: str, knowledge: Knowledge) -> list[MetricView]:
    """The metrics ``question`` names by a word that is not also a dataset's name or synonym
    ("sales" names the sales table in "the sales team" as much as the net sales metric).

    Example:
        >>> from tablerag.semantic.ossie import loads
        >>> k = Knowledge(loads('''
        ... version: 0.2.0.dev0
        ... semantic_model:
        ... - name: m
        ...   datasets: [{name: s, source: s, ai_context: {synonyms: [sales]}}]
        ...   metrics:
        ...   - name: net_sales
        ...     expression: {dialects: [{dialect: ANSI_SQL, expression: SUM(s.x)}]}
        ...     ai_context: {synonyms: [sales, revenue]}
        ... '''))
        >>> [m.name for m in named_metrics("Revenue of the sales team?", k)]
        ['net_sales']
        >>> named_metrics("How big is the sales team?", k)
        []
    """
    tables = {ds.name.lower() for ds in knowledge.datasets.values()}
    tables |= {w.lower() for ds in knowledge.datasets.values() for w in ds.synonyms}
    text = question.lower()
    out = []
    for view in knowledge.mentioned(question):
        words = [view.name, view.name.replace("_", " "), *view.metric.synonyms]
        if any(w.lower() not in tables and _occurs(w.lower(), text) for w in words):
            out.append(view)
    return out


def _occurs(word: str, text: str) -> bool:
    if _HAN.search(word):
        return word in text
    return re.search(rf"(?<![a-z0-9_]){re.escape(word)}(?![a-z0-9_])", text) is not None


def _bare(question: str) -> str:
    return _END.sub("", question.strip())


def additive(view: MetricView) -> bool:
    """Whether a metric adds up over time (a sum or a count, not a ratio or a rate)."""
    found = expression_for(view.metric.expression)
    if view.unit == "%" or found is None:
        return False
    return bool(_ADDITIVE.match(found[0])) and "/" not in found[0]


def over_time(view: MetricView, knowledge: Knowledge, catalog: SchemaCatalog) -> bool:
    """Whether a metric's rows have a time: its time field, or a date field (or column) of a
    dataset its expression reads. A metric over rows without one needs no period."""
    if view.time_field:
        return True
    found = expression_for(view.metric.expression)
    for name in _DATASET.findall(found[0] if found is not None else ""):
        ds = knowledge.dataset(name)
        if ds is None:
            continue
        if any((f.datatype or "").lower() in _TIME_TYPES for f in ds.fields or []):
            return True
        info = catalog.tables.get(ds.table) or catalog.tables.get(ds.table.lower())
        if info is not None and any(type_family(c.type) == "time" for c in info.columns):
            return True
    return False


HISTORY_DAYS = 366
"""Data whose latest date is older than this before today is a record of the past (a closed
year, an archive, a benchmark's database): a question over it without a period means all of it,
answered as such, not asked back."""
_ISO_DAY = re.compile(r"^(\d{4})-(\d{2})(?:-(\d{2}))?")


def historical(
    view: MetricView, knowledge: Knowledge, catalog: SchemaCatalog, today: dt.date
) -> bool:
    """Whether every date the metric's tables were seen to hold (their time columns' sampled
    values, which include each column's latest) lies over :data:`HISTORY_DAYS` before today.
    Unknown (no dated sample): False, the period is asked."""
    found = expression_for(view.metric.expression)
    latest: dt.date | None = None
    for name in _DATASET.findall(found[0] if found is not None else ""):
        ds = knowledge.dataset(name)
        info = (
            None
            if ds is None
            else (catalog.tables.get(ds.table) or catalog.tables.get(ds.table.lower()))
        )
        if info is None:
            continue
        for c in info.columns:
            if type_family(c.type) != "time":
                continue
            profile = catalog.profiles.get((info.name, c.name))
            for value in (*c.samples, *(profile.samples if profile else ())):
                m = _ISO_DAY.match(str(value).strip())
                if m is None:
                    continue
                try:
                    day = dt.date(int(m[1]), int(m[2]), int(m[3] or 1))
                except ValueError:
                    continue
                latest = day if latest is None or day > latest else latest
    return latest is not None and (today - latest).days > HISTORY_DAYS


def period_readings(
    question: str, metrics: Sequence[MetricView], *, language: Language, today: dt.date
) -> Readings | None:
    """Last month, this year and all the data, for a metric that adds up over time named
    without a period."""
    flows = [m for m in metrics if additive(m)]
    if not flows or names_period(question):
        return None
    metric = flows[0].label(language)
    last = today.replace(day=1) - dt.timedelta(days=1)
    bare = question.strip() if language == "zh" else _bare(question)
    fields = {
        "metric": metric,
        "month": f"{last:%Y-%m}",
        "year": str(today.year),
        "question": bare,
    }
    when = f"{last.year}年{last.month}月" if language == "zh" else f"{last:%Y-%m}"
    month_fields = {**fields, "when": when}
    choices = (
        Choice(
            message("clarify.period.month.label", language, **month_fields),
            message("clarify.period.month.question", language, **month_fields),
        ),
        Choice(
            message("clarify.period.year.label", language, **fields),
            message("clarify.period.year.question", language, **fields),
        ),
        Choice(
            message("clarify.period.all.label", language, **fields),
            message("clarify.period.all.question", language, **fields),
        ),
    )
    return Readings("period", metric, tuple(c.label for c in choices), choices)


def _joined(catalog: SchemaCatalog, a: tuple[str, str], b: tuple[str, str]) -> bool:
    """Whether a key joins column ``a`` to column ``b`` (the same thing seen twice)."""
    for e in catalog.edges:
        ends = {(e.table.lower(), c.lower()) for c in e.columns}
        ends |= {(e.ref_table.lower(), c.lower()) for c in e.ref_columns}
        if {(a[0].lower(), a[1].lower()), (b[0].lower(), b[1].lower())} <= ends:
            return True
    return False


def _about(catalog: SchemaCatalog, table: str, column: str) -> str:
    info = catalog.tables.get(table)
    col = next((c for c in info.columns if c.name == column), None) if info else None
    text = (col.description if col is not None else "") or (info.description if info else "")
    text = text.split(" / ")[0].strip()
    return f"（{text}）" if text else ""


def _named(question: str, table: str, column: str) -> bool:
    low = question.lower()
    return f"{table}.{column}".lower() in low or column.lower() in low and len(column) > 3


def value_readings(
    question: str, catalog: SchemaCatalog, linked: LinkedSchema | None, *, language: Language
) -> Readings | None:
    """One choice per table holding a value the question names, when the linker kept two or
    more tables that hold it and no key joins them."""
    if catalog.values is None or linked is None:
        return None
    kept = {t.name.lower() for t in linked.tables}
    seen: set[str] = set()
    for match in catalog.values.search(question, fuzzy=False):
        if match.value in seen:
            continue
        seen.add(match.value)
        places: list[tuple[str, str]] = []
        for table, column in catalog.values.owners(match.value):
            if table.lower() not in kept or is_idlike(column):
                continue
            if any(_joined(catalog, (table, column), p) or p[0] == table for p in places):
                continue
            places.append((table, column))
        if len(places) < 2 or any(_named(question, t, c) for t, c in places):
            continue
        places = places[: cues().max_choices]
        value = _shown_value(question, match.value)
        choices = tuple(
            Choice(
                message(
                    "clarify.value.label", language, value=value, table=t, column=c,
                    about=_about(catalog, t, c),
                ),
                message(
                    "clarify.value.question", language, question=_bare(question), value=value,
                    table=t, column=c,
                ),
            )
            for t, c in places
        )  # fmt: skip
        return Readings("value", value, tuple(f"{t}.{c}" for t, c in places), choices)
    return None


def _shown_value(question: str, value: str) -> str:
    """``value`` as the question writes it (the index keeps it normalised)."""
    start = question.lower().find(value.lower())
    return question[start : start + len(value)] if start >= 0 else value


def column_readings(
    question: str, catalog: SchemaCatalog, linked: LinkedSchema | None, *, language: Language
) -> Readings | None:
    """One choice per measure column of the linked tables that the linker scores alike (at
    the top, within a tie), for a question that asks for a number."""
    c = cues()
    if linked is None or not c.amounts.search(question) or c.counts.search(question):
        return None  # a count of things reads no measure column
    measures: list[tuple[float, str, str]] = []
    for t in linked.tables:
        info = catalog.tables.get(t.name)
        if info is None:
            continue
        keys = {k.lower() for k in info.primary_key}
        types = {col.name: col.type for col in info.columns}
        for col in t.columns:
            sql_type = types.get(col.name, "")
            if type_family(sql_type) != "number" or col.name.lower() in keys:
                continue
            if is_idlike(col.name) or c.not_measures.search(col.name):
                continue
            measures.append((col.score, t.name, col.name))
    if not measures:
        return None
    best = max(score for score, _, _ in measures)
    if best < c.min_column_score:
        return None
    tied = sorted((m for m in measures if m[0] >= best - c.column_tie), key=lambda m: -m[0])
    if len(tied) < 2 or any(_named(question, t, col) for _, t, col in tied):
        return None
    tied = tied[: c.max_choices]
    choices = tuple(
        Choice(
            message(
                "clarify.column.label", language, table=t, column=col,
                about=_about(catalog, t, col),
            ),
            message("clarify.column.question", language, question=_bare(question), table=t,
                    column=col),
        )
        for _, t, col in tied
    )  # fmt: skip
    places = tuple(f"{t}.{col}" for _, t, col in tied)
    return Readings("column", "、".join(places) if language == "zh" else ", ".join(places),
                    places, choices)  # fmt: skip
