"""The semantic-query path: the model fills a request, tablerag compiles and runs the SQL.

For a question that names a metric of the workspace's semantic model, one model call fills a
:class:`~tablerag.semantic.request.Request` under a JSON schema built from the model (names
are enums: a grammar on llama.cpp, JSON schema on endpoints); tablerag compiles it
(:func:`~tablerag.semantic.compile.compile_request`), runs it through the engine's gate, and
answers with its reading in words before the numbers ("毛利（默认口径：…），按品类，2026-10，
单位：元"), the metric's other calibers, and the entries it followed (``Answer.knowledge``).

Anything the request cannot express — no metric named, the model says so, it cannot be
compiled, the query is refused — is a :class:`Declined` with the reason: the caller takes the
free-SQL path and says that no definition was followed (:func:`no_definition`).
"""

from __future__ import annotations

import datetime as dt
import logging
import re
import time
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, Literal

from tablerag.answer import (
    Answer,
    Clarification,
    Fact,
    Finding,
    KnowledgeUse,
    Language,
    ResultTable,
    SQLAttempt,
)
from tablerag.answer.findings import UNSURE, says
from tablerag.errors import EngineError, ProviderError, SQLRejected
from tablerag.lang.asks import names_time
from tablerag.lang.messages import message
from tablerag.llm.base import LLM
from tablerag.prompts import render
from tablerag.semantic.check import check_model
from tablerag.semantic.compile import Compiled, NotCompiled, compile_request, value_probe
from tablerag.semantic.knowledge import Knowledge, MetricView
from tablerag.semantic.ossie import OssieDocument, expression_for
from tablerag.semantic.request import FilterSpec, Request, request_model
from tablerag.sql.engines.base import SQLEngine
from tablerag.sql.policy import ExecutionPolicy
from tablerag.sql.sensitive import hidden_columns
from tablerag.types import TableInfo

log = logging.getLogger(__name__)

REQUEST_MAX_TOKENS = 400
SHOWN_ROWS = 12
MAX_VALUES = 8
"""Values of one field shown in the prompt."""
CONFIRMED_CONFIDENCE = 0.9
DRAFT_CONFIDENCE = 0.7
"""A drafted definition nobody confirmed yet: still the agreed formula's shape, less sure."""
NO_DEFINITION = "no_definition"
"""``Answer.checks`` code of a free-SQL answer in a workspace whose model did not cover it."""


DeclineCode = Literal[
    "no_metric", "no_request", "not_expressible", "not_compiled", "refused", "doubted"
]
_DECLINED: dict[str, dict[str, str]] = {
    "no_metric": {"en": "the question names no metric of the semantic model",
                  "zh": "问题没有提到语义模型中的指标"},
    "no_request": {"en": "the model gave no usable request", "zh": "模型没有给出可用的查询请求"},
    "not_expressible": {"en": "the model says the semantic model cannot express the question",
                        "zh": "模型认为语义模型无法表达这个问题"},
    "not_compiled": {"en": "the request does not compile", "zh": "查询请求无法编译"},
    "refused": {"en": "the compiled SQL did not run", "zh": "编译出的 SQL 未能执行"},
    "doubted": {"en": "the answer compiled from it failed the answer checks",
                "zh": "按语义模型编译的答案没有通过检查"},
}  # fmt: skip


@dataclass(frozen=True)
class Declined:
    """The semantic path does not answer this question: a code (words at the edge, in the
    reader's language: :meth:`text`) and the technical detail for the log."""

    code: DeclineCode
    detail: str = ""

    def text(self, language: Language) -> str:
        """Why, in ``language`` (the detail, technical, is for the log only)."""
        return _DECLINED[self.code][language]

    @property
    def reason(self) -> str:
        """Why, in English, with the detail (for the log)."""
        return self.text("en") + (f" ({self.detail})" if self.detail else "")


@dataclass(frozen=True)
class SemanticOptions:
    today: dt.date | None = None
    timeout_s: float = 120.0
    retries: int = 1
    policy: ExecutionPolicy | None = None


def usable(document: OssieDocument, tables: Sequence[TableInfo], dialect: str) -> Knowledge:
    """The model without the metrics that fail their check against this catalog (each is
    logged): at answer time an entry that does not compile is not used. The semantic models
    none of whose datasets this catalog holds are another source's: left out, not logged."""
    document = for_catalog(document, tables)
    findings = check_model(document, tables, dialect=dialect)
    bad = {f.name.split(" (", 1)[0].lower() for f in findings if f.kind == "metric"}
    for f in findings:
        log.warning("semantic model entry not used: %s", f)
    doc = document
    if bad:
        doc = document.model_copy(deep=True)
        for model in doc.semantic_model:
            model.metrics = [m for m in model.metrics or [] if m.name.lower() not in bad] or None
    knowledge = Knowledge(doc)
    knowledge.values.update(field_values(knowledge, tables))
    return knowledge


def for_catalog(document: OssieDocument, tables: Sequence[TableInfo]) -> OssieDocument:
    """``document`` with only the semantic models that read a table of ``tables`` (a workspace
    of two databases keeps one model per database); all of them when none does."""
    names = {t.name.rpartition(".")[2].lower() for t in tables}
    kept = [m for m in document.semantic_model if any(d.table.lower() in names for d in m.datasets)]
    if not kept or len(kept) == len(document.semantic_model):
        return document
    return document.model_copy(update={"semantic_model": kept})


def field_values(knowledge: Knowledge, tables: Sequence[TableInfo]) -> dict[str, tuple[str, ...]]:
    """Sample values of every text field that is a bare column (never a sensitive one)."""
    columns = {}
    for t in tables:
        hidden = set(hidden_columns(t))
        for c in t.columns:
            if c.name not in hidden and c.samples:
                columns[(t.name.rpartition(".")[2].lower(), c.name.lower())] = c.samples
    out = {}
    for ds, f in knowledge.fields():
        found = expression_for(f.expression)
        if found is None or f.is_filter or f.datatype not in (None, "String"):
            continue
        samples = columns.get((ds.table.lower(), found[0].strip().strip('"').lower()))
        if samples:
            out[f"{ds.name}.{f.name}".lower()] = tuple(samples[:MAX_VALUES])
    return out


def answer_with_model(
    question: str,
    *,
    llm: LLM,
    engine: SQLEngine,
    knowledge: Knowledge,
    language: Language,
    options: SemanticOptions | None = None,
) -> Answer | Declined:
    """Answer ``question`` from the semantic model, or decline (never raises for model, SQL
    or compile failures: they are a :class:`Declined`)."""
    opts = options or SemanticOptions()
    today = opts.today or dt.date.today()
    named = knowledge.mentioned(question)
    if not named:
        return Declined("no_metric")
    timings: dict[str, float] = {}
    started = time.perf_counter()
    chat = render(
        "semantic_request",
        today=today.isoformat(),
        this_month=f"{today:%Y-%m}",
        last_month=f"{today.replace(day=1) - dt.timedelta(days=1):%Y-%m}",
        schema=describe(knowledge, named),
        question=question,
    )
    try:
        request = llm.complete_structured(
            chat,
            request_model(knowledge, metrics=[v.name for v in named]),
            retries=opts.retries,
            max_tokens=REQUEST_MAX_TOKENS,
            timeout_s=opts.timeout_s,
        )
    except ProviderError as exc:
        return Declined("no_request", str(exc))
    timings["llm"] = round((time.perf_counter() - started) * 1000, 3)
    if not request.expressible or not request.metrics:
        return Declined("not_expressible")
    request = unasked_range(question, request)
    dropped = unapplied_filters(question, request, knowledge)
    if dropped:  # a small model's usual slip: the free path answers, saying so
        return Declined("doubted", "named filters not applied: " + ", ".join(dropped))
    try:
        compiled = compile_request(request, knowledge, dialect=engine.dialect, today=today)
    except NotCompiled as exc:
        return Declined("not_compiled", str(exc))
    ran = time.perf_counter()
    try:
        result = engine.execute(compiled.sql, opts.policy)
    except (SQLRejected, EngineError) as exc:
        return Declined("refused", str(exc))
    timings["execution"] = round((time.perf_counter() - ran) * 1000, 3)
    rows = [[_jsonable(v) for v in row] for row in result.rows]
    table = ResultTable(
        columns=list(result.columns), rows=rows, row_count=len(rows), truncated=result.truncated
    )
    used = uses(compiled)
    drafted = any(u.status == "draft" for u in used)
    empty = not rows or all(v is None for r in rows for v in r[len(compiled.dimensions) :])
    absent = _absent_values(request, knowledge, engine, opts) if empty else []
    text = _text(compiled, request, table, language, drafted=drafted, empty=empty)
    if absent:
        text += "\n" + _absent_text(absent, language)
    return Answer(
        question=question,
        answer=text,
        language=language,
        path="nl2sql",
        table=table,
        sql=result.sql_executed,
        sql_attempts=[SQLAttempt(sql=compiled.sql, note="compiled from the semantic model")],
        facts=[Fact(text=text.splitlines()[0], source="sql")],
        confidence=0.0 if empty else (DRAFT_CONFIDENCE if drafted else CONFIRMED_CONFIDENCE),
        status="no_data" if empty else "ok",
        checks=["definition"],
        timings_ms=timings,
        knowledge=used,
        clarifications=[] if empty else other_calibers(question, compiled, language),
    )


MAX_OTHER_CALIBERS = 3
_OTHER_CALIBER = {
    "zh": "{question}（{metric}按“{caliber}”口径）",
    "en": "{question} ({metric} by the caliber “{caliber}”)",
}


def other_calibers(question: str, compiled: Compiled, language: Language) -> list[Clarification]:
    """The metrics' other calibers as choices of an answer given with the default: each one a
    question that names its caliber, for the next turn of a conversation to pick (issue 34)."""
    bare = question.strip().rstrip("?？。.!！ ")
    out = []
    for m in compiled.metrics:
        label = m.view.label(language)
        for c in m.view.calibers:
            if c.name == m.caliber.name:
                continue
            text = _OTHER_CALIBER[language].format(question=bare, metric=label, caliber=c.name)
            out.append(Clarification(label=f"{label}：{c.name}", question=text))
    return out[:MAX_OTHER_CALIBERS]


def unasked_range(question: str, request: Request) -> Request:
    """``request`` without a time range the question never names: a period is read from the
    question's own words (a small model fills "last month" in for a question that names no
    time, and a metric over data of 2018 then finds nothing in 2026-10). A question that names
    none means all the data (the clarify step asks back first where the data is live).

    Example:
        >>> from tablerag.semantic.request import Request, TimeRange
        >>> r = Request(metrics=["spend"], time_range=TimeRange(period="last_month"))
        >>> unasked_range("流浪狗一共花了多少医疗费？", r).time_range is None
        True
        >>> unasked_range("上月流浪狗花了多少医疗费？", r).time_range is not None
        True
    """
    if request.time_range is None or names_time(question):
        return request
    log.info("semantic request: a time range the question does not name was dropped")
    return request.model_copy(update={"time_range": None})


def unapplied_filters(question: str, request: Request, knowledge: Knowledge) -> list[str]:
    """The named filters the question names (流浪狗, muscle cars) that the request does not
    apply: computed without them the figure is over every row, so the request is not used.

    Example:
        >>> from tablerag.semantic.ossie import loads
        >>> from tablerag.semantic.request import FilterSpec, Request
        >>> k = Knowledge(loads('''
        ... version: 0.2.0.dev0
        ... semantic_model:
        ... - name: m
        ...   datasets:
        ...   - name: dogs
        ...     source: Dogs
        ...     fields:
        ...     - name: is_stray
        ...       expression: {dialects: [{dialect: ANSI_SQL, expression: abandoned_yn = '1'}]}
        ...       datatype: Boolean
        ...       ai_context: {synonyms: [流浪狗, stray dogs]}
        ... '''))
        >>> unapplied_filters("流浪狗一共花了多少医疗费？", Request(metrics=["spend"]), k)
        ['dogs.is_stray']
        >>> unapplied_filters("流浪狗一共花了多少医疗费？", Request(metrics=["spend"],
        ...                   filters=[FilterSpec(field="dogs.is_stray")]), k)
        []
    """
    used = {f.field.lower() for f in request.filters}
    for name in request.metrics:  # and the filters each metric (or one it divides) applies
        view = knowledge.metric(name)
        found = expression_for(view.metric.expression) if view is not None else None
        text = found[0] if found is not None else ""
        for other in knowledge.metrics.values():
            if other is view or re.search(rf"\b{re.escape(other.name)}\b", text):
                chosen = other.caliber(request.calibers.get(other.name))
                used.update(f.lower() for f in chosen.filters)
    return [
        name
        for name in knowledge.filters_named(question)
        if name.lower() not in used and name.lower().rsplit(".", 1)[-1] not in used
    ]


def _absent_values(
    request: Request, knowledge: Knowledge, engine: SQLEngine, opts: SemanticOptions
) -> list[tuple[str, str]]:
    """(field, value) of each filter value the data does not hold (why nothing was found)."""
    out = []
    for f in request.filters:
        if f.op not in ("=", "in") or not f.values:
            continue
        for value in f.values:
            try:
                sql = value_probe(f.field, [value], knowledge, dialect=engine.dialect)
                rows = engine.execute(sql, opts.policy).rows
            except (NotCompiled, SQLRejected, EngineError) as exc:
                log.info("value check of %s skipped: %s", f.field, exc)
                continue
            if rows and rows[0][0] == 0:
                out.append((f.field, str(value)))
    return out


def _absent_text(absent: list[tuple[str, str]], language: Language) -> str:
    if language == "zh":
        return "数据中没有这些值：" + "；".join(f"{f} = {v}" for f, v in absent)
    return "The data holds no such value: " + "; ".join(f"{f} = {v!r}" for f, v in absent)


UNFOLLOWED_WEIGHT = 0.35
"""What a free-SQL figure for a metric the model defines, with no sign it followed the
definition, takes off its confidence (as a check's doubt does)."""


def no_definition(answer: Answer, declined: Declined) -> Answer:
    """A free-SQL answer in a workspace with a semantic model: it says no definition was
    followed (and why), so a reader knows its number is the model's own reading.

    When the question names a metric the semantic model defines (it was declined for another
    reason than naming none) and no answer check saw the query follow a written definition,
    the figure is not ``ok``: people agreed how that metric is computed, and nothing shows
    this number was computed that way (a 1.5B model's free SQL mostly drops the definition's
    filters). It is ``unsure``, saying so. When the query followed a definition written in the
    documents, the answer already cites it: nothing more is said (that no definition was
    followed would contradict the line above it).
    """
    log.info("semantic path declined: %s", declined.reason)
    why = declined.text(answer.language)
    followed = any(f.code == "definition_followed" for f in answer.findings)
    update: dict[str, Any] = {"checks": [*answer.checks, NO_DEFINITION]}
    if followed:
        return answer.model_copy(update=update)
    if declined.code != "no_metric" and answer.status == "ok":
        finding = Finding(
            code="definition_not_followed",
            severity="doubt",
            message="semantic.definition_not_followed",
            values={"why": why},
            stage="semantic",
            placement="tail",
        )
        line = message(UNSURE, answer.language, reasons=says(finding, answer.language))
        note = f"（{line}）" if answer.language == "zh" else f"({line})"
        update["status"] = "unsure"
        update["confidence"] = max(0.05, round(answer.confidence - UNFOLLOWED_WEIGHT, 3))
    else:
        finding = Finding(
            code=NO_DEFINITION,
            severity="caveat",
            message="semantic.no_definition",
            values={"why": why},
            stage="semantic",
            placement="tail",
        )
        note = says(finding, answer.language)
    update["answer"] = f"{answer.answer}\n{note}"
    update["findings"] = [*answer.findings, finding]
    return answer.model_copy(update=update)


def uses(compiled: Compiled) -> list[KnowledgeUse]:
    """The entries the compiled query followed: metrics with their calibers, then fields."""
    out = [
        KnowledgeUse(kind="metric", name=m.view.name, caliber=m.caliber.name, status=m.view.status)
        for m in compiled.metrics
    ]
    out += [
        KnowledgeUse(kind="field", name=f"{ds.name}.{f.name}", status=f.status)
        for ds, f in compiled.fields
    ]
    return out


def describe(knowledge: Knowledge, named: Sequence[MetricView]) -> str:
    """The part of the model the request may use, as text for the prompt."""
    lines = ["Metrics:"]
    for view in named:
        calibers = "; ".join(c.name for c in view.calibers)
        lines.append(
            f"- {view.name}: {', '.join(view.metric.synonyms)} — "
            f"{view.metric.description or ''} [calibers: {calibers}]"
        )
    lines.append("Fields to group or filter by (dataset.field):")
    for ds, f in knowledge.fields():
        if f.is_filter:
            continue
        what = ", ".join(f.synonyms)
        time_note = " (time)" if f.is_time else ""
        values = knowledge.values.get(f"{ds.name}.{f.name}".lower())
        shown = f" values: {', '.join(values)}" if values else ""
        lines.append(
            f"- {ds.name}.{f.name}{time_note}: {what} {f.description or ''}{shown}".rstrip()
        )
    filters = [(ds, f) for ds, f in knowledge.fields() if f.is_filter]
    if filters:
        lines.append("Named filters (a filter with this field and no op):")
        for ds, f in filters:
            lines.append(f"- {ds.name}.{f.name}: {', '.join(f.synonyms)} {f.description or ''}")
    return "\n".join(lines)


_WORDS = {
    "zh": {"default": "默认口径", "caliber": "口径", "by": "按", "unit": "单位", "all": "全部时间",
           "draft": "（所用定义为草稿，尚未确认）", "others": "其他口径",
           "none": "没有符合条件的数据",
           "filter": "筛选", "sep": "，", "open": "（", "close": "）", "colon": "："},
    "en": {"default": "default caliber", "caliber": "caliber", "by": "by", "unit": "unit",
           "all": "all time", "draft": "(this follows a drafted definition nobody confirmed yet)",
           "others": "Other calibers", "none": "No data matches", "filter": "filter",
           "sep": ", ", "open": " (", "close": ")", "colon": ": "},
}  # fmt: skip


def _text(
    compiled: Compiled,
    request: Request,
    table: ResultTable,
    language: Language,
    *,
    drafted: bool,
    empty: bool,
) -> str:
    w = _WORDS[language]
    readings = []
    for m in compiled.metrics:
        kind = w["default"] if m.caliber.is_default else w["caliber"]
        readings.append(
            f"{m.view.label(language)}{w['open']}{kind}{w['colon']}{m.caliber.name}{w['close']}"
        )
    parts = [" / ".join(readings)]
    if compiled.dimensions:
        names = [_dim_label(ref, compiled, language) for ref in compiled.dimensions]
        parts.append(f"{w['by']}{'' if language == 'zh' else ' '}{'、'.join(names)}")
    if request.filters:
        shown = [_filter_text(f, compiled, language) for f in request.filters]
        parts.append(f"{w['filter']}{w['colon']}{'; '.join(shown)}")
    parts.append(compiled.period_text or w["all"])
    units = sorted({m.unit for m in compiled.metrics if m.unit})
    if units:
        parts.append(f"{w['unit']}{w['colon']}{'/'.join(units)}")
    lines = [w["sep"].join(parts)]
    if empty:
        lines.append(w["none"] + ".")
    else:
        lines += _numbers(compiled, table)
    others = [
        f"{m.view.label(language)}{w['colon']}{c.name}"
        for m in compiled.metrics
        for c in m.view.calibers
        if c.name != m.caliber.name
    ]
    if others:
        lines.append(f"{w['others']}{w['colon']}{'; '.join(others)}")
    if drafted:
        lines.append(w["draft"])
    return "\n".join(lines)


def _filter_text(spec: FilterSpec, compiled: Compiled, language: Language) -> str:
    label = _dim_label(spec.field, compiled, language)
    if spec.op is None:
        return label
    values = "、".join(str(v) for v in spec.values)
    return f"{label} {spec.op} {values}"


def _dim_label(ref: str, compiled: Compiled, language: Language) -> str:
    for ds, f in compiled.fields:
        if f"{ds.name}.{f.name}".lower() == ref.lower():
            for word in f.synonyms:
                if (language == "zh") == any("\u4e00" <= ch <= "\u9fff" for ch in word):
                    return word
            return f.name
    return ref


def _numbers(compiled: Compiled, table: ResultTable) -> list[str]:
    n_dims = len(compiled.dimensions)
    out = []
    for row in table.rows[:SHOWN_ROWS]:
        values = [_format(v, m.unit) for v, m in zip(row[n_dims:], compiled.metrics, strict=False)]
        head = " / ".join(str(v) for v in row[:n_dims])
        out.append(f"{head}: {' / '.join(values)}" if head else " / ".join(values))
    if len(table.rows) > SHOWN_ROWS:
        out.append(f"… ({len(table.rows)} rows)")
    return out


def _format(value: Any, unit: str | None) -> str:
    """A number as the reader reads it: ``%`` units as percentages, amounts with two decimals.

    Example:
        >>> _format(0.13612, "%"), _format(70660.2699, "元"), _format(440, "单")
        ('13.61%', '70,660.27', '440')
        >>> _format(None, "元")
        '—'
    """
    if value is None:
        return "—"
    if not isinstance(value, int | float):
        return str(value)
    if unit == "%":
        return f"{value * 100:.2f}%"
    if isinstance(value, int) or float(value).is_integer() and unit not in ("元", "$"):
        return f"{int(value):,}"
    return f"{value:,.2f}"


def _jsonable(value: Any) -> Any:
    if isinstance(value, Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    if isinstance(value, dt.date | dt.datetime | dt.time):
        return value.isoformat()
    return value
