"""The NL2SQL path: schema → notes → one LLM call → mends → gate + read-only run → explain →
checks.

The model sees the linked schema (with the value notes of :mod:`~tablerag.nl2sql.schema_context`)
and the question (after the question notes) and answers with one ```sql block. The stages run in
this order, each list as registered in :mod:`tablerag.nl2sql.stages` and switched by
:attr:`NL2SQLOptions.stages`: the reply's SQL is read in one format per mixed-format column and
through the reply mends; it goes through :meth:`SQLEngine.execute` (the sqlglot gate, a
read-only connection, a row cap, a time limit, masking); a gate refusal goes through the refusal
mends and a query that found nothing through the empty-result mends, without another model
call. A rejected or failing query (or a reply without SQL) goes back to the model with the
error, at most ``max_repairs`` times, and not after the model repeats a query that failed; a
query that ran is final. The rows are then explained in the question's language; an
explanation with a number that is not in the rows is replaced by a template built from the
rows. Last, the answer checks (:mod:`tablerag.nl2sql.checks`: relevance, plausibility,
definitions) decide its status and confidence: ``ok`` only when no check doubts it, else
``unsure`` with a sentence saying why; a metric definition the query follows is cited.
"""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from decimal import Decimal
from typing import Any

from tablerag.answer import (
    Answer,
    Citation,
    Fact,
    Language,
    Reading,
    ResultTable,
    SQLAttempt,
)
from tablerag.answer import Finding as AnswerFinding
from tablerag.answer.confidence import LOCAL
from tablerag.answer.findings import LLM_FAILED, composed
from tablerag.answer.reading import read_query
from tablerag.deadline import Deadline
from tablerag.errors import EngineError, ProviderError, QueryTimeout, SQLRejected
from tablerag.lang.messages import LANGUAGE_NAMES, message
from tablerag.llm.base import LLM, Message
from tablerag.llm.profiles import ConfidenceBase
from tablerag.nl2sql.attempt import QueryAttempt
from tablerag.nl2sql.autofix import Fixed
from tablerag.nl2sql.checks import (
    FIRST_CONFIDENCE,
    MIN_CONFIDENCE,
    REWRITE_COST,
    Finding,
    verdict,
)
from tablerag.nl2sql.explanation import Explanation, Reply, quotes_result
from tablerag.nl2sql.literals import found_nothing
from tablerag.nl2sql.schema_context import SchemaContext
from tablerag.nl2sql.sqltext import extract_sql
from tablerag.nl2sql.stages import (
    ALL_ON,
    AMOUNT_MENDS,
    EMPTY_MENDS,
    EXPLANATION_CHECKS,
    QUERY_MENDS,
    QUESTION_NOTES,
    REFUSAL_MENDS,
    REPLY_CHECKS,
    REPLY_MENDS,
    TYPE_MENDS,
    Query,
    Refusal,
    Switches,
)
from tablerag.prompts import render
from tablerag.sql.engines.base import SQLEngine
from tablerag.sql.policy import ExecutionPolicy
from tablerag.sql.result import ResultSet
from tablerag.sql.units import column_unit
from tablerag.sqltypes import type_family

SQL_MAX_TOKENS = 320
EXPLAIN_MAX_TOKENS = 120
#: Result rows shown to the model for the explanation, and cells per row.
EXPLAIN_ROWS = 10
MAX_FEEDBACK_CHARS = 300
MAX_MENDS = 3
"""Mends in a row of one query the gate refused (each mended query goes through the gate)."""


@dataclass(frozen=True)
class NL2SQLOptions:
    """Knobs of the path (the service fills them from Settings)."""

    max_repairs: int = 2
    """Extra LLM calls after a rejected or failing query."""
    timeout_s: float = 120.0
    """Time limit of one LLM call."""
    explain: bool = True
    """Ask the model to explain the rows (else the template explanation is used)."""
    today: dt.date | None = None
    """The date relative time words ("last month") refer to; None means today."""
    policy: ExecutionPolicy | None = None
    """Limits of each query; None uses the engine's."""
    stages: Switches = ALL_ON
    """Which notes, mends, doubts and checks run (:mod:`tablerag.nl2sql.stages`)."""
    confidence: ConfidenceBase = LOCAL
    """Where the answer's confidence starts (the model profile's)."""
    deadline: Deadline | None = None
    """The question's deadline: each query's time limit is cut to what is left of it."""
    context: str = ""
    """What the SQL model reads right before the question: a conversation's earlier questions
    and last SQL, ending with the current-question marker
    (:func:`tablerag.conversation.sql_context`). Only the prompt reads it; the checks and the
    explanation read the question alone."""
    asked: str = ""
    """The question as the user worded it in the conversation ``context`` holds, when the
    question is its rewrite: the prompt shows this wording after ``context`` (the rewrite is
    what the checks read)."""
    said: str = ""
    """What the user said in the conversation ``context`` holds: the earlier questions and this
    one as worded. The answer checks read it beside the question (a period or an identifier
    an earlier question asked for was asked for)."""
    earlier: bool = False
    """The question continues something said before it that ``context`` does not hold (a
    multi-step answer's sub-question continues the user's question): its pronouns point there,
    so the ``referent`` check does not doubt them."""


def answer_with_sql(
    question: str,
    *,
    llm: LLM,
    engine: SQLEngine,
    schema: SchemaContext,
    language: Language,
    options: NL2SQLOptions | None = None,
) -> Answer:
    """Answer ``question`` with SQL over the tables in ``schema``.

    Never raises for model or SQL failures: they become an answer with status ``error`` and
    every attempt listed.

    Args:
        question: the user's question.
        llm: the model that writes and explains the SQL.
        engine: the read-only engine (gate, limits, masking).
        schema: the schema text the model sees.
        language: language of the answer.
        options: repairs, time limits, today's date.

    Returns:
        An answer on path ``nl2sql``: status ``ok`` (with table, SQL and explanation),
        ``no_data`` (the query ran and found nothing) or ``error`` (with the attempts).
    """
    opts = options or NL2SQLOptions()
    timings: dict[str, float] = {}
    today = opts.today or dt.date.today()
    chat = render(
        "nl2sql",
        dialect=dialect_name(engine.dialect),
        today=today.isoformat(),
        this_month=f"{today:%Y-%m}",
        last_month=f"{today.replace(day=1) - dt.timedelta(days=1):%Y-%m}",
        schema=schema.text or "(no tables)",
        question=opts.context + _noted(opts.asked or question, today, opts.stages),
    )
    query = Query(question, engine.dialect, schema.canonical, opts.today, schema.catalog)
    earlier = opts.earlier or bool(opts.context)
    checked = _Checked(schema, engine, query, opts.stages, earlier=earlier, said=opts.said)
    attempts: list[SQLAttempt] = []
    result: ResultSet | None = None
    for _ in range(opts.max_repairs + 1):
        try:
            reply = llm.complete(
                chat, temperature=0.0, max_tokens=SQL_MAX_TOKENS, timeout_s=opts.timeout_s
            )
        except ProviderError as exc:
            return _failed(
                question, language, attempts, timings, message("nl2sql.llm_failed", language), exc
            )
        _add(timings, "llm", reply.latency_ms)
        said = Reply(reply.text, reply.truncated)
        refused = any(c.run(said) for c in opts.stages.enabled(REPLY_CHECKS))
        sql = None if refused else extract_sql(reply.text, dialect=engine.dialect)
        if sql is not None:
            sql = _formats(sql, query, opts.stages)
        tried, result = _run_fixing(question, sql, opts, timings, checked)
        repeated = _repeats(sql, attempts)
        attempts += tried
        if result is not None:  # a query that ran is final: the answer checks judge it
            break
        if repeated:  # the model is stuck: asked again, it repeats itself (124 of 125 times)
            break
        attempt = tried[-1]
        feedback = (attempt.error or "") + (
            ": " + "; ".join(attempt.issues) if attempt.issues else ""
        )
        shown = f"```sql\n{attempt.sql}\n```" if attempt.note else reply.text
        chat = [
            *chat,
            {"role": "assistant", "content": shown},
            *render("nl2sql_repair", error=feedback[:MAX_FEEDBACK_CHARS]),
        ]
    if result is None:
        text = message("nl2sql.no_sql", language, n=len(attempts))
        last = attempts[-1]
        problem = f"The SQL failed {len(attempts)} times; last problem: {last.error}"
        detail = "; ".join(last.issues)
        return _failed(
            question,
            language,
            attempts,
            timings,
            text,
            problem
            + (f" ({detail})" if detail else "")
            + ". Rephrase the question or name the table and columns.",
        )
    return _explained(question, language, llm, result, attempts, timings, opts, checked)


@dataclass(frozen=True)
class _Checked:
    """What the stages after a run need besides the result: the schema context and the
    engine; and the :class:`QueryAttempt` of each result of this answer so far, so that the
    mends and the answer's own checks share one gathering of its evidence (separate
    gatherings of the same evidence were a third of a warm answer's CPU)."""

    schema: SchemaContext
    engine: SQLEngine
    query: Query
    """What the mends of a query before it runs read besides the SQL."""
    stages: Switches = ALL_ON
    earlier: bool = False
    """The SQL model read an earlier turn before the question (``NL2SQLOptions.context``)."""
    said: str = ""
    """What the user said in the conversation (``NL2SQLOptions.said``)."""
    attempts: dict[tuple[int, str], tuple[ResultSet, QueryAttempt]] = field(
        default_factory=dict, compare=False, repr=False
    )

    def attempt(self, question: str, result: ResultSet) -> QueryAttempt:
        """The context of the stages after ``result``'s run, built once per result."""
        kept = self.attempts.get((id(result), question))
        if kept is not None and kept[0] is result:
            return kept[1]
        attempt = QueryAttempt(
            question, result.sql_executed, tuple(result.columns), result.rows, self.engine,
            self.schema, self.stages, self.earlier, self.said,
        )  # fmt: skip
        # the result is held with its attempt, so its id names no other result meanwhile
        self.attempts[(id(result), question)] = (result, attempt)
        return attempt


def _noted(question: str, today: dt.date, stages: Switches) -> str:
    """The question as the SQL prompt says it, after the question notes (dated time words)."""
    for note in stages.enabled(QUESTION_NOTES):
        question = note.run(question, today)
    return question


def _formats(sql: str, query: Query, stages: Switches) -> str:
    """``sql`` through the mends every query goes through (:data:`QUERY_MENDS`: mixed-format
    columns read in one format, the database's clock read as the ``today`` option)."""
    for mend in stages.enabled(QUERY_MENDS):
        sql = mend.run(sql, query)
    return sql


__all__ = [
    "FIRST_CONFIDENCE",
    "checked_answer",
    "MIN_CONFIDENCE",
    "REWRITE_COST",
    "NL2SQLOptions",
    "answer_with_sql",
    "dialect_name",
    "explain",
    "jsonable",
    "quotes_result",
    "template_explanation",
]


DIALECT_NAMES = {"duckdb": "DuckDB", "sqlite": "SQLite", "postgres": "PostgreSQL"}


def dialect_name(dialect: str) -> str:
    """The SQL dialect's name as the prompt says it.

    Example:
        >>> dialect_name("postgres"), dialect_name("mysql")
        ('PostgreSQL', 'mysql')
    """
    return DIALECT_NAMES.get(dialect, dialect)


def _repeats(sql: str | None, attempts: Sequence[SQLAttempt]) -> bool:
    """Whether the model's ``sql`` is one it already wrote, which failed (whitespace aside).

    Told why its query failed, the local model wrote the same query again in 169 of the
    repairs of 27 stored runs; asked once more after that, it wrote it a third time in 124 of
    125 (the other was wrong too). A repeated query ends the repairs.

    Example:
        >>> tried = [SQLAttempt(sql="SELECT a  FROM  t", error="rejected by the SQL gate")]
        >>> _repeats("SELECT a FROM t", tried), _repeats("SELECT b FROM t", tried)
        (True, False)
    """
    if not sql:
        return False
    said = " ".join(sql.split())
    return any(a.note is None and " ".join(a.sql.split()) == said for a in attempts)


def _run_fixing(
    question: str,
    sql: str | None,
    opts: NL2SQLOptions,
    timings: dict[str, float],
    checked: _Checked,
) -> tuple[list[SQLAttempt], ResultSet | None]:
    """Gate and run one query; when a mend can mend it, run the mended SQL too.

    The reply mends (:data:`~tablerag.nl2sql.stages.REPLY_MENDS`: a literal copied from a cut
    sample value read as a prefix) come before the first run. The refusal mends (a wrong alias,
    a MySQL date function, a column of a table one key away) follow a gate refusal: mended SQL
    the gate refuses again for another such reason is mended again, up to :data:`MAX_MENDS`
    times. The empty-result mends follow a query that found nothing (a label the column stores
    otherwise, a join no key supports where one table keys both ends); when the mended query
    finds nothing either, what ran first is kept.
    """
    engine, query = checked.engine, checked.query
    mended_reply = _reply_mend(sql, query, opts.stages) if sql else None
    mended_reply = _in_units(sql, mended_reply, query, opts.stages)
    attempt, result, refusal = _run(
        engine, mended_reply.sql if mended_reply else sql, opts, timings
    )
    if mended_reply is not None:
        attempt = attempt.model_copy(update={"note": mended_reply.note})
    fixed = _mend(refusal, engine.dialect, opts.stages) if refusal is not None else None
    if fixed is None and result is not None and found_nothing(result.rows):
        ran = checked.attempt(question, result)
        fixed = next((f for m in opts.stages.enabled(EMPTY_MENDS) if (f := m.run(ran))), None)
    if fixed is None:
        return [attempt], result
    tried, after = [attempt], None
    for _ in range(MAX_MENDS):
        # a mended query is read like the model's: mixed-format columns in one format
        mended_sql = _formats(fixed.sql, query, opts.stages)
        if units := _in_units(mended_sql, None, query, opts.stages):
            mended_sql, fixed = units.sql, Fixed(units.sql, f"{fixed.note}; {units.note}")
        again, after, refused = _run(engine, mended_sql, opts, timings)
        tried.append(again.model_copy(update={"note": fixed.note}))
        fixed = _mend(refused, engine.dialect, opts.stages) if refused is not None else None
        if fixed is None:
            break
    if result is not None and (after is None or found_nothing(after.rows)):
        return [attempt], result  # the empty-result mend found nothing either: keep what ran
    return tried, after


def _in_units(
    sql: str | None, mended: Fixed | None, query: Query, stages: Switches
) -> Fixed | None:
    """``mended`` (or ``sql``) through the type mends (:data:`TYPE_MENDS`: a division of whole
    numbers keeping its fraction, a date-only bound on a timestamp read as the whole day) and
    the amount mends (:data:`AMOUNT_MENDS`: the amounts in the unit the question asks for),
    their notes joined; ``mended`` when nothing changes."""
    if not sql:
        return mended
    for mend in (*stages.enabled(TYPE_MENDS), *stages.enabled(AMOUNT_MENDS)):
        fixed = mend.run(mended.sql if mended else sql, query)
        if fixed is not None:
            mended = Fixed(fixed.sql, f"{mended.note}; {fixed.note}" if mended else fixed.note)
    return mended


def _reply_mend(sql: str, query: Query, stages: Switches) -> Fixed | None:
    return next((f for m in stages.enabled(REPLY_MENDS) if (f := m.run(sql, query))), None)


def _mend(refusal: SQLRejected, dialect: str, stages: Switches) -> Fixed | None:
    """The gate's own mend of a refused query: the first of the refusal mends that are on
    (:data:`~tablerag.nl2sql.stages.REFUSAL_MENDS`) that mends it. Each takes a query only
    when it can mend every issue (``one_kind`` mends one kind of them; the caller mends again,
    up to :data:`MAX_MENDS` times)."""
    runs = tuple(m.run for m in stages.enabled(REFUSAL_MENDS))
    refused = Refusal(refusal.sql, refusal.issues, dialect, runs)
    return next((f for run in runs if (f := run(refused))), None)


def _run(
    engine: SQLEngine,
    sql: str | None,
    opts: NL2SQLOptions,
    timings: dict[str, float],
) -> tuple[SQLAttempt, ResultSet | None, SQLRejected | None]:
    """Gate and run one query; the attempt records what the gate or the engine said, and a gate
    refusal comes back whole (its issues say what the gate could mend)."""
    policy = _within(opts.policy or engine.policy, opts.deadline)
    if sql is None:
        return (
            SQLAttempt(
                sql="", error="no SQL query found in the reply; answer with one ```sql block"
            ),
            None,
            None,
        )
    started = time.perf_counter()
    try:
        result = engine.execute(sql, policy)
    except SQLRejected as exc:
        _add(timings, "validation", _ms(started))
        issues = list(dict.fromkeys(i.message for i in exc.issues))  # each problem once
        attempt = SQLAttempt(sql=sql, error="rejected by the SQL gate", issues=issues)
        return attempt, None, exc
    except QueryTimeout as exc:
        _add(timings, "execution", _ms(started))
        slow = f"too slow, stopped after {exc.time_limit_ms} ms; write a simpler query"
        return SQLAttempt(sql=sql, error=slow), None, None
    except EngineError as exc:
        _add(timings, "execution", _ms(started))
        return SQLAttempt(sql=sql, error=f"the database refused it: {exc}"), None, None
    total = _ms(started)
    _add(timings, "execution", result.elapsed_ms)
    _add(timings, "validation", max(0.0, total - result.elapsed_ms))
    return SQLAttempt(sql=result.sql_executed), result, None


def _explained(
    question: str,
    language: Language,
    llm: LLM,
    result: ResultSet,
    attempts: list[SQLAttempt],
    timings: dict[str, float],
    opts: NL2SQLOptions,
    checked: _Checked | None = None,
) -> Answer:
    """The answer for the rows of ``result``; the answer checks give its status and
    confidence, which counts the model's queries among the attempts."""
    rows = [[jsonable(v) for v in row] for row in result.rows]
    table = ResultTable(
        columns=list(result.columns),
        rows=rows,
        row_count=len(rows),
        truncated=result.truncated,
    )
    common: dict[str, Any] = {
        "question": question,
        "language": language,
        "path": "nl2sql",
        "table": table,
        "sql": result.sql_executed,
        "sql_attempts": attempts,
        "reading": _reading(result.sql_executed, opts, checked),
        "timings_ms": timings,
    }
    if found_nothing(rows):
        return Answer(
            answer=message("nl2sql.no_data", language),
            status="no_data",
            confidence=opts.confidence.no_data,
            **common,
        )
    # One value needs no model: the template says it exactly, and saves a call (seconds locally).
    single = len(rows) == 1 and len(result.columns) == 1
    text = (
        explain(question, language, llm, result, timings, opts)
        if opts.explain and not single
        else None
    )
    if text is None:
        text = template_explanation(result.columns, rows, language, truncated=result.truncated)
    # the model's attempts: a mended rerun is not one (a prefix read in place counts as written)
    written = max(1, sum(1 for a in attempts if a.note is None))
    findings: Sequence[Finding] = []
    if checked is not None:
        findings = checked.attempt(question, result).findings
    judged = verdict(findings, written, opts.confidence)
    facts = [Fact(text=text, source="sql")]
    citations: list[Citation] = []
    for n, cited in enumerate(judged.cited, start=1):
        said = cited.says(language)
        values = dict(cited.values)
        citations.append(
            Citation(
                n=n,
                chunk_id=values["chunk"],  # the document table's, or the passage's chunk
                source=values["document"],
                snippet=values["definition"],
                table=values["table"] or None,
            )
        )
        facts.append(Fact(text=said, source="document", citation=n))
    found = [f.data() for f in (*judged.doubts, *judged.cited)]
    return Answer(
        answer=composed(text, found, language),
        status=judged.status,
        confidence=judged.confidence,
        checks=[f.code for f in (*judged.doubts, *judged.cited)],
        findings=found,
        facts=facts,
        citations=citations,
        **common,
    )


LINKING_CHECKS = frozenset(
    {
        "unrelated_table",
        "weak_link",
        "unread_table",
        "definition_ignored",
        "definition_followed",
        "invented_filter",
    }
)
"""Checks of the linker's tables, the definition passages and the filters the question does
not name: an answer compiled from a semantic model reads the tables, follows the definitions
and keeps the rows (``status = 'PAID'``) its model names, so these do not apply to it
(:func:`checked_answer`)."""


def checked_answer(
    question: str,
    answer: Answer,
    engine: SQLEngine,
    schema: SchemaContext,
    *,
    earlier: bool = False,
    said: str = "",
) -> Answer:
    """``answer`` (an SQL answer another path made, e.g. compiled from the semantic model)
    after the same answer checks a model's query goes through: a doubt of theirs (a value or
    a period the question names that the SQL ignores, a count asked but an amount summed...)
    makes it ``unsure`` with the reason first, as on the free-SQL path; without one it is
    returned as it is. The checks of the linker's choice of tables and of the definition
    passages (:data:`LINKING_CHECKS`) are left out: the model chose those. ``earlier``: the
    question continues an earlier turn (``NL2SQLOptions.earlier``), as on the free-SQL path;
    ``said``: what the user said in its conversation (``NL2SQLOptions.said``).
    """
    if answer.status != "ok" or not answer.sql or answer.table is None:
        return answer
    table = answer.table
    attempt = QueryAttempt(
        question, answer.sql, tuple(table.columns), table.rows, engine, schema,
        earlier=earlier, said=said,
    )  # fmt: skip
    doubts = [f for f in attempt.findings if f.doubts and f.code not in LINKING_CHECKS]
    if not doubts:
        return answer
    judged = verdict(doubts)
    found = [f.data() for f in doubts]
    return answer.model_copy(
        update={
            "status": "unsure",
            "confidence": min(answer.confidence, judged.confidence),
            "answer": composed(answer.answer, found, answer.language),
            "checks": [*answer.checks, *(f.code for f in doubts)],
            "findings": [*answer.findings, *found],
        }
    )


def _reading(sql: str, opts: NL2SQLOptions, checked: _Checked | None) -> Reading | None:
    """What ``sql`` computed, with the units the catalog records for its tables' columns."""
    if checked is None:
        return None
    catalog = checked.schema.catalog
    units: dict[str, str] = {}
    for name in checked.schema.tables if catalog is not None else ():
        info = catalog.tables.get(name) if catalog is not None else None
        for column in info.columns if info is not None else ():
            unit = column.unit or column_unit(column)  # 分 from a column's comment too
            if unit and type_family(column.type) != "time":
                units.setdefault(column.name.lower(), unit)
    cap = (opts.policy or checked.engine.policy).max_rows
    return read_query(sql, checked.engine.dialect, units=units, row_cap=cap)


def explain(
    question: str,
    language: Language,
    llm: LLM,
    result: ResultSet,
    timings: dict[str, float],
    opts: NL2SQLOptions,
) -> str | None:
    """The model's explanation of the rows, or None when it failed or an explanation check that
    is on refused it (:data:`~tablerag.nl2sql.stages.EXPLANATION_CHECKS`: cut off, a foreign
    number, nothing of the result quoted)."""
    shown = result.rows[:EXPLAIN_ROWS]
    lines = [" | ".join(result.columns)]
    lines += [" | ".join(_fmt(v) for v in row) for row in shown]
    chat: list[Message] = render(
        "explain",
        language=LANGUAGE_NAMES[language],
        question=question,
        rows=str(len(result.rows)),
        result="\n".join(lines),
    )
    try:
        reply = llm.complete(
            chat, temperature=0.0, max_tokens=EXPLAIN_MAX_TOKENS, timeout_s=opts.timeout_s
        )
    except ProviderError:
        return None
    _add(timings, "llm", reply.latency_ms)
    text = reply.text.strip()
    said = Explanation(
        text, reply.truncated, question, [v for row in shown for v in row], len(result.rows)
    )
    if not text or any(c.run(said) for c in opts.stages.enabled(EXPLANATION_CHECKS)):
        return None
    return text


def template_explanation(
    columns: Sequence[str],
    rows: Sequence[Sequence[Any]],
    language: Language,
    *,
    truncated: bool = False,
) -> str:
    """A plain explanation built from the rows alone (so every number in it is grounded).

    Example:
        >>> template_explanation(["毛利"], [[1234.5678]], "zh")
        '查询结果：毛利 = 1234.57。'
        >>> template_explanation(["region", "n"], [["East", 3], ["North", 2]], "en")
        'The query returned 2 rows: region = East, n = 3; region = North, n = 2.'
    """

    def row_text(row: Sequence[Any]) -> str:
        sep = "，" if language == "zh" else ", "
        return sep.join(f"{c} = {_fmt(v)}" for c, v in zip(columns, row, strict=True))

    if len(rows) == 1:
        head = "查询结果：" if language == "zh" else "Result: "
        return head + row_text(rows[0]) + ("。" if language == "zh" else ".")
    shown = "; ".join(row_text(r) for r in rows[:3])
    more = len(rows) > 3 or truncated
    if language == "zh":
        tail = "；更多行见结果表。" if more else "。"
        return f"查询返回 {len(rows)} 行：{shown}{tail}"
    tail = "; more rows in the table." if more else "."
    return f"The query returned {len(rows)} rows: {shown}{tail}"


def jsonable(value: Any) -> Any:
    """A result cell as JSON can carry it: decimals as numbers, dates as ISO text.

    Example:
        >>> jsonable(Decimal("12.50")), jsonable(Decimal("3")), jsonable(dt.date(2026, 10, 1))
        (12.5, 3, '2026-10-01')
    """
    if isinstance(value, Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    if isinstance(value, dt.date | dt.datetime | dt.time):
        return value.isoformat()
    if isinstance(value, bytes):
        return value.hex()
    if value is None or isinstance(value, str | int | float | bool):
        return value
    return str(value)


def _fmt(value: Any) -> str:
    value = jsonable(value)
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, float):
        return f"{value:.2f}"
    return str(value)


_LLM_FAILED = AnswerFinding(
    code=LLM_FAILED,
    severity="doubt",
    message="nl2sql.llm_failed",
    stage="llm",
    placement="whole",
)


def _failed(
    question: str,
    language: Language,
    attempts: list[SQLAttempt],
    timings: dict[str, float],
    text: str,
    error: ProviderError | str,
) -> Answer:
    message = str(error)
    failed = isinstance(error, ProviderError)  # the text is then only that the model failed
    return Answer(
        question=question,
        answer=text,
        language=language,
        path="nl2sql",
        status="error",
        error=message or type(error).__name__,
        sql=next((a.sql for a in reversed(attempts) if a.sql), None),
        sql_attempts=attempts,
        timings_ms=timings,
        findings=[_LLM_FAILED] if failed else [],
    )


def _within(policy: ExecutionPolicy, deadline: Deadline | None) -> ExecutionPolicy:
    """``policy`` with its time limit cut to what is left of the question's time."""
    if deadline is None:
        return policy
    left_ms = max(10, int(deadline.remaining() * 1000))
    return replace(policy, time_limit_ms=left_ms) if left_ms < policy.time_limit_ms else policy


def _add(timings: dict[str, float], stage: str, ms: float) -> None:
    timings[stage] = round(timings.get(stage, 0.0) + ms, 3)


def _ms(started: float) -> float:
    return (time.perf_counter() - started) * 1000.0
