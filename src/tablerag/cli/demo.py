"""``tablerag demo``: build the bilingual sample workspace and show what tablerag does with it."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from tablerag.cli._common import console, open_workspace, short
from tablerag.workspace import DB_FILE

DEMO_WORKSPACE = Path(".tablerag-demo")


def register(app: typer.Typer) -> None:
    """Add the ``demo`` command."""
    app.command()(demo)


def demo(
    workspace: Annotated[
        Path, typer.Option("--workspace", "-w", help="Demo workspace folder.")
    ] = DEMO_WORKSPACE,
) -> None:
    """Build the sample workspace (once) and show its tables, chunks and a few lookups."""
    from tablerag.sample import write_sample
    from tablerag.settings import load_settings

    corpus = workspace / "sample"
    if not (workspace / DB_FILE).exists() or not corpus.is_dir():
        console.print(f"[bold]Writing the sample corpus to {corpus}[/]")
        corpus.mkdir(parents=True, exist_ok=True)
        write_sample(corpus)
    console.print(f"[bold]Ingesting {corpus} into {workspace}[/] (unchanged files are skipped)")
    with open_workspace(workspace, create=True, read_only=False) as ws:
        reports = ws.ingest([corpus], settings=load_settings(workspace))
        failed = [r for r in reports if r.status == "failed"]
        for r in failed:
            console.print(f"[red]failed[/] {short(r.source)}: {r.error}", highlight=False)
        summary = ws.summary()
        console.print(
            "{sources} sources, {tables} tables, {rows} rows, {documents} documents, "
            "{chunks} chunks ({table_chunks} cut from tables)".format(**summary),
            highlight=False,
        )
        table = Table(title="Tables")
        for col in ("table", "rows", "columns", "from"):
            table.add_column(col)
        for t in ws.tables():
            table.add_row(
                t.name,
                str(t.row_count),
                str(len(t.columns)),
                f"{Path(t.source).name} {t.origin}".strip(),
            )
        console.print(table)
    if failed:
        raise typer.Exit(1)
    console.print(
        f"Next: `tablerag tables -w {workspace}`, `tablerag schema fact_sales -w "
        f"{workspace}`, `tablerag chunks -w {workspace} --source 退货政策.md`",
        highlight=False,
    )
