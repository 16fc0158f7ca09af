"""Conversations from the terminal: ``ask --session``, ``tablerag sessions``, and ``tablerag chat``
driven through prompt_toolkit's pipe input and in a real pseudo-terminal."""

from __future__ import annotations

import json
import os
import re
import select
import subprocess
import sys
import time
from io import StringIO
from pathlib import Path

import pytest
from prompt_toolkit import PromptSession
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput
from rich.console import Console
from typer.testing import CliRunner

from tablerag.cli import app
from tablerag.cli.chat import Chat
from tablerag.llm.testing import FunctionLLM
from tablerag.service import QA
from tablerag.settings import Settings
from tablerag.store import querylog, sessions
from tests.conversation.helpers import reply
from tests.plugins.answering import build_sample_workspace

runner = CliRunner()
SRC = str(Path(__file__).resolve().parents[2] / "src")
ROOT = str(Path(__file__).resolve().parents[2])
STANDALONE = "How many refunds are there for reason R02?"


@pytest.fixture(scope="module")
def ws(sample_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_sample_workspace(sample_dir, tmp_path_factory.mktemp("conv-cli") / "ws")


@pytest.fixture
def scripted(monkeypatch: pytest.MonkeyPatch) -> FunctionLLM:
    llm = FunctionLLM(reply)
    monkeypatch.setattr("tablerag.service.load_llm", lambda spec=None, **kw: llm)
    return llm


def test_ask_with_a_session_continues_it_and_sessions_show_it(
    ws: Path, scripted: FunctionLLM
) -> None:
    first = runner.invoke(
        app, ["ask", "How many refunds are there in total?", "-w", str(ws), "--session", "cli-1"]
    )
    assert first.exit_code == 0, first.output
    second = runner.invoke(
        app, ["ask", "and for reason R02?", "-w", str(ws), "--session", "cli-1", "--json"]
    )
    assert second.exit_code == 0, second.output
    data = json.loads(second.stdout)
    assert data["standalone_question"] == STANDALONE and "R02" in data["sql"]
    shown = runner.invoke(app, ["ask", "and for reason R02?", "-w", str(ws), "--session", "cli-1"])
    assert f"Understood as: {STANDALONE}" in shown.stdout
    listed = runner.invoke(app, ["sessions", "-w", str(ws), "--json"])
    assert listed.exit_code == 0, listed.output
    (row,) = [s for s in json.loads(listed.stdout) if s["session"] == "cli-1"]
    assert row["turns"] == 3 and row["last_question"] == "and for reason R02?"
    one = runner.invoke(app, ["sessions", "show", "cli-1", "-w", str(ws)])
    assert one.exit_code == 0, one.output
    assert f"understood as: {STANDALONE}" in one.stdout and "filtered on R02" in one.stdout
    missing = runner.invoke(app, ["sessions", "show", "nope", "-w", str(ws)])
    assert missing.exit_code == 1 and "no session 'nope'" in missing.output
    bad = runner.invoke(app, ["ask", "q", "-w", str(ws), "--session", "two words"])
    assert bad.exit_code == 2 and "letters, digits" in bad.output


def test_chat_answers_follows_up_and_runs_its_commands(ws: Path, tmp_path: Path) -> None:
    llm = FunctionLLM(reply)
    out = StringIO()
    lines = [
        "How many refunds are there in total?",
        "What is the refund policy?",
        "and for reason R02?",
        "/sql",
        "/why",
        "/feedback wrong only R02 please",
        "/new",
        "/bogus",
        "/quit",
        "never read",
    ]
    with (
        create_pipe_input() as pipe,
        QA.open(ws, settings=Settings(embedder="hashing"), llm=llm) as qa,
    ):
        pipe.send_text("".join(f"{line}\r" for line in lines))
        talk = Chat(qa, ws, Console(file=out, width=120), session="unit-chat")
        talk.run(PromptSession(input=pipe, output=DummyOutput()))
    text = out.getvalue()
    assert "Damaged goods are refunded" in text
    assert "· route: data" in text and "· SQL ran" in text and "· searched:" in text  # as it works
    assert f"Understood as: {STANDALONE}" in text
    assert "reason_code = 'R02'" in text  # /sql
    assert "route: data" in text and "tables: fact_refund" in text  # /why
    assert "thanks, noted" in text and "unknown command /bogus" in text
    assert "new conversation: chat-" in text
    found = sessions.get(ws, "unit-chat")
    assert found is not None and found.turn_count == 3
    entry = querylog.get(ws, found.turns[-1].answer_id)
    assert entry is not None
    assert [(f["rating"], f["comment"]) for f in entry.feedback] == [("wrong", "only R02 please")]


DRIVER = (
    "import sys\n"
    "from tablerag.llm.testing import FunctionLLM\n"
    "from tests.conversation.helpers import reply\n"
    "import tablerag.service\n"
    "llm = FunctionLLM(reply)\n"
    "tablerag.service.load_llm = lambda spec=None, **kw: llm\n"
    "from tablerag.cli import main\n"
    "sys.argv = ['tablerag', 'chat', '-w', sys.argv[1], '--session', 'pty-chat']\n"
    "main()\n"
)
_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07|\x1b[=>]|\r")


@pytest.mark.skipif(sys.platform == "win32", reason="needs a POSIX pseudo-terminal")
def test_chat_in_a_real_terminal(ws: Path) -> None:
    import pty

    master, slave = pty.openpty()
    env = {**os.environ, "PYTHONPATH": f"{SRC}{os.pathsep}{ROOT}", "TERM": "xterm"}
    env["PROMPT_TOOLKIT_NO_CPR"] = "1"
    proc = subprocess.Popen(
        [sys.executable, "-c", DRIVER, str(ws)],
        stdin=slave,
        stdout=slave,
        stderr=slave,
        env=env,
        close_fds=True,
    )
    os.close(slave)
    seen = ""

    def until(needle: str, timeout: float = 90.0) -> None:
        nonlocal seen
        end = time.monotonic() + timeout
        while needle not in _ANSI.sub("", seen):
            left = end - time.monotonic()
            assert left > 0 and proc.poll() is None, f"no {needle!r} in:\n{_ANSI.sub('', seen)}"
            ready, _, _ = select.select([master], [], [], min(left, 1.0))
            if ready:
                try:
                    seen += os.read(master, 65536).decode("utf-8", "replace")
                except OSError:
                    break
        seen = _ANSI.sub("", seen).split(needle, 1)[1]

    def send(line: str) -> None:
        os.write(master, (line + "\r").encode("utf-8"))

    try:
        until("/help for commands")
        send("How many refunds are there in total?")
        until("152")
        send("What is the refund policy?")
        until("Damaged goods are refunded")
        send("and for reason R02?")
        until(f"Understood as: {STANDALONE}")
        send("/sql")
        until("reason_code = 'R02'")
        send("/feedback right")
        until("thanks, noted")
        send("/quit")
        assert proc.wait(timeout=30) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        os.close(master)
    found = sessions.get(ws, "pty-chat")
    assert found is not None and [t.question for t in found.turns][-1] == "and for reason R02?"
    entry = querylog.get(ws, found.turns[-1].answer_id)
    assert entry is not None and [f["rating"] for f in entry.feedback] == ["right"]
    assert (ws / "chat_history").read_text("utf-8").count("and for reason R02?") == 1


def test_ctrl_c_while_answering_stops_that_question_only(ws: Path) -> None:
    calls = []

    def interrupted_once(messages: object) -> str:
        calls.append(messages)
        if len(calls) == 1:
            raise KeyboardInterrupt
        return reply(messages)  # type: ignore[arg-type]

    out = StringIO()
    llm = FunctionLLM(interrupted_once)
    question = "How many refunds are there in total?"
    with (
        create_pipe_input() as pipe,
        QA.open(ws, settings=Settings(embedder="hashing"), llm=llm) as qa,
    ):
        pipe.send_text(f"{question}\r{question}\r/quit\r")
        Chat(qa, ws, Console(file=out, width=120), session="ctrl-c").run(
            PromptSession(input=pipe, output=DummyOutput())
        )
    text = out.getvalue()
    assert "stopped" in text and "152" in text.split("stopped", 1)[1]
