"""The TableRAG loop: decompose with schema context, retrieve, SQL, cross-check; ≤ N steps.

The first step asks the question whole: one SQL query over the tables its best chunks map to
often computes it (a small model asked to plan before any evidence mostly guessed an answer:
43 of 57 TAT-QA questions, an unused call each). When that step leaves the question unanswered,
the decomposer, shown the schemas of those tables and what was found, asks the next
sub-question or gives the final answer, one step at a time (see
:func:`~tablerag.loop.step.run_step`). ``decompose_first`` restores the paper's order
(plan, then the first step). A first sub-question that is the question itself ends the loop as
soon as it is answered, unless SQL and text answered different parts of it (``both``): the
decomposer then composes them or asks for what is missing. Budgets of steps, tokens and
seconds stop runaway loops. Time is a deadline (the question's, or ``max_seconds`` from the
loop's start when that comes first) that every model call and query of the loop ends by, not a
check between steps: a step in progress stops at it (issue 23: a 600 s budget ran 706 s). A
loop stopped by a budget, or whose final answer the model cut off at its length limit, is
``degraded`` and says so: which limit ran out, the sub-questions answered (with their answers)
and those not answered, never a cut-off sentence.
"""

from __future__ import annotations

import re
import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from tablerag.answer import (
    Answer,
    AnswerStatus,
    BudgetName,
    Citation,
    Fact,
    Finding,
    Language,
    SQLAttempt,
    Step,
)
from tablerag.answer.confidence import confidence
from tablerag.answer.findings import composed
from tablerag.answer.steps import ALL_ON, Switches
from tablerag.deadline import Deadline
from tablerag.errors import BudgetExceeded, ProviderError, RetrievalError
from tablerag.lang.messages import message
from tablerag.llm.base import LLM
from tablerag.llm.deadline import DeadlineLLM
from tablerag.loop.budget import Budget
from tablerag.loop.crosscheck import LISTING_ROWS
from tablerag.loop.decompose import Answered, Plan, decompose
from tablerag.loop.finish import NOT_FOUND, finished, same, with_figure_parts, with_text_parts
from tablerag.loop.retrieve import tables_of
from tablerag.loop.step import StepResult, StepTools, run_step
from tablerag.loop.tablesql import table_schemas
from tablerag.loop.verdicts import VERDICTS, Judging
from tablerag.types import Hit

PLAN_CALLS = 1
TEXT_CALLS = 1
STEP_CALLS = 2
"""Model calls of a plan, of a step's passage answer, and of a step at the least (its SQL and
its passages), for pacing the loop against its deadline (:meth:`Budget.affords`)."""
_WORD = re.compile(r"[\w\u3400-\u9fff]+")


@dataclass(frozen=True)
class LoopOptions:
    """Budgets and switches of the loop (the service fills them from Settings)."""

    max_steps: int = 5
    max_tokens: int = 16_000
    max_seconds: float = 600.0
    schema_aware: bool = True
    """Show the decomposer the probed tables' schemas (off: the ablation ``nodecomp``)."""
    decompose_first: bool = False
    """Ask the decomposer before the first step (off: the first step is the question itself)."""
    timeout_s: float = 120.0
    step: StepTools | None = None
    """Set by the caller: search, engine, catalog, recall/keep sizes, SQL and docs switches."""
    deadline: Deadline | None = None
    """The question's deadline (None: only ``max_seconds`` from the loop's start)."""


@dataclass
class _State:
    results: list[StepResult] = field(default_factory=list)
    citations: list[Citation] = field(default_factory=list)
    timings: dict[str, float] = field(default_factory=dict)
    pending: list[str] = field(default_factory=list)
    """Sub-questions the model asked for that the time left could not fit."""

    def add(self, result: StepResult) -> None:
        self.results.append(result)
        self.citations.extend(result.citations)
        for stage, ms in result.timings.items():
            self.timings[stage] = round(self.timings.get(stage, 0.0) + ms, 3)

    def answered(self) -> list[Answered]:
        return [Answered(r.step.input, r.verdict.answer or NOT_FOUND) for r in self.results]


def run_loop(question: str, *, llm: LLM, language: Language, options: LoopOptions) -> Answer:
    """Answer ``question`` with the TableRAG loop; never raises for model or SQL failures.

    Args:
        question: the user's question.
        llm: the model of every call.
        language: language of the answer.
        options: budgets, switches and the step tools (``options.step`` must be set).

    Returns:
        An answer on path ``loop`` with every step in ``steps``, the SQL and rows of the last
        step that ran SQL, every step's citations and attempts; status ``ok``, ``not_found``, or
        ``degraded`` when a budget or the model stopped it (``budget_exhausted`` says which).
    """
    assert options.step is not None, "LoopOptions.step must carry the search and the engine"
    deadline = (options.deadline or Deadline.never()).within(options.max_seconds)
    llm = DeadlineLLM(llm, deadline)  # every call of the loop ends by its deadline
    tools = replace(options.step, nl2sql=replace(options.step.nl2sql, deadline=deadline))
    budget = Budget(llm, options.max_steps, options.max_tokens, deadline)
    state = _State()
    started = time.perf_counter()
    probe, schemas = _probe(question, tools, options, state)
    asked: set[str] = set()
    final: str | None = None
    stop: BudgetName | None = None
    problem, cut = "", False
    while final is None:
        stop = budget.exhausted(steps_done=len(state.results))
        if stop not in (None, "steps"):
            final = stitched(state.results)  # what was answered, with the limit named
            break
        # at the pace of the calls so far, a plan, a step and the final answer no longer fit:
        # the next call must answer (issue 23: a loop ran 706 s of a 600 s budget)
        short = bool(state.results) and not budget.affords(PLAN_CALLS + STEP_CALLS + 1)
        last_call = stop == "steps" or short
        if short and not budget.affords(1):  # not even the final answer fits: no model call
            final, stop = _stitched_or_stop(state.results)
            break
        planned = _next_plan(question, llm, schemas, state, language, options, last_call)
        if isinstance(planned, str):
            problem = planned
            break
        plan, cut = planned
        if plan.kind == "answer" and cut:
            problem = (
                "The model's final answer was cut off at its length limit; the answers of the "
                "steps are given instead."
            )
            stop = None
            break
        if plan.kind == "answer":
            final = plan.text
            stop = None
            break
        if last_call:
            if short and stop is None:  # the model asked for more than the time allows
                final, stop = _stitched_or_stop(state.results)
                state.pending.append(plan.text)
            break
        key = _key(plan.text)
        if key in asked:  # the model repeats itself: make it answer now
            final = _forced(question, llm, schemas, state, language, options)
            if final is None:
                problem = f"The model asked {plan.text!r} twice and then gave no answer."
            break
        asked.add(key)
        hits = probe if key == _key(question) else None
        # a sub-question continues the user's question: its "their" points there
        step_tools = tools if key == _key(question) else _continuing(tools)
        result = run_step(
            len(state.results) + 1,
            plan.text,
            llm=llm,
            tools=step_tools,
            language=language,
            cited=state.citations,
            hits=hits,
            sql_deadline=budget.leaving(TEXT_CALLS + 1),  # its passages, then the answer
        )
        state.add(result)
        if _answers_it(result, question):
            final = result.verdict.answer
            stop = None
        _follow(result, state, asked, budget, llm=llm, tools=tools, language=language)
    if final is not None:
        final = finished(final, question, state.results, language, tools.nl2sql.stages)
    why = _why(stop, cut, budget, language)
    return _envelope(
        question, language, state, final, stop, problem, why, budget, started,
        tools.nl2sql.stages,
    )  # fmt: skip


def _follow(
    result: StepResult,
    state: _State,
    asked: set[str],
    budget: Budget,
    *,
    llm: LLM,
    tools: StepTools,
    language: Language,
) -> None:
    """Run the documents-only step that follows a ``both`` step (:func:`follow_up`) when it
    was not asked yet and the budgets leave room for it and for the final answer after it."""
    follow = follow_up(result)
    if (
        not follow
        or _key(follow) in asked
        or budget.exhausted(steps_done=len(state.results)) is not None
        or not budget.affords(TEXT_CALLS + 1)  # the follow-up is worth less than the answer
    ):
        return
    asked.add(_key(follow))
    text_only = replace(tools, use_sql=False)
    n = len(state.results) + 1
    state.add(
        run_step(n, follow, llm=llm, tools=text_only, language=language, cited=state.citations)
    )


def _continuing(tools: StepTools) -> StepTools:
    """The tools of a sub-question: its SQL continues the user's question (see
    ``NL2SQLOptions.earlier``)."""
    return replace(tools, nl2sql=replace(tools.nl2sql, earlier=True))


def follow_up(result: StepResult) -> str | None:
    """For a ``both`` step whose SQL found a few named rows, the step's question led by those
    names, for the documents alone.

    The passages of the first step were retrieved for the whole question, before SQL said which
    categories (or reasons, products) it is about; retrieving again with their names finds
    what the documents say about them (第四条 七天无理由退货, not the general rules).

    Example:
        >>> from tablerag.loop.crosscheck import Verdict
        >>> from tablerag.answer import ResultTable
        >>> rows = [["七天无理由退货", 3862]]
        >>> table = ResultTable(columns=["reason", "amt"], rows=rows, row_count=1)
        >>> step = Step(n=1, action="sub-question", input="退款最多的原因？怎么处理？",
        ...             result=table, decision="both")
        >>> follow_up(StepResult(step, Verdict("both", "sql", ""), (), None, {}))
        '七天无理由退货 — 退款最多的原因？怎么处理？'
    """
    step = result.step
    if result.verdict.decision != "both" or step.result is None:
        return None
    rows = step.result.rows
    if not rows or len(rows) > LISTING_ROWS:
        return None
    names = [v for row in rows for v in row if isinstance(v, str) and len(v.strip()) > 1]
    if not names:
        return None
    return f"{', '.join(dict.fromkeys(n.strip() for n in names))} — {step.input}"


def stitched(results: Sequence[StepResult]) -> str | None:
    """The answer composed without the model from the steps that answered both parts of the
    question (the figures from SQL, then what the documents say), or None when no step did.

    What the loop gives when the time left does not fit one more model call: the parts as
    they were answered, not a cut-off sentence or only a list of sub-questions.

    Example:
        >>> from tablerag.loop.crosscheck import Verdict
        >>> from tablerag.answer import Answer, ResultTable
        >>> table = ResultTable(columns=["c", "rate"], rows=[["Phones", 0.12]], row_count=1)
        >>> both = Step(n=1, action="sub-question", input="Top category, and the policy?",
        ...             result=table, decision="both", text_answer="Above 10%: review [1].")
        >>> sql = Answer(question="q", answer="Phones: 0.12", language="en", path="nl2sql")
        >>> print(stitched([StepResult(both, Verdict("both", "sql", ""), (), sql, {})]))
        Phones: 0.12
        Above 10%: review [1].
        >>> stitched([]) is None
        True
    """
    if not any(r.step.decision == "both" and r.sql is not None for r in results):
        return None
    figures = with_figure_parts("", results).strip()
    return with_text_parts(figures, [r.step for r in results]).strip() or None


def _stitched_or_stop(results: Sequence[StepResult]) -> tuple[str | None, BudgetName | None]:
    """The stitched answer, or the ``seconds`` budget named as what stopped the loop."""
    text = stitched(results)
    return (text, None) if text else (None, "seconds")


def _answers_it(result: StepResult, question: str) -> bool:
    """Whether the first step, asking the question itself, answered it whole.

    Both sides answering different parts (``both``) leave the composing to the decomposer.
    """
    verdict = result.verdict
    whole = result.step.n == 1 and same(result.step.input, question)
    return whole and bool(verdict.answer) and verdict.decision != "both"


def _probe(
    question: str, tools: StepTools, options: LoopOptions, state: _State
) -> tuple[list[Hit] | None, str]:
    """The question's own chunks and the schemas of their tables (for the decomposer)."""
    started = time.perf_counter()
    try:
        hits = tools.retrieve(question)
    except (RetrievalError, ProviderError):
        return None, ""
    _add(state.timings, "retrieval", (time.perf_counter() - started) * 1000)
    if not options.schema_aware or tools.catalog is None:
        return hits, ""
    tables = tables_of(hits)
    if not tables:
        return hits, ""
    started = time.perf_counter()
    schema = table_schemas(
        question,
        tools.catalog,
        tables,
        max_tokens=tools.schema_max_tokens,
        stages=tools.nl2sql.stages,
    )
    _add(state.timings, "schema", (time.perf_counter() - started) * 1000)
    return hits, schema.text


def _next_plan(
    question: str,
    llm: LLM,
    schemas: str,
    state: _State,
    language: Language,
    options: LoopOptions,
    last_call: bool,
) -> tuple[Plan, bool] | str:
    """The next plan and whether the model's reply was cut off, or why planning failed.

    The first step asks the question whole (unless ``decompose_first``), and so does a first
    plan that answers before any evidence or a planner that failed before any step ran.
    """
    if not state.results and not options.decompose_first:
        return Plan("next", question), False
    try:
        plan, cut = _plan(question, llm, schemas, state, language, options, last_call)
    except ProviderError as exc:
        if state.results:
            return f"The model failed while planning: {exc}"
        return Plan("next", question), False
    if plan.kind == "answer" and not state.results:
        return Plan("next", question), cut  # an answer needs evidence: ask the question itself
    return plan, cut


def _forced(
    question: str,
    llm: LLM,
    schemas: str,
    state: _State,
    language: Language,
    options: LoopOptions,
) -> str | None:
    """One last call that must answer (the decomposer repeated itself)."""
    try:
        plan, cut = _plan(question, llm, schemas, state, language, options, last_call=True)
    except ProviderError:
        return None
    return plan.text if plan.kind == "answer" and not cut else None


def _plan(
    question: str,
    llm: LLM,
    schemas: str,
    state: _State,
    language: Language,
    options: LoopOptions,
    last_call: bool,
) -> tuple[Plan, bool]:
    """One decomposer call with the answers so far; its time is added to the LLM stage.

    Returns:
        The plan, and whether the model's reply was cut off at its length limit.

    Raises:
        ProviderError: the model failed.
    """
    plan, reply = decompose(
        question,
        llm=llm,
        schemas=schemas,
        answered=state.answered(),
        language=language,
        last_call=last_call,
        two_parts=any(r.verdict.decision == "both" for r in state.results),
        timeout_s=options.timeout_s,
    )
    _add(state.timings, "llm", reply.latency_ms)
    return plan, reply.truncated


def _why(stop: BudgetName | None, cut: bool, budget: Budget, language: Language) -> str:
    """Why the loop ended without a final answer, in words (used when it did)."""
    if stop == "seconds":
        return message("loop.why_seconds", language, limit=budget.max_seconds)
    if stop == "steps":
        return message("loop.why_steps", language, limit=budget.max_steps)
    if stop == "tokens":
        return message("loop.why_tokens", language, limit=budget.max_tokens)
    if cut:
        return message("loop.why_cut_off", language)
    return message("loop.why_failed", language)


def incomplete(
    why: str, results: Sequence[StepResult], language: Language, pending: Sequence[str] = ()
) -> str:
    """The answer of a loop that ended before a final answer: which limit ran out, the
    sub-questions answered with their answers, those not answered (``pending``: asked for,
    but not started for want of time).

    Example:
        >>> from tablerag.loop.crosscheck import Verdict
        >>> def done(n, q, a):
        ...     step = Step(n=n, action="sub-question", input=q)
        ...     return StepResult(step, Verdict("sql" if a else "none", None, a, ""), (), None, {})
        >>> print(incomplete("the time limit (60 s) ran out",
        ...                  [done(1, "Revenue 2018?", "1200.5"), done(2, "Revenue 2019?", "")],
        ...                  "en"))
        This answer is incomplete: the time limit (60 s) ran out.
        Answered:
        - Revenue 2018? → 1200.5
        Not answered:
        - Revenue 2019?
        The parts were not combined into a final answer.
    """
    answered = [r for r in results if r.verdict.decision != "none" and r.verdict.answer]
    unanswered = [r for r in results if r not in answered]
    lines = [message("loop.incomplete", language, why=why)]
    if answered:
        lines.append(message("loop.answered", language))
        lines += [f"- {r.step.input} → {r.verdict.answer}" for r in answered]
    else:
        lines.append(message("loop.not_found", language))
    if unanswered or pending:
        lines.append(message("loop.unanswered", language))
        lines += [f"- {r.step.input}" for r in unanswered]
        lines += [f"- {q}" for q in pending]
    if answered:
        lines.append(message("loop.not_composed", language))
    return "\n".join(lines)


def _envelope(
    question: str,
    language: Language,
    state: _State,
    final: str | None,
    stop: BudgetName | None,
    problem: str,
    why: str,
    budget: Budget,
    started: float,
    stages: Switches = ALL_ON,
) -> Answer:
    results = state.results
    evidence = [r for r in results if r.verdict.decision != "none"]
    sql_steps = [r for r in results if r.sql is not None and r.sql.table is not None]
    shown = next((r for r in reversed(sql_steps) if r.verdict.chosen == "sql"), None)
    shown = shown or (sql_steps[-1] if sql_steps else None)
    attempts: list[SQLAttempt] = [a for r in results if r.sql for a in r.sql.sql_attempts]
    facts = [
        Fact(
            text=f"{r.step.input} → {r.verdict.answer}",
            source=r.verdict.chosen or "document",
            citation=(r.step.citations[0] if r.step.citations else None),
        )
        for r in evidence
        if r.verdict.chosen is not None
    ]
    status: AnswerStatus = "ok"
    error: str | None = None
    text = final
    if stop is not None or problem:
        status = "degraded"
        error = problem or str(_exceeded(stop, budget))
        if text is None:
            text = incomplete(why, results, language, state.pending)
    elif text is None or not evidence:
        text = message("loop.not_found", language)
        status = "not_found"
    start = min((r.verdict.confidence for r in evidence), default=0.0)
    doubts: list[str] = []  # what caps the confidence (tablerag.answer.confidence.CAPS)
    found: list[Finding] = []
    note = ""
    for verdict in stages.enabled(VERDICTS):
        judging = Judging(
            question, results, evidence, [c.snippet for c in state.citations], text or "",
            status, final is not None, language,
        )  # fmt: skip
        said = verdict.run(judging)
        if said is None:
            continue
        doubts.append(said.code)
        note = note or said.note
        if status == "ok" and not said.note:  # a lead verdict: the answer is not ok
            status = "unsure"
        if said.finding is not None:
            found.append(said.finding)
            text = composed(text or "", [said.finding], language)
    final_step = Step(
        n=len(results) + 1,
        action="answer",
        input=question,
        observation=text,
        note=note,
    )
    timings = dict(state.timings)
    timings["total"] = round((time.perf_counter() - started) * 1000, 3)
    return Answer(
        question=question,
        answer=text,
        language=language,
        path="loop",
        table=shown.sql.table if shown and shown.sql else None,
        sql=shown.sql.sql if shown and shown.sql else None,
        reading=shown.sql.reading if shown and shown.sql else None,
        sql_attempts=attempts,
        citations=state.citations,
        facts=facts,
        confidence=confidence(start, doubts),
        status=status,
        findings=found,
        error=error,
        timings_ms=timings,
        steps=[r.step for r in results] + [final_step],
        budget_exhausted=stop,
    )


def _exceeded(stop: BudgetName | None, budget: Budget) -> BudgetExceeded:
    name = stop or "steps"
    return BudgetExceeded(name, budget.limit(name))


def _key(text: str) -> str:
    return " ".join(_WORD.findall(text.lower()))


def _add(timings: dict[str, float], stage: str, ms: float) -> None:
    timings[stage] = round(timings.get(stage, 0.0) + ms, 3)
