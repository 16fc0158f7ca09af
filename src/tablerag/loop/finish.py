"""The loop's final answer: the registered stages it goes through before the envelope.

The decomposer composes the final answer from the steps; a small model echoes the trace's
``question -> answer`` lines, keeps the figures and drops the policy (or the other way).
:data:`FINISH` is the pipeline of stages (``compose``, ``tiers``, registered in
:mod:`tablerag.nl2sql.stages`) that mends that, one signature each:
``(final answer, Finishing) -> final answer``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from tablerag.answer import Language, Step
from tablerag.loop.crosscheck import LISTING_ROWS
from tablerag.loop.step import StepResult
from tablerag.loop.tiers import tier_lines
from tablerag.nl2sql.stages import COMPOSE, TIERS, Stage, Switches, bound
from tablerag.rag.answer import CITATION_MARK

NOT_FOUND = "(not found)"
"""What the trace says of a step that found no answer (the model sometimes copies it)."""
_CLAUSE_END = re.compile(r"[，。；：,.;:!?！？\n]")
_WORD = re.compile(r"[\w\u3400-\u9fff]+")


@dataclass(frozen=True)
class Finishing:
    """What the stages of the loop's final answer read: the question, the steps, the language."""

    question: str
    results: Sequence[StepResult]
    language: Language


Finish = Callable[[str, Finishing], str]
"""``(final answer, what the loop found) -> final answer``."""


def _compose(final: str, f: Finishing) -> str:
    """The final answer without the trace's echoes, with the parts a small model's composition
    left out put back (:func:`unechoed`, :func:`with_figure_parts`, :func:`with_text_parts`)."""
    asked = [f.question, *(r.step.input for r in f.results)]
    composed = with_figure_parts(unechoed(final, asked), f.results)
    # a final answer that was only such echoes is the steps' parts, if they have any
    return with_text_parts(composed, [r.step for r in f.results]).strip() or final


def _tiers(final: str, f: Finishing) -> str:
    """The final answer with the rule of each row of a ``both`` step (:func:`row_rules`)."""
    return "\n".join([final, *(t for t in row_rules(f.results, f.language) if t not in final)])


FINISH: tuple[Stage[Finish], ...] = (
    bound(COMPOSE, _compose),
    bound(TIERS, _tiers),
)
"""The stages of the loop's final answer, in order (registered in :mod:`tablerag.nl2sql.stages`)."""


def finished(
    final: str,
    question: str,
    results: Sequence[StepResult],
    language: Language,
    stages: Switches,
) -> str:
    """The final answer through the stages of :data:`FINISH` that are on."""
    finishing = Finishing(question, results, language)
    for stage in stages.enabled(FINISH):
        final = stage.run(final, finishing)
    return final


def row_rules(results: Sequence[StepResult], language: Language) -> list[str]:
    """For each ``both`` step, the rule of the documents that each of its SQL rows falls
    under (:func:`~tablerag.loop.tiers.tier_lines`), read from the step's text answer and that
    of the documents-only step that followed it.

    Example:
        >>> from tablerag.loop.crosscheck import Verdict
        >>> from tablerag.answer import ResultTable
        >>> table = ResultTable(columns=["c", "rate"], rows=[["Phones", 0.12]], row_count=1)
        >>> both = Step(n=1, action="sub-question", result=table, decision="both",
        ...             text_answer="Above 10%: review [1]. Above 20%: delist [1].")
        >>> row_rules([StepResult(both, Verdict("both", "sql", ""), (), None, {})], "en")
        ['Phones (12.0%): Above 10%: review [1].']
    """
    steps = [r.step for r in results]
    out: list[str] = []
    for i, step in enumerate(steps):
        if step.decision != "both" or step.result is None:
            continue
        after = steps[i + 1] if i + 1 < len(steps) else None
        text = step.text_answer
        if after is not None and after.sql is None and after.text_answer:
            text = f"{text}\n{after.text_answer}"
        out += tier_lines(step.result, text, language)
    return out


def unechoed(final: str, asked: Sequence[str]) -> str:
    """``final`` without the lines that echo the trace's ``question -> answer`` form for the
    question or a step's sub-question (``asked``): the answer after the arrow is kept, a
    ``(not found)`` is dropped with its line. The local model composed "3 categories had the
    highest return rate ..., and how should each be handled ...? -> Under the return policy,
    ...", and "服装鞋帽, 手机数码, 家居日用 — 退货率最高的三个品类…？ -> (not found)" (a step's
    line of the trace, issue 23).

    Example:
        >>> q = "Which segment had the highest revenue in 2019, and why?"
        >>> unechoed("segment had the highest revenue in 2019, and why? -> Cloud [1].", [q])
        'Cloud [1].'
        >>> unechoed("Revenue -> profit: Cloud [1].", [q])
        'Revenue -> profit: Cloud [1].'
        >>> unechoed("Cloud — " + q + " -> (not found)\\nCloud led [1].", [q, "Cloud — " + q])
        'Cloud led [1].'
    """
    kept = []
    for line in final.splitlines():
        head, arrow, rest = line.partition("->")
        if not arrow or not any(same(head, a) for a in asked):
            kept.append(line)
        elif rest.strip() and rest.strip() != NOT_FOUND:
            kept.append(rest.strip())
    return "\n".join(kept).strip()


def with_figure_parts(final: str, results: Sequence[StepResult]) -> str:
    """``final`` led by the SQL answer of each ``both`` step whose rows it names none of: a
    small model composing "the categories, and what the policy says" sometimes keeps only the
    policy (the mirror of :func:`with_text_parts`). Rows without names (numbers only) are
    left to the composition.
    """
    parts: list[str] = []
    for result in results:
        table = result.step.result
        if result.step.decision != "both" or result.sql is None or table is None:
            continue
        cells = (v for row in table.rows[:LISTING_ROWS] for v in row)
        names = [v.strip() for v in cells if isinstance(v, str) and len(v.strip()) > 1]
        if names and not any(n in final for n in names):
            parts.append(result.sql.answer)
    return "\n".join([*parts, final] if final else parts)


def with_text_parts(final: str, steps: Sequence[Step]) -> str:
    """``final`` with the text part of each ``both`` step it left out (cites none of its
    passages; for a text part without citation marks, repeats none of its clauses), on a line
    of its own: a small model composing "the categories, and what the
    policy says" often keeps only the figures. The text part is the answer of the documents-only
    step that followed it (:func:`follow_up`) when there is one, and then left out means citing
    none of the passages only that step found; else the step's own text answer.

    Example:
        >>> both = Step(n=1, action="sub-question", decision="both",
        ...             text_answer="Above 10%: suspend promotions [2].")
        >>> print(with_text_parts("Phones", [both]))
        Phones
        Above 10%: suspend promotions [2].
        >>> with_text_parts("Phones: suspend promotions [2].", [both])
        'Phones: suspend promotions [2].'
        >>> bare = Step(n=1, action="sub-question", decision="both",
        ...             text_answer="超过 20% 的商品，立即暂停线上销售（下架）。")
        >>> print(with_text_parts("最高的是手机数码，按政策应采取以下措施：", [bare]))
        最高的是手机数码，按政策应采取以下措施：
        超过 20% 的商品，立即暂停线上销售（下架）。
        >>> with_text_parts("手机数码：立即暂停线上销售（下架）。", [bare])
        '手机数码：立即暂停线上销售（下架）。'
        >>> after = Step(n=2, action="sub-question", decision="text",
        ...              text_answer="Phones: repair first [4]; see also [2].")
        >>> print(with_text_parts("Phones: suspend promotions [2].", [both, after]))
        Phones: suspend promotions [2].
        Phones: repair first [4]; see also [2].
    """
    cited = set(CITATION_MARK.findall(final))
    parts = [final]
    for i, step in enumerate(steps):
        if step.decision != "both":
            continue
        text = step.text_answer
        marks = set(CITATION_MARK.findall(text))
        after = steps[i + 1] if i + 1 < len(steps) else None
        if after is not None and after.sql is None and CITATION_MARK.search(after.text_answer):
            text = after.text_answer
            # the passages only the follow-up found are what it adds
            marks = (set(CITATION_MARK.findall(text)) - marks) or set(CITATION_MARK.findall(text))
        left_out = not marks & cited if marks else not _quotes(final, text)
        if text and left_out:
            parts.append(text)
    return "\n".join(parts)


def _quotes(final: str, text: str) -> bool:
    """Whether ``final`` repeats a clause of ``text`` (at least 8 characters): how a text part
    without citation marks is seen to be in the final answer."""
    clauses = (c.strip() for c in _CLAUSE_END.split(CITATION_MARK.sub("", text)))
    return any(len(c) >= 8 and c in final for c in clauses)


def same(a: str, b: str) -> bool:
    """Whether sub-question ``a`` asks the question ``b`` itself (≥ 80% shared words).

    Example:
        >>> same("What was the revenue in 2019", "What was the revenue in 2019?")
        True
        >>> same("Revenue in 2018?", "What was the change in revenue from 2018 to 2019?")
        False
    """
    wa, wb = set(_WORD.findall(a.lower())), set(_WORD.findall(b.lower()))
    if not wa or not wb:
        return False
    return len(wa & wb) / len(wa | wb) >= 0.8
