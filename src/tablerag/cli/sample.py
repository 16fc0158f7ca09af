"""``tablerag sample DIR``: write the bilingual sample corpus (tables as CSV, documents)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, NoReturn

import typer
from rich.markup import escape
from rich.table import Table

from tablerag.cli._common import console, err_console, print_json

_KINDS = {
    ".csv": "table",
    ".json": "descriptions",
    ".yaml": "semantic model",
    ".pdf": "document",
    ".docx": "document",
}


def register(app: typer.Typer) -> None:
    """Add the ``sample`` command to ``app``."""
    app.command("sample")(sample)


def sample(
    directory: Annotated[Path, typer.Argument(metavar="DIR", help="Folder to write into.")],
    seed: Annotated[int, typer.Option(help="Seed of the data generator.")] = 7,
    force: Annotated[
        bool, typer.Option("--force", help="Write into a non-empty folder, replacing sample files.")
    ] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print a JSON list of paths.")] = False,
) -> None:
    """Write the sample corpus: a sales mart as CSV files plus Chinese and English documents."""
    from tablerag.sample import write_sample

    if directory.exists() and not directory.is_dir():
        _refuse(f"{str(directory)!r} is a file; give a folder path.")
    if directory.is_dir() and any(directory.iterdir()) and not force:
        _refuse(
            f"{str(directory)!r} is not empty; choose an empty or new folder, or pass --force "
            "to replace the sample files in it."
        )
    paths = write_sample(directory, seed=seed)
    if as_json:
        print_json([str(path) for path in paths])
        return
    table = Table(title=f"Sample corpus in {directory}")
    for column in ("file", "kind", "bytes"):
        table.add_column(column, justify="right" if column == "bytes" else "left")
    for path in paths:
        kind = "readme" if path.name == "README.md" else _KINDS.get(path.suffix, "document")
        table.add_row(path.name, kind, f"{path.stat().st_size:,}")
    console.print(table)
    console.print(f"Next: tablerag ingest {directory}", highlight=False)


def _refuse(message: str) -> NoReturn:
    err_console.print(f"[bold red]error:[/] {escape(message)}", highlight=False)
    raise typer.Exit(2)
