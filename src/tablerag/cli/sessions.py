"""``tablerag sessions``: the conversations of a workspace, and one conversation's turns."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.table import Table

from tablerag.cli._common import (
    DEFAULT_WORKSPACE,
    JsonOpt,
    WorkspaceOpt,
    console,
    err_console,
    print_json,
    shown,
)

if TYPE_CHECKING:
    from tablerag.store.sessions import Session

sessions_app = typer.Typer(
    help="Conversations (`ask --session ID`, `tablerag chat`): list them, show one.",
    invoke_without_command=True,
    no_args_is_help=False,
)


def register(app: typer.Typer) -> None:
    """Add the ``sessions`` command group."""
    app.add_typer(sessions_app, name="sessions")


def _workspace_or_exit(workspace: Path) -> None:
    from tablerag.layout import DB_FILE

    if not (workspace / DB_FILE).exists():
        err_console.print(
            f"[bold red]error:[/] no workspace at {shown(workspace)!r}; pass --workspace.",
            highlight=False,
        )
        raise typer.Exit(2)


@sessions_app.callback()
def list_sessions(
    ctx: typer.Context,
    workspace: WorkspaceOpt = DEFAULT_WORKSPACE,
    limit: Annotated[int, typer.Option(help="Most sessions shown.", min=1)] = 50,
    as_json: JsonOpt = False,
) -> None:
    """List conversations, most recently used first."""
    if ctx.invoked_subcommand is not None:
        return
    from tablerag.store import sessions

    _workspace_or_exit(workspace)
    found = sessions.listed(workspace, limit=limit)
    if as_json:
        print_json([_summary(s) for s in found])
        return
    table = Table("session", "turns", "last used (UTC)", "last question")
    for s in found:
        last = s.turns[-1].question if s.turns else ""
        table.add_row(
            shown(s.session_id),
            str(s.turn_count),
            s.updated_at[:19].replace("T", " "),
            shown(last[:60]),
        )
    console.print(table)


def _summary(s: Session) -> dict[str, object]:
    return {
        "session": s.session_id,
        "created_at": s.created_at,
        "updated_at": s.updated_at,
        "origin": s.origin,
        "turns": s.turn_count,
        "last_question": s.turns[-1].question if s.turns else None,
    }


@sessions_app.command("show")
def show(
    session_id: Annotated[str, typer.Argument(help="The session's id.")],
    workspace: WorkspaceOpt = DEFAULT_WORKSPACE,
    as_json: JsonOpt = False,
) -> None:
    """Print one conversation: each turn's question, how it was understood, SQL and result."""
    from tablerag.store import sessions

    _workspace_or_exit(workspace)
    found = sessions.get(workspace, session_id)
    if found is None:
        err_console.print(
            f"[bold red]error:[/] no session {shown(session_id)!r}; `tablerag sessions` lists "
            "them (a session unused for session_retention_days is deleted).",
            highlight=False,
        )
        raise typer.Exit(1)
    if as_json:
        print_json(
            {**_summary(found), "turns": [dict(t.__dict__) for t in found.turns]},
        )
        return
    console.print(f"session {shown(found.session_id)} · {found.turn_count} turns", highlight=False)
    for t in found.turns:
        console.print(f"[bold]{t.n}.[/] {shown(t.question)}", highlight=False)
        if t.standalone != t.question:
            console.print(f"   understood as: {shown(t.standalone)}", highlight=False)
        console.print(f"   {shown(t.path)} · {shown(t.status)} · id {t.answer_id}", highlight=False)
        if t.sql:
            console.print(f"   SQL: {shown(' '.join(t.sql.split()))}", highlight=False)
        if t.columns:
            values = f"; filtered on {', '.join(t.filter_values)}" if t.filter_values else ""
            line = f"   result: {', '.join(t.columns)} · {t.row_count} rows{values}"
            console.print(shown(line), highlight=False)
        if t.chunk_ids:
            console.print(f"   passages: {shown(', '.join(t.chunk_ids))}", highlight=False)
