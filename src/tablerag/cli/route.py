"""``tablerag route``: the router's decision for one question, without answering it."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.markup import escape
from rich.table import Table

from tablerag.cli._common import (
    DEFAULT_WORKSPACE,
    JsonOpt,
    WorkspaceOpt,
    console,
    open_workspace,
    print_json,
)

if TYPE_CHECKING:
    from tablerag.router.router import Route


def register(app: typer.Typer) -> None:
    """Add the ``route`` command."""
    app.command()(route)


def route(
    question: Annotated[str, typer.Argument(help="A question, Chinese or English.")],
    workspace: WorkspaceOpt = DEFAULT_WORKSPACE,
    as_json: JsonOpt = False,
) -> None:
    """Show which path would answer QUESTION: knowledge, data, hybrid, chitchat or ambiguous."""
    decision = _decide(question, workspace)
    if as_json:
        data = decision.to_dict()
        print_json({k: data[k] for k in ("intent", "confidence", "reasons", "scores")})
        return
    _print(question, decision)


def _decide(question: str, workspace: Path) -> Route:
    from tablerag.layout import DB_FILE
    from tablerag.router.router import RouterContext
    from tablerag.router.router import route as run_route

    if not (workspace / DB_FILE).exists():
        note = f"no workspace at {str(workspace)!r}: rules and question features only"
        return run_route(question, RouterContext.empty(note))
    with open_workspace(workspace) as ws:
        return run_route(question, RouterContext.from_workspace(ws))


def _print(question: str, decision: Route) -> None:
    console.print(
        f"[bold]{escape(decision.intent)}[/] ({decision.confidence:.2f})  {escape(question)}",
        highlight=False,
    )
    scores = Table(show_header=False, box=None)
    for intent, p in sorted(decision.scores.items(), key=lambda kv: -kv[1]):
        scores.add_row(intent, f"{p:.2f}", "█" * round(p * 20))
    console.print(scores)
    for reason in decision.reasons:
        console.print(f"  • {escape(reason)}", highlight=False)
