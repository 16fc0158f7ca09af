"""``tablerag feedback ANSWER_ID right|wrong|not_in_data``: say whether a logged answer was
right; wrong ones wait in ``tablerag review`` (issue 33)."""

from __future__ import annotations

from typing import Annotated

import typer

from tablerag.cli._common import DEFAULT_WORKSPACE, WorkspaceOpt, console, err_console
from tablerag.cli._common import shown as safe


def register(app: typer.Typer) -> None:
    """Add the ``feedback`` command."""
    app.command()(feedback)


def feedback(
    answer_id: Annotated[str, typer.Argument(help="The answer id `tablerag ask` printed.")],
    rating: Annotated[str, typer.Argument(help="right, wrong or not_in_data.")],
    workspace: WorkspaceOpt = DEFAULT_WORKSPACE,
    comment: Annotated[
        str, typer.Option("--comment", "-c", help="What was wrong, or what the answer is.")
    ] = "",
) -> None:
    """Attach feedback to a logged answer (the query log in the workspace)."""
    from tablerag.errors import ConfigError
    from tablerag.store.querylog import add_feedback

    try:
        found = add_feedback(workspace, answer_id, rating, comment)
    except ConfigError as exc:
        err_console.print(f"[bold red]error:[/] {safe(exc)}", highlight=False)
        raise typer.Exit(2) from exc
    if not found:
        err_console.print(
            f"[bold red]error:[/] no answer {safe(answer_id)!r} in the query log of "
            f"{safe(workspace)}; use the id `tablerag ask` printed (`tablerag log` lists them).",
            highlight=False,
        )
        raise typer.Exit(2)
    queued = " It waits in `tablerag review`." if rating != "right" else ""
    console.print(f"Recorded {rating} for answer {safe(answer_id)}.{queued}")
