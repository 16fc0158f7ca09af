"""The loop's own doubts are findings (issue 29): the line above its answer is rendered from
them, and the scorer's body is what is under it."""

from __future__ import annotations

from pathlib import Path

from tablerag.answer.findings import body, lines, says
from tests.loop.conftest import ByKind
from tests.loop.test_loop import SQL_2019, Q, qa


def test_a_conflict_is_a_finding_rendered_above_the_answer(loop_ws: Path) -> None:
    script = ByKind(decompose=f"NEXT: {Q}", sql=SQL_2019, passages="It was 1,390.0 [1].")
    with qa(loop_ws, script) as q:
        answer = q.loop(Q)
    (conflict,) = answer.findings
    assert (conflict.code, conflict.severity, conflict.stage) == ("conflict", "doubt", "loop")
    assert "1452.4" in conflict.values["sql"] and "1,390.0" in conflict.values["text"]
    first = answer.answer.split("\n", 1)[0]
    assert lines(answer.findings, "en", "lead") == [first] == [says(conflict, "en")]
    assert body(answer) == "1452.4"
    assert says(conflict, "zh").startswith("这个回答可能不对：表格和文档的说法不一致")


def test_the_conflict_verdict_is_a_step_switched_off_by_name(loop_ws: Path) -> None:
    script = ByKind(decompose=f"NEXT: {Q}", sql=SQL_2019, passages="It was 1,390.0 [1].")
    with qa(loop_ws, script) as q:
        doubted = q.loop(Q)
    with qa(loop_ws, script, stages={"conflict": False}) as q:
        kept = q.loop(Q)
    assert doubted.status == "unsure" and doubted.confidence <= 0.35
    assert kept.findings == [] and kept.answer == body(doubted)
    assert kept.status == "ok" and kept.confidence > doubted.confidence
