"""A question searched in the documents' other language: Chinese ↔ English.

BM25 shares no word across languages, and the multilingual embedder ranks passages of the
question's own language first, so "How long after graduation can I apply for the subsidy?" never
finds the handbook's "结业之日起90天内申请…补贴", and the relevance test (the best BM25 score)
says "not found" before any model reads it. When nothing the question found passes that test
and the index holds passages written in the other language, the document path asks the model
once for the question in that language (a short, bounded reply) and reads the passages its
translation finds first. A reply that is empty, cut
off, or not in the asked language is not used: the question is then searched as asked.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from dataclasses import replace

from tablerag.errors import ProviderError
from tablerag.lang.messages import LANGUAGE_NAMES, Language
from tablerag.lang.tokenize import written_in
from tablerag.llm.base import LLM
from tablerag.prompts import render
from tablerag.types import Hit

TRANSLATE_MAX_TOKENS = 96
"""A question's translation is one line; a longer reply is not a translation."""

_SCRIPTS: dict[str, Language] = {"CJK": "zh", "LATIN": "en"}
_NUMBER = re.compile(r"\d+(?:\.\d+)?")


def other_language(question: str, held: Collection[str]) -> Language | None:
    """The language to translate ``question`` into: the other of Chinese and English, when
    passages written in it are ``held`` (scripts, as :func:`~tablerag.lang.tokenize.written_in`
    names them); else None.

    Example:
        >>> other_language("补考费是多少？", {"CJK", "LATIN"}), other_language("fee?", {"LATIN"})
        ('en', None)
        >>> other_language("How much is the resit fee?", {"CJK"})
        'zh'
    """
    own = written_in(question)
    if own is None:
        return None
    others = [_SCRIPTS[s] for s in sorted(held) if s != own and s in _SCRIPTS]
    return others[0] if others else None


def translated(question: str, into: Language, llm: LLM, *, timeout_s: float) -> str | None:
    """``question`` in language ``into`` as the model writes it, or None when the model fails
    or its reply is not a one-line question in that language."""
    chat = render("translate", language=LANGUAGE_NAMES[into], question=question)
    try:
        reply = llm.complete(
            chat, temperature=0.0, max_tokens=TRANSLATE_MAX_TOKENS, timeout_s=timeout_s
        )
    except ProviderError:
        return None
    return usable_translation(reply.text, into, question) if not reply.truncated else None


def usable_translation(text: str, into: Language, question: str = "") -> str | None:
    """The reply's first line, unquoted, when it is written in ``into`` and keeps every
    number of ``question`` (a reply that drops them is a summary, not a translation); else None.

    Example:
        >>> usable_translation('"结业后多少天内可以申请补贴？"\\n', "zh")
        '结业后多少天内可以申请补贴？'
        >>> usable_translation("Sure! Here it is", "zh") is None
        True
        >>> usable_translation("可以吗？", "zh", "Can a student at 75% with a score of 85 pass?")
    """
    lines = [line.strip().strip("\"'“”「」") for line in text.strip().splitlines()]
    first = next((line for line in lines if line), "")
    if not first or _SCRIPTS.get(written_in(first) or "") != into:
        return None
    if not set(_NUMBER.findall(question)) <= set(_NUMBER.findall(first)):
        return None
    return first


def translated_first(translated: Sequence[Hit], asked: Sequence[Hit], k: int) -> list[Hit]:
    """The hits of the translation, then those of the question as asked that are not among
    them, at most ``k``, ranked anew: the question's own words found nothing relevant, or
    passages that did not answer it, so the translation's passages are read first.

    Example:
        >>> a = Hit("a", "s", 0, "t", (), None, None, 1.0, 1, bm25=0.5)
        >>> b = Hit("b", "s", 1, "t", (), None, None, 1.0, 1, bm25=6.0)
        >>> [(h.chunk_id, h.rank) for h in translated_first([b, a], [a], 5)]
        [('b', 1), ('a', 2)]
    """
    seen = {h.chunk_id for h in translated}
    ordered = [*translated, *(h for h in asked if h.chunk_id not in seen)]
    return [replace(h, rank=n) for n, h in enumerate(ordered[:k], start=1)]
