"""``tablerag knowledge import FILE | export [FILE] | list | show NAME | check | draft``: the
workspace's semantic model in Apache Ossie format (docs/knowledge.md)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, NoReturn

import typer
from rich.table import Table

from tablerag.cli._common import (
    DEFAULT_WORKSPACE,
    JsonOpt,
    WorkspaceOpt,
    console,
    err_console,
    open_workspace,
    print_json,
    to_jsonable,
)
from tablerag.cli._common import shown as safe

if TYPE_CHECKING:
    from tablerag.semantic.check import Finding
    from tablerag.semantic.ossie import OssieDocument
    from tablerag.sql.engines.base import SQLEngine

knowledge_app = typer.Typer(
    help="The semantic model: metrics, dimensions and definitions people agreed on (Ossie).",
    no_args_is_help=True,
)
FormatOpt = Annotated[str, typer.Option("--format", help="yaml or json (default: by suffix).")]


def register(app: typer.Typer) -> None:
    """Add the ``knowledge`` command group."""
    app.add_typer(knowledge_app, name="knowledge")


@knowledge_app.command("import")
def import_(
    file: Annotated[Path, typer.Argument(help="An Ossie YAML or JSON file.")],
    workspace: WorkspaceOpt = DEFAULT_WORKSPACE,
    replace: Annotated[
        bool, typer.Option("--replace", help="Drop every model not in FILE.")
    ] = False,
) -> None:
    """Check FILE against the catalog and store it; any problem refuses the whole file."""
    from tablerag.semantic.library import import_document, read_file
    from tablerag.semantic.ossie import KnowledgeInvalid

    try:
        document = read_file(file)
        absent = _absent_values(workspace, document)  # the data, read before the write
        if absent:
            raise KnowledgeInvalid([str(f) for f in absent], what=f"The semantic model from {file}")
        with open_workspace(workspace, read_only=False) as ws:
            import_document(ws.con, document, ws.tables(), origin=str(file), replace_all=replace)
    except KnowledgeInvalid as exc:
        err_console.print(f"[bold red]error:[/] {safe(exc)}", highlight=False)
        raise typer.Exit(2) from exc
    n = sum(len(m.metrics or []) for m in document.semantic_model)
    console.print(f"Imported {safe(file)}: {len(document.semantic_model)} model(s), {n} metric(s).")


@knowledge_app.command("export")
def export(
    file: Annotated[Path | None, typer.Argument(help="Write here (default: stdout).")] = None,
    workspace: WorkspaceOpt = DEFAULT_WORKSPACE,
    fmt: FormatOpt = "",
) -> None:
    """Write the workspace's semantic model as an Ossie file (import it back unchanged)."""
    from tablerag.semantic.ossie import dumps

    document = _document(workspace)
    kind = fmt or ("json" if file is not None and file.suffix.lower() == ".json" else "yaml")
    if kind not in ("yaml", "json"):
        raise typer.BadParameter("--format is yaml or json")
    text = dumps(document, "json" if kind == "json" else "yaml")
    if file is None:
        typer.echo(text, nl=False)
    else:
        file.write_text(text, encoding="utf-8")
        err_console.print(f"Wrote {safe(file)}.")


@knowledge_app.command("list")
def list_(workspace: WorkspaceOpt = DEFAULT_WORKSPACE, as_json: JsonOpt = False) -> None:
    """Every dataset, field, relationship, metric and document term, draft or confirmed."""
    from tablerag.semantic.library import entries

    found = entries(_document(workspace))
    if as_json:
        print_json(found)
        return
    table = Table(title=f"Semantic model of {workspace}")
    for column in ("kind", "name", "status", "expression", "synonyms"):
        table.add_column(column)
    for e in found:
        table.add_row(
            e.kind, safe(e.name), e.status, safe(e.expression), safe(", ".join(e.synonyms))
        )
    console.print(table)


@knowledge_app.command("show")
def show(
    name: Annotated[
        str, typer.Argument(help="A metric (or its synonym), dataset, dataset.field, relationship.")
    ],
    workspace: WorkspaceOpt = DEFAULT_WORKSPACE,
) -> None:
    """One entry with its expression, calibers, unit and status (JSON)."""
    from tablerag.semantic.library import show as show_entry

    print_json(to_jsonable(show_entry(_document(workspace), name)))


@knowledge_app.command("check")
def check(workspace: WorkspaceOpt = DEFAULT_WORKSPACE, as_json: JsonOpt = False) -> None:
    """Compile every expression against the catalog through the SQL gate; name what is wrong."""
    from tablerag.semantic.check import check_model

    with open_workspace(workspace) as ws:
        from tablerag.semantic.library import stored_document

        document = stored_document(ws.con)
        tables = ws.tables()
    if document is None:
        _no_model(workspace)
    findings = check_model(document, tables)
    findings += _absent_values(workspace, document)
    if as_json:
        print_json([{"kind": f.kind, "name": f.name, "problem": f.message} for f in findings])
    elif findings:
        for f in findings:
            err_console.print(f"[red]✗[/] {safe(f)}", highlight=False)
    else:
        console.print("Every entry compiles against the catalog.")
    if findings:
        raise typer.Exit(1)


@knowledge_app.command("draft")
def draft(
    output: Annotated[
        Path | None,
        typer.Option("--output", "-o", help="Write the draft here instead of storing it."),
    ] = None,
    workspace: WorkspaceOpt = DEFAULT_WORKSPACE,
    llm: Annotated[
        str | None,
        typer.Option(
            "--llm", help="Let this model translate definitions the rules cannot (gate-checked)."
        ),
    ] = None,
) -> None:
    """Propose a model from the catalog and the definition documents (entries stay draft).

    Units (a 分 column is 元 ÷ 100), keys and foreign keys come from the catalog, metrics from
    definition tables and prose definitions; every entry is `draft` until a person confirms it
    (export, edit, import)."""
    from tablerag.llm import load_llm
    from tablerag.semantic.draft import draft_workspace, store_draft
    from tablerag.semantic.ossie import dumps

    model = load_llm(llm) if llm is not None else None
    try:
        with open_workspace(workspace, read_only=output is not None) as ws:
            document = draft_workspace(ws, llm=model)
            if output is None:
                added = store_draft(ws, document)
    finally:
        if model is not None:
            model.close()
    if output is not None:
        output.write_text(dumps(document), encoding="utf-8")
        console.print(
            f"Wrote the draft to {safe(output)}; edit it, then `tablerag knowledge import`."
        )
        return
    console.print(f"Stored {added} drafted entr{'y' if added == 1 else 'ies'} (status: draft).")


def _absent_values(workspace: Path, document: OssieDocument) -> list[Finding]:
    """The model's filter values the workspace's data does not hold (each source's data read
    through its read-only engine; a source that cannot be reached is named on stderr)."""
    from tablerag.errors import ConfigError
    from tablerag.semantic.knowledge import Knowledge
    from tablerag.semantic.values import absent_values
    from tablerag.sources import SourceSet, group_sources

    with open_workspace(workspace) as ws:
        tables = ws.tables()
        places = SourceSet(group_sources(workspace, tables, ws.sources()))
    by_name = {t.name.rpartition(".")[2].lower(): t.name for t in tables}

    def engine_for(table: str) -> SQLEngine | None:
        located = places.source_of(by_name.get(table.lower(), table))
        try:
            return places.engine(located[0]) if located is not None else None
        except ConfigError as exc:
            err_console.print(f"filter values of {safe(table)} not checked: {safe(exc)}")
            return None

    try:
        return absent_values(Knowledge(document), engine_for)
    finally:
        places.close()


def _document(workspace: Path) -> OssieDocument:
    from tablerag.semantic.library import stored_document

    with open_workspace(workspace) as ws:
        document = stored_document(ws.con)
    if document is None:
        _no_model(workspace)
    return document


def _no_model(workspace: Path) -> NoReturn:
    err_console.print(
        f"[bold red]error:[/] the workspace {safe(workspace)} has no semantic model; run "
        "`tablerag knowledge draft` or `tablerag knowledge import FILE`.",
        highlight=False,
    )
    raise typer.Exit(2)
