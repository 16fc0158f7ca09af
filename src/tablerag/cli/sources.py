"""Manage a workspace's sources: ``sources`` (list), ``refresh [SOURCE]`` and ``remove SOURCE``."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.table import Table

from tablerag.cli._common import (
    DEFAULT_WORKSPACE,
    JsonOpt,
    WorkspaceOpt,
    console,
    open_workspace,
    print_json,
    short,
    shown,
    to_jsonable,
)
from tablerag.cli.ingest import WaitOpt
from tablerag.types import ROWS_NO_ACCESS

if TYPE_CHECKING:
    from tablerag.ingest.manage import TableChange
    from tablerag.store.workspace import SourceRecord
    from tablerag.types import SourceReport, TableInfo

SourceArg = Annotated[
    str, typer.Argument(help="The source: its location, its URL, or a unique part of its path.")
]


def register(app: typer.Typer) -> None:
    """Add ``sources``, ``refresh`` and ``remove``."""
    app.command()(sources)
    app.command()(refresh)
    app.command()(remove)


def sources(workspace: WorkspaceOpt = DEFAULT_WORKSPACE, as_json: JsonOpt = False) -> None:
    """List ingested sources with their counts and problems; mark files that are gone."""
    from tablerag.ingest.manage import is_gone
    from tablerag.types import problems_and_notes

    with open_workspace(workspace) as ws:
        records, tables = ws.sources(), ws.tables()
    in_place = _in_place_rows(tables)
    if as_json:
        print_json(
            [{**_record_json(r, gone=is_gone(r)), **in_place.get(r.location, {})} for r in records]
        )
        return
    table = Table(title=f"Sources in {workspace}")
    for col in ("source", "format", "ingested", "tables", "rows", "chunks", "problems"):
        table.add_column(col)
    for s in records:
        gone = " [bold red](file gone)[/]" if is_gone(s) else ""
        table.add_row(
            shown(_where(s.location)) + gone,
            s.format,
            s.ingested_at,
            shown(", ".join(s.tables)),
            _rows_shown(s, in_place.get(s.location)),
            str(s.chunks),
            str(len(problems_and_notes(s.problems)[0])),
        )
    console.print(table)
    if any(is_gone(s) for s in records):
        console.print(
            "A source whose file is gone: ingest it from where it is now (a moved file is "
            "recognised by its content), or `tablerag remove SOURCE`.",
            highlight=False,
        )


def refresh(
    source: Annotated[
        str | None, typer.Argument(help="One source (location, URL or unique part); default all.")
    ] = None,
    workspace: WorkspaceOpt = DEFAULT_WORKSPACE,
    wait: WaitOpt = 0.0,
    as_json: JsonOpt = False,
) -> None:
    """Re-reflect databases and re-read changed files; report tables added, removed, changed.

    Exit 1 if a source could not be refreshed (the previous version is kept).
    """
    from tablerag.ingest.manage import catalog_changes, refresh_plan, resolve_source
    from tablerag.service import ingest
    from tablerag.settings import load_settings
    from tablerag.store.workspace import Workspace

    settings = load_settings(workspace)
    with Workspace.open(workspace, create=False, wait_s=wait) as ws:
        records = ws.sources()
        chosen = [resolve_source(records, source)] if source else records
        urls = {chosen[0].source_id: source} if source and "://" in source else {}
        plan = refresh_plan(chosen, urls=urls)
        before = ws.tables()
        reports = ingest(ws, list(plan.targets), settings=settings)
        after = ws.tables()
    rows = [(r, catalog_changes(_of(before, r.source), _of(after, r.source))) for r in reports]
    refused = [(_where(record.location), why) for record, why in plan.refused]
    _print_refresh(rows, refused, as_json)
    if refused or any(r.status == "failed" for r in reports):
        raise typer.Exit(1)


def remove(
    source: SourceArg,
    workspace: WorkspaceOpt = DEFAULT_WORKSPACE,
    wait: WaitOpt = 0.0,
    as_json: JsonOpt = False,
) -> None:
    """Remove a source with its tables, chunks, index entries and catalog rows."""
    from tablerag.ingest.manage import remove_source, resolve_source
    from tablerag.rag.index import index_is_current, prune_index
    from tablerag.store.workspace import Workspace

    with Workspace.open(workspace, create=False, wait_s=wait) as ws:
        record = resolve_source(ws.sources(), source)
        current = index_is_current(ws)
        removed = remove_source(ws, record)
        dropped = prune_index(ws) if current else -1
        summary = ws.summary()
    if as_json:
        print_json(
            {"removed": removed, "index_rows_dropped": max(dropped, 0), "workspace": summary}
        )
        return
    tables = f"tables {', '.join(removed.tables)}; " if removed.tables else ""
    console.print(
        f"removed {shown(short(removed.location))}: {shown(tables)}{removed.chunks} "
        + ("chunk" if removed.chunks == 1 else "chunks"),
        highlight=False,
    )
    if dropped < 0 and summary["chunks"]:
        console.print(
            "[yellow]![/] the text index was not up to date; `tablerag refresh` rebuilds it.",
            highlight=False,
        )


def _in_place_rows(tables: list[TableInfo]) -> dict[str, dict[str, int]]:
    """Per database source: the rows of its tables queried in place, and how many of its
    tables the role may not read (a database's rows are not stored, so ``rows_stored`` is 0)."""
    out: dict[str, dict[str, int]] = {}
    for t in tables:
        if t.stored:
            continue
        entry = out.setdefault(t.source, {"rows_in_place": 0, "tables_no_access": 0})
        if t.row_count >= 0:
            entry["rows_in_place"] += t.row_count
        elif t.row_count == ROWS_NO_ACCESS:
            entry["tables_no_access"] += 1
    return out


def _rows_shown(record: SourceRecord, in_place: dict[str, int] | None) -> str:
    if in_place is None:
        return f"{record.rows_stored:,}"
    shown_rows = f"{in_place['rows_in_place']:,} (in place)"
    denied = in_place["tables_no_access"]
    if denied:
        shown_rows += f", {denied} {'table' if denied == 1 else 'tables'} no access"
    return shown_rows


def _of(tables: list[TableInfo], location: str) -> list[TableInfo]:
    return [t for t in tables if t.source == location]


def _where(location: str) -> str:
    from tablerag.ingest.manage import shown_location

    return short(shown_location(location))


def _record_json(record: SourceRecord, *, gone: bool) -> dict[str, Any]:
    from tablerag.ingest.manage import shown_location

    out: dict[str, Any] = to_jsonable(record)
    out["location"] = shown_location(record.location)
    out["gone"] = gone
    return out


def _print_refresh(
    rows: list[tuple[SourceReport, list[TableChange]]],
    refused: list[tuple[str, str]],
    as_json: bool,
) -> None:
    if as_json:
        print_json(
            {
                "sources": [
                    {**to_jsonable(r), "changes": to_jsonable(changes)} for r, changes in rows
                ]
                + [
                    {"source": where, "status": "failed", "error": why, "changes": []}
                    for where, why in refused
                ]
            }
        )
        return
    for report, changes in rows:
        where = shown(_where(report.source))
        head = f"{where}: {report.status}"
        if report.error:
            head += f" - {shown(report.error)}"
        elif report.status != "unchanged" and not changes:
            head += " (no table changed)"
        console.print(head, highlight=False)
        for change in changes:
            console.print(f"  {shown(change.line())}", highlight=False)
    for where, why in refused:
        console.print(f"{shown(where)}: [bold red]not refreshed[/]: {shown(why)}", highlight=False)
    if not rows and not refused:
        console.print("no sources to refresh", highlight=False)
