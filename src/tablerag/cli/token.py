"""``tablerag token create|list|revoke``: the API tokens of ``tablerag serve``."""

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
    shown,
)

token_app = typer.Typer(
    name="token", help="API tokens of `tablerag serve` (stored hashed in the workspace)."
)


def register(app: typer.Typer) -> None:
    """Add the ``token`` command group."""
    app.add_typer(token_app)


@token_app.command()
def create(
    name: Annotated[str, typer.Option("--name", help="Who or what uses the token.")],
    workspace: WorkspaceOpt = DEFAULT_WORKSPACE,
    rate: Annotated[
        int | None,
        typer.Option(
            "--rate-per-minute", help="Its own rate limit (default serve_rate_limit_per_minute)."
        ),
    ] = None,
    as_json: JsonOpt = False,
) -> None:
    """Create a token; it is printed once and only its hash is kept."""
    from tablerag.store import tokens

    _need_workspace(workspace)
    token, text = tokens.create(workspace, name, rate_per_minute=rate)
    if as_json:
        print_json({"token_id": token.token_id, "name": token.name, "token": text})
        return
    typer.echo(text)
    err_console.print(
        f"token {token.token_id} ({shown(token.name)}) created; it is shown once: keep it now.",
        highlight=False,
    )


@token_app.command("list")
def list_(workspace: WorkspaceOpt = DEFAULT_WORKSPACE, as_json: JsonOpt = False) -> None:
    """List the tokens (never their secrets)."""
    from tablerag.store import tokens

    _need_workspace(workspace)
    found = tokens.listed(workspace)
    if as_json:
        print_json(found)
        return
    table = Table("id", "name", "created", "revoked", "rate/min")
    for t in found:
        table.add_row(
            t.token_id,
            shown(t.name),
            t.created_at,
            t.revoked_at or "",
            str(t.rate_per_minute or "default"),
        )
    console.print(table)


@token_app.command()
def revoke(
    token_id: Annotated[str, typer.Argument(help="The token's id (see `tablerag token list`).")],
    workspace: WorkspaceOpt = DEFAULT_WORKSPACE,
) -> None:
    """Revoke a token: the server refuses it from its next request on."""
    from tablerag.store import tokens

    _need_workspace(workspace)
    if not tokens.revoke(workspace, token_id):
        err_console.print(
            f"[bold red]error:[/] no active token {shown(token_id)!r}; see `tablerag token list`.",
            highlight=False,
        )
        raise typer.Exit(1)
    err_console.print(f"token {shown(token_id)} revoked", highlight=False)


def _need_workspace(workspace: object) -> None:
    from pathlib import Path

    from tablerag.layout import DB_FILE

    if not (Path(str(workspace)) / DB_FILE).exists():
        err_console.print(
            f"[bold red]error:[/] no workspace at {shown(workspace)!r}; pass --workspace.",
            highlight=False,
        )
        raise typer.Exit(2)
