"""``tablerag examples add | import | export | list | remove | check``: the workspace's verified
queries, question → SQL pairs people checked (docs/knowledge.md, issue 33)."""

from __future__ import annotations

import getpass
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
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
)
from tablerag.cli._common import shown as safe

if TYPE_CHECKING:
    from tablerag.sources import SourceSet
    from tablerag.sql.result import ResultSet
    from tablerag.store.examples import Example

examples_app = typer.Typer(
    help="Verified queries: question → SQL pairs people checked, reused and shown to the model.",
    no_args_is_help=True,
)
ByOpt = Annotated[str | None, typer.Option("--by", help="Who verified it (default: your login).")]
SHOWN_ROWS = 10


def register(app: typer.Typer) -> None:
    """Add the ``examples`` command group."""
    app.add_typer(examples_app, name="examples")


@contextmanager
def workspace_sources(workspace: Path) -> Iterator[SourceSet]:
    """The workspace's SQL sources under its settings' limits (closed afterwards)."""
    from tablerag.examples.library import open_sources
    from tablerag.service import execution_policy
    from tablerag.settings import load_settings

    settings = load_settings(workspace)
    with open_sources(
        workspace, execution_policy(settings), allow_writable_role=settings.allow_writable_role
    ) as sources:
        yield sources


def who(by: str | None) -> str:
    """The reviewer's name: ``--by``, else the login name."""
    if by:
        return by
    try:
        return getpass.getuser()
    except (KeyError, OSError):  # no login name (a container without a passwd entry)
        return ""


def show_rows(result: ResultSet) -> None:
    """The first rows of a result, as a table."""
    table = Table(title=f"{len(result.rows)} row(s){' (cut)' if result.truncated else ''}")
    for column in result.columns:
        table.add_column(safe(column))
    for row in result.rows[:SHOWN_ROWS]:
        table.add_row(*(safe(v) for v in row))
    console.print(table)


@examples_app.command("add")
def add(
    question: Annotated[str, typer.Option("--question", "-q", help="The question, as asked.")],
    sql: Annotated[str, typer.Option("--sql", help="The SELECT that answers it.")],
    workspace: WorkspaceOpt = DEFAULT_WORKSPACE,
    by: ByOpt = None,
) -> None:
    """Check SQL through the gate of its source, show its rows, store the pair."""
    from tablerag.examples.files import ExamplesInvalid
    from tablerag.examples.library import store, verify
    from tablerag.store.examples import Example

    pair = Example(question=question.strip(), sql=sql.strip(), source="", verified_by=who(by))
    with workspace_sources(workspace) as sources:
        checked = verify(sources, pair)
    try:
        (added,) = store(workspace, [checked])
    except ExamplesInvalid as exc:
        err_console.print(f"[bold red]error:[/] {safe(exc)}", highlight=False)
        raise typer.Exit(2) from exc
    assert checked.result is not None
    show_rows(checked.result)
    console.print(f"Added verified query {added.id} on {safe(added.source)}.")


@examples_app.command("import")
def import_(
    file: Annotated[Path, typer.Argument(help="A JSON Lines file (`tablerag examples export`).")],
    workspace: WorkspaceOpt = DEFAULT_WORKSPACE,
    replace: Annotated[
        bool, typer.Option("--replace", help="Drop every stored pair first (same transaction).")
    ] = False,
) -> None:
    """Check every pair of FILE through its source's gate; any problem stores none."""
    from tablerag.examples.files import ExamplesInvalid, loads
    from tablerag.examples.library import store, verify
    from tablerag.sources import FILES

    try:
        pairs = loads(file.read_text(encoding="utf-8"), default_source=FILES)
        with workspace_sources(workspace) as sources:
            checked = [verify(sources, p) for p in pairs]
        added = store(workspace, checked, replace_all=replace)
    except (ExamplesInvalid, OSError, UnicodeDecodeError) as exc:
        err_console.print(f"[bold red]error:[/] {safe(exc)}", highlight=False)
        raise typer.Exit(2) from exc
    console.print(f"Imported {len(added)} verified quer{'y' if len(added) == 1 else 'ies'}.")


@examples_app.command("export")
def export(
    file: Annotated[Path | None, typer.Argument(help="Write here (default: stdout).")] = None,
    workspace: WorkspaceOpt = DEFAULT_WORKSPACE,
) -> None:
    """Write every verified query as JSON Lines (import it back unchanged)."""
    from tablerag.examples.files import dumps
    from tablerag.examples.library import stored

    text = dumps(stored(workspace))
    if file is None:
        typer.echo(text, nl=False)
    else:
        file.write_text(text, encoding="utf-8")
        err_console.print(f"Wrote {safe(file)}.")


@examples_app.command("list")
def list_(workspace: WorkspaceOpt = DEFAULT_WORKSPACE, as_json: JsonOpt = False) -> None:
    """Every verified query: id, question, SQL, source, who verified it and when, origin."""
    from tablerag.examples.library import stored

    found = stored(workspace)
    if as_json:
        print_json(found)
        return
    _table(found)


def _table(found: Sequence[Example]) -> None:
    table = Table(title="Verified queries")
    for column in ("id", "question", "sql", "source", "verified", "origin"):
        table.add_column(column)
    for e in found:
        table.add_row(
            e.id,
            safe(e.question),
            safe(e.sql),
            safe(e.source),
            safe(f"{e.verified_by} {e.verified_at}"),
            e.origin,
        )
    console.print(table)


@examples_app.command("remove")
def remove(
    example_id: Annotated[str, typer.Argument(help="The id `tablerag examples list` shows.")],
    workspace: WorkspaceOpt = DEFAULT_WORKSPACE,
) -> None:
    """Delete one verified query."""
    from tablerag.examples.library import remove as remove_example

    if not remove_example(workspace, example_id):
        err_console.print(
            f"[bold red]error:[/] no verified query {safe(example_id)!r}; "
            "`tablerag examples list` shows the ids.",
            highlight=False,
        )
        raise typer.Exit(2)
    console.print(f"Removed verified query {safe(example_id)}.")


@examples_app.command("check")
def check(workspace: WorkspaceOpt = DEFAULT_WORKSPACE, as_json: JsonOpt = False) -> None:
    """Run every verified query again on its source; list those the gate refuses or that no
    longer run (answering never uses them); exit 1 when there is one."""
    from tablerag.examples.library import check_stored, stored

    with workspace_sources(workspace) as sources:
        results = check_stored(sources, stored(workspace))
    bad = [c for c in results if c.problem]
    if as_json:
        print_json([{"id": c.example.id, "problem": c.problem} for c in results])
    elif bad:
        for c in bad:
            err_console.print(
                f"[red]✗[/] {c.example.id} {safe(c.example.question)!r}: {safe(c.problem)}",
                highlight=False,
            )
    else:
        console.print(f"All {len(results)} verified queries pass the gate and run.")
    if bad:
        raise typer.Exit(1)
