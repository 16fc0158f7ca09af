"""The answer every path returns (:mod:`~tablerag.answer.envelope`), its grounding check and the
fusion of two paths' answers."""

from __future__ import annotations

from tablerag.answer.envelope import (
    ANSWERED,
    STAGES,
    Answer,
    AnswerPath,
    AnswerStatus,
    BudgetName,
    Citation,
    Clarification,
    Fact,
    FactSource,
    Fallback,
    FallbackOutcome,
    Language,
    LLMUsage,
    Reading,
    ResultTable,
    RouteInfo,
    RouteIntent,
    SQLAttempt,
    Step,
    StepDecision,
    detect_language,
)

__all__ = [
    "ANSWERED",
    "STAGES",
    "Answer",
    "AnswerPath",
    "AnswerStatus",
    "BudgetName",
    "Citation",
    "Clarification",
    "Fact",
    "FactSource",
    "Fallback",
    "FallbackOutcome",
    "LLMUsage",
    "Language",
    "Reading",
    "ResultTable",
    "RouteInfo",
    "RouteIntent",
    "SQLAttempt",
    "Step",
    "StepDecision",
    "detect_language",
]
