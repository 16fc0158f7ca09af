"""``tablerag mcp``: the workspace as a read-only MCP server over stdio, for assistants."""

from __future__ import annotations

from typing import Annotated

import typer

from tablerag.cli._common import DEFAULT_WORKSPACE, WorkspaceOpt, err_console, shown
from tablerag.errors import ConfigError, TableragError


def register(app: typer.Typer) -> None:
    """Add the ``mcp`` command."""
    app.command()(mcp)


def mcp(
    workspace: WorkspaceOpt = DEFAULT_WORKSPACE,
    llm: Annotated[
        str | None,
        typer.Option("--llm", help="LLM spec: local, openai:MODEL, anthropic:MODEL, ..."),
    ] = None,
) -> None:
    """Serve the workspace to an assistant over MCP (stdio): tools ask, run_sql,
    search_documents, list_tables, describe_table and list_sources, all read-only. The same
    tools are at /mcp under `tablerag serve`."""
    from tablerag.api.mcp import build
    from tablerag.runtime import Runtime
    from tablerag.settings import load_settings

    try:
        settings = load_settings(workspace, llm=llm)
        runtime = Runtime.open(workspace, settings=settings)
    except TableragError as exc:
        err_console.print(f"[bold red]error:[/] {shown(exc)}", highlight=False)
        raise typer.Exit(2 if isinstance(exc, ConfigError) else 1) from exc
    try:
        err_console.print(
            f"tablerag MCP server on stdio for {shown(runtime.path)} with "
            f"{shown(runtime.llm.spec)}",
            highlight=False,
        )
        build(runtime).run("stdio")
    finally:
        runtime.close()
