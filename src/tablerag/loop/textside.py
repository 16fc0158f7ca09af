"""The text side of a step: answer a sub-question from the retrieved passages, with citations.

Like the RAG path (same prompt, same citations), except that a terse reply ("1,452.4 [1]") is
a valid answer here: the loop cross-checks figures, so it wants them bare.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field

from tablerag.answer import Citation, Language
from tablerag.answer.confidence import LOCAL, confidence
from tablerag.answer.grounding import ungrounded_numbers
from tablerag.errors import ProviderError
from tablerag.lang.messages import LANGUAGE_NAMES
from tablerag.llm.base import LLM
from tablerag.llm.profiles import ConfidenceBase
from tablerag.prompts import render
from tablerag.rag.answer import NOT_FOUND_MARK, citation, facts_of, is_relevant
from tablerag.types import Hit

ANSWER_MAX_TOKENS = 160


@dataclass(frozen=True)
class PassageAnswer:
    """What the passages answered: status, text, citations, confidence, LLM time."""

    status: str
    """``ok``, ``not_found`` (nothing relevant, or the model said so) or ``error``."""
    answer: str = ""
    citations: tuple[Citation, ...] = ()
    confidence: float = 0.0
    error: str = ""
    timings_ms: dict[str, float] = field(default_factory=dict)


def passage_block(n: int, hit: Hit, limit: int) -> str:
    """One numbered passage of the prompt: ``[n] (source > heading) text``, cut to ``limit``.

    Example:
        >>> from tablerag.types import Hit
        >>> h = Hit("c1", "/d/report.md", 0, "Revenue grew.", ("Cloud",), None, None, 1.0, 1)
        >>> passage_block(2, h, 100)
        '[2] (report.md > Cloud) Revenue grew.'
    """
    where = " > ".join([hit.source.rsplit("/", 1)[-1], *hit.heading_path])
    body = " ".join(hit.text.split())
    body = body if len(body) <= limit else body[: limit - 1] + "…"
    return f"[{n}] ({where}) {body}"


def answer_from_passages(
    question: str,
    hits: Sequence[Hit],
    *,
    llm: LLM,
    language: Language,
    min_score: float = 0.0,
    passage_chars: int = 1200,
    timeout_s: float = 120.0,
    base: ConfidenceBase = LOCAL,
) -> PassageAnswer:
    """Answer ``question`` from ``hits`` (numbered from 1); never raises for model failures."""
    if not hits or not is_relevant(hits, min_score):
        return PassageAnswer("not_found")
    cites = tuple(citation(n, h) for n, h in enumerate(hits, start=1))
    passages = "\n\n".join(passage_block(n, h, passage_chars) for n, h in enumerate(hits, start=1))
    chat = render("rag", language=LANGUAGE_NAMES[language], passages=passages, question=question)
    started = time.perf_counter()
    try:
        reply = llm.complete(
            chat, temperature=0.0, max_tokens=ANSWER_MAX_TOKENS, timeout_s=timeout_s
        )
    except ProviderError as exc:
        return PassageAnswer("error", error=str(exc), citations=cites)
    timings = {"llm": round((time.perf_counter() - started) * 1000, 3)}
    if reply.truncated:  # cut off mid-sentence: it would end the loop's answer that way
        cut = f"the answer was cut off at its length limit ({ANSWER_MAX_TOKENS} tokens)"
        return PassageAnswer("error", error=cut, citations=cites, timings_ms=timings)
    text = reply.text.strip()
    if not text or NOT_FOUND_MARK in text.upper().replace(" ", "_") or "```" in text:
        return PassageAnswer("not_found", citations=cites, timings_ms=timings)
    facts = facts_of(text, [h.text for h in hits])
    start = base.cited if any(f.citation for f in facts) else base.uncited
    loose = ungrounded_numbers(text, [h.text for h in hits] + [question])
    score = confidence(start, ["ungrounded"] if loose else [], base=base)
    return PassageAnswer("ok", text, cites, score, timings_ms=timings)
