"""The ``tablerag`` command line: thin commands that parse, call the library and print."""

from __future__ import annotations

import importlib
import os
import sys

import typer

from tablerag.cli._common import err_console, shown
from tablerag.errors import ConfigError, TableragError

app = typer.Typer(
    name="tablerag",
    help="Answer questions over documents and tables: numbers from SQL, answers with sources.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

# Each module adds its commands with register(app); one module per concern.
_COMMAND_MODULES = (
    "ingest",
    "browse",
    "sources",
    "sample",
    "search",
    "sql",
    "route",
    "ask",
    "stages",
    "knowledge",
    "examples",
    "feedback",
    "review",
    "eval",
    "demo",
    "serve",
    "mcp",
    "log",
    "token",
    "sessions",
    "chat",
)


def _register_all() -> None:
    for name in _COMMAND_MODULES:
        try:
            module = importlib.import_module(f"tablerag.cli.{name}")
        except ModuleNotFoundError as exc:
            if exc.name == f"tablerag.cli.{name}":
                continue  # a command package not present in this build
            raise
        module.register(app)


_register_all()


def main() -> None:
    """Entry point: run the app and turn tablerag errors into one clear line, never a traceback.

    Usage errors, ``--help`` and exit codes are handled by typer's standalone mode; everything
    else that escapes a command ends here.
    """
    import logging

    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    try:
        app()
    except TableragError as exc:
        err_console.print(f"[bold red]error:[/] {shown(exc)}", highlight=False)
        sys.exit(2 if isinstance(exc, ConfigError) else 1)
    except Exception as exc:  # noqa: BLE001 - outermost edge: one line, not a traceback
        if os.environ.get("TABLERAG_DEBUG"):
            raise
        err_console.print(
            f"[bold red]internal error:[/] {type(exc).__name__}: {shown(exc)}. "
            "Please report it; run with TABLERAG_DEBUG=1 for the traceback.",
            highlight=False,
        )
        sys.exit(70)
