"""Did retrieval find a document question's passage, and did the answer still miss it?

Issue 29 saw document questions answered "not found" (or the opposite of the policy) while
``tablerag search`` ranked the right passage first. For each document question that names its
passage (:attr:`~tablerag.evals.userdata.questions.Question.passage`, a phrase of the ingested
chunk) a run records two things next to the answer:

* ``passage_rank``: the rank (1-5) of the first chunk holding the phrase among the workspace's
  top 5 hybrid hits for the question (what ``tablerag search QUESTION -k 5`` shows), else 0;
* ``passage_shown``: whether a chunk holding it was among the chunks the answer's own searches
  returned (its trace's ``retrieval`` events) or its citations.

:func:`passage_figures` counts, per method, how often the passage was in the top 5 and the
answer still said it was not found (``not_found``: no stated result) or stated a wrong one
(``wrong_result``: it contradicted or misread the passage).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from tablerag.evals.runner import Outcome

TOP_K = 5
"""The retrieval depth the diagnostic checks."""
_SPACE = re.compile(r"\s+")


def squeeze(text: str) -> str:
    """``text`` without whitespace (PDF and Word chunks break lines inside a phrase).

    Example:
        >>> squeeze("补考费为每人\\n200元"), squeeze("at least 8\\nstudents")
        ('补考费为每人200元', 'atleast8students')
    """
    return _SPACE.sub("", text)


def gold_chunks(chunks: Iterable[tuple[str, str]], phrase: str) -> frozenset[str]:
    """The ids of the chunks (``(chunk_id, text)``) that hold ``phrase``, whitespace aside.

    Example:
        >>> chunks = [("a", "第四条 补考费为每人\\n200元。"), ("b", "第五条 ...")]
        >>> gold_chunks(chunks, "补考费为每人200元")
        frozenset({'a'})
    """
    want = squeeze(phrase)
    return frozenset(cid for cid, text in chunks if want and want in squeeze(text))


def passage_rank(hit_ids: Sequence[str], gold: frozenset[str], k: int = TOP_K) -> int:
    """The 1-based rank of the first gold chunk among the first ``k`` hits, else 0.

    Example:
        >>> passage_rank(["x", "a", "y"], frozenset({"a"})), passage_rank(["x"], frozenset({"a"}))
        (2, 0)
    """
    return next((n for n, cid in enumerate(hit_ids[:k], start=1) if cid in gold), 0)


def retrieved_chunks(events: Iterable[Any]) -> list[str]:
    """The chunk ids of an answer's trace's ``retrieval`` events, in order (an event has
    ``kind`` and ``data``, as :class:`tablerag.request.Event`)."""
    out: list[str] = []
    for event in events:
        if event.kind == "retrieval":
            out += [str(c) for c in event.data.get("chunks", ())]
    return out


def passage_figures(outcomes: Sequence[Outcome]) -> dict[str, Any]:
    """Per method, over its document questions that record ``passage_rank``: how many there
    are, how often the passage was in the top 5 (``retrieved``) or among the chunks the answer
    saw (``shown``), and how often it was retrieved and the answer still said not found or
    stated a wrong result.

    Example:
        >>> def o(cid, rank, error):
        ...     detail = {"passage_rank": rank, "passage_shown": rank > 0}
        ...     return Outcome(cid, "m", not error, float(not error), error, detail=detail)
        >>> got = passage_figures([o("1", 1, "not_found"), o("2", 2, ""), o("3", 0, "not_found")])
        >>> got["passages"]["m"]["retrieved"], got["passages"]["m"]["retrieved_missed"]
        (2, 1)
    """
    latest = {(o.method, o.case_id): o for o in outcomes}
    out: dict[str, dict[str, Any]] = {}
    for (method, _), o in sorted(latest.items()):
        if not isinstance(o.detail, Mapping) or "passage_rank" not in o.detail:
            continue
        slot = out.setdefault(
            method,
            {
                "n": 0,
                "retrieved": 0,
                "shown": 0,
                "retrieved_not_found": 0,
                "retrieved_wrong": 0,
            },
        )
        found = 0 < int(o.detail["passage_rank"]) <= TOP_K
        slot["n"] += 1
        slot["retrieved"] += int(found)
        slot["shown"] += int(bool(o.detail.get("passage_shown")))
        slot["retrieved_not_found"] += int(found and not o.correct and o.error == "not_found")
        slot["retrieved_wrong"] += int(found and not o.correct and o.error == "wrong_result")
    for slot in out.values():
        slot["retrieved_missed"] = slot["retrieved_not_found"] + slot["retrieved_wrong"]
        slot["missed_share"] = (
            round(slot["retrieved_missed"] / slot["retrieved"], 4) if slot["retrieved"] else 0.0
        )
    return {"passages": out}


def passages_markdown(figures: Mapping[str, Mapping[str, Any]]) -> list[str]:
    """The report's section of :func:`passage_figures`' ``passages`` (nothing when empty).

    Example:
        >>> lines = passages_markdown({"m": {"n": 4, "retrieved": 3, "shown": 2,
        ...     "retrieved_not_found": 1, "retrieved_wrong": 1, "retrieved_missed": 2,
        ...     "missed_share": 0.6667}})
        >>> lines[-2]
        '| m | 4 | 3 | 2 | 1 | 1 | 66.7% |'
    """
    if not figures:
        return []
    lines = [
        "## Document questions: the right passage retrieved, the answer still missed it",
        "",
        f"The passage a document question names, among the top {TOP_K} hits for the question "
        "(retrieved) and among the chunks the answer's own searches returned (shown); then the "
        "answers that said not found, or stated a wrong result, although it was retrieved.",
        "",
        "| method | questions | retrieved | shown | retrieved, not found | retrieved, wrong "
        "| missed of retrieved |",
        "|---|---|---|---|---|---|---|",
    ]
    for method, f in figures.items():
        lines.append(
            f"| {method} | {f['n']} | {f['retrieved']} | {f['shown']} | "
            f"{f['retrieved_not_found']} | {f['retrieved_wrong']} | "
            f"{100 * f['missed_share']:.1f}% |"
        )
    return [*lines, ""]
