"""Look around a workspace: ``tables``, ``schema TABLE``, ``chunks`` (sources: cli/sources.py)."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Annotated

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
    table_origin,
    to_jsonable,
)
from tablerag.cli._common import shown as safe
from tablerag.errors import TableragError
from tablerag.lang.untrusted import visible
from tablerag.types import ROWS_NO_ACCESS, rows_label

if TYPE_CHECKING:
    from pathlib import Path

    from tablerag.linking.in_place import InPlaceProfile
    from tablerag.linking.profile import ColumnProfile
    from tablerag.settings import Settings
    from tablerag.store.workspace import SourceRecord
    from tablerag.types import ColumnInfo, TableInfo


def register(app: typer.Typer) -> None:
    """Add the browsing commands."""
    app.command()(tables)
    app.command()(schema)
    app.command()(chunks)


def tables(workspace: WorkspaceOpt = DEFAULT_WORKSPACE, as_json: JsonOpt = False) -> None:
    """List the tables: name, rows, columns, source."""
    with open_workspace(workspace) as ws:
        infos = ws.tables()
    if as_json:
        print_json(
            [
                {
                    "name": t.name,
                    "rows": t.row_count if t.row_count >= 0 else None,
                    "readable": t.row_count != ROWS_NO_ACCESS,
                    "columns": len(t.columns),
                    "source": t.source,
                    "origin": t.origin,
                    "page": t.page,
                    "stored": t.stored,
                }
                for t in infos
            ]
        )
        return
    table = Table(title=f"Tables in {workspace}")
    for col in ("table", "rows", "columns", "source", "origin"):
        table.add_column(col, justify="right" if col in ("rows", "columns") else "left")
    for t in infos:
        where = "" if t.stored else " (in place)"
        table.add_row(
            safe(t.name),
            rows_label(t.row_count),
            str(len(t.columns)),
            safe(short(t.source)) + where,
            safe(t.origin),
        )
    console.print(table)


def schema(
    name: Annotated[str, typer.Argument(help="Table name (see `tablerag tables`).")],
    workspace: WorkspaceOpt = DEFAULT_WORKSPACE,
    as_json: JsonOpt = False,
) -> None:
    """Show one table's columns, types, units, enum values (CHECK, lookup codes) and samples."""
    from tablerag.linking.cache import table_profiles
    from tablerag.settings import load_settings
    from tablerag.sql.sensitive import is_hidden_column, rules_from

    settings = load_settings(workspace)
    rules = rules_from(settings)
    with open_workspace(workspace) as ws:
        info = ws.table(name)
        profiles = {p.column: p for p in table_profiles(ws, info.name)}
        tables, records = ws.tables(), ws.sources()
    hidden = {c.name for c in info.columns if is_hidden_column(c, table=info.name, rules=rules)}
    unprofiled = ""
    if not info.stored and info.row_count != ROWS_NO_ACCESS:
        found = _profile_in_place(workspace, info, tables, records, settings, hidden)
        profiles = {p.column: p for p in found.profiles if p.column in profiles}
        unprofiled = found.reason
        if found.unread:  # the others are profiled below
            them = "it" if len(found.unread) == 1 else "them"
            unprofiled = f"{', '.join(found.unread)} (the role may not read {them})"
    info, profiles = _without_hidden_values(info, profiles, hidden)
    if as_json:
        shown = [{**to_jsonable(p), "exact": p.exact} for p in profiles.values()]
        columns = [  # "hidden": what the model, the gate and the index never see
            {**to_jsonable(c), "hidden": c.name in hidden} for c in info.columns
        ]
        print_json({**to_jsonable(info), "columns": columns, "profiles": shown})
        return
    _print_schema(info, profiles, hidden, unprofiled)


def _print_schema(
    info: TableInfo, profiles: dict[str, ColumnProfile], hidden: set[str], unprofiled: str
) -> None:
    where = table_origin(info.source, info.origin)
    console.print(
        f"[bold]{safe(info.name)}[/]  {_rows(info.row_count)}  from {safe(where)}",
        highlight=False,
    )
    if info.description:
        console.print(safe(info.description), highlight=False)
    if unprofiled:
        console.print(f"[yellow]not profiled:[/] {safe(unprofiled)}", highlight=False)
    sampled = next((p.sample_note for p in profiles.values() if p.sampled_rows), "")
    if sampled:  # the figures below are the sample's, not the table's
        console.print(
            f"[yellow]distinct counts, nulls and enums from a {sampled}[/] (≥: at least; ≈: about)",
            highlight=False,
        )
    table = Table()
    for col in ("column", "type", "unit", "distinct", "nulls", "values / samples", "notes"):
        table.add_column(col)
    for c in info.columns:
        key = " [dim](PK)[/]" if c.name in info.primary_key else ""
        p = profiles.get(c.name)
        values = _values(p) if p and p.enum_values else c.samples
        if c.name in hidden:
            values = ("(hidden)",)
        table.add_row(
            safe(c.name) + key,
            safe(c.type),
            "" if c.written_order else safe(c.unit or (p.unit if p else None) or ""),
            p.distinct_label if p and p.sampled_rows else "",
            p.null_label if p and p.sampled_rows else "",
            safe(" | ".join(values)),
            "; ".join(_notes(c, p, hidden=c.name in hidden)),
        )
    console.print(table)
    for fk in info.foreign_keys:
        console.print(f"FK ({', '.join(fk.columns)}) → {fk.ref_table}({', '.join(fk.ref_columns)})")


def _notes(c: ColumnInfo, p: ColumnProfile | None, *, hidden: bool) -> list[str]:
    """The notes cell of a column: its comment first, then what the profile found."""
    notes = [safe(c.description)] if c.description else []
    if c.original and c.original != c.name:
        notes.append(f"header {c.original!r}")
    if hidden:
        notes.append("[red]sensitive[/]: hidden from the model, the gate and the index")
    if p and p.enum_origin in ("check", "sample"):
        few = "enum (few values)" if p.exact else "enum (few values in the sample)"
        notes.append("enum from CHECK" if p.enum_origin == "check" else few)
    elif p and p.enum_origin.startswith("lookup:"):
        notes.append(f"codes from {p.enum_origin.removeprefix('lookup:')}")
    if p and p.check_range:
        notes.append(f"CHECK range {p.check_range}")
    notes += [f"CHECK {safe(check)}" for check in (p.checks if p else ())]
    if p and p.time_grain:
        notes.append(f"grain: {p.time_grain}")
    if c.written_order and c.unit:
        notes.append(f"written {safe(c.unit)} in the file")
    if p and p.format_warning:
        notes.append(f"[yellow]{p.format_warning}[/]")
    return notes


def _profile_in_place(
    workspace: Path,
    info: TableInfo,
    tables: list[TableInfo],
    records: list[SourceRecord],
    settings: Settings,
    hidden: set[str],
) -> InPlaceProfile:
    """``info`` (a database table) profiled through its source's read-only engine; a source
    that cannot be opened gives bare profiles and the reason."""
    from tablerag.linking.catalog import bare_profiles
    from tablerag.linking.in_place import IN_PLACE_SAMPLE_ROWS, InPlaceProfile, profile_in_place
    from tablerag.sources import SourceSet, group_sources
    from tablerag.sql.policy import ExecutionPolicy
    from tablerag.sql.sensitive import rules_from

    policy = ExecutionPolicy(
        max_rows=IN_PLACE_SAMPLE_ROWS,
        time_limit_ms=settings.sql_time_limit_ms,
        sensitive=rules_from(settings),
        allow_readable_hidden_columns=settings.allow_readable_hidden_columns,
    )
    places = SourceSet(
        group_sources(workspace, tables, records),
        policy=policy,
        allow_writable_role=settings.allow_writable_role,
    )
    place = next(s for s in places.sources if s.location == info.source)
    try:
        with places.engine(place) as engine:
            return profile_in_place(info, engine, policy, hidden=hidden)
    except TableragError as exc:  # down, no password, a writable role: said, not fatal
        return InPlaceProfile(tuple(bare_profiles(info)), reason=str(exc))
    finally:
        places.close()


def _rows(row_count: int) -> str:
    label = rows_label(row_count)
    if row_count == ROWS_NO_ACCESS:
        return "[yellow]no access[/] (the role may not read it)"
    return f"{label} rows"


def _without_hidden_values(
    info: TableInfo, profiles: dict[str, ColumnProfile], hidden: set[str]
) -> tuple[TableInfo, dict[str, ColumnProfile]]:
    """``info`` and its profiles with no value of a ``hidden`` column (samples, enum values),
    and the values of the others masked as a result cell is: the same rules that keep them from
    the model keep them off the screen."""
    from tablerag.sql.pii import mask_text

    def masked(values: tuple[str, ...]) -> tuple[str, ...]:
        return tuple(mask_text(v) for v in values)

    columns = tuple(
        replace(c, samples=() if c.name in hidden else masked(c.samples)) for c in info.columns
    )
    kept = {
        name: replace(p, samples=(), enum_values=(), enum_labels=())
        if name in hidden
        else replace(p, samples=masked(p.samples), enum_values=masked(p.enum_values))
        for name, p in profiles.items()
    }
    return replace(info, columns=columns), kept


def _values(p: ColumnProfile) -> tuple[str, ...]:
    """Enum values as shown by ``schema``: ``code=label`` for a lookup's codes."""
    if p.enum_labels:
        return tuple(f"{code}={label}" for code, label in p.enum_labels)
    return p.enum_values


def chunks(
    source: Annotated[
        str | None, typer.Option("--source", "-s", help="Only this source (path, file name or id).")
    ] = None,
    workspace: WorkspaceOpt = DEFAULT_WORKSPACE,
    as_json: JsonOpt = False,
    limit: Annotated[int, typer.Option(help="Show at most this many chunks.")] = 50,
) -> None:
    """Show chunks with their heading path, page and table."""
    from tablerag.sql.mask import mask_chunk

    with open_workspace(workspace) as ws:
        found = []
        for chunk in ws.chunks(source):
            found.append(mask_chunk(chunk))  # a workspace ingested before chunks were masked
            if len(found) >= limit:
                break
    if as_json:
        print_json(found)
        return
    if not found:
        console.print("no chunks" + (f" for source {source!r}" if source else ""))
        return
    for c in found:
        where = " > ".join(c.heading_path)
        extra = f" p.{c.page}" if c.page else ""
        extra += f" table={c.table}" if c.table else ""
        console.rule(
            f"{safe(short(c.source))} #{c.ordinal}{safe(extra)} {safe(where)}", align="left"
        )
        console.print(visible(c.text), highlight=False, markup=False)
