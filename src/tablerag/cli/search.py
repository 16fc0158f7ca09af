"""``tablerag search``: the most relevant chunks of documents and tables for a question."""

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
    open_workspace,
    print_json,
    short,
    shown,
)
from tablerag.errors import ConfigError

if TYPE_CHECKING:
    from tablerag.types import Hit


def register(app: typer.Typer) -> None:
    """Add the ``search`` command."""
    app.command()(search)


def search(
    query: Annotated[str, typer.Argument(help="A question or keywords, Chinese or English.")],
    k: Annotated[int, typer.Option("--k", "-k", help="Number of hits.", min=1, max=1000)] = 5,
    mode: Annotated[
        str, typer.Option("--mode", "-m", help="hybrid (BM25 + dense, RRF), bm25 or dense.")
    ] = "hybrid",
    rewrite: Annotated[
        str | None,
        typer.Option(
            "--rewrite",
            help="replace or expand the question's words with the documents' terms (the "
            "semantic model's document terms), or off; default: the query_rewriting setting.",
        ),
    ] = None,
    workspace: WorkspaceOpt = DEFAULT_WORKSPACE,
    as_json: JsonOpt = False,
) -> None:
    """Show the chunks that best match QUERY, with source, headings, page and table.

    The query as searched is printed first when the document terms rewrote it (with --json,
    on stderr).
    """
    from tablerag.rag.retrieve import search as run_search
    from tablerag.rag.rewrite import REWRITE_MODES, rewrite_query
    from tablerag.semantic.library import stored_terms
    from tablerag.settings import load_settings
    from tablerag.sql.mask import mask_chunk

    how = rewrite or load_settings(workspace).query_rewriting
    if how not in REWRITE_MODES:
        raise ConfigError(f"Unknown --rewrite {how!r}; use one of {', '.join(REWRITE_MODES)}.")
    with open_workspace(workspace) as ws:
        rewritten = rewrite_query(query, stored_terms(ws.con), mode=how)  # type: ignore[arg-type]
        hits = [mask_chunk(h) for h in run_search(ws, query, k=k, mode=mode, rewrite=rewritten)]
    if rewritten.changed:
        replaced = ", ".join(f"{shown(w)} → {shown(t)}" for w, t in rewritten.replaced)
        (err_console if as_json else console).print(
            f"Searched as: {shown(rewritten.text)} ({replaced})", highlight=False
        )
    if as_json:
        print_json([h.to_dict() for h in hits])
        return
    _print(query, mode, hits)


def _print(query: str, mode: str, hits: list[Hit]) -> None:
    if not hits:
        console.print(f"No chunk matches {shown(repr(query))} ({mode}).", highlight=False)
        return
    table = Table(title=f"{mode} search: {shown(query)}", show_lines=True)
    for col in ("#", "score", "source", "where", "text"):
        table.add_column(col, overflow="fold")
    for h in hits:
        where = shown(" > ".join(h.heading_path))
        if h.page is not None:
            where += f" (p. {h.page})"
        if h.table:
            where += f"\n[cyan]table {shown(h.table)}[/]"
        text = h.text if len(h.text) <= 300 else h.text[:297] + "..."
        table.add_row(str(h.rank), f"{h.score:.4f}", shown(short(h.source)), where, shown(text))
    console.print(table)
