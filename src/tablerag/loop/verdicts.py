"""The loop's verdicts on its final answer: the registered checks it goes through before the
envelope.

A loop answer composed from its steps can read ``ok`` while its figures part is missing (every
step's SQL failed and the documents answered alone), while the answer checks doubt every SQL
result it uses, while its tables and documents answered the same thing differently, or while
it states numbers none of its steps found. :data:`VERDICTS` is the pipeline of stages
(``sql_failed``, ``sql_doubted``, ``conflict``, ``loop_ungrounded``, registered in
:mod:`tablerag.nl2sql.stages`) that says so, one signature each:
``(Judging) -> LoopDoubt | None``. The first three make an ``ok`` answer ``unsure`` (the first
that fires wins); each caps its confidence (:data:`tablerag.answer.confidence.CAPS`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from tablerag.answer import Finding, Language
from tablerag.answer.findings import reasons
from tablerag.answer.grounding import ungrounded_numbers
from tablerag.answer.steps import Stage, bound
from tablerag.lang.messages import message
from tablerag.lang.untrusted import clip
from tablerag.loop.step import StepResult
from tablerag.nl2sql.stages import CONFLICT, LOOP_UNGROUNDED, SQL_DOUBTED, SQL_FAILED


@dataclass(frozen=True)
class Judging:
    """What the loop's verdicts read: the steps, those that found something (``evidence``),
    the passages cited, the answer's text and status so far, whether it is the model's
    composition (else the report of what was done), and the language."""

    question: str
    results: Sequence[StepResult]
    evidence: Sequence[StepResult]
    snippets: Sequence[str]
    text: str
    status: str
    composed: bool
    language: Language


@dataclass(frozen=True)
class LoopDoubt:
    """What a verdict found: the code that caps the confidence, the finding stated above the
    answer (None: the text already says it), and a note on the answer's step."""

    code: str
    finding: Finding | None = None
    note: str = ""


Verdict = Callable[[Judging], LoopDoubt | None]


def _sql_failed(j: Judging) -> LoopDoubt | None:
    """The figures part is missing: the documents answered alone, which is not ok."""
    failed = _sql_failed_everywhere(j.results) if j.status == "ok" else ""
    if not failed:
        return None
    return LoopDoubt("sql_failed", _lead("sql_failed", "loop.sql_failed", why=failed))


def _sql_doubted(j: Judging) -> LoopDoubt | None:
    """The figures are there, but the answer checks doubt them: not ok either (a caveat already
    in the text stays alone)."""
    if j.status != "ok" or _sql_failed_everywhere(j.results):
        return None
    doubted, doubt = _figures_doubted(j.results)
    if not doubted:
        return None
    said = doubt and doubt not in j.text
    return LoopDoubt(
        "sql_doubted", _lead("sql_doubted", "loop.sql_doubted", why=doubt) if said else None
    )


def _conflict(j: Judging) -> LoopDoubt | None:
    """The tables and the documents answered the same thing differently: one is wrong."""
    disagreed = _disagreement(j.evidence) if j.status == "ok" else None
    if disagreed is None:
        return None
    sql_said, text_said = disagreed
    return LoopDoubt("conflict", _lead("conflict", "loop.conflict", sql=sql_said, text=text_said))


def _loop_ungrounded(j: Judging) -> LoopDoubt | None:
    """Numbers in the answer that no step, row, passage or the question holds."""
    if not j.evidence:
        return None
    sources: list[object] = [j.question]
    for r in j.results:
        sources.append(r.verdict.answer)
        if r.sql is not None and r.sql.table is not None:
            sources.extend(v for row in r.sql.table.rows for v in row)
    sources.extend(j.snippets)
    if not j.composed:  # the report of what was done repeats the sub-questions
        sources.extend(r.step.input for r in j.results)
    loose = ungrounded_numbers(j.text, sources)
    if not loose:
        return None
    return LoopDoubt(
        "loop_ungrounded", note=message("loop.ungrounded", j.language, numbers=", ".join(loose))
    )


VERDICTS: tuple[Stage[Verdict], ...] = (
    bound(SQL_FAILED, _sql_failed),
    bound(SQL_DOUBTED, _sql_doubted),
    bound(CONFLICT, _conflict),
    bound(LOOP_UNGROUNDED, _loop_ungrounded),
)
"""The loop's verdicts, in order (registered in :mod:`tablerag.nl2sql.stages`)."""


def _sql_failed_everywhere(results: Sequence[StepResult]) -> str:
    """Why the SQL failed, when some step's SQL failed and no step was answered by SQL (the
    loop's answer then comes from the documents alone); "" otherwise.

    Example:
        >>> from tablerag.answer import Step
        >>> from tablerag.loop.crosscheck import Verdict
        >>> def step(decision: str, chosen: str | None, note: str = "") -> StepResult:
        ...     s = Step(n=1, action="sub-question", decision=decision)
        ...     return StepResult(s, Verdict(decision, chosen, "x", note), (), None, {})
        >>> why = "The SQL failed (no such column); answered from the text."
        >>> _sql_failed_everywhere([step("sql_failed", "document", why)])
        'no such column'
        >>> _sql_failed_everywhere([step("sql_failed", "document"), step("sql", "sql")])
        ''
    """
    if any(r.verdict.chosen == "sql" or r.verdict.decision in ("both", "agree") for r in results):
        return ""
    notes = [r.verdict.note for r in results if r.verdict.decision == "sql_failed"]
    if not notes:
        return ""
    why = notes[0]
    start, end = why.find("("), why.rfind(")")
    return clip(why[start + 1 : end] if 0 <= start < end else why, 200)


def _figures_doubted(results: Sequence[StepResult]) -> tuple[bool, str]:
    """Whether the SQL results the answer uses (chosen, agreed with, or kept beside the text)
    are all ones the answer checks doubt, and the checks' reason when its answer's first line
    says it. The flagship's step counted order lines for 退货率, which its definition counts by
    distinct order, and the loop said ``ok`` (issue 23).

    Example:
        >>> from tablerag.answer import Step
        >>> from tablerag.loop.crosscheck import Verdict
        >>> from tablerag.answer import Answer
        >>> doubt = Finding(code="constant_query", severity="doubt", stage="checks",
        ...                 message="checks.constant_query")
        >>> def step(status: str, decision: str, chosen: str = "document") -> StepResult:
        ...     s = Step(n=1, action="sub-question", decision=decision)
        ...     a = Answer(question="q", answer="This result may be wrong: ...\\nx",
        ...                language="en", path="nl2sql", status=status,
        ...                findings=[doubt] if status == "unsure" else [])
        ...     return StepResult(s, Verdict(decision, chosen, "x"), (), a, {})
        >>> _figures_doubted([step("unsure", "both")])
        (True, 'the query reads no table')
        >>> _figures_doubted([step("unsure", "both"), step("ok", "sql", "sql")])
        (False, '')
        >>> _figures_doubted([step("unsure", "text")])  # the text answered; SQL not used
        (False, '')
    """
    used = [
        r
        for r in results
        if r.sql is not None
        and r.sql.status in ("ok", "unsure")
        and (r.verdict.chosen == "sql" or r.verdict.decision in ("both", "agree"))
    ]
    if not used or any(r.sql is not None and r.sql.status != "unsure" for r in used):
        return False, ""
    reasons = [why for r in used if (why := _doubt(r))]
    return True, clip(reasons[0], 200) if reasons else ""


def _disagreement(evidence: Sequence[StepResult]) -> tuple[str, str] | None:
    """What the SQL and the text said in the first step where they disagreed (the crosscheck's
    ``conflict``), each cut short, or None.

    Example:
        >>> from tablerag.answer import Step
        >>> from tablerag.loop.crosscheck import Verdict
        >>> s = Step(n=1, action="sub-question", decision="conflict", text_answer="It was 7 [1].")
        >>> v = Verdict("conflict", "sql", "12", "Conflict: …")
        >>> _disagreement([StepResult(s, v, (), None, {})])
        ('12', 'It was 7 [1].')
    """
    for r in evidence:
        if r.verdict.decision != "conflict":
            continue
        sql_said = r.sql.answer if r.sql is not None else r.verdict.answer
        return clip(sql_said.split("\n", 1)[0], 120), clip(r.step.text_answer, 120)
    return None


def _doubt(r: StepResult) -> str:
    """The answer checks' reasons of a doubted step's SQL, from its findings ("" without)."""
    assert r.sql is not None
    return reasons(r.sql.findings, r.sql.language).rstrip("。. ")


def _lead(code: str, key: str, **values: str) -> Finding:
    """A finding of the loop stated above its answer (message ``key``)."""
    return Finding(code=code, severity="doubt", message=key, values=values, stage="loop")
