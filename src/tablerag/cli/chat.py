"""``tablerag chat``: a conversation in the terminal, on prompt_toolkit (line editing, history).

Every question is a turn of one session (:meth:`tablerag.service.QA.answer`), so "那华南呢？"
after "上月华东的毛利是多少？" is understood from it; each answer is logged with its id like
``tablerag ask``'s, so ``/feedback`` can name it. Commands: ``/sql``, ``/why``,
``/feedback right|wrong [comment]``, ``/new``, ``/help``, ``/quit``.
"""

from __future__ import annotations

import datetime as dt
import secrets
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console

from tablerag.cli._common import DEFAULT_WORKSPACE, WorkspaceOpt, console, err_console, shown
from tablerag.errors import ConfigError, TableragError, WorkspaceError

if TYPE_CHECKING:
    from prompt_toolkit import PromptSession
    from prompt_toolkit.history import History

    from tablerag.answer import Answer
    from tablerag.request import Event, Request
    from tablerag.service import QA

HISTORY_FILE = "chat_history"
"""The chat's line history, in the workspace folder."""
HELP = (
    "Ask a question, or: /sql (the last answer's SQL), /why (route, tables, steps), "
    "/feedback right|wrong [comment], /new (a new conversation), /quit"
)
RATINGS = ("right", "wrong", "not_in_data")


def register(app: typer.Typer) -> None:
    """Add the ``chat`` command."""
    app.command()(chat)


def new_session_id(now: dt.datetime | None = None) -> str:
    """A fresh session id: ``chat-`` and the UTC time, plus 4 random hex digits."""
    stamp = (now or dt.datetime.now(dt.UTC)).strftime("%Y%m%d-%H%M%S")
    return f"chat-{stamp}-{secrets.token_hex(2)}"


@dataclass
class Chat:
    """One terminal conversation over an open :class:`QA`: its session and its last answer."""

    qa: QA
    workspace: Path
    out: Console
    session: str = field(default_factory=new_session_id)
    last: Answer | None = None
    last_rq: Request | None = None

    def handle(self, line: str) -> bool:
        """Answer a question or run a command; False when the chat ends."""
        text = line.strip()
        if not text:
            return True
        if not text.startswith("/"):
            self.ask(text)
            return True
        command, _, rest = text[1:].partition(" ")
        command = command.lower()
        if command in ("quit", "exit", "q"):
            return False
        if command == "sql":
            self.show_sql()
        elif command == "why":
            self.show_why()
        elif command == "feedback":
            self.feedback(rest.strip())
        elif command == "new":
            self.session, self.last, self.last_rq = new_session_id(), None, None
            self.out.print(f"new conversation: {self.session}", highlight=False)
        elif command == "help":
            self.out.print(HELP, highlight=False)
        else:
            self.out.print(f"unknown command /{shown(command)}; {HELP}", highlight=False)
        return True

    def ask(self, question: str) -> None:
        """Answer ``question`` as the session's next turn; print and log it."""
        from tablerag.cli.render import render_answer
        from tablerag.request import Request
        from tablerag.runtime import record_answer

        settings = self.qa.settings
        rq = Request.make(
            question,
            max_seconds=settings.answer_max_seconds,
            origin="cli",
            session=self.session,
            listener=self.progress,
        )
        try:
            answer = self.qa.answer(rq)
        except TableragError as exc:
            err_console.print(f"[bold red]error:[/] {shown(exc)}", highlight=False)
            return
        except KeyboardInterrupt:  # Ctrl-C while answering stops this question, not the chat
            rq.cancelled.set()
            self.out.print("stopped", highlight=False)
            return
        if settings.query_log:
            try:
                record_answer(self.workspace, rq, answer)
            except WorkspaceError as exc:
                err_console.print(f"[yellow]not logged:[/] {shown(exc)}", highlight=False)
        self.last, self.last_rq = answer, rq
        render_answer(answer, self.out, show_sql=False)

    def progress(self, event: Event) -> None:
        """One line per step of the work as it happens (the route, searches, SQL, loop steps),
        so a slow answer shows what it is doing."""
        data = event.data
        if event.kind == "route":
            line = f"route: {data.get('intent')} ({float(data.get('confidence', 0)):.2f})"
        elif event.kind == "retrieval":
            line = f"searched: {len(data.get('chunks', []))} passages"
        elif event.kind == "sql":
            error = data.get("error")
            line = "SQL ran" if error is None else f"SQL refused: {str(error)[:100]}"
        elif event.kind == "step":
            line = f"step {data.get('n')}: {str(data.get('input', ''))[:80]}"
        else:
            return
        self.out.print(f"[dim]· {shown(line)}[/]", highlight=False)

    def show_sql(self) -> None:
        """Print the last answer's SQL (and the attempts before it)."""
        if self.last is None or not self.last.sql:
            self.out.print("the last answer ran no SQL", highlight=False)
            return
        for n, attempt in enumerate(self.last.sql_attempts[:-1], start=1):
            why = attempt.error or "; ".join(attempt.issues) or "replaced"
            self.out.print(f"-- attempt {n}: {shown(why)}", highlight=False)
        self.out.print(shown(self.last.sql), highlight=False)

    def show_why(self) -> None:
        """Print how the last answer was found: route, linked tables, steps."""
        from tablerag.runtime import linked_tables

        a = self.last
        if a is None:
            self.out.print("nothing asked yet", highlight=False)
            return
        if a.standalone_question:
            self.out.print(f"understood as: {shown(a.standalone_question)}", highlight=False)
        if a.route is not None:
            reasons = "; ".join(a.route.reasons)
            self.out.print(
                f"route: {a.route.intent} ({a.route.confidence:.2f}) {shown(reasons)}",
                highlight=False,
            )
        self.out.print(f"path: {a.path} · status: {a.status}", highlight=False)
        tables = linked_tables(a)
        self.out.print(f"tables: {shown(', '.join(tables)) or '-'}", highlight=False)
        for n, attempt in enumerate(a.sql_attempts, start=1):
            outcome = "ran" if attempt.error is None else shown(attempt.error)
            self.out.print(f"step {n}: SQL {outcome}", highlight=False)
        for step in a.steps:
            self.out.print(f"step {step.n}: {shown(step.input)} → {step.decision}", highlight=False)
        if a.fallback is not None:
            self.out.print(
                f"fallback: {a.fallback.from_path} → {a.fallback.to_path} ({a.fallback.outcome})",
                highlight=False,
            )

    def feedback(self, args: str) -> None:
        """Attach ``right|wrong [comment]`` to the last answer in the query log."""
        from tablerag.store import querylog

        rating, _, comment = args.partition(" ")
        if rating not in RATINGS:
            self.out.print("usage: /feedback right|wrong [comment]", highlight=False)
            return
        if self.last_rq is None:
            self.out.print("nothing asked yet", highlight=False)
            return
        if not self.qa.settings.query_log:
            self.out.print("the query log is off (query_log = false)", highlight=False)
            return
        try:
            found = querylog.add_feedback(self.workspace, self.last_rq.id, rating, comment.strip())
        except (ConfigError, WorkspaceError) as exc:
            self.out.print(f"feedback not kept: {shown(exc)}", highlight=False)
            return
        said = "thanks, noted" if found else "that answer is not in the query log"
        self.out.print(f"{said} ({self.last_rq.id})", highlight=False)

    def run(self, prompt: PromptSession[str]) -> None:
        """Read lines until ``/quit`` or end of input (Ctrl-D); Ctrl-C clears the line."""
        self.out.print(f"conversation {self.session} · /help for commands", highlight=False)
        while True:
            try:
                line = prompt.prompt("? ")
            except KeyboardInterrupt:
                continue
            except EOFError:
                break
            if not self.handle(line):
                break


def _history(workspace: Path) -> History:
    """The chat's line history in the workspace, or in memory when the folder is read-only."""
    from prompt_toolkit.history import FileHistory, InMemoryHistory

    path = workspace / HISTORY_FILE
    try:
        path.touch(exist_ok=True)
    except OSError:
        return InMemoryHistory()
    return FileHistory(str(path))


def chat(
    workspace: WorkspaceOpt = DEFAULT_WORKSPACE,
    llm: Annotated[
        str | None,
        typer.Option("--llm", help="LLM spec: local, openai:MODEL, anthropic:MODEL, ..."),
    ] = None,
    session: Annotated[
        str | None,
        typer.Option("--session", help="Continue this conversation (default: a new one)."),
    ] = None,
) -> None:
    """Converse with the workspace: follow-ups are understood from the earlier questions."""
    from prompt_toolkit import PromptSession

    from tablerag.service import QA
    from tablerag.settings import load_settings

    try:
        settings = load_settings(workspace, llm=llm)
        with QA.open(workspace, settings=settings) as qa:
            talk = Chat(qa, Path(workspace), console)
            if session:
                talk.session = session
            talk.run(PromptSession(history=_history(Path(workspace))))
    except TableragError as exc:
        err_console.print(f"[bold red]error:[/] {shown(exc)}", highlight=False)
        raise typer.Exit(2 if isinstance(exc, ConfigError) else 1) from exc
