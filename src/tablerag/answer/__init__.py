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
    KnowledgeUse,
    Language,
    LLMUsage,
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
    "KnowledgeUse",
    "LLMUsage",
    "Language",
    "ResultTable",
    "RouteInfo",
    "RouteIntent",
    "SQLAttempt",
    "Step",
    "StepDecision",
    "detect_language",
]
