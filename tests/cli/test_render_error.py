"""An error answer whose text is its error is printed once (issue 36: a source that is down
was said twice, as the answer and again after "error:")."""

from __future__ import annotations

from rich.console import Console

from tablerag.answer import Answer
from tablerag.cli.render import render_answer

DOWN = "The source shop (postgresql://r@h/shop) cannot be queried now: the server is down."


def _printed(answer: Answer) -> str:
    out = Console(record=True, width=300)
    render_answer(answer, out)
    return out.export_text()


def test_an_error_said_as_the_answer_is_not_repeated() -> None:
    answer = Answer(
        question="How many orders?", answer=DOWN, language="en", path="nl2sql",
        status="error", error=DOWN,
    )  # fmt: skip
    assert _printed(answer).count("cannot be queried now") == 1


def test_an_error_that_adds_to_the_answer_is_shown() -> None:
    answer = Answer(
        question="多少订单？", answer="数据源 shop 现在无法查询：服务器已停止", language="zh",
        path="nl2sql", status="error", error=DOWN,
    )  # fmt: skip
    printed = _printed(answer)
    assert "现在无法查询" in printed and f"error: {DOWN}" in printed
