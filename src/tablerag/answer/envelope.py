"""The one answer envelope every answering path returns (and ``tablerag ask --json`` prints).

All models are frozen pydantic v2 models that forbid unknown fields, so a typo in a path's
code fails loudly instead of silently dropping a field.
"""

from __future__ import annotations

import re
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from tablerag.lang.messages import Language as Language

AnswerPath = Literal["rag", "nl2sql", "hybrid", "loop", "chitchat", "clarify", "none"]
AnswerStatus = Literal["ok", "unsure", "no_data", "not_found", "clarify", "error", "degraded"]
"""``ok``: an answer that passed its checks; ``unsure``: an answer some check doubts (the text
says why, e.g. the query reads none of the tables the question is about); ``no_data``: the
query found nothing; ``not_found``: no passage answers; ``clarify``: the question needs a
choice; ``error``: nothing could be answered; ``degraded``: a partial answer (a model reply
that failed, a budget that ran out)."""
ANSWERED: tuple[AnswerStatus, ...] = ("ok", "unsure")
"""The statuses of an answer that states a result (``unsure`` says it may be wrong)."""
RouteIntent = Literal["knowledge", "data", "hybrid", "chitchat", "ambiguous"]
FactSource = Literal["sql", "document"]
#: The stages ``timings_ms`` knows, in pipeline order.
STAGES: tuple[str, ...] = (
    "routing",
    "retrieval",
    "schema",
    "llm",
    "validation",
    "execution",
    "total",
)

_HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_LATIN = re.compile(r"[A-Za-z]+")


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class RouteInfo(_Model):
    """The router's decision as the answer reports it."""

    intent: RouteIntent
    confidence: float = Field(ge=0, le=1)
    reasons: list[str] = Field(default_factory=list)


class ResultTable(_Model):
    """Rows of the executed SQL (or of the table the answer shows), possibly cut short."""

    columns: list[str]
    rows: list[list[Any]]
    row_count: int = Field(ge=0, description="Rows the query returned before truncation.")
    truncated: bool = False

    @model_validator(mode="after")
    def _consistent(self) -> ResultTable:
        width = len(self.columns)
        if any(len(r) != width for r in self.rows):
            raise ValueError(f"every row must have {width} values, one per column")
        if self.row_count < len(self.rows):
            raise ValueError("row_count must be at least the number of rows shown")
        return self


class Reading(_Model):
    """What the executed query computed, read from its SQL (tablerag.answer.reading)."""

    measures: list[str] = Field(default_factory=list, description="Aggregates it reports.")
    filters: list[str] = Field(default_factory=list, description="Conditions on the rows.")
    period: list[str] = Field(default_factory=list, description="Conditions on time.")
    groups: list[str] = Field(default_factory=list, description="What it groups by.")
    units: list[str] = Field(default_factory=list, description="A measure's unit, 'name: unit'.")
    order: list[str] = Field(default_factory=list, description="What it orders by.")
    limit: int | None = Field(default=None, description="The query's own LIMIT, if any.")


class SQLAttempt(_Model):
    """One SQL the path tried: what the gate or the engine said about it (None = it ran)."""

    sql: str
    error: str | None = None
    issues: list[str] = Field(default_factory=list)
    note: str | None = None
    """What tablerag changed itself in the previous attempt's SQL (no model call)."""


class Citation(_Model):
    """One numbered source passage ([1], [2] ... in the answer text)."""

    n: int = Field(ge=1)
    chunk_id: str
    source: str
    page: int | None = None
    heading_path: list[str] = Field(default_factory=list)
    snippet: str = ""
    table: str | None = None


class Fact(_Model):
    """One statement of the answer with where it comes from."""

    text: str
    source: FactSource
    citation: int | None = Field(default=None, description="Citation number, for documents.")


class Clarification(_Model):
    """One option offered when the question is ambiguous."""

    label: str
    question: str = Field(description="The rewritten question to ask if this option is picked.")


class LLMUsage(_Model):
    """LLM calls and tokens spent on the answer."""

    calls: int = Field(default=0, ge=0)
    prompt_tokens: int = Field(default=0, ge=0)
    completion_tokens: int = Field(default=0, ge=0)


StepDecision = Literal["agree", "sql", "text", "both", "sql_failed", "conflict", "none"]
"""How a loop step's intermediate answer was chosen: SQL and text agree; only SQL answered;
only the text answered; both answered different parts and both were kept; the SQL failed and
the text was used instead; they disagreed and the more reliable one was taken (the conflict is
recorded); nothing answered."""
BudgetName = Literal["steps", "tokens", "seconds"]
FallbackOutcome = Literal["answered", "no_answer", "no_time"]
"""How a fallback to the other path ended: it ``answered`` (``ok``; its answer is the answer),
it gave ``no_answer`` either (the first path's answer stands), or there was ``no_time`` left on
the question's deadline to try it."""


class Step(_Model):
    """One step of the iterative loop (thought, action, observation).

    For the TableRAG loop (path ``loop``) ``action`` is ``sub-question``, ``input`` the
    sub-question and ``observation`` its intermediate answer; the other fields say how it
    was found.
    """

    n: int = Field(ge=1)
    action: str
    input: str = ""
    observation: str = ""
    ms: float = Field(default=0.0, ge=0)
    chunks: list[str] = Field(default_factory=list, description="Chunk ids retrieved.")
    tables: list[str] = Field(default_factory=list, description="Tables the chunks map to.")
    sql: str | None = None
    sql_error: str | None = Field(default=None, description="Why the step's SQL failed.")
    result: ResultTable | None = None
    text_answer: str = Field(default="", description="The answer read from the passages.")
    decision: StepDecision | None = None
    chosen: FactSource | None = None
    note: str = Field(default="", description="The fallback or the conflict, in words.")
    citations: list[int] = Field(
        default_factory=list, description="Numbers of the answer's citations this step used."
    )


class Fallback(_Model):
    """The other path tried after the first path's answer was not reliable (issue 23).

    The data path falls back to the documents when its answer is not ``ok``; the documents
    fall back to the data when no passage answers and the question names table terms
    (:mod:`tablerag.answer.fallback`).
    """

    from_path: AnswerPath
    from_status: AnswerStatus
    """The first path's status, the reason to try the other path."""
    to_path: AnswerPath
    to_status: AnswerStatus | None = None
    """The other path's status; None when it was not tried."""
    outcome: FallbackOutcome
    reason: str = Field(description="Why the first path's answer was not kept, in its words.")

    @model_validator(mode="after")
    def _consistent(self) -> Fallback:
        if self.from_path == self.to_path:
            raise ValueError("a fallback goes to the other path")
        if (self.outcome == "no_time") != (self.to_status is None):
            raise ValueError("to_status is None exactly when the fallback was not tried")
        if (self.outcome == "answered") != (self.to_status == "ok"):
            raise ValueError("a fallback answered exactly when the other path is 'ok'")
        return self


class KnowledgeUse(_Model):
    """One entry of the workspace's knowledge an answer followed: the semantic model's
    (issue 30), or a verified query it reused (kind ``example``, ``name`` its id; issue 33)."""

    kind: Literal["metric", "field", "dataset", "relationship", "example"]
    name: str
    caliber: str | None = None
    """The metric's caliber (its default one unless the question asked for another)."""
    status: Literal["draft", "confirmed"]
    """``draft`` until a person confirmed the entry; the answer text says so too."""


FindingSeverity = Literal["doubt", "caveat", "cite"]
"""``doubt``: the answer may be wrong (its status is not ``ok``); ``caveat``: what its rows are
not (they stand, with the warning); ``cite``: a definition the answer followed."""
FindingPlacement = Literal["lead", "tail", "inline", "whole"]
"""Where the answer's text states it: a line above the answer, a line under it, at the end of
its last line, or as the whole text (an answer that is only why nothing was answered)."""


class Finding(_Model):
    """One thing a check or a step found about the answer, as data: its code, how much it
    weighs, the values of its sentence (``message`` in ``lang/messages.json``) and where the
    text states it. The words are rendered at the edge (:mod:`tablerag.answer.findings`)."""

    code: str = Field(description="What was found ('constant_query', 'all_zero', ...).")
    severity: FindingSeverity
    message: str = Field(description="The id of its sentence in lang/messages.json.")
    values: dict[str, str] = Field(default_factory=dict, description="The sentence's values.")
    stage: str = Field(description="The check or step that found it ('checks', 'loop', ...).")
    placement: FindingPlacement = "lead"


class Answer(_Model):
    """The envelope: the answer and everything needed to check it."""

    question: str
    answer: str
    language: Language
    path: AnswerPath
    route: RouteInfo | None = None
    table: ResultTable | None = None
    sql: str | None = Field(default=None, description="The SQL executed, or the last one tried.")
    sql_attempts: list[SQLAttempt] = Field(default_factory=list)
    reading: Reading | None = Field(
        default=None, description="What the executed SQL computed, read from the SQL itself."
    )
    citations: list[Citation] = Field(default_factory=list)
    facts: list[Fact] = Field(default_factory=list)
    confidence: float = Field(default=0.0, ge=0, le=1)
    status: AnswerStatus = "ok"
    checks: list[str] = Field(
        default_factory=list,
        description="Codes of the answer checks that fired on the SQL answer (doubts and the "
        "definitions it followed; tablerag.nl2sql.checks); empty when none fired.",
    )
    error: str | None = None
    clarifications: list[Clarification] = Field(default_factory=list)
    timings_ms: dict[str, float] = Field(default_factory=dict)
    llm: LLMUsage = Field(default_factory=LLMUsage)
    steps: list[Step] = Field(default_factory=list)
    budget_exhausted: BudgetName | None = Field(
        default=None, description="The loop budget that stopped it before it finished."
    )
    fallback: Fallback | None = Field(
        default=None, description="The other path tried after this question's first path."
    )
    knowledge: list[KnowledgeUse] = Field(
        default_factory=list,
        description="Entries of the semantic model the answer followed (metrics with their "
        "caliber, fields); empty when it followed none (issue 30).",
    )
    findings: list[Finding] = Field(
        default_factory=list,
        description="What the checks and steps found about the answer, as data (code, "
        "severity, values), in the order the text states them; empty when nothing was found.",
    )
    standalone_question: str | None = Field(
        default=None,
        description="The follow-up as it was understood in its conversation, when it was "
        "rewritten to stand alone (issue 34); None for a question answered as asked.",
    )

    @model_validator(mode="after")
    def _consistent(self) -> Answer:
        unknown = sorted(set(self.timings_ms) - set(STAGES))
        if unknown:
            raise ValueError(f"unknown timing stages {unknown}; use {', '.join(STAGES)}")
        if any(v < 0 for v in self.timings_ms.values()):
            raise ValueError("timings must not be negative")
        if self.status == "error" and not self.error:
            raise ValueError("status 'error' needs an error message")
        numbers = [c.n for c in self.citations]
        if len(set(numbers)) != len(numbers):
            raise ValueError("citation numbers must be unique")
        cited = {f.citation for f in self.facts if f.citation is not None}
        if not cited <= set(numbers):
            raise ValueError(f"facts cite {sorted(cited - set(numbers))} but no such citation")
        fb = self.fallback
        if fb is not None and self.path != (
            fb.to_path if fb.outcome == "answered" else fb.from_path
        ):
            raise ValueError("the answer's path is the path that answered (see its fallback)")
        return self


def detect_language(text: str) -> Language:
    """``zh`` when Han characters carry the text, else ``en``.

    One Han character weighs like one English word, so a Chinese question with a few table
    or product names in Latin letters is still Chinese.

    Example:
        >>> detect_language("上月华东的毛利是多少？"), detect_language("What is the refund policy?")
        ('zh', 'en')
        >>> detect_language("fact_sales 表里 PAID 的订单有多少"), detect_language("")
        ('zh', 'en')
        >>> detect_language("What does 毛利 mean in the report?")
        'en'
    """
    han = len(_HAN.findall(text))
    words = len(_LATIN.findall(text))
    return "zh" if han > 0 and han >= words else "en"
