"""The loop end to end from the command line: a wrong answer → feedback → review → promoted →
the same question answered right from the verified query; ``eval verified`` is the gate."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from tablerag.cli import app
from tablerag.llm.base import Message
from tablerag.llm.testing import FunctionLLM

runner = CliRunner()
QUESTION = "How many refunds are there in total?"
WRONG = "SELECT count(*) AS refunds FROM fact_refund WHERE reason_code = 'R01'"
RIGHT = "SELECT count(*) AS refunds FROM fact_refund"


class Model:
    """The scripted SQL model: writes ``sql`` for every SQL prompt."""

    def __init__(self) -> None:
        self.sql = WRONG
        self.llm = FunctionLLM(self.reply)

    def reply(self, messages: Sequence[Message]) -> str:
        if "SELECT" in messages[0]["content"]:
            return f"```sql\n{self.sql}\n```"
        return "Here is the count."


@pytest.fixture
def model(monkeypatch: pytest.MonkeyPatch) -> Model:
    m = Model()
    monkeypatch.setattr("tablerag.service.load_llm", lambda spec=None, **kw: m.llm)
    return m


def _cli(*args: str) -> tuple[int, str]:
    result = runner.invoke(app, list(args))
    return result.exit_code, result.output


def _ask(ws: Path) -> tuple[dict[str, Any], str]:
    code, out = _cli("ask", QUESTION, "-w", str(ws), "--json")
    assert code == 0, out
    data = json.loads(out[out.index("{") :])
    return data, str(data["id"])


def test_a_wrong_answer_becomes_a_verified_query(ws: Path, model: Model) -> None:
    first, answer_id = _ask(ws)
    assert first["table"]["rows"] != [[152]]
    assert first["status"] != "ok"  # the invented filter (reason_code = 'R01') is doubted
    assert len(model.llm.history) >= 1
    code, out = _cli("ask", QUESTION, "-w", str(ws))  # the text form prints the id too
    printed = re.search(r"answer id: ([0-9a-f]+)", out)
    assert code == 0 and printed is not None and printed.group(1) != answer_id
    calls = len(model.llm.history)

    code, out = _cli("feedback", answer_id, "wrong", "-c", "all refunds, not R01", "-w", str(ws))
    assert code == 0 and "tablerag review" in out
    code, out = _cli("feedback", "nope", "wrong", "-w", str(ws))
    assert code == 2 and "no answer 'nope' in the query log" in out
    code, out = _cli("feedback", answer_id, "meh", "-w", str(ws))
    assert code == 2 and "Unknown rating 'meh'" in out

    code, out = _cli("review", "--json", "-w", str(ws))
    cases = json.loads(out)
    assert code == 0 and [c["id"] for c in cases] == [answer_id]
    case = cases[0]
    assert case["question"] == QUESTION and "'R01'" in case["sql"]
    assert case["comment"] == "all refunds, not R01" and case["rating"] == "wrong"
    assert case["rows"] == first["table"]["rows"]

    code, out = _cli(
        "review", "promote", answer_id, "--sql", "DELETE FROM fact_refund", "-w", str(ws)
    )
    assert code == 2 and "nothing was stored" in " ".join(out.split())
    code, out = _cli("review", "promote", answer_id, "--sql", RIGHT, "--by", "li", "-w", str(ws))
    assert code == 0 and "152" in out and "Promoted case" in out, out
    code, out = _cli("review", "promote", answer_id, "--sql", RIGHT, "-w", str(ws))
    flat = " ".join(out.split())
    assert code == 2 and f"case {answer_id} was already promoted" in flat
    code, out = _cli("review", "-w", str(ws))
    assert code == 0 and "No open cases" in out

    again, _ = _ask(ws)
    assert again["table"]["rows"] == [[152]]
    assert again["llm"]["calls"] == 0 and len(model.llm.history) == calls
    assert again["knowledge"][0]["kind"] == "example"
    listed = json.loads(_cli("examples", "list", "--json", "-w", str(ws))[1])
    assert listed[0]["origin"] == "feedback" and listed[0]["case_id"] == answer_id

    code, out = _cli("eval", "verified", "-w", str(ws), "--json")
    replays = json.loads(out)
    assert code == 0 and [(r["outcome"], r["reused"]) for r in replays] == [("same", True)]


def test_eval_verified_names_the_questions_that_now_differ(ws: Path, model: Model) -> None:
    code, out = _cli("examples", "add", "-q", QUESTION, "--sql", RIGHT, "-w", str(ws))
    assert code == 0, out
    # held out, the model writes the SQL: the wrong one differs, the right one is the same
    code, out = _cli("eval", "verified", "--held-out", "-w", str(ws), "--json")
    replays = json.loads(out)
    assert code == 1 and replays[0]["outcome"] == "differs" and not replays[0]["reused"]
    assert "row" in replays[0]["detail"]
    model.sql = RIGHT
    code, out = _cli("eval", "verified", "--held-out", "-w", str(ws))
    assert code == 0 and "1 of 1 give the verified rows" in " ".join(out.split())
