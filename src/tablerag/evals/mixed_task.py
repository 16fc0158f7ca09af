"""The ``mixed`` task: questions over tables *and* text in the open setting (TAT-QA).

Methods, all on the same model and the same workspace (:mod:`tablerag.evals.tatqa_corpus`):

* ``direct``: the model answers from what it knows (no retrieval);
* ``rag``: retrieval-only RAG, tables read as their Markdown chunks;
* ``tablerag``: the product's own entry point, as ``tablerag ask`` runs it (:meth:`QA.ask`: the
  router, then the TableRAG loop for a multi-step question, the data or the documents path with
  their fallback, or both fused);
* ``tablerag-loop``: the ablation that calls the TableRAG loop (:mod:`tablerag.loop`) directly,
  whatever the router would choose;
* ``tablerag-nodecomp`` / ``-nosql`` / ``-nodocs``: the loop without schema-aware decomposition,
  without SQL (tables as Markdown text), without document retrieval;
* ``tablerag-decompfirst``: the loop in the paper's order (plan before the first step).

Scored with the official TAT-QA exact match (``correct``) and numeracy-aware F1 (``score``),
scale included. The prediction is read from the answer text: for a question asking for a
figure, the first number that is not already in the question; else the text itself.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any

from tablerag.answer import Answer, detect_language
from tablerag.answer.findings import body
from tablerag.answer.grounding import Number, numbers_in
from tablerag.errors import ProviderError
from tablerag.evals.datasets.tatqa import TatContext
from tablerag.evals.runner import Case, Metered, Outcome
from tablerag.evals.tatqa_metric import tatqa_score
from tablerag.lang.messages import LANGUAGE_NAMES
from tablerag.llm.base import LLM
from tablerag.loop.retrieve import retrieve, tables_of
from tablerag.loop.textside import answer_from_passages
from tablerag.prompts import render
from tablerag.service import QA
from tablerag.settings import Settings

METHODS: tuple[str, ...] = (
    "direct",
    "rag",
    "tablerag",
    "tablerag-loop",
    "tablerag-nodecomp",
    "tablerag-nosql",
    "tablerag-nodocs",
    "tablerag-decompfirst",
)
DIRECT_MAX_TOKENS = 60

_CITE = re.compile(r"\[\d+(?:\s*[,，]\s*\d+)*\]|\((?:Note|注意)[^)]*\)|（注意[^）]*）")
_FIGURE_Q = re.compile(
    r"^\s*how (?:much|many)\b|\b(?:change|difference|average|total|sum|ratio|percentage|"
    r"proportion|increase|decrease|growth|rate|amount|value|how much|how many)\b"
    r"|\b(?:which|what) year\b",
    re.I,
)
_COUNT_Q = re.compile(r"^\s*how many\b", re.I)
_WORDS = re.compile(r"\w+")
_SEVERAL_Q = re.compile(r"\brespective(?:ly)?\b|\b(?:which|what) years\b", re.I)
"""A question asking for several values ("in 2019 and 2018 respectively", "in which years")."""
_PERCENT_Q = re.compile(r"\bpercent(?:age)?\b|%|\bproportion\b", re.I)
_SCALE_WORD = re.compile(r"\d\s*(billion|million|thousand)\b", re.I)


def tatqa_cases(contexts: Sequence[TatContext]) -> list[Case]:
    """One case per question; category = answer type; gold = the official annotation."""
    return [
        Case(
            case_id=q.uid,
            question=q.question,
            gold=q.annotation(),
            category=q.answer_type,
            context={"answer_from": q.answer_from, "context": q.context_uid},
        )
        for ctx in contexts
        for q in ctx.questions
    ]


def clean_text(text: str) -> str:
    """The answer without citation marks, grounding notes and a trailing full stop.

    Example:
        >>> clean_text("Revenue grew [1]. (Note: these numbers are not in ...: 5)")
        'Revenue grew'
    """
    return " ".join(_CITE.sub(" ", text).split()).rstrip("。. ")


def prediction_of(text: str, question: str) -> str | list[str]:
    """What the metric compares: a figure for a figure question, the figures for a question
    asking for several values (a list, as the official metric takes multi-span answers), else
    the cleaned text. Figures the question itself names (years) are not answers.

    Example:
        >>> prediction_of("The change was 251.9 from 2018 to 2019.", "What was the change "
        ...               "in revenue from 2018 to 2019?")
        '251.9'
        >>> prediction_of("Fixed price contracts [1].", "What type of contracts are there?")
        'Fixed price contracts'
        >>> prediction_of("It was $795 in 2019 and $772 in 2018 [2].",
        ...               "What was the net asset in 2019 and 2018 respectively?")
        ['795', '772']
        >>> prediction_of("Shown for 2019 and 2018.", "In which years was equity calculated?")
        ['2019', '2018']
    """
    cleaned = clean_text(text)
    several, figure = bool(_SEVERAL_Q.search(question)), bool(_FIGURE_Q.search(question))
    if several or figure:
        asked = {n.value for n in numbers_in(question)}
        own: dict[Decimal, str] = {}
        for n in numbers_in(cleaned):
            if n.value not in asked:
                own.setdefault(n.value, n.text)
        if several and len(own) > 1:
            return list(own.values())
        if figure and own:
            return next(iter(own.values()))
    return cleaned


def predict_scale(question: str, text: str, units: Sequence[str]) -> str:
    """The scale of a prediction: a percent, a scale word, or the unit of the tables used
    (an amount unit first; ``percent`` when the tables hold rates only).

    Example:
        >>> predict_scale("What is the percentage change?", "12.5", [])
        'percent'
        >>> predict_scale("What was revenue in 2019?", "1452.4", ["million"])
        'million'
        >>> predict_scale("How many segments are there?", "3", ["million"])
        ''
        >>> predict_scale("What was the effective tax rate?", "13", ["percent"])
        'percent'
        >>> predict_scale("In which year was the gross margin (%) higher?", "2019", ["million"])
        ''
    """
    got = prediction_of(text, question)
    pred = " ".join(got) if isinstance(got, list) else got
    numbers = numbers_in(pred)
    if numbers and all(_is_year(n) for n in numbers):
        return ""  # a year is never scaled
    if "%" in pred or (_PERCENT_Q.search(question) and numbers):
        return "percent"
    word = _SCALE_WORD.search(clean_text(text))
    if word:
        return word.group(1).lower()
    if not numbers or _COUNT_Q.search(question):
        return ""
    found = [u for u in units if u]
    amounts = [u for u in found if u != "percent"]
    if amounts:
        return amounts[0]
    return "percent" if found else ""  # tables of rates: the cells had their % sign stripped


def _is_year(n: Number) -> bool:
    return n.places == 0 and not n.percent and n.scale == 1 and 1900 <= n.value <= 2100


def unit_tables(answer: Answer, known: Iterable[str]) -> list[str]:
    """The tables whose unit a loop answer carries: those named in the SQL of the steps
    answered from SQL; when no step was, every table the steps retrieved (the text read them).

    Example:
        >>> from tablerag.answer import Step
        >>> steps = [Step(n=1, action="sub-question", tables=["t_a", "t_b"],
        ...               sql="SELECT col_2019 FROM data.t_b", chosen="sql")]
        >>> a = Answer(question="q", answer="4.1", language="en", path="loop", steps=steps)
        >>> unit_tables(a, ["t_a", "t_b"])
        ['t_b']
    """
    queries = [st.sql for st in answer.steps if st.chosen == "sql" and st.sql]
    if not answer.steps and answer.sql:  # the data path's answer (no loop)
        queries = [answer.sql]
    read = {w for sql in queries for w in _WORDS.findall(sql)}
    from_sql = [t for t in known if t in read]
    return from_sql or [t for st in answer.steps for t in st.tables]


@dataclass
class MixedMethods:
    """The methods of one run, sharing one QA session over the corpus workspace."""

    qa: QA
    units: Mapping[str, str]
    methods: list[Any] = field(default_factory=list)

    def close(self) -> None:
        """Close the QA session."""
        self.qa.close()


@dataclass
class _Method:
    name: str
    qa: QA
    units: Mapping[str, str]
    shared: LLM

    def __call__(self, case: Case) -> Outcome:
        started = time.perf_counter()
        llm = Metered(self.shared)
        try:
            text, tables, answer = self._answer(case.question, llm)
        except ProviderError as exc:
            return self._outcome(case, llm, started, "", [], None, error=str(exc))
        return self._outcome(case, llm, started, text, tables, answer)

    def _answer(self, question: str, llm: LLM) -> tuple[str, list[str], Answer | None]:
        language = detect_language(question)
        if self.name == "direct":
            chat = render(
                "loop_direct",
                language=LANGUAGE_NAMES[language],
                question=question,
            )
            reply = llm.complete(chat, temperature=0.0, max_tokens=DIRECT_MAX_TOKENS)
            return reply.text.strip().split("\n", 1)[0], [], None
        s = self.qa.settings
        if self.name == "rag":
            hits = retrieve(question, self.qa.search, recall_k=s.loop_recall_k, k=s.answer_k)
            got = answer_from_passages(
                question,
                hits,
                llm=llm,
                language=language,
                min_score=s.rag_min_score,
                timeout_s=s.llm_timeout_s,
            )
            return (got.answer if got.status == "ok" else ""), tables_of(hits), None
        if self.name == "tablerag":
            answer = asked(self.qa, question, llm)
            tables = unit_tables(answer, self.units)
            ok = answer.status in ("ok", "unsure", "degraded")
            return (answer.answer if ok else ""), tables, answer
        answer = self.qa.loop(
            question,
            schema_aware=self.name != "tablerag-nodecomp",
            decompose_first=True if self.name == "tablerag-decompfirst" else None,
            use_sql=self.name != "tablerag-nosql",
            use_documents=self.name != "tablerag-nodocs",
            llm=llm,
        )
        tables = unit_tables(answer, self.units)
        ok = answer.status in ("ok", "unsure", "degraded") and answer.budget_exhausted != "tokens"
        return (answer.answer if ok and answer.status != "not_found" else ""), tables, answer

    def _outcome(
        self,
        case: Case,
        llm: LLM,
        started: float,
        text: str,
        tables: list[str],
        answer: Answer | None,
        error: str = "",
    ) -> Outcome:
        said = body(answer) if answer is not None and text else text  # without its caveats
        pred = prediction_of(said, case.question) if said else ""
        scale = predict_scale(case.question, said, [self.units.get(t, "") for t in tables])
        score = tatqa_score(dict(case.gold), pred, scale)
        kind = ""
        if score.em < 1:
            kind = "llm_error" if error else ("not_found" if not text else "wrong_result")
        snap = llm.usage.snapshot()
        detail: dict[str, Any] = {"scale": scale, "answer_text": text[:300], "error": error}
        if answer is not None:
            subs = [st for st in answer.steps if st.action == "sub-question"]
            if answer.route is not None:  # the product's path: where the router sent it
                detail.update(route=answer.route.intent, path=answer.path)
            detail.update(
                steps=len(subs),
                finished=answer.budget_exhausted is None and answer.status != "degraded",
                budget_exhausted=answer.budget_exhausted,
                decisions=[st.decision for st in subs],
                # the loop's queries, or the single query of the data path (no steps)
                sql=[st.sql for st in subs if st.sql] or ([answer.sql] if answer.sql else []),
                status=answer.status,
                confidence=answer.confidence,  # the report's calibration figures read these
                checks=answer.checks,
            )
        return Outcome(
            case_id=case.case_id,
            method=self.name,
            correct=score.em == 1.0,
            score=score.f1,
            error=kind,
            prediction=[pred, scale],
            category=case.category,
            latency_ms={"total": round((time.perf_counter() - started) * 1000, 3)},
            llm_calls=int(snap["calls"]),
            prompt_tokens=int(snap["prompt_tokens"]),
            completion_tokens=int(snap["completion_tokens"]),
            detail={**detail, "cached_calls": int(snap["cached_calls"])},
        )


def asked(qa: QA, question: str, llm: LLM) -> Answer:
    """``question`` answered by :meth:`QA.ask` over ``qa``'s workspace, every model call made
    through ``llm`` (a per-question meter): what ``tablerag ask`` answers."""
    return qa.through(llm).ask(question)


def build_methods(
    names: Sequence[str], llm: LLM, workspace: Path, units: Mapping[str, str], settings: Settings
) -> MixedMethods:
    """Open the corpus workspace once and build the named methods over it."""
    # nobody is there to pick one of the choices of an answer that asks back
    qa = QA.open(workspace, llm=llm, settings=settings.model_copy(update={"ask_back": False}))
    built = MixedMethods(qa, units)
    built.methods = [_Method(n, qa, units, llm) for n in names]
    return built


def loop_figures(outcomes: Sequence[Outcome]) -> dict[str, Any]:
    """Per loop method: share of questions finished within the step budget, mean steps."""
    out: dict[str, Any] = {}
    for name in sorted({o.method for o in outcomes if o.method.startswith("tablerag")}):
        mine = [o for o in outcomes if o.method == name and "steps" in o.detail]
        if mine:
            out[name] = {
                "finished_within_budget": round(
                    sum(bool(o.detail.get("finished")) for o in mine) / len(mine), 4
                ),
                "mean_steps": round(sum(int(o.detail["steps"]) for o in mine) / len(mine), 3),
                "n": len(mine),
            }
    return {"loop": out}
