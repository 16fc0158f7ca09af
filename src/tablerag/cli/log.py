"""``tablerag log``: the questions answered (CLI and server), newest first."""

from __future__ import annotations

import datetime as dt
import re
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
    shown,
)

_AGO = re.compile(r"^(\d+)([mhd])$")


def register(app: typer.Typer) -> None:
    """Add the ``log`` command."""
    app.command("log")(log_)


def since_time(text: str, now: dt.datetime | None = None) -> str:
    """``30m``, ``2h``, ``7d`` or an ISO date/time as the log's UTC timestamp text.

    Raises:
        typer.BadParameter: neither form.

    Example:
        >>> since_time("2d", dt.datetime(2026, 12, 3, tzinfo=dt.UTC))
        '2026-12-01T00:00:00+00:00'
        >>> since_time("2026-11-15")
        '2026-11-15T00:00:00+00:00'
    """
    found = _AGO.match(text.strip())
    if found:
        n, unit = int(found[1]), found[2]
        delta = {"m": dt.timedelta(minutes=n), "h": dt.timedelta(hours=n), "d": dt.timedelta(n)}
        return ((now or dt.datetime.now(dt.UTC)) - delta[unit]).isoformat()
    try:
        when = dt.datetime.fromisoformat(text.strip())
    except ValueError as exc:
        raise typer.BadParameter(
            f"{text!r} is not a time: use 30m, 2h, 7d or an ISO date (2026-11-15)."
        ) from exc
    if when.tzinfo is None:
        when = when.replace(tzinfo=dt.UTC)
    return when.astimezone(dt.UTC).isoformat()


def log_(
    workspace: WorkspaceOpt = DEFAULT_WORKSPACE,
    since: Annotated[
        str | None, typer.Option(help="Only entries since: 30m, 2h, 7d or an ISO date.")
    ] = None,
    status: Annotated[
        str | None,
        typer.Option(help="Only this status: ok, partial, error, clarify, failed, busy, ..."),
    ] = None,
    limit: Annotated[int, typer.Option(help="Most entries shown.", min=1)] = 50,
    as_json: JsonOpt = False,
) -> None:
    """Show the query log: questions, routes, status, tokens, timings and feedback."""
    from tablerag.layout import DB_FILE
    from tablerag.store import querylog

    if not (workspace / DB_FILE).exists():
        err_console.print(
            f"[bold red]error:[/] no workspace at {shown(workspace)!r}; pass --workspace.",
            highlight=False,
        )
        raise typer.Exit(2)
    found = querylog.entries(
        workspace, since=since_time(since) if since else None, status=status, limit=limit
    )
    if as_json:
        print_json([e.as_dict() for e in found])
        return
    table = Table("when (UTC)", "question", "route", "status", "ms", "tokens", "feedback")
    for e in found:
        route = f"{e.intent or '-'} {e.confidence:.2f}" if e.confidence is not None else "-"
        table.add_row(
            e.asked_at[:19].replace("T", " "),
            shown(e.question[:60]),
            shown(route),
            shown(e.status),
            f"{e.timings_ms.get('total', 0):.0f}",
            str(e.prompt_tokens + e.completion_tokens),
            ", ".join(shown(f["rating"]) for f in e.feedback),
        )
    console.print(table)
