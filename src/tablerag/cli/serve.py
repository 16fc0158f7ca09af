"""``tablerag serve``: the HTTP API over a long-lived runtime (FastAPI + uvicorn)."""

from __future__ import annotations

from typing import Annotated

import typer

from tablerag.cli._common import DEFAULT_WORKSPACE, WorkspaceOpt, err_console, shown
from tablerag.errors import ConfigError, TableragError

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8765


def register(app: typer.Typer) -> None:
    """Add the ``serve`` command."""
    app.command()(serve)


def serve(
    workspace: WorkspaceOpt = DEFAULT_WORKSPACE,
    host: Annotated[
        str,
        typer.Option(help="Address to bind; anything but loopback requires API tokens."),
    ] = DEFAULT_HOST,
    port: Annotated[int, typer.Option(help="TCP port.", min=1, max=65535)] = DEFAULT_PORT,
    llm: Annotated[
        str | None,
        typer.Option("--llm", help="LLM spec: local, openai:MODEL, anthropic:MODEL, ..."),
    ] = None,
) -> None:
    """Serve the workspace over HTTP: POST /v1/ask, /v1/sql, GET /v1/search, /v1/tables,
    /v1/sources, /v1/history, POST /v1/feedback, /healthz, and the MCP tools at /mcp; the API's
    reference is at /docs."""
    import uvicorn

    from tablerag.api.access import Access, is_loopback
    from tablerag.api.app import create_app
    from tablerag.runtime import Runtime
    from tablerag.settings import load_settings
    from tablerag.store import tokens
    from tablerag.telemetry import configure_from_env

    try:
        settings = load_settings(workspace, llm=llm)
        local = is_loopback(host)
        if not local and not tokens.any_active(workspace):
            raise ConfigError(
                f"Binding to {host!r} opens the API to the network, which needs API tokens; "
                f"create one first with `tablerag token create --name NAME -w {workspace}`, "
                "or bind to 127.0.0.1."
            )
        runtime = Runtime.open(workspace, settings=settings)
    except TableragError as exc:
        err_console.print(f"[bold red]error:[/] {shown(exc)}", highlight=False)
        raise typer.Exit(2 if isinstance(exc, ConfigError) else 1) from exc
    try:
        configure_from_env()
        runtime.prune_log()
        access = Access(
            runtime.path,
            require_token=not local,
            rate_per_minute=settings.serve_rate_limit_per_minute,
        )
        app = create_app(
            runtime,
            access=access,
            cors_origins=settings.serve_cors_origins,
            owns_runtime=True,
        )
        err_console.print(
            f"tablerag serving {shown(runtime.path)} with {shown(runtime.llm.spec)} on "
            f"http://{host}:{port} (API reference: /docs; MCP tools: /mcp"
            f"{'' if local else '; API tokens required'})",
            highlight=False,
        )
        uvicorn.run(app, host=host, port=port, log_level="warning", access_log=False)
    finally:
        runtime.close()
