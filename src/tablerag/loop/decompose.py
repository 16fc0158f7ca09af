"""Context-sensitive decomposition: the next sub-question, or the final answer, in one call.

The model sees the question, the schemas of the tables the question's best chunks map to (so it
can ask for what one SQL query over them can compute, instead of splitting a sum into five
look-ups) and the sub-questions answered so far. It replies with one line: ``NEXT: …`` or
``ANSWER: …``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from tablerag.answer import Language
from tablerag.lang.messages import LANGUAGE_NAMES
from tablerag.lang.untrusted import data_block
from tablerag.llm.base import LLM, Completion
from tablerag.prompts import render

DECOMPOSE_MAX_TOKENS = 120
_PREFIX = re.compile(
    r"^\s*[*#>\-\s]*(NEXT|ANSWER|下一步|子问题|答案|最终答案)\s*[:：]\s*", re.I | re.M
)
_NEXT = {"next", "下一步", "子问题"}
TWO_PARTS = (
    "The question asks for figures and for what the documents say: the final answer gives "
    "both, each figure with what the documents say about it.\n"
)
HISTORY_ARROW = " -> "
HISTORY_CHARS = 16_000
LINE_CHARS = 2_000
"""Caps of the answers-so-far block and of one answered line in it."""
"""Joins a sub-question and its answer in the history the decomposer sees."""


@dataclass(frozen=True)
class Plan:
    """What the decomposer decided: ask ``text`` next, or answer with ``text``."""

    kind: Literal["next", "answer"]
    text: str


@dataclass(frozen=True)
class Answered:
    """One sub-question answered earlier, as the decomposer sees it."""

    question: str
    answer: str


def parse_plan(reply: str, *, first: bool, question: str) -> Plan:
    """Read the decomposer's reply; a reply without a marker is read leniently.

    Without ``NEXT:``/``ANSWER:`` a first reply means "ask the question as it is" (small
    models often just restate it); a later reply is taken as the answer. A sub-question that
    copies a line of the history (``question -> answer``) loses the copied answer, so a
    repeated sub-question is seen as one.

    Example:
        >>> parse_plan("NEXT: What was revenue in 2019?", first=True, question="q")
        Plan(kind='next', text='What was revenue in 2019?')
        >>> parse_plan("Thinking...\\nANSWER: 12.5%", first=False, question="q")
        Plan(kind='answer', text='12.5%')
        >>> parse_plan("hmm", first=True, question="What is X?")
        Plan(kind='next', text='What is X?')
        >>> parse_plan("答案：增长了 3%", first=False, question="q")
        Plan(kind='answer', text='增长了 3%')
        >>> parse_plan("NEXT: Revenue 2019? -> The query returned 1 row", first=False, question="q")
        Plan(kind='next', text='Revenue 2019?')
    """
    matches = list(_PREFIX.finditer(reply))
    if matches:
        m = matches[0]
        rest = reply[m.end() :]
        line = rest.split("\n", 1)[0].strip() or rest.strip()
        kind: Literal["next", "answer"] = "next" if m.group(1).lower() in _NEXT else "answer"
        if kind == "next":
            line = line.split(HISTORY_ARROW, 1)[0].strip()
        if line:
            return Plan(kind, line)
    text = reply.strip()
    if first or not text:
        return Plan("next", question)
    return Plan("answer", text.split("\n", 1)[0].strip())


def history_text(answered: Sequence[Answered], language: Language) -> str:
    """The answered sub-questions as numbered lines for the prompt.

    Example:
        >>> print(history_text([Answered("Revenue 2019?", "100")], "en"))
        Answered so far:
        ```text
        1. Revenue 2019? -> 100
        ```
        >>> history_text([], "zh")
        '尚未回答任何子问题。'
    """
    if not answered:
        return "尚未回答任何子问题。" if language == "zh" else "No sub-question answered yet."
    head = "已回答：" if language == "zh" else "Answered so far:"
    lines = [f"{i}. {a.question}{HISTORY_ARROW}{a.answer}" for i, a in enumerate(answered, start=1)]
    # the answers come from rows and passages: data, fenced (tablerag.lang.untrusted)
    return head + "\n" + data_block("\n".join(lines), limit=HISTORY_CHARS, line_limit=LINE_CHARS)


def decompose(
    question: str,
    *,
    llm: LLM,
    schemas: str,
    answered: Sequence[Answered],
    language: Language,
    last_call: bool = False,
    two_parts: bool = False,
    timeout_s: float = 120.0,
) -> tuple[Plan, Completion]:
    """Ask the model for the next sub-question or the final answer.

    Args:
        question: the user's question.
        llm: the model.
        schemas: schema text of the tables the question's chunks map to; "" hides the
            tables (the ablation without schema-aware decomposition).
        answered: the sub-questions answered so far.
        language: language of sub-questions and answer.
        last_call: the step budget is spent: the model must answer now.
        two_parts: SQL and text answered different parts of the question (a step decided
            ``both``): the final answer must give both, not "the few words asked for".
        timeout_s: time limit of the call.

    Raises:
        ProviderError: the model failed.
    """
    tables = (
        f"Tables that may hold the answer (one SQL query can sum, subtract or divide their "
        f"columns):\n{data_block(schemas, 'sql')}\n"
        if schemas
        else ""
    )
    must = "No more sub-questions are allowed: reply with ANSWER now.\n" if last_call else ""
    if two_parts:
        must = TWO_PARTS + must
    chat = render(
        "loop_decompose",
        language=LANGUAGE_NAMES[language],
        tables=tables,
        question=question,
        history=history_text(answered, language),
        must=must,
    )
    reply = llm.complete(
        chat, temperature=0.0, max_tokens=DECOMPOSE_MAX_TOKENS, timeout_s=timeout_s
    )
    return parse_plan(reply.text, first=not answered, question=question), reply
