"""Fallback between the paths: the other path tries when the first one's answer is not reliable.

Issue 23: a misroute was expensive. A question routed to the data whose SQL failed or was
doubted never looked at the documents ("一线城市出差每晚住宿最多能报销多少？" was answered from
an unrelated table while a Word policy holds "600 元"), and a question routed to the documents
whose passages held no answer never tried the tables. :func:`fall_back` runs the other path
when the first path's status is one of its :data:`TRIGGERS` and time is left on the question's
deadline. The other path's answer is kept only when it is ``ok``, and then its first line says
plainly which path answered and why. Otherwise the first answer stands with its own status (a
fallback never makes a failed pair ``ok``) and says that the other path was tried too, or that
too little time was left to try it. Either way :class:`~tablerag.answer.Fallback` records it.

No model call of its own: the caller decides *whether* the other path applies (a text index to
search, table terms in the question) and passes it as a function; this module decides what the
answer says.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from types import MappingProxyType

import sqlglot
from sqlglot import exp
from sqlglot.errors import ErrorLevel

from tablerag.answer.confidence import confidence
from tablerag.answer.envelope import (
    Answer,
    AnswerPath,
    AnswerStatus,
    Fallback,
    FallbackOutcome,
)
from tablerag.answer.findings import reasons
from tablerag.answer.hybrid import merge_timings
from tablerag.deadline import Deadline
from tablerag.lang.messages import message
from tablerag.lang.untrusted import clip

TRIGGERS: Mapping[AnswerPath, tuple[AnswerStatus, ...]] = MappingProxyType(
    {"nl2sql": ("unsure", "error", "degraded", "no_data"), "rag": ("not_found",)}
)
"""The statuses of a first answer that send the question to the other path: every data answer
that is not ``ok``; a document answer only when no passage holds the answer (a document answer
that is ``unsure`` or ``degraded`` found the right passages, so the tables would not help)."""
OTHER: Mapping[AnswerPath, AnswerPath] = MappingProxyType({"nl2sql": "rag", "rag": "nl2sql"})
MIN_SECONDS = 5.0
"""Least time left on the question's deadline to start a fallback: one model call of the
other path (the local model takes seconds for one) could not finish in less."""
REASON_CHARS = 240
"""The first answer's reason is cut here in the fallback's first line."""


def wants_fallback(answer: Answer) -> bool:
    """Whether ``answer`` sends its question to the other path (see :data:`TRIGGERS`).

    Example:
        >>> a = Answer(question="q", answer="No matching data was found.", language="en",
        ...            path="nl2sql", status="no_data")
        >>> wants_fallback(a), wants_fallback(a.model_copy(update={"status": "ok"}))
        (True, False)
        >>> wants_fallback(a.model_copy(update={"path": "rag", "status": "unsure"}))
        False
    """
    return answer.status in TRIGGERS.get(answer.path, ())


def reason(answer: Answer) -> str:
    """Why ``answer`` is not reliable, in its own words: the answer checks' doubts (its
    findings), else its first line without the end punctuation, cut to :data:`REASON_CHARS`.

    Example:
        >>> from tablerag.answer import Finding
        >>> doubt = Finding(code="constant_query", severity="doubt", stage="checks",
        ...                 message="checks.constant_query")
        >>> a = Answer(question="q", language="en", path="nl2sql", status="unsure",
        ...            answer="This result may be wrong: the query reads no table.\\nResult: 1",
        ...            findings=[doubt])
        >>> reason(a)
        'the query reads no table'
        >>> b = a.model_copy(update={"findings": [], "status": "no_data"})
        >>> reason(b.model_copy(update={"answer": "没有找到匹配的数据。", "language": "zh"}))
        '没有找到匹配的数据'
        >>> reason(b.model_copy(update={"answer": ""}))
        'no_data'
    """
    line = reasons(answer.findings, answer.language)
    line = line or answer.answer.strip().split("\n", 1)[0].strip()
    line = line.rstrip("。.；;：: ")
    return clip(line or answer.error or answer.status, REASON_CHARS)


def fall_back(
    first: Answer,
    other: Callable[[], Answer],
    *,
    deadline: Deadline,
    terms: Sequence[str] = (),
) -> Answer:
    """``first``, or the other path's answer when ``first`` is not reliable and it is.

    Args:
        first: the first path's answer (path ``nl2sql`` or ``rag``).
        other: runs the other path on the same question within the same deadline.
        deadline: the question's deadline; with less than :data:`MIN_SECONDS` left the other
            path is not started.
        terms: the question's words that name the tables (said when the data answers for the
            documents).

    Returns:
        ``first`` unchanged when its status is not a trigger. Else the other path's answer
        when it is ``ok``, its first line saying where it came from and why, and (from the
        data) the SQL tried in ``sql``/``sql_attempts`` and its error in ``error``; else
        ``first`` with its own status and a last line saying the other path was tried or why
        not. The answer's ``fallback`` records what happened; its timings add up both paths'.
    """
    if not wants_fallback(first):
        return first
    to = OTHER[first.path]
    why = reason(first)
    left = deadline.remaining()
    if left < MIN_SECONDS:
        if to == "rag":
            note = message("fallback.documents_no_time", first.language, left=left)
        else:
            note = message("fallback.data_no_time", first.language, left=left)
        return _stands(first, note, _record(first, to, why, None), {})
    second = other()
    timings = merge_timings(first.timings_ms, second.timings_ms)
    if second.status != "ok":
        if to == "rag":
            note = message("fallback.documents_no_answer", first.language)
        else:
            note = message("fallback.data_no_answer", first.language, reason=reason(second))
        return _stands(first, note, _record(first, to, why, second.status), timings)
    if to == "rag":
        lead = message("fallback.to_documents", first.language, reason=why)
    else:
        shown = "、" if first.language == "zh" else "', '"
        lead = message("fallback.to_data", first.language, terms=shown.join(terms))
    update: dict[str, object] = {
        "answer": f"{lead}\n{second.answer}",
        "fallback": _record(first, to, why, "ok"),
        "timings_ms": timings,
    }
    if to == "rag":  # the SQL that was tried, and why it failed, stay in sight
        update |= {"sql": first.sql, "sql_attempts": first.sql_attempts}
        if first.error:
            update["error"] = f"sql: {first.error}"
        if _figure_for_a_figure(first, second):
            lowered = confidence(second.confidence, ["figure_for_figure"])
            update |= {"status": "unsure", "confidence": lowered}
    return second.model_copy(update=update)


ELSEWHERE = frozenset({"constant_query", "unrelated_table", "weak_link", "unread_table"})
"""Doubts that say the query read other tables than the question is about: its figure is no
figure for the question, and a document's figure may answer it."""


def _figure_for_a_figure(first: Answer, second: Answer) -> bool:
    """Whether the data path computed a figure it doubts (an aggregate over rows, ``unsure``)
    and the documents answered with a figure of their own: a passage's number is not the
    data's, so the answer cannot be ``ok`` (上月华东的毛利 answered with a worked example's
    27.6 元 from a definitions document). A data answer that computed nothing (``SELECT 1``)
    or read other tables than the question's (:data:`ELSEWHERE`), or a document answer
    without a number, keeps the documents' status.

    Example:
        >>> data = Answer(question="q", language="en", path="nl2sql", status="unsure",
        ...               answer="x", sql="SELECT SUM(a) FROM t",
        ...               table={"columns": ["s"], "rows": [[5]], "row_count": 1})
        >>> doc = Answer(question="q", language="en", path="rag", answer="It is 27.6 [1].")
        >>> _figure_for_a_figure(data, doc)
        True
        >>> _figure_for_a_figure(data.model_copy(update={"sql": "SELECT 1"}), doc)
        False
        >>> _figure_for_a_figure(data, doc.model_copy(update={"answer": "See [1]."}))
        False
    """
    if first.status != "unsure" or first.table is None or not first.table.rows or not first.sql:
        return False
    doubts = {f.code for f in first.findings if f.severity == "doubt"}
    if doubts and doubts <= ELSEWHERE:  # it read the wrong tables: nothing to compete with
        return False
    try:
        tree = sqlglot.parse_one(first.sql, error_level=ErrorLevel.IGNORE)
    except sqlglot.errors.SqlglotError:
        return False
    if tree is None or tree.find(exp.AggFunc) is None:
        return False
    return _NUMBER.search(_CITES.sub("", second.answer)) is not None


_CITES = re.compile(r"\[\d+\]")
_NUMBER = re.compile(r"\d")


def as_written(question: str, terms: Sequence[str]) -> list[str]:
    """``terms`` (catalog tokens, stemmed and lower-cased) as ``question`` writes them, each once.

    A Latin term is the question's word it starts (``compani`` → ``Companies``); a term the
    question does not hold as written is kept as it is.

    Example:
        >>> as_written("How many Companies ordered? 华东", ["compani", "order", "华东", "order"])
        ['Companies', 'ordered', '华东']
    """
    out: list[str] = []
    for term in terms:
        found = re.search(rf"(?<![A-Za-z]){re.escape(term)}[A-Za-z]*", question, re.IGNORECASE)
        word = found.group(0) if found and term.isascii() else term
        if word not in out:
            out.append(word)
    return out


def _record(first: Answer, to: AnswerPath, why: str, status: AnswerStatus | None) -> Fallback:
    """The fallback from ``first`` to path ``to``, which gave ``status`` (None: not tried)."""
    outcome: FallbackOutcome = (
        "no_time" if status is None else "answered" if status == "ok" else "no_answer"
    )
    return Fallback(
        from_path=first.path,
        from_status=first.status,
        to_path=to,
        to_status=status,
        outcome=outcome,
        reason=why,
    )


def _stands(first: Answer, note: str, record: Fallback, timings: Mapping[str, float]) -> Answer:
    """``first`` with ``note`` as its last line and the fallback ``record``."""
    update: dict[str, object] = {"answer": f"{first.answer}\n{note}", "fallback": record}
    if timings:
        update["timings_ms"] = dict(timings)
    return first.model_copy(update=update)
