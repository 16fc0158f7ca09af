"""An answer the checks doubt, end to end: the service, ``--json`` and the terminal all say so."""

from __future__ import annotations

import io
from pathlib import Path

from rich.console import Console

from tablerag.answer import Answer
from tablerag.cli.render import render_answer
from tablerag.llm.testing import ScriptedLLM
from tablerag.service import QA

CONSTANT = "```sql\nSELECT 1\n```"
COUNT = "```sql\nSELECT count(*) AS refunds FROM fact_refund\n```"


def test_a_constant_query_is_unsure_through_the_service_the_json_and_the_terminal(
    sample_ws: Path,
) -> None:
    with QA.open(sample_ws, llm=ScriptedLLM(replies=[CONSTANT, CONSTANT, CONSTANT])) as qa:
        answer = qa.ask("一共有多少笔退款？")
    assert answer.path == "nl2sql" and answer.status == "unsure"
    assert answer.answer.splitlines()[0] == "这个结果可能不对：查询没有读取任何表。"
    again = Answer.model_validate_json(answer.model_dump_json())
    assert again.status == "unsure" and again.confidence == answer.confidence < 0.5
    out = io.StringIO()
    render_answer(answer, Console(file=out, width=100, color_system=None))
    printed = out.getvalue()
    assert "unsure" in printed and "查询没有读取任何表" in printed


def test_the_right_query_for_the_same_question_stays_ok(sample_ws: Path) -> None:
    with QA.open(sample_ws, llm=ScriptedLLM(replies=[COUNT])) as qa:
        answer = qa.ask("一共有多少笔退款？")
    assert answer.status == "ok" and answer.answer == "查询结果：refunds = 152。"
    assert answer.confidence == 0.85
