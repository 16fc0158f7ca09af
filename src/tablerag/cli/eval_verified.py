"""``tablerag eval verified``: the verified questions asked again; which now differ (issue 33)."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.table import Table

from tablerag.cli._common import (
    DEFAULT_WORKSPACE,
    JsonOpt,
    WorkspaceOpt,
    console,
    err_console,
    print_json,
)
from tablerag.cli._common import shown as safe


def register(eval_app: typer.Typer) -> None:
    """Add ``verified`` to ``tablerag eval``."""
    eval_app.command("verified")(verified)


def verified(
    workspace: WorkspaceOpt = DEFAULT_WORKSPACE,
    llm: Annotated[str | None, typer.Option("--llm", help="LLM spec (default: settings).")] = None,
    held_out: Annotated[
        bool,
        typer.Option(
            "--held-out",
            help="Answer each question without its own verified query (the model writes it).",
        ),
    ] = False,
    as_json: JsonOpt = False,
) -> None:
    """Ask every verified question again through `ask`'s path and compare its rows with the
    verified query's; exit 1 when one differs or is broken (the regression gate)."""
    from tablerag.evals.verified import replay
    from tablerag.service import QA
    from tablerag.settings import load_settings

    settings = load_settings(workspace, llm=llm)
    with QA.open(workspace, settings=settings) as qa:
        found = replay(qa, held_out=held_out)
    bad = [r for r in found if r.outcome != "same"]
    if as_json:
        print_json(found)
    else:
        table = Table(title=f"Verified questions asked again{' (held out)' if held_out else ''}")
        for column in ("id", "question", "outcome", "reused", "detail"):
            table.add_column(column)
        for r in found:
            mark = "[green]same[/]" if r.outcome == "same" else f"[red]{r.outcome}[/]"
            table.add_row(r.id, safe(r.question), mark, "yes" if r.reused else "", safe(r.detail))
        console.print(table)
        if not found:
            err_console.print("The workspace has no verified queries (`tablerag examples add`).")
        else:
            console.print(f"{len(found) - len(bad)} of {len(found)} give the verified rows.")
    if bad:
        raise typer.Exit(1)
