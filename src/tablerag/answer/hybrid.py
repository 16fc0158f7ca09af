"""Hybrid path: run the SQL and the document paths side by side and fuse their answers.

Fusion is deterministic (no extra LLM call, which would cost seconds on a local model): each
side's answer becomes a labelled part of the text, each fact keeps its source (``sql`` or
``document``), the table and SQL come from the SQL side and the citations from the documents.
A side that found nothing or failed is said so in one line; the other side still answers. A
two-part question (a figure *and* a rule, ``needs_both``) is whole only when both sides
answered: one part missing makes the fused answer ``unsure`` and its first line names the part.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from contextvars import copy_context

from tablerag.answer.envelope import ANSWERED, Answer, AnswerStatus, Citation, Fact, Language
from tablerag.lang.messages import message

_GOOD: tuple[AnswerStatus, ...] = ("ok", "unsure", "degraded")
"""Statuses of a side that answered."""
PART_SHARE = 0.5
"""A two-part question with one part answered is at most this share as sure as that part."""


def run_both(
    sql_path: Callable[[], Answer], doc_path: Callable[[], Answer]
) -> tuple[Answer, Answer]:
    """Run both paths in two threads; returns (SQL answer, document answer).

    Exceptions of either path propagate (the paths turn their expected failures into answers).
    """
    with ThreadPoolExecutor(max_workers=2, thread_name_prefix="tablerag-hybrid") as pool:
        # each in a copy of this thread's context: the request's query memo goes along
        sql_future = pool.submit(copy_context().run, sql_path)
        doc_future = pool.submit(copy_context().run, doc_path)
        return sql_future.result(), doc_future.result()


def fuse(
    question: str, language: Language, sql: Answer, doc: Answer, *, needs_both: bool = False
) -> Answer:
    """One answer from the SQL side and the document side, every fact labelled by source, each
    side's findings and checks kept (data part first, as the text states them).

    Args:
        question: the user's question.
        language: language of the answer.
        sql: the NL2SQL path's answer.
        doc: the RAG path's answer.
        needs_both: the question has a data part and a document part (the router's
            ``Route.needs_both``), so each side answers only its own part; False when both
            paths ran because the router was unsure which one answers (one good side is
            enough).

    Returns:
        An answer on path ``hybrid``: when a side answered, ``unsure`` if a side that answered
        is (its part of the text says why; the confidence is the lower one), else ``ok`` if a
        side is (the confidence is the higher one), else ``degraded``; when neither answered,
        the more informative of the two failures (``no_data`` before ``not_found`` before
        ``error``). With ``needs_both``, a side whose status is neither ``ok`` nor ``unsure``
        leaves its part unanswered: when the other side answered, the fused answer is
        ``unsure``, its first line says which part is missing, and its confidence is at most
        :data:`PART_SHARE` of the answered side's.
    """
    data_label = message("hybrid.data_label", language)
    doc_label = message("hybrid.documents_label", language)
    parts = [data_label + sql.answer, doc_label + doc.answer]
    good = [a for a in (sql, doc) if a.status in _GOOD]
    if good:
        status: AnswerStatus = next(
            s for s in ("unsure", "ok", "degraded") if s in {a.status for a in good}
        )
        pick = min if status == "unsure" else max
        confidence = pick(a.confidence for a in good)
    else:
        status = next(s for s in ("no_data", "not_found", "error") if s in (sql.status, doc.status))
        confidence = min(sql.confidence, doc.confidence)
    answered = [a for a in (sql, doc) if a.status in ANSWERED]
    if needs_both and len(answered) == 1:  # one part of a two-part question is missing
        if answered[0] is doc:
            parts.insert(0, message("hybrid.missing_data", language))
        else:
            parts.insert(0, message("hybrid.missing_documents", language))
        status, confidence = "unsure", round(answered[0].confidence * PART_SHARE, 3)
    errors = [f"{name}: {a.error}" for name, a in (("sql", sql), ("documents", doc)) if a.error]
    citations, sql_facts = after_passages(sql, doc)
    return Answer(
        question=question,
        answer="\n".join(parts),
        language=language,
        path="hybrid",
        table=sql.table,
        sql=sql.sql,
        sql_attempts=sql.sql_attempts,
        reading=sql.reading,
        citations=citations,
        facts=[*sql_facts, *doc.facts],
        confidence=confidence,
        status=status,
        error="; ".join(errors) or None,
        timings_ms=merge_timings(sql.timings_ms, doc.timings_ms),
        knowledge=sql.knowledge,  # the definitions the data part followed (issue 30)
        checks=[*sql.checks, *doc.checks],
        findings=[*sql.findings, *doc.findings],  # in the order the parts state them
    )


def after_passages(sql: Answer, doc: Answer) -> tuple[list[Citation], list[Fact]]:
    """The citations of both sides and the SQL side's facts: the passages keep their numbers
    (the document side's text says [1], [2] …), the definitions the data part followed (its
    own citations, named in its text by document, never by number) are numbered after them.

    Example:
        >>> from tablerag.answer.envelope import Citation, Fact
        >>> c = Citation(n=1, chunk_id="c", source="glossary.md")
        >>> facts = [Fact(text="42", source="sql"), Fact(text="d", source="document", citation=1)]
        >>> sql = Answer(question="q", answer="a", language="en", path="nl2sql", citations=[c],
        ...     facts=facts)
        >>> doc = Answer(question="q", answer="b [1]", language="en", path="rag",
        ...     citations=[c.model_copy(update={"chunk_id": "p", "source": "policy.md"})])
        >>> cites, facts = after_passages(sql, doc)
        >>> [(x.n, x.source) for x in cites], [f.citation for f in facts]
        ([(1, 'policy.md'), (2, 'glossary.md')], [None, 2])
    """
    shift = max((c.n for c in doc.citations), default=0)
    moved = {c.n: c.n + shift for c in sql.citations}
    citations = [*doc.citations, *(c.model_copy(update={"n": moved[c.n]}) for c in sql.citations)]
    facts = [
        f.model_copy(update={"citation": moved.get(f.citation, f.citation)})
        if f.citation is not None
        else f
        for f in sql.facts
    ]
    return citations, facts


def merge_timings(*timings: Mapping[str, float]) -> dict[str, float]:
    """Add up stage timings of several paths (parallel paths: the sum is CPU-ish time).

    Example:
        >>> merge_timings({"llm": 10.0, "execution": 2.0}, {"llm": 5.5, "retrieval": 1.0})
        {'llm': 15.5, 'execution': 2.0, 'retrieval': 1.0}
    """
    out: dict[str, float] = {}
    for part in timings:
        for stage, ms in part.items():
            out[stage] = round(out.get(stage, 0.0) + ms, 3)
    return out
