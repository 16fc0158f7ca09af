"""What every command shares: the workspace option, JSON output, the console."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, is_dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape

from tablerag.lang.untrusted import visible

if TYPE_CHECKING:
    from tablerag.store.workspace import Workspace

console = Console()
err_console = Console(stderr=True)


def shown(text: object) -> str:
    """Untrusted text (a cell, a passage, an error) for rich markup: control and bidi
    characters shown as escapes (``\\x1b``, ``\\u202e``), ``[bold]`` printed as written.

    Example:
        >>> shown("[bold]x\\x1b[2J")
        '\\\\[bold]x\\\\x1b[2J'
    """
    return escape(visible(str(text)))


WorkspaceOpt = Annotated[
    Path,
    typer.Option(
        "--workspace",
        "-w",
        help="Workspace folder (env TABLERAG_WORKSPACE).",
        envvar="TABLERAG_WORKSPACE",
        show_default=True,
    ),
]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON instead of tables.")]

#: ``tablerag.store.workspace.DEFAULT_PATH``, repeated so ``--help`` need not import duckdb (a test
#: keeps the two equal).
DEFAULT_PATH = Path(".tablerag")
DEFAULT_WORKSPACE = Path(os.environ.get("TABLERAG_WORKSPACE", str(DEFAULT_PATH)))


def to_jsonable(value: Any) -> Any:
    """Dataclasses, tuples and paths to plain JSON values."""
    if is_dataclass(value) and not isinstance(value, type):
        return {k: to_jsonable(v) for k, v in asdict(value).items()}
    if isinstance(value, dict):
        return {str(k): to_jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [to_jsonable(v) for v in value]
    if isinstance(value, Path):
        return str(value)
    return value


def print_json(value: Any) -> None:
    """Print ``value`` as indented UTF-8 JSON on stdout (no rich markup)."""
    typer.echo(json.dumps(to_jsonable(value), ensure_ascii=False, indent=2, default=str))


@contextmanager
def open_workspace(
    path: Path, *, create: bool = False, read_only: bool = True
) -> Iterator[Workspace]:
    """Open the workspace for one command and close it afterwards."""
    from tablerag.store.workspace import Workspace

    ws = Workspace.open(path, create=create, read_only=read_only)
    try:
        yield ws
    finally:
        ws.close()


def short(location: str) -> str:
    """A source location relative to the current folder when it lies below it."""
    try:
        return str(Path(location).relative_to(Path.cwd()))
    except ValueError:
        return location


def table_origin(source: str, origin: str) -> str:
    """Where a table came from: the source, and the part of it when that says more.

    Example:
        >>> table_origin("/d/sales.csv", "sales.csv")
        '/d/sales.csv'
        >>> table_origin("/d/handbook.pdf", "table 2 on page 1")
        '/d/handbook.pdf table 2 on page 1'
    """
    where = short(source)
    return where if not origin or origin == Path(source).name else f"{where} {origin}"
