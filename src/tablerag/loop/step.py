"""One step of the loop: retrieve for the sub-question, SQL over mapped tables, text, decide."""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from tablerag.answer import Answer, Citation, Language, SQLAttempt, Step
from tablerag.deadline import Deadline
from tablerag.errors import ProviderError, RetrievalError
from tablerag.linking.catalog import SchemaCatalog
from tablerag.llm.base import LLM
from tablerag.llm.deadline import DeadlineLLM
from tablerag.loop.crosscheck import (
    SQLSide,
    TextSide,
    TextStatus,
    Verdict,
    crosscheck,
    figure_part,
    result_cells,
    sql_reliability,
    text_part,
)
from tablerag.loop.retrieve import Searcher, retrieve, tables_of
from tablerag.loop.tablesql import answer_over_tables
from tablerag.loop.textside import PassageAnswer, answer_from_passages
from tablerag.nl2sql.path import NL2SQLOptions
from tablerag.rag.answer import CITATION_MARK, RAGOptions
from tablerag.rag.rerank import Reranker
from tablerag.sql.engines.base import SQLEngine
from tablerag.types import Hit


@dataclass(frozen=True)
class StepTools:
    """What a step needs from the workspace and the settings."""

    search: Searcher
    engine: SQLEngine | None
    catalog: SchemaCatalog | None
    recall_k: int = 30
    k: int = 3
    use_sql: bool = True
    use_documents: bool = True
    reranker: Reranker | None = None
    schema_max_tokens: int = 700
    nl2sql: NL2SQLOptions = field(default_factory=lambda: NL2SQLOptions(explain=False))
    rag: RAGOptions = field(default_factory=lambda: RAGOptions(passage_chars=1200))

    def retrieve(self, question: str) -> list[Hit]:
        """Wide recall then fusion/rerank to ``k`` chunks for ``question``, as set here.

        Raises:
            RetrievalError: the index cannot answer (missing, stale, unsupported query).
            ProviderError: the reranker failed.
        """
        return retrieve(
            question,
            self.search,
            recall_k=self.recall_k,
            k=self.k,
            reranker=self.reranker,
            documents=self.use_documents,
        )


@dataclass(frozen=True)
class StepResult:
    """A finished step: its trace entry, verdict and what the envelope collects from it."""

    step: Step
    verdict: Verdict
    citations: tuple[Citation, ...]
    """New citations, already numbered for the envelope."""
    sql: Answer | None
    timings: dict[str, float]


def run_step(
    n: int,
    question: str,
    *,
    llm: LLM,
    tools: StepTools,
    language: Language,
    cited: Sequence[Citation],
    hits: Sequence[Hit] | None = None,
    sql_deadline: Deadline | None = None,
) -> StepResult:
    """Answer sub-question ``question`` (step ``n``); never raises for model or SQL failures.

    Args:
        n: step number, from 1.
        question: the sub-question.
        llm: the model.
        tools: search, engine, catalog and switches.
        language: language of the answers.
        cited: citations of earlier steps (a chunk cited again keeps its number).
        hits: chunks already retrieved for this exact question (skips the search).
        sql_deadline: when the SQL side (its query, mends and repair rounds) must end, so
            that the passages are still asked; None: the loop's deadline.
    """
    started = time.perf_counter()
    timings: dict[str, float] = {}
    if hits is None:
        try:
            hits = tools.retrieve(question)
        except (RetrievalError, ProviderError) as exc:
            hits = []
            retrieval_error = str(exc)
        else:
            retrieval_error = ""
    else:
        retrieval_error = ""
    timings["retrieval"] = _ms(started)
    tables = tables_of(hits)
    sql_llm, sql_tools = llm, tools
    if sql_deadline is not None:
        sql_llm = DeadlineLLM(llm, sql_deadline)
        sql_tools = replace(tools, nl2sql=replace(tools.nl2sql, deadline=sql_deadline))
    sql_answer, sql = _sql_side(question, sql_llm, sql_tools, tables, language, hits)
    # where SQL answers the figures, the passages are asked the rest (see text_part)
    asked = question if sql.status == "skipped" else text_part(question)
    text_answer = _text_side(asked, llm, tools, hits, language)
    text = (
        TextSide(_text_status(text_answer), text_answer.answer, text_answer.confidence)
        if text_answer is not None
        else TextSide("skipped")
    )
    numbers = _numbering(text_answer.citations if text_answer else [], cited)
    if text_answer is not None and text.status == "ok":
        text = TextSide(text.status, renumber(text.answer, numbers), text.reliability)
    verdict = crosscheck(sql, text, question)
    if retrieval_error and verdict.decision == "none":
        verdict = Verdict("none", None, "", f"Retrieval failed: {retrieval_error}")
    for part in (sql_answer, text_answer):
        for stage, ms in (part.timings_ms if part is not None else {}).items():
            if stage != "retrieval":
                timings[stage] = round(timings.get(stage, 0.0) + ms, 3)
    new = _new_citations(text_answer.citations if text_answer else [], numbers, cited)
    texts = verdict.chosen == "document" or verdict.decision == "both"
    used = sorted(set(numbers.values())) if texts else []
    step = Step(
        n=n,
        action="sub-question",
        input=question,
        observation=verdict.answer,
        ms=_ms(started),
        chunks=[h.chunk_id for h in hits],
        tables=tables,
        sql=sql_answer.sql if sql_answer is not None else None,
        sql_error=sql.error or None,
        result=sql_answer.table if sql_answer is not None else None,
        text_answer=text.answer,
        decision=verdict.decision,
        chosen=verdict.chosen,
        note=verdict.note,
        citations=used,
    )
    return StepResult(step, verdict, tuple(new), sql_answer, timings)


def _sql_side(
    question: str,
    llm: LLM,
    tools: StepTools,
    tables: list[str],
    language: Language,
    hits: Sequence[Hit],
) -> tuple[Answer | None, SQLSide]:
    if not (tools.use_sql and tables and tools.engine is not None and tools.catalog is not None):
        return None, SQLSide("skipped")
    answer, _ = answer_over_tables(
        figure_part(question),
        llm=llm,
        engine=tools.engine,
        catalog=tools.catalog,
        tables=tables,
        language=language,
        options=tools.nl2sql,
        max_tokens=tools.schema_max_tokens,
        passages=hits,
    )
    if answer.status in ("ok", "unsure") and answer.table is not None:  # unsure: lower confidence
        rows = answer.table.rows
        single = len(rows) == 1 and len(answer.table.columns) == 1
        text = _cell_text(rows[0][0]) if single else answer.answer
        reliability = sql_reliability(answer.confidence, len(rows), question)
        doubted = answer.status == "unsure"
        return answer, SQLSide("ok", text, result_cells(rows), "", reliability, doubted)
    if answer.status == "no_data":
        return answer, SQLSide("no_data", answer.answer)
    return answer, SQLSide("error", error=_sql_problem(answer.sql_attempts, answer.error))


def _text_side(
    question: str, llm: LLM, tools: StepTools, hits: Sequence[Hit], language: Language
) -> PassageAnswer | None:
    if not hits:
        return None
    return answer_from_passages(
        question,
        hits,
        llm=llm,
        language=language,
        min_score=tools.rag.min_score,
        passage_chars=tools.rag.passage_chars,
        timeout_s=tools.rag.timeout_s,
        base=tools.rag.confidence,
    )


def _text_status(answer: PassageAnswer) -> TextStatus:
    statuses: dict[str, TextStatus] = {"ok": "ok", "not_found": "not_found", "error": "error"}
    return statuses.get(answer.status, "not_found")


def _cell_text(value: object) -> str:
    if isinstance(value, float):
        return f"{value:.4f}".rstrip("0").rstrip(".")
    return "" if value is None else str(value)


def _sql_problem(attempts: Sequence[SQLAttempt], error: str | None) -> str:
    last = attempts[-1] if attempts else None
    if last is not None and last.error:
        detail = "; ".join(last.issues)
        return last.error + (f": {detail}" if detail else "")
    return error or "no SQL was written"


def _numbering(local: Sequence[Citation], cited: Sequence[Citation]) -> dict[int, int]:
    """Local citation number → envelope number (a chunk cited before keeps its number)."""
    by_chunk = {c.chunk_id: c.n for c in cited}
    nxt = max((c.n for c in cited), default=0)
    out: dict[int, int] = {}
    for c in local:
        if c.chunk_id in by_chunk:
            out[c.n] = by_chunk[c.chunk_id]
        else:
            nxt += 1
            by_chunk[c.chunk_id] = nxt
            out[c.n] = nxt
    return out


def _new_citations(
    local: Sequence[Citation], numbers: dict[int, int], cited: Sequence[Citation]
) -> list[Citation]:
    known = {c.chunk_id for c in cited}
    return [c.model_copy(update={"n": numbers[c.n]}) for c in local if c.chunk_id not in known]


def renumber(text: str, numbers: dict[int, int]) -> str:
    """Rewrite ``[n]`` citation marks with the envelope's numbers (unknown marks stay).

    Example:
        >>> renumber("A [1], B [2], C [9].", {1: 4, 2: 5})
        'A [4], B [5], C [9].'
    """
    return CITATION_MARK.sub(lambda m: f"[{numbers.get(int(m.group(1)), int(m.group(1)))}]", text)


def _ms(started: float) -> float:
    return round((time.perf_counter() - started) * 1000, 3)
