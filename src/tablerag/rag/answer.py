"""RAG path v1: hybrid retrieval → a short answer grounded in numbered passages, with citations.

"Relevant" is judged on the BM25 score of the best passage (``min_score``, calibrated on the
sample corpus, see bench/RESULTS.md): dense similarities of unrelated texts are not near zero, so
they cannot tell "nothing relevant" apart. Nothing relevant → "not found in the documents",
without an LLM call. When the model fails (timeout, HTTP error, empty or garbage reply) the
answer degrades to the retrieved passages themselves.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from tablerag.answer import (
    Answer,
    AnswerStatus,
    Citation,
    Fact,
    Finding,
    FindingPlacement,
    Language,
)
from tablerag.answer.confidence import LOCAL, confidence
from tablerag.answer.findings import composed
from tablerag.answer.grounding import strip_enumerators, ungrounded_numbers
from tablerag.answer.steps import ALL_ON, Stage, Switches
from tablerag.errors import ProviderError, RetrievalError
from tablerag.lang.asks import asks_one_figure, asks_over_rows
from tablerag.lang.messages import LANGUAGE_NAMES, message
from tablerag.lang.tokenize import tokenize
from tablerag.llm.base import LLM
from tablerag.llm.profiles import ConfidenceBase
from tablerag.prompts import render
from tablerag.rag.differ import differing_figure
from tablerag.types import Hit, source_label

Searcher = Callable[[str, int], Sequence[Hit]]
"""``search(question, k)``: the ``k`` best hits of the text index, best first."""

ANSWER_MAX_TOKENS = 256
NOT_FOUND_MARK = "NOT_FOUND"
SNIPPET_CHARS = 200
#: Share of a sentence's words a passage must hold for an unmarked sentence to cite it.
MIN_OVERLAP = 0.5
CITATION_MARK = re.compile(r"\[(\d+)\]")
"""A citation mark ``[n]``; the group is the number."""
_SENTENCE_END = re.compile(r"(?<=[。！？!?])\s*|(?<=[.;；])\s+|\n+")


MIN_SUBJECT_SHARE = 0.5
"""Share of the question's words the cited passages must hold (issue 23: "保修索赔团队的负责人
是谁？" was answered from a payroll sheet's 负责人 column, status ok)."""


@dataclass(frozen=True)
class RAGOptions:
    """Knobs of the path (the service fills them from Settings)."""

    k: int = 4
    """Passages given to the model."""
    min_score: float = 2.0
    """Least BM25 score of the best passage for the documents to count as relevant."""
    passage_chars: int = 300
    """Each passage is cut to this many characters in the prompt."""
    timeout_s: float = 120.0
    """Time limit of the LLM call."""
    table_rows: Mapping[str, int] = field(default_factory=dict)
    """Rows of each SQL table (lower-case name): a passage cut from a table holding fewer is
    an excerpt, which a question over all of its rows cannot be answered from."""
    confidence: ConfidenceBase = LOCAL
    stages: Switches = ALL_ON
    """Which of the answer's checks run (:data:`DOC_CHECKS`)."""
    """Where the answer's confidence starts (the model profile's): cited or not; its doubts
    (a number from nowhere, a figure read off a table excerpt, passages off the subject) cap
    it (:mod:`tablerag.answer.confidence`)."""


def is_relevant(hits: Sequence[Hit], min_score: float) -> bool:
    """Whether the best lexical score among ``hits`` reaches ``min_score``."""
    return max((h.bm25 or 0.0 for h in hits), default=0.0) >= min_score


def answer_from_documents(
    question: str,
    *,
    llm: LLM,
    search: Searcher,
    language: Language,
    options: RAGOptions | None = None,
) -> Answer:
    """Answer ``question`` from the documents, citing the passages it used.

    Never raises for retrieval or model failures: they become an answer with status
    ``error`` or ``degraded``.

    Args:
        question: the user's question.
        llm: the model that writes the answer.
        search: the text index search.
        language: language of the answer.
        options: passages, relevance threshold, time limit.

    Returns:
        An answer on path ``rag``: ``ok`` with citations, ``not_found``, ``degraded``
        (passages only) or ``error`` (retrieval failed).
    """
    opts = options or RAGOptions()
    timings: dict[str, float] = {}
    started = time.perf_counter()
    try:
        hits = list(search(question, opts.k))
    except RetrievalError as exc:
        return _answer(
            question,
            language,
            message("rag.not_found", language),
            timings,
            status="error",
            error=str(exc),
        )
    timings["retrieval"] = round((time.perf_counter() - started) * 1000, 3)
    if not is_relevant(hits, opts.min_score):
        return _answer(
            question, language, message("rag.not_found", language), timings, status="not_found"
        )
    hits = hits[: opts.k]
    citations = [citation(n, h) for n, h in enumerate(hits, start=1)]
    passages = "\n\n".join(_passage(n, h, opts.passage_chars) for n, h in enumerate(hits, start=1))
    chat = render("rag", language=LANGUAGE_NAMES[language], passages=passages, question=question)
    try:
        reply = llm.complete(
            chat, temperature=0.0, max_tokens=ANSWER_MAX_TOKENS, timeout_s=opts.timeout_s
        )
    except ProviderError as exc:
        return _degraded(question, language, citations, timings, str(exc))
    timings["llm"] = round(reply.latency_ms, 3)
    if reply.truncated:  # cut off mid-sentence: not a finished answer (issue 23)
        why = (
            f"The model's answer was cut off at its length limit ({ANSWER_MAX_TOKENS} tokens); "
            "ask a narrower question."
        )
        return _degraded(question, language, citations, timings, why)
    text = reply.text.strip()
    if NOT_FOUND_MARK in text.upper().replace(" ", "_"):
        return _answer(
            question, language, message("rag.not_found", language), timings, status="not_found"
        )
    if not _usable(text):
        return _degraded(
            question, language, citations, timings, "the model's reply was empty or not text"
        )
    facts = facts_of(text, [h.text for h in hits])
    # the answer's checks: a sentence tied to a passage, every number from the passages
    base = opts.confidence
    start = base.cited if any(f.citation for f in facts) else base.uncited
    found: list[Finding] = []  # in the order the text states them
    said = text
    for check in opts.stages.enabled(DOC_CHECKS):
        draft = Draft(question, composed(said, found, language), hits, facts, language,
                      opts.table_rows)  # fmt: skip
        finding = check.run(draft)
        if finding is not None:  # a later check's line goes above an earlier one's
            found = [*found, finding] if finding.placement == "inline" else [finding, *found]
    text = composed(said, found, language)
    status: AnswerStatus = "unsure" if found else "ok"
    return _answer(
        question,
        language,
        text,
        timings,
        citations=citations,
        facts=facts,
        confidence=confidence(start, [f.code for f in found], base=base),
        status=status,
        findings=found,
    )


@dataclass(frozen=True)
class Draft:
    """A document answer as its checks read it: the question, the text so far, the passages
    the model was shown, the facts tied to them, the language, the SQL tables' row counts."""

    question: str
    text: str
    hits: Sequence[Hit]
    facts: Sequence[Fact]
    language: Language
    table_rows: Mapping[str, int]


DocCheck = Callable[[Draft], Finding | None]
"""``(Draft) -> Finding | None``: a check of a document answer (a doubt makes it ``unsure``)."""


def _ungrounded(d: Draft) -> Finding | None:
    loose = ungrounded_numbers(d.text, [h.text for h in d.hits] + [d.question])
    return _doubt("ungrounded", numbers=", ".join(loose), placement="inline") if loose else None


def _table_figure(d: Draft) -> Finding | None:
    excerpt = read_off_table(d.question, d.text, d.hits, d.table_rows)
    return _doubt("table_figure", table=excerpt) if excerpt else None


def _off_subject(d: Draft) -> Finding | None:
    cited = [d.hits[f.citation - 1] for f in d.facts if f.citation is not None]
    missing = off_subject(d.question, [_searchable(h) for h in cited])
    if not missing:
        return None
    return _doubt("off_subject", words=("、" if d.language == "zh" else ", ").join(missing))


def _differing(d: Draft) -> Finding | None:
    said = " ".join(f.text for f in d.facts)
    found = differing_figure(d.question, said, d.hits)
    if found is None:
        return None
    return _doubt("differing", figure=found.figure, other=found.other, source=found.source)


DOC_CHECKS: tuple[Stage[DocCheck], ...] = (
    Stage(
        "ungrounded",
        "check",
        "a document answer states a number no passage (nor the question) holds: unsure, the "
        "numbers named after it",
        _ungrounded,
    ),
    Stage(
        "table_figure",
        "check",
        "a count, amount or rate the model read off a few rows of a table excerpt, which SQL "
        "reads whole: unsure",
        _table_figure,
    ),
    Stage(
        "off_subject",
        "check",
        "the passages a document answer cites miss most of the question's words (Tibet asked, "
        "another region cited): unsure",
        _off_subject,
    ),
    Stage(
        "differing",
        "check",
        "a passage of another document gives another figure for the words the answer's figure "
        "stands beside (another report, another version of a policy): unsure, both named",
        _differing,
    ),
)
"""The document answer's checks, in order (registered with every step in
:mod:`tablerag.nl2sql.stages`)."""


def read_off_table(
    question: str, text: str, hits: Sequence[Hit], table_rows: Mapping[str, int] | None = None
) -> str:
    """The table whose excerpt the answer read a figure from, or "".

    When the passages include a chunk cut from a table and the answer states a number that no
    prose passage (nor the question) holds, the number was read or computed off a few rows of
    a table that SQL reads whole: a guess, when the question asks for one figure (a count, an
    amount, a rate), or asks over the rows ("which … largest", "各", "最高") and the chunk holds
    only some of the table's rows (``table_rows``). The user-data run answered "10 warranty
    claims in total" from the first page of an 80-row table, "付款总额 15273.73" from one row of
    payments, and "the largest claim is WC-070, 8256.84" from one of the table's chunks, all
    ``ok``.

    Example:
        >>> t = Hit("t1", "payments.csv", 1, "customer | amount\\nDelta | 15273.73", (), None,
        ...         "payments", 1.0, 1)
        >>> p = Hit("p1", "faq.md", 1, "Refunds take 3 days.", (), None, None, 1.0, 2)
        >>> read_off_table("Delta Traders 的付款总额是多少？", "付款总额是 15273.73 元。", [t, p])
        'payments'
        >>> read_off_table("How many days does a refund take?", "3 days.", [t, p])
        ''
        >>> read_off_table("Who signs the payments?", "Delta signs them.", [t])
        ''
        >>> largest = "Which customer paid the largest amount?"
        >>> read_off_table(largest, "Delta, 15273.73.", [t], {"payments": 40})
        'payments'
        >>> read_off_table(largest, "Delta, 15273.73.", [t], {"payments": 1})  # the whole table
        ''
    """
    tables = [h for h in hits if h.table is not None]
    if not tables:
        return ""
    prose = [h.text for h in hits if h.table is None]
    if not ungrounded_numbers(text, [*prose, question]):
        return ""
    if asks_one_figure(question):
        return str(tables[0].table)
    if not asks_over_rows(question):
        return ""
    rows = table_rows or {}
    cut = [h for h in tables if _chunk_rows(h.text) < rows.get(str(h.table).lower(), 0)]
    return str(cut[0].table) if cut else ""


def _chunk_rows(text: str) -> int:
    """Data rows of a table chunk (its lines of cells, less the header and the rule)."""
    lines = [ln for ln in text.splitlines() if "|" in ln]
    rules = sum(1 for ln in lines if set(ln.replace("|", "").strip()) <= set("-: "))
    return max(0, len(lines) - rules - 1)


def off_subject(question: str, passages: Sequence[str]) -> list[str]:
    """The question's words the cited ``passages`` miss, when they miss most of them ([] when
    they hold enough, or cannot be judged: no passage cited, or none in the question's script).

    Words are the question's Han tokens of two characters or more that are not part of a
    longer token of it (``负责人``, not ``负责``). English questions are not judged: without
    knowing which words are the subject, "were", "many" and "total" would count as much as
    "warranty".

    Example:
        >>> off_subject("保修索赔团队的负责人是谁？", ["部门 负责人 办公地点 财务部 黄丽"])
        ['保修', '索赔', '团队']
        >>> off_subject("一线城市出差每晚住宿最多能报销多少？", ["一线城市 出差住宿 每晚 600 元"])
        []
        >>> off_subject("保修索赔团队的负责人是谁？", ["Claims team lead: Maria Lopez"])
        []
    """
    if not passages:
        return []
    tokens = [t for t in dict.fromkeys(tokenize(question)) if not t.isascii() and len(t) >= 2]
    words = [t for t in tokens if not any(t != o and t in o for o in tokens)]
    held = set().union(*(tokenize(p) for p in passages))
    if not words or not any(not h.isascii() and len(h) >= 2 for h in held):
        return []  # no Han passage: a Chinese question over English text is not judged
    missing = [w for w in words if w not in held and not any(w in h for h in held)]
    return missing if len(missing) > (1 - MIN_SUBJECT_SHARE) * len(words) else []


def _searchable(hit: Hit) -> str:
    """A hit's text with its headings and file name, which say what it is about."""
    return " ".join([source_label(hit.source), *hit.heading_path, hit.text])


def citation(n: int, hit: Hit) -> Citation:
    """The citation numbered ``n`` for a hit (snippet cut to :data:`SNIPPET_CHARS`)."""
    snippet = " ".join(hit.text.split())
    return Citation(
        n=n,
        chunk_id=hit.chunk_id,
        source=hit.source,
        page=hit.page,
        heading_path=list(hit.heading_path),
        snippet=snippet if len(snippet) <= SNIPPET_CHARS else snippet[: SNIPPET_CHARS - 1] + "…",
        table=hit.table,
    )


def facts_of(text: str, passages: Sequence[str]) -> list[Fact]:
    """Sentences of ``text``, each with the passage it cites (numbered from 1).

    A sentence cites the first valid ``[n]`` it carries. Small models often forget the
    markers, so a sentence without one is attributed to the passage sharing most of its
    words (at least :data:`MIN_OVERLAP` of them); otherwise it cites nothing.

    Example:
        >>> ps = ["Refunds take 14 days.", "Damaged parcels: tell us in 48 hours."]
        >>> facts = facts_of("Refunds: 14 days [1]. No gift cards [3]. Damaged: 48 hours.", ps)
        >>> [(f.text, f.citation) for f in facts]
        [('Refunds: 14 days [1].', 1), ('No gift cards [3].', None), ('Damaged: 48 hours.', 2)]
    """
    facts = []
    for part in _SENTENCE_END.split(strip_enumerators(text)):
        sentence = part.strip()
        if not sentence:
            continue
        marks = [int(m) for m in CITATION_MARK.findall(sentence) if 1 <= int(m) <= len(passages)]
        cite = marks[0] if marks else None
        if cite is None and not CITATION_MARK.search(sentence):
            cite = best_passage(sentence, passages)
        facts.append(Fact(text=sentence, source="document", citation=cite))
    return facts


def best_passage(sentence: str, passages: Sequence[str]) -> int | None:
    """Number (from 1) of the passage sharing most word tokens with ``sentence``, if enough do.

    Example:
        >>> best_passage("退货期限是七天", ["换货需保持完好", "七天无理由退货"])
        2
        >>> best_passage("Gift cards", ["Refunds take 14 days."]) is None
        True
    """
    words = set(tokenize(sentence))
    if not words:
        return None
    shares = [len(words & set(tokenize(p))) / len(words) for p in passages]
    best = max(range(len(shares)), key=shares.__getitem__, default=None)
    return best + 1 if best is not None and shares[best] >= MIN_OVERLAP else None


def _usable(text: str) -> bool:
    letters = sum(ch.isalpha() for ch in text)
    return letters >= 2 and letters * 3 >= len(text.replace(" ", ""))


def _passage(n: int, hit: Hit, limit: int) -> str:
    where = " > ".join([source_label(hit.source), *hit.heading_path])
    body = " ".join(hit.text.split())
    body = body if len(body) <= limit else body[: limit - 1] + "…"
    return f"[{n}] ({where}) {body}"


def _degraded(
    question: str,
    language: Language,
    citations: list[Citation],
    timings: dict[str, float],
    why: str,
) -> Answer:
    lines = [message("rag.degraded", language)] + [f"[{c.n}] {c.snippet}" for c in citations[:3]]
    return _answer(
        question,
        language,
        "\n".join(lines),
        timings,
        status="degraded",
        error=why,
        citations=citations,
        confidence=0.3,
    )


def _doubt(code: str, placement: FindingPlacement = "lead", **values: str) -> Finding:
    """A finding of the document answer's checks (message ``rag.<code>``)."""
    return Finding(
        code=code,
        severity="doubt",
        message=f"rag.{code}",
        values=values,
        stage="rag",
        placement=placement,
    )


def _answer(
    question: str, language: Language, text: str, timings: dict[str, float], **fields: Any
) -> Answer:
    return Answer(
        question=question, answer=text, language=language, path="rag", timings_ms=timings, **fields
    )
