"""``tablerag ask``: answer one question from the workspace's tables and documents."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from tablerag.cli._common import (
    DEFAULT_WORKSPACE,
    JsonOpt,
    WorkspaceOpt,
    console,
    err_console,
    print_json,
    shown,
)
from tablerag.cli.export import CsvOpt, XlsxOpt, save_or_exit
from tablerag.errors import ConfigError, TableragError

if TYPE_CHECKING:
    from tablerag.answer import ResultTable

EXIT_OK, EXIT_ERROR, EXIT_CONFIG = 0, 1, 2


def register(app: typer.Typer) -> None:
    """Add the ``ask`` command."""
    app.command()(ask)


def ask(
    question: Annotated[str, typer.Argument(help="A question, Chinese or English.")],
    workspace: WorkspaceOpt = DEFAULT_WORKSPACE,
    as_json: JsonOpt = False,
    llm: Annotated[
        str | None,
        typer.Option("--llm", help="LLM spec: local, openai:MODEL, anthropic:MODEL, ..."),
    ] = None,
    csv_path: CsvOpt = None,
    xlsx_path: XlsxOpt = None,
    session: Annotated[
        str | None,
        typer.Option(
            "--session",
            help="Ask in this conversation: a follow-up is understood from its earlier turns "
            "(created when new; `tablerag sessions` lists them).",
        ),
    ] = None,
) -> None:
    """Answer QUESTION with SQL over the tables, the documents, or both; show the sources."""
    from tablerag.cli.render import render_answer
    from tablerag.errors import WorkspaceError
    from tablerag.request import Request
    from tablerag.runtime import record_answer
    from tablerag.service import QA
    from tablerag.settings import load_settings

    try:
        settings = load_settings(workspace, llm=llm)
        with QA.open(workspace, settings=settings) as qa:
            rq = Request.make(
                question, max_seconds=settings.answer_max_seconds, origin="cli", session=session
            )
            answer = qa.answer(rq)
    except TableragError as exc:
        err_console.print(f"[bold red]error:[/] {shown(exc)}", highlight=False)
        raise typer.Exit(EXIT_CONFIG if isinstance(exc, ConfigError) else EXIT_ERROR) from exc
    logged = False
    if settings.query_log:
        try:
            record_answer(workspace, rq, answer)
            logged = True
        except WorkspaceError as exc:  # the answer stands; say once why it is not logged
            err_console.print(f"[yellow]not logged:[/] {shown(exc)}", highlight=False)
    if as_json:  # the envelope with the log's id, as POST /v1/ask returns it
        print_json({"id": rq.id, **answer.model_dump(mode="json")})
    else:
        render_answer(answer, console)
    if logged and not as_json:  # the id feedback names (issue 33)
        err_console.print(
            f"answer id: {rq.id}  (tablerag feedback {rq.id} right|wrong|not_in_data)",
            highlight=False,
        )
    if csv_path is not None or xlsx_path is not None:
        _save(answer.table, csv_path, xlsx_path)
    raise typer.Exit(EXIT_ERROR if answer.status == "error" else EXIT_OK)


def _save(table: ResultTable | None, csv_path: Path | None, xlsx_path: Path | None) -> None:
    """Write the answer's result rows; an answer without rows says so and writes nothing."""
    if table is None:
        err_console.print("no result table to save: this answer came from no query")
        raise typer.Exit(EXIT_ERROR)
    save_or_exit(
        table.columns,
        table.rows,
        truncated=table.truncated,
        csv_path=csv_path,
        xlsx_path=xlsx_path,
    )
