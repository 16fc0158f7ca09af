"""A follow-up resolved against its session into a question that stands alone.

Cheap cues first (:func:`tablerag.lang.followups.dependency_cues`): a question without one is
answered as asked, with no model call. A question with cues and earlier turns costs one small
constrained call (JSON schema, :meth:`LLM.complete_structured`) that rewrites it; the rewrite
is what is routed, searched, linked, checked and shown. The SQL model reads the conversation
itself whatever the cues said (:func:`sql_context`: the earlier questions and the last query,
its starting point), and the question as the user worded it. A question with
cues, too short to stand alone and nothing before it ("那个呢" as the first turn) is asked back.
A reply to an answer that offered choices picks one by its number ("2", "第二个", "option 2")
or its text, and continues with that choice's question, with no model call.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from importlib import resources
from typing import Literal

import sqlglot
from pydantic import BaseModel, Field
from sqlglot import exp
from sqlglot.errors import SqlglotError

from tablerag.answer import Answer, Clarification, Language
from tablerag.errors import ProviderError
from tablerag.lang.followups import dependency_cues, picked_number
from tablerag.lang.messages import message
from tablerag.llm import LLM
from tablerag.prompts import render
from tablerag.router.router import Intent, Route
from tablerag.store.sessions import Turn

ResolutionKind = Literal["alone", "resolved", "picked", "no_choice", "orphan", "unresolved"]
"""``alone``: the question stands alone (no cue, or the model said so); ``resolved``: it was
rewritten; ``picked``: it picks one of the choices the previous answer offered; ``no_choice``:
it names a choice by a number no choice has; ``orphan``: it leans on turns there are none of;
``unresolved``: the model call failed and the question is answered as asked."""
MAX_TOKENS = 200
MAX_SQL_CHARS = 2000


class _Reply(BaseModel):
    standalone_question: str = Field(min_length=1, max_length=1000)
    modifies_previous_query: bool = False
    refers_to_earlier: bool = True


@dataclass(frozen=True)
class Resolution:
    """How a question was understood in its conversation."""

    question: str
    standalone: str
    kind: ResolutionKind
    cues: tuple[str, ...] = ()
    base: Turn | None = None
    """The earlier turn whose query the resolver said the question changes (for the trace;
    the SQL model is shown the last query whatever it said, :func:`sql_context`)."""
    dropped: int = 0
    """Earlier turns left out of the resolver's prompt (``session_context_turns``)."""
    choices: tuple[tuple[str, str], ...] = ()
    """The choices offered before, for a reply that picked none of them (``no_choice``)."""


def resolve(
    question: str,
    turns: Sequence[Turn],
    *,
    llm: LLM,
    language: Language,
    timeout_s: float,
    dropped: int = 0,
) -> Resolution:
    """Resolve ``question`` against the session's ``turns`` (oldest first).

    Args:
        question: the question as asked.
        turns: the most recent turns of its session.
        llm: the model (the request's view of it: its deadline and usage).
        language: the question's language.
        timeout_s: the model call's limit.
        dropped: how many older turns ``turns`` leaves out.

    Returns:
        The resolution; a failed model call is ``unresolved`` (the question answered as
        asked), never an exception.
    """
    text = question.strip()
    cues = dependency_cues(text)
    offered = tuple(turns[-1].choices) if turns else ()
    if offered:
        choice = chosen(text, offered)
        if choice is not None:
            return Resolution(question, choice[1], "picked", cues, dropped=dropped)
        if picked_number(text) is not None:
            return Resolution(question, text, "no_choice", cues, dropped=dropped, choices=offered)
    if not cues:
        return Resolution(question, text, "alone", cues, dropped=dropped)
    if not turns:
        leaning = ("refer" in cues or "ends" in cues) and "short" in cues
        return Resolution(question, text, "orphan" if leaning else "alone", cues)
    chat = render(
        "followup",
        language="Chinese" if language == "zh" else "English",
        conversation=conversation_text(turns, dropped),
        question=text,
    )
    try:
        reply = llm.complete_structured(
            chat, _Reply, retries=1, max_tokens=MAX_TOKENS, timeout_s=timeout_s
        )
    except ProviderError:
        return Resolution(question, text, "unresolved", cues, dropped=dropped)
    standalone = reply.standalone_question.strip()
    if not reply.refers_to_earlier or standalone == text:
        return Resolution(question, text, "alone", cues, dropped=dropped)
    if is_query(standalone):  # a small model answered with SQL instead of a question
        return Resolution(question, text, "unresolved", cues, dropped=dropped)
    base = None
    if reply.modifies_previous_query:
        base = last_query(turns)
    return Resolution(question, standalone, "resolved", cues, base, dropped)


def is_query(text: str) -> bool:
    """Whether ``text`` is an SQL query rather than a question (a small resolver may write the
    follow-up's SQL where its rewrite belongs).

    Example:
        >>> is_query("SELECT 船只ID FROM 伤亡 WHERE 死亡人数 >= 10")
        True
        >>> is_query("With whom did she play in 2014?"), is_query("查询华南的销售单数量")
        (False, False)
    """
    try:
        tree = sqlglot.parse_one(text)
    except SqlglotError:
        return False
    return isinstance(tree, exp.Query) and tree.find(exp.Table) is not None


def chosen(reply: str, choices: Sequence[tuple[str, str]]) -> tuple[str, str] | None:
    """The choice ``reply`` picks: by its number, or by the whole text of its label or its
    question, or by a part of exactly one label; None when it picks none.

    Example:
        >>> offered = [("按净额", "华东的净额销售额"), ("按含税额", "华东的含税销售额")]
        >>> chosen("2", offered)[0], chosen("按净额", offered)[0], chosen("含税", offered)[0]
        ('按含税额', '按净额', '按含税额')
        >>> chosen("3", offered) is None, chosen("销售额", offered) is None
        (True, True)
    """
    n = picked_number(reply)
    if n is not None:
        return tuple(choices[n - 1]) if 1 <= n <= len(choices) else None  # type: ignore[return-value]
    text = reply.strip().rstrip("?？。.!！ ").casefold()
    if not text:
        return None
    whole = [c for c in choices if text in (c[0].casefold(), c[1].rstrip("?？。. ").casefold())]
    if len(whole) == 1:
        return whole[0]
    part = [c for c in choices if len(text) >= 2 and text in c[0].casefold()]
    return part[0] if len(part) == 1 else None


def conversation_text(turns: Sequence[Turn], dropped: int = 0) -> str:
    """The earlier turns as the resolver reads them: question, how it was understood, and
    what answered it (the SQL and the result's shape, or the cited passages).

    Example:
        >>> t = Turn("上月华东的毛利是多少？", "上月华东的毛利是多少？", "a1", path="nl2sql",
        ...          sql="SELECT sum(gp) FROM s WHERE region = '华东'", columns=("gp",),
        ...          row_count=1, filter_values=("华东",), answer="毛利为 120 万元。", n=1)
        >>> print(conversation_text([t]))
        1. 上月华东的毛利是多少？
           SQL: SELECT sum(gp) FROM s WHERE region = '华东'
           result: columns gp; 1 rows; filtered on 华东
           answer: 毛利为 120 万元。
    """
    lines = [f"({dropped} older turns left out)"] if dropped else []
    for i, t in enumerate(turns, start=1):
        lines.append(f"{t.n or i}. {t.question}")
        if t.standalone != t.question:
            lines.append(f"   understood as: {t.standalone}")
        if t.sql:
            lines.append(f"   SQL: {' '.join(t.sql.split())[:MAX_SQL_CHARS]}")
            shape = f"columns {', '.join(t.columns)}; {t.row_count} rows" if t.columns else ""
            if t.filter_values:
                shape += f"; filtered on {', '.join(t.filter_values)}"
            if shape:
                lines.append(f"   result: {shape}")
        if t.chunk_ids:
            lines.append(f"   answered from the documents ({len(t.chunk_ids)} passages)")
        if t.answer:
            lines.append(f"   answer: {' '.join(t.answer.split())}")
    return "\n".join(lines)


@lru_cache(maxsize=1)
def _sql_templates() -> dict[str, dict[str, str]]:
    text = resources.files("tablerag.lang").joinpath("followups.json").read_text("utf-8")
    return dict(json.loads(text)["sql_context"])


def last_query(turns: Sequence[Turn]) -> Turn | None:
    """The latest turn answered by a query that ran: not from the documents, not a query
    that failed (refused, an error), which the model would copy.

    Example:
        >>> ran = Turn("q1", "q1", "a1", path="nl2sql", status="ok", sql="SELECT 1")
        >>> failed = Turn("q2", "q2", "a2", path="nl2sql", status="error", sql="SELECT x")
        >>> last_query([ran, failed]).sql, last_query([failed])
        ('SELECT 1', None)
    """
    return next(
        (t for t in reversed(turns) if t.sql and t.path != "rag" and t.status != "error"), None
    )


_CONTINUED: dict[str, Intent] = {
    "nl2sql": "data",
    "loop": "data",
    "hybrid": "hybrid",
    "rag": "knowledge",
}
"""The intent that continues a turn answered on each path."""


def continued(decision: Route, follows: str) -> Route:
    """``decision`` for a question asked after a turn answered on path ``follows``: one the
    router cannot place (``ambiguous``: "这个频道是用什么语言的？" names no table word of its own)
    continues the conversation where it was, the tables or the documents, instead of being
    answered with example questions; any other decision as it is.

    Example:
        >>> from tablerag.router.router import route
        >>> vague = route("这个呢")
        >>> vague.intent, continued(vague, "nl2sql").intent, continued(vague, "rag").intent
        ('ambiguous', 'data', 'knowledge')
        >>> continued(vague, "clarify") is vague, continued(vague, "") is vague
        (True, True)
    """
    intent = _CONTINUED.get(follows)
    if decision.intent != "ambiguous" or intent is None:
        return decision
    reason = f"a follow-up the words do not place: it continues the previous turn ({follows})"
    return replace(decision, intent=intent, reasons=(reason, *decision.reasons))


def sql_context(turns: Sequence[Turn], language: Language) -> str:
    """What the SQL model reads before a question asked in a conversation: the earlier
    questions as the user asked them, the last query that answered one of them
    (:func:`last_query`; the starting point when the question continues it, as CHASE's best
    systems edit the previous SQL) and the current-question marker; "" with no earlier turn.
    The question follows as the user worded it: a one-sentence rewrite by a small model drops
    what the earlier turns asked for (their columns, a count) more often than the SQL model
    misreads the conversation.

    Example:
        >>> t = Turn("Refunds in March?", "Refunds in March?", "a1", path="nl2sql",
        ...          sql="SELECT count(*) FROM r WHERE month = 3")
        >>> lines = sql_context([t], "en").splitlines()
        >>> lines[:2]
        ['Earlier questions:', '- Refunds in March?']
        >>> lines[2][:13], lines[3:]
        ('Previous SQL ', ['SELECT count(*) FROM r WHERE month = 3', 'Current question: '])
        >>> sql_context([], "zh")
        ''
    """
    if not turns:
        return ""
    words = _sql_templates()[language]
    lines = [words["earlier"], *(f"- {text}" for text in as_asked(turns))]
    base = last_query(turns)
    if base is not None and base.sql:
        lines += [words["sql"], base.sql[:MAX_SQL_CHARS]]
    return "\n".join(lines) + "\n" + words["current"]


def said(turns: Sequence[Turn], question: str) -> str:
    """What the user said in a conversation up to ``question``: the earlier questions as asked
    and this one as worded, a line each ("" with no earlier turn). The answer checks that ask
    whether the question named something (a period, an identifier) read these too: "那华南呢？"
    after "2026年10月华东的销售单有多少笔？" still asks about 2026-10.

    Example:
        >>> t = Turn("10月华东的销售单有多少笔？", "10月华东的销售单有多少笔？", "a1")
        >>> said([t], "那华南呢？")
        '10月华东的销售单有多少笔？\\n那华南呢？'
        >>> said([], "那华南呢？")
        ''
    """
    if not turns:
        return ""
    return "\n".join([*as_asked(turns), " ".join(question.split())])


def as_asked(turns: Sequence[Turn]) -> list[str]:
    """Each turn's question as the user asked it, on one line; a reply that picked one of the
    choices offered before it ("2") as the question it picked.

    Example:
        >>> offered = [("按净额", "华东的净额是多少？"), ("按含税额", "华东的含税额是多少？")]
        >>> asked_back = Turn("华东的销售额是多少？", "华东的销售额是多少？", "a1", choices=offered)
        >>> as_asked([asked_back, Turn("2", "华东的含税额是多少？", "a2")])
        ['华东的销售额是多少？', '华东的含税额是多少？']
    """
    out = []
    for before, turn in zip((None, *turns), turns, strict=False):
        offered = before.choices if before is not None else ()
        picked = bool(offered) and chosen(turn.question, offered) is not None
        out.append(" ".join((turn.standalone if picked else turn.question).split()))
    return out


def nothing_to_follow(question: str, language: Language) -> Answer:
    """The reply to a follow-up with no earlier turn: it asks what the question refers to."""
    text = question.strip()
    return Answer(
        question=question,
        answer=message("conversation.nothing_to_follow", language, question=text),
        language=language,
        path="clarify",
        status="clarify",
    )


def no_such_choice(question: str, choices: Sequence[tuple[str, str]], language: Language) -> Answer:
    """The reply to a pick that matches no choice: the choices again, with how to pick."""
    return Answer(
        question=question,
        answer=message(
            "conversation.no_such_choice", language, question=question.strip(), count=len(choices)
        ),
        language=language,
        path="clarify",
        status="clarify",
        clarifications=[Clarification(label=label, question=q) for label, q in choices],
    )
