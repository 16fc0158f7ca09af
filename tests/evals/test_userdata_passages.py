"""The document questions' passage diagnostic on hand-made outcomes (no model, no workspace):
which answers missed a passage retrieval had found, and the report's section."""

from __future__ import annotations

from typing import Any

from tablerag.evals.report import render_markdown
from tablerag.evals.runner import Outcome, summarise
from tablerag.evals.userdata.passages import (
    gold_chunks,
    passage_figures,
    passage_rank,
    retrieved_chunks,
)
from tablerag.evals.userdata.task import run_figures
from tablerag.request import Trace


def _answer(case: str, rank: int | None, error: str, method: str = "tablerag") -> Outcome:
    detail: dict[str, Any] = {"status": "ok" if error != "not_found" else "not_found"}
    if rank is not None:
        detail |= {"passage_rank": rank, "passage_shown": rank > 0}
    return Outcome(case, method, not error, float(not error), error, detail=detail)


ANSWERS = [
    _answer("p-01", 1, "not_found"),  # found first, answered "not found"
    _answer("p-02", 3, "wrong_result"),  # found, contradicted
    _answer("p-03", 2, ""),  # found, right
    _answer("p-04", 0, "not_found"),  # not retrieved: a retrieval miss, not counted
    _answer("p-05", 6, "wrong_result"),  # below the top 5: not retrieved
    _answer("k-01", None, "wrong_result"),  # a data question: no passage
    _answer("p-01", 1, "", method="other"),
]


def test_the_misses_are_the_wrong_answers_whose_passage_was_in_the_top_five() -> None:
    figures = passage_figures(ANSWERS)["passages"]
    assert figures["tablerag"] == {
        "n": 5,
        "retrieved": 3,
        "shown": 4,
        "retrieved_not_found": 1,
        "retrieved_wrong": 1,
        "retrieved_missed": 2,
        "missed_share": 0.6667,
    }
    assert figures["other"]["retrieved_missed"] == 0 and figures["other"]["n"] == 1
    # a case answered again counts once, by its latest answer
    again = passage_figures([*ANSWERS, _answer("p-01", 1, "")])["passages"]["tablerag"]
    assert again["n"] == 5 and again["retrieved_not_found"] == 0


def test_the_run_figures_carry_the_kinds_and_the_passages_and_the_report_prints_them() -> None:
    meta = run_figures(ANSWERS)
    assert set(meta) == {"userdata", "passages"}
    text = render_markdown(summarise(ANSWERS), ANSWERS, meta)
    assert "| tablerag | 5 | 3 | 4 | 1 | 1 | 66.7% |" in text
    assert "| other | 1 | 1 | 1 | 0 | 0 | 0.0% |" in text
    assert "the answer still missed it" not in render_markdown(summarise(ANSWERS), ANSWERS, {})


def test_the_passage_is_found_by_its_phrase_in_the_trace_and_the_hits() -> None:
    chunks = [("c1", "第七条\n开课后7日内申请退学的，退还所缴学费的 70%"), ("c2", "第八条 补贴")]
    gold = gold_chunks(chunks, "开课后7日内申请退学的，退还所缴学费的70%")
    assert gold == {"c1"} and gold_chunks(chunks, "") == frozenset()
    assert passage_rank(["c2", "c9", "c1"], gold) == 3
    assert passage_rank(["c2", "c3", "c4", "c5", "c6", "c1"], gold) == 0  # sixth: not top 5
    trace = Trace()
    trace.emit("route", intent="knowledge")
    trace.emit("retrieval", query="q", mode="hybrid", chunks=["c2"])
    trace.emit("retrieval", query="q", mode="bm25", chunks=["c1", "c3"])
    assert retrieved_chunks(trace.events) == ["c2", "c1", "c3"]
