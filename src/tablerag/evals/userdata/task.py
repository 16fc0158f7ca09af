"""The ``userdata`` task: the product's own ``ask`` over a folder of messy files a user has.

A run asks one set (:mod:`tablerag.evals.userdata.sets`: ``v1``, ``v2``, ``v3``, ``shop``) or
one part of it (:mod:`tablerag.evals.userdata.split`). The run folder holds ``files/`` (written
by the set), for ``shop`` the database (``db/shop.duckdb``, or a PostgreSQL server), and
``workspace/`` (ingested once; a resumed run reuses it). Methods:

* ``tablerag``: ``QA.ask`` as the user gets it; the answer's status and confidence are recorded,
  so the report's confidence section shows coverage, accuracy of ``ok`` and the share wrong but
  ``ok`` (:mod:`tablerag.evals.calibration`);
* ``tablerag-oracle``: the same ``ask`` with a model that knows the answers (:func:`oracle_llm`:
  the gold SQL for a SQL prompt, the hand-checked answer in a cited sentence for a passages
  prompt): what the product loses with a perfect model (routing, fallback, checks);
* ``oracle``: the hand-checked answer itself, no model: a check of the scoring (100 %).

Scoring: an answer that states a result (status ``ok`` or ``unsure``) with every expected figure
(relative tolerance 0.1 %, ``万``/``亿`` and ``%`` read) and every key fact; passages listed in
place of an answer and the SQL path's failure sentence do not count. A question the files cannot
answer is right when the answer says so or states no result (any other status).
"""

from __future__ import annotations

import re
import shutil
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tablerag.errors import ConfigError, ProviderError, RetrievalError
from tablerag.evals.runner import Case, Outcome
from tablerag.evals.userdata.passages import (
    TOP_K,
    gold_chunks,
    passage_figures,
    passage_rank,
    retrieved_chunks,
)
from tablerag.evals.userdata.questions import QUESTIONS, Question
from tablerag.llm.base import LLM, Message
from tablerag.llm.testing import FunctionLLM
from tablerag.request import Request
from tablerag.service import QA, Workspace, ingest
from tablerag.settings import Settings

METHODS: tuple[str, ...] = ("tablerag", "tablerag-oracle", "oracle")
REL_TOLERANCE = 0.001
_NUMBER = re.compile(r"(?<![0-9.,])\d+(?:,\d{3})*(?:\.\d+)?(?:\s*(万|亿|%|％))?")
_NOT_ANSWERS = re.compile(
    r"^\[\d+\] .*$"  # a passage listed because the model gave no usable answer
    r"|无法为这个问题生成可执行的 SQL 查询（共尝试 \d+ 次）。"
    r"|Could not write a SQL query that runs for this question \(\d+ attempts\)\.",
    re.M,
)
"""Text of an answer that states nothing: passages shown instead of an answer, the SQL path's
failure sentence (its attempt count is not a figure of the answer)."""
_PINNED = re.compile(r"\s*[(（]\d{4}-\d{2}(?:-\d{2})?[)）]")
"""A period the product writes after a relative date word of the question, ``last month
(2026-05)``, which the oracle model must see past to know the question."""
STATED = ("ok", "unsure")
"""Statuses of an answer that states a result; any other status answers nothing."""
_NO_ANSWER = re.compile(
    r"无法|没有|不包含|未找到|找不到|未提供|不提供|不能确定|查不到|未包含|未记录|不存在"
    r"|not (?:found|available|contain|include|record|provide)|no (?:data|information|record)"
    r"|cannot|can't|can not|unable|does not|doesn't|do not|don't|isn't|is not",
    re.I,
)


def userdata_cases(questions: Sequence[Question] = QUESTIONS) -> list[Case]:
    """One case per question; category = its kind."""
    return [
        Case(case_id=q.qid, question=q.question, gold=q, category=q.kind, context={})
        for q in questions
    ]


def numbers_of(text: str) -> list[float]:
    """The figures an answer states, ``万``, ``亿`` and percent read; dates' parts included.

    Example:
        >>> numbers_of("总和为70,000元，约7万；退款率 10%")
        [70000.0, 70000.0, 10.0, 0.1]
        >>> numbers_of("Claim WC-051: 8,986.00")
        [51.0, 8986.0]
    """
    out: list[float] = []
    for m in _NUMBER.finditer(text):
        digits = m.group(0).rstrip("万亿%％ ").replace(",", "")
        value = float(digits)
        unit = m.group(1)
        if unit == "万":
            out.append(value * 10_000)
        elif unit == "亿":
            out.append(value * 100_000_000)
        elif unit in ("%", "％"):
            out += [value, value / 100]
        else:
            out.append(value)
    return out


def judge(question: Question, text: str, status: str) -> tuple[bool, str]:
    """Whether ``text`` (with its ``status``) answers ``question``; the reason when it does not.

    Example:
        >>> from tablerag.evals.userdata.questions import Question
        >>> q = Question("x", "员工的月薪总和是多少？", "totals", ((70000,),))
        >>> judge(q, "月薪总和为 70,000 元。", "ok")
        (True, '')
        >>> judge(q, "月薪总和为 140,000 元。", "ok")
        (False, 'missing figure 70000')
        >>> u = Question("y", "2025年的员工流失率是多少？", "unanswerable")
        >>> judge(u, "数据中没有员工流失的记录。", "ok"), judge(u, "流失率为 12%。", "ok")
        ((True, ''), (False, 'answered a question the files cannot answer'))
        >>> judge(q, "语言模型没有给出可用的回答；以下是最相关的文档段落：\\n[1] 合计 70000", "ok")
        (False, 'missing figure 70000')
    """
    if not question.answerable:
        if status not in STATED or _NO_ANSWER.search(text):
            return True, ""
        return False, "answered a question the files cannot answer"
    if status not in STATED:
        return False, f"no answer (status {status})"
    text = _NOT_ANSWERS.sub(" ", text)
    stated = numbers_of(text)
    for group in question.numbers:
        if not any(_close(v, want) for v in stated for want in group):
            return False, f"missing figure {plain(group[0])}"
    lowered = text.lower()
    for facts in question.facts:
        if not any(f.lower() in lowered for f in facts):
            return False, f"missing fact {facts[0]!r}"
    return True, ""


def _close(value: float, want: float) -> bool:
    return abs(value - want) <= max(REL_TOLERANCE * abs(want), 0.006)


def oracle_text(question: Question) -> str:
    """The hand-checked answer written out: every figure and fact, or that no file says."""
    if not question.answerable:
        return "The files do not contain this information."
    parts = [plain(g[0]) for g in question.numbers] + [f[0] for f in question.facts]
    return "; ".join(parts)


def plain(value: float) -> str:
    """``value`` written out in full (``:g`` would write 1.23457e+06 for 1234567.89).

    Example:
        >>> plain(1234567.89), plain(70000.0), plain(0.0952)
        ('1234567.89', '70000', '0.0952')
    """
    return f"{value:.6f}".rstrip("0").rstrip(".")


def oracle_llm(questions: Sequence[Question] = QUESTIONS) -> FunctionLLM:
    """A model that knows every answer: gold SQL when asked for SQL, the hand-checked answer in
    a cited sentence when asked from numbered passages, ``NOT_FOUND`` otherwise.

    Example:
        >>> llm = oracle_llm()
        >>> system = {"role": "system", "content": "Write one SELECT ..."}
        >>> user = {"role": "user", "content": "Question: 员工的月薪总和是多少？"}
        >>> llm.complete([system, user]).text
        '```sql\\nSELECT SUM(月薪) FROM 工资表\\n```'
    """
    by_length = sorted(questions, key=lambda q: -len(q.question))

    def find(text: str) -> Question | None:
        text = _PINNED.sub("", text)  # "last month (2026-05)": the period the product pinned
        return next((q for q in by_length if q.question in text), None)

    def reply(messages: Sequence[Message]) -> str:
        system = messages[0]["content"]
        q = find(messages[-1]["content"]) or find("\n".join(m["content"] for m in messages))
        if q is None:
            return "NOT_FOUND"
        if "SELECT" in system:
            return f"```sql\n{q.sql}\n```" if q.sql else "I cannot answer this from the tables."
        if "numbered passages" in system and q.answerable:
            return f"{q.question.rstrip('？?')}：{oracle_text(q)} [1]。"
        return "NOT_FOUND"

    return FunctionLLM(reply, model="oracle")


def build_workspace(
    folder: Path,
    settings: Settings,
    prepare: Callable[[Path], Sequence[str | Path]] | None = None,
) -> tuple[Path, list[str]]:
    """Write the files (``prepare(folder)`` gives the targets to ingest; default: the first
    set's files) and ingest them into ``folder/workspace`` (once; reused on resume).

    Returns:
        The workspace path and the ingest's notes (``source: note``) for ``run.json``.
    """
    root = folder / "workspace"
    done = root / ".userdata-ingested"
    if done.is_file():
        return root, done.read_text(encoding="utf-8").splitlines()
    if prepare is None:
        from tablerag.evals.userdata.files import write_userdata

        targets: Sequence[str | Path] = write_userdata(folder / "files")
    else:
        targets = prepare(folder)
    with Workspace.open(root) as ws:
        reports = ingest(ws, targets, settings=settings)
    notes = [f"{Path(r.source).name}: {r.status}" for r in reports]
    notes += [f"{Path(r.source).name}: {p.line()}" for r in reports for p in r.problems]
    done.write_text("\n".join(notes) + "\n", encoding="utf-8")
    return root, notes


KNOWLEDGE = ("none", "draft", "curated")
"""What semantic model a run's workspace holds (``--knowledge``): none (free SQL), the draft
``tablerag knowledge draft`` proposes, or the set's curated model."""


def apply_knowledge(workspace: Path, knowledge: str, model: str | None) -> list[str]:
    """Store the semantic model ``knowledge`` names in the run's workspace (once; a resumed run
    keeps it). Returns notes for ``run.json``.

    Raises:
        ConfigError: an unknown choice, a set with no curated model, a model that fails its
            check against the workspace (nothing stored).
    """
    from tablerag.semantic.draft import draft_workspace, store_draft
    from tablerag.semantic.library import import_document
    from tablerag.semantic.ossie import loads

    if knowledge not in KNOWLEDGE:
        raise ConfigError(f"--knowledge takes one of {', '.join(KNOWLEDGE)}, not {knowledge!r}.")
    done = workspace / f".userdata-knowledge-{knowledge}"
    if knowledge == "none" or done.is_file():
        return [done.read_text(encoding="utf-8")] if done.is_file() else []
    if knowledge == "curated" and model is None:
        raise ConfigError("This set has no curated model; use --knowledge none or draft.")
    with Workspace.open(workspace) as ws:
        if knowledge == "draft":
            note = f"knowledge: drafted, {store_draft(ws, draft_workspace(ws))} entries"
        else:
            document = loads(model or "", where="the set's curated model")
            import_document(ws.con, document, ws.tables(), origin="curated")
            note = f"knowledge: curated, {len(document.semantic_model[0].metrics or [])} metrics"
    done.write_text(note, encoding="utf-8")
    return [note]


@dataclass
class UserdataMethods:
    """The methods of one run, sharing one QA session over the run's workspace."""

    qa: QA
    methods: list[Any] = field(default_factory=list)
    others: list[QA] = field(default_factory=list)
    """The session of ``tablerag-oracle``, over the same workspace with the oracle model."""

    def close(self) -> None:
        """Close the QA sessions."""
        for qa in (self.qa, *self.others):
            qa.close()


@dataclass
class _Method:
    name: str
    qa: QA
    _gold: dict[str, frozenset[str]] = field(default_factory=dict)

    def gold(self, phrase: str) -> frozenset[str]:
        """The ids of the workspace's chunks that hold ``phrase`` (computed once per phrase)."""
        if phrase not in self._gold:
            index = self.qa.index
            chunks = index.chunks if index is not None else ()
            self._gold[phrase] = gold_chunks(((c.chunk_id, c.text) for c in chunks), phrase)
        return self._gold[phrase]

    def passage(self, question: Question, answer: Any, rq: Request) -> dict[str, Any]:
        """Where the question's passage was: its rank in the top 5 hits, and whether the
        answer's searches or citations held it (nothing for a question naming none)."""
        if not question.passage:
            return {}
        gold = self.gold(question.passage)
        try:
            hits = [h.chunk_id for h in self.qa.search(question.question, TOP_K)]
        except RetrievalError:
            hits = []
        seen = retrieved_chunks(rq.trace.events) + [c.chunk_id for c in answer.citations]
        return {
            "passage_rank": passage_rank(hits, gold),
            "passage_shown": any(c in gold for c in seen),
        }

    def __call__(self, case: Case) -> Outcome:
        question: Question = case.gold
        started = time.perf_counter()
        detail: dict[str, Any] = {"kind": question.kind, "language": question.language}
        usage = (0, 0, 0)
        elapsed: float | None = None
        if self.name == "oracle":
            text, status, error = oracle_text(question), "ok", ""
            detail.update(status=status, confidence=1.0)
        else:
            rq = Request.make(question.question, max_seconds=self.qa.settings.answer_max_seconds)
            try:
                answer = self.qa.answer(rq)
            except ProviderError as exc:
                text, status, error = "", "error", str(exc)
            else:
                elapsed = time.perf_counter() - started  # the passage search below is not timed
                text, status, error = answer.answer, answer.status, ""
                usage = (answer.llm.calls, answer.llm.prompt_tokens, answer.llm.completion_tokens)
                detail.update(
                    status=status,
                    confidence=answer.confidence,
                    checks=answer.checks,
                    path=answer.path,
                    route=answer.route.intent if answer.route is not None else "",
                    sql=answer.sql or "",
                    attempt_sql=[a.sql for a in answer.sql_attempts],
                    attempt_errors=[a.error for a in answer.sql_attempts if a.error],
                    citations=sorted({c.source for c in answer.citations}),
                    **self.passage(question, answer, rq),
                )
        seconds = time.perf_counter() - started if elapsed is None else elapsed
        right, why = judge(question, text, status) if not error else (False, error)
        kind = ""
        if not right:
            stated = text.strip() and status in STATED
            kind = "llm_error" if error else ("wrong_result" if stated else "not_found")
        return Outcome(
            case_id=case.case_id,
            method=self.name,
            correct=right,
            score=float(right),
            error=kind,
            prediction=text[:500],
            category=case.category,
            latency_ms={"total": round(1000 * seconds, 3)},
            llm_calls=usage[0],
            prompt_tokens=usage[1],
            completion_tokens=usage[2],
            detail={**detail, "why": why},
        )


def build_methods(
    names: Sequence[str],
    llm: LLM,
    workspace: Path,
    settings: Settings,
    questions: Sequence[Question] = QUESTIONS,
) -> UserdataMethods:
    """Open the workspace once and build the named methods (``tablerag-oracle`` answers
    ``questions`` over a copy of it, ``workspace-oracle``)."""
    qa = QA.open(workspace, llm=llm, settings=settings)
    built = UserdataMethods(qa)
    if "tablerag-oracle" in names:
        # a copy: DuckDB does not open one file twice in a process, and swapping the model of
        # one session would race with the other method's cases when --workers > 1
        twin = workspace.with_name(workspace.name + "-oracle")
        if not twin.is_dir():
            shutil.copytree(workspace, twin)
        built.others.append(QA.open(twin, llm=oracle_llm(questions), settings=settings))
    built.methods = [_Method(n, built.others[0] if n == "tablerag-oracle" else qa) for n in names]
    return built


def kind_figures(outcomes: Sequence[Outcome]) -> dict[str, Any]:
    """Per method and kind: accuracy and the share wrong but marked ``ok``; per language too."""
    out: dict[str, Any] = {}
    latest = {(o.method, o.case_id): o for o in outcomes}
    for (method, _), o in sorted(latest.items()):
        for key in (f"kind:{o.category}", f"language:{o.detail.get('language', '')}"):
            slot = out.setdefault(method, {}).setdefault(key, {"n": 0, "correct": 0, "wrong_ok": 0})
            slot["n"] += 1
            slot["correct"] += int(o.correct)
            slot["wrong_ok"] += int(not o.correct and o.detail.get("status") == "ok")
    return {"userdata": out}


def run_figures(outcomes: Sequence[Outcome]) -> dict[str, Any]:
    """The run's own figures for ``run.json``: :func:`kind_figures` and the document
    questions' passage diagnostic (:func:`~tablerag.evals.userdata.passages.passage_figures`)."""
    return {**kind_figures(outcomes), **passage_figures(outcomes)}
