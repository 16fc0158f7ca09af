"""``tablerag ingest``: files, folders and database URLs into the workspace."""

from __future__ import annotations

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
    short,
    shown,
)

if TYPE_CHECKING:
    from tablerag.types import SourceReport

WaitOpt = Annotated[
    float,
    typer.Option(
        "--wait",
        help="Seconds to wait while other processes use the workspace (default: fail at once, "
        "naming them).",
        min=0,
    ),
]

_STYLE = {
    "added": "green",
    "replaced": "cyan",
    "unchanged": "dim",
    "skipped": "yellow",
    "failed": "bold red",
}


def register(app: typer.Typer) -> None:
    """Add the ``ingest`` command."""
    app.command()(ingest)


INDEX_STEP = "the text index"
EXIT_INTERRUPTED = 130
"""The shell's code for a program stopped by Ctrl-C."""


def interrupted(at: str | None) -> str:
    """What a Ctrl-C during ``ingest`` left, and how to finish.

    Example:
        >>> print(interrupted("the text index"))
        Stopped while building the text index. Every source read is stored; search and \
document answers need the index: run the same `tablerag ingest` again to finish it \
(unchanged files are skipped).
    """
    if at == INDEX_STEP:
        return (
            "Stopped while building the text index. Every source read is stored; search and "
            "document answers need the index: run the same `tablerag ingest` again to finish "
            "it (unchanged files are skipped)."
        )
    where = f" at {shown(short(at))}" if at else ""
    return (
        f"Stopped{where}. Each source is stored whole or not at all, so nothing is half "
        "written: run the same `tablerag ingest` again to continue and to bring the text "
        "index up to date (sources already stored and unchanged are skipped)."
    )


def ingest(
    targets: Annotated[list[str], typer.Argument(help="Files, folders or database URLs.")],
    workspace: WorkspaceOpt = DEFAULT_WORKSPACE,
    as_json: JsonOpt = False,
    no_index: Annotated[bool, typer.Option("--no-index", help="Skip the text index.")] = False,
    allow_writable_role: Annotated[
        bool,
        typer.Option(
            "--allow-writable-role",
            help="Accept a database account that can write (operator override; the setting "
            "allow_writable_role).",
        ),
    ] = False,
    wait: WaitOpt = 0.0,
) -> None:
    """Read tables and documents into the workspace; report every source. Exit 1 if any failed."""
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
    )

    from tablerag.ingest.pipeline import discover
    from tablerag.service import ingest
    from tablerag.settings import load_settings
    from tablerag.store.workspace import Workspace

    settings = load_settings(
        workspace,
        index_on_ingest=False if no_index else None,
        allow_writable_role=True if allow_writable_role else None,
    )
    found = discover(targets, exclude=workspace, follow_symlinks=settings.ingest_follow_symlinks)
    with Workspace.open(workspace, create=True, wait_s=wait) as ws:
        with Progress(
            TextColumn("[progress.description]{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            console=console,
            transient=True,
            disable=as_json,
        ) as bar:
            task = bar.add_task("ingesting", total=len(found))
            at: list[str] = []  # the source being read, then "the text index"

            def step(location: str) -> None:
                at[:] = [location]
                bar.update(task, description=f"ingesting {short(location)[-50:]}")
                bar.advance(task)

            embed_task = bar.add_task("embedding", total=None, visible=False)

            def embedded(done: int, total: int) -> None:
                at[:] = [INDEX_STEP]
                bar.update(
                    embed_task,
                    completed=done,
                    total=total,
                    visible=True,
                    description=f"embedding with {settings.embedder}",
                )

            try:
                reports = ingest(
                    ws, found, settings=settings, progress=step, embed_progress=embedded
                )
            except KeyboardInterrupt:
                bar.stop()
                err_console.print(interrupted(at[0] if at else None), highlight=False)
                raise typer.Exit(EXIT_INTERRUPTED) from None
        summary = ws.summary()
    if as_json:
        print_json({"sources": reports, "workspace": summary})
    else:
        _print(reports, summary)
    if any(r.status == "failed" for r in reports):
        raise typer.Exit(1)


def _print(reports: list[SourceReport], summary: dict[str, object]) -> None:
    from tablerag.types import problems_and_notes

    table = Table(title="Ingest report", show_lines=False)
    columns = ("source", "status", "tables", "rows read", "rows stored", "chunks")
    for col in (*columns, "problems", "notes"):
        table.add_column(col, justify="right" if col.startswith(("rows", "chunks")) else "left")
    parted = [problems_and_notes(r.problems) for r in reports]
    for r, (problems, notes) in zip(reports, parted, strict=True):
        table.add_row(
            shown(short(r.source)),
            f"[{_STYLE[r.status]}]{r.status}[/]",
            shown(", ".join(r.tables)),
            str(r.rows_read),
            str(r.rows_stored),
            str(r.chunks),
            f"[yellow]{len(problems)}[/]" if problems else "0",
            str(len(notes)),
        )
    console.print(table)
    for r, (problems, _) in zip(reports, parted, strict=True):
        if r.error:
            console.print(
                f"[{_STYLE[r.status]}]{r.status}[/] {shown(short(r.source))}: {shown(r.error)}",
                highlight=False,
            )
        for p in problems:
            console.print(
                f"  [yellow]![/] {shown(short(r.source))} {shown(p.line())}", highlight=False
            )
    if any(notes for _, notes in parted):
        console.print("notes:", highlight=False)
    for r, (_, notes) in zip(reports, parted, strict=True):
        for p in notes:
            console.print(
                f"  [dim]·[/] {shown(short(r.source))} {shown(p.line())}", highlight=False
            )
    in_place = summary.get("rows_in_place")
    rows = f"{summary['rows']} rows" + (f" (+ {in_place:,} in place)" if in_place else "")
    console.print(
        f"workspace {summary['workspace']}: {summary['sources']} sources, {summary['tables']} "
        f"tables, {rows}, {summary['documents']} documents, {summary['chunks']} chunks",
        highlight=False,
    )
