"""Manage the sources of a workspace: find one by what the user typed, remove it, refresh it,
and say what a refresh changed in the catalog (issue 22).

``tablerag remove`` and ``tablerag refresh`` call these; the text index's part (dropping a
removed source's rows, re-indexing changed chunks) is done above, where the index lives.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePath
from typing import TYPE_CHECKING

from tablerag.errors import ConfigError
from tablerag.ingest.database import is_database_url, redact_url
from tablerag.ingest.pipeline import Target
from tablerag.store.sources import forget_source
from tablerag.types import TableInfo

if TYPE_CHECKING:
    from tablerag.store.workspace import SourceRecord, Workspace


def is_gone(record: SourceRecord) -> bool:
    """Whether a file source's file no longer exists where it was ingested from."""
    return record.kind == "file" and not Path(record.location).exists()


def shown_location(location: str) -> str:
    """A source location as shown to people: a database URL with any password masked.

    Example:
        >>> shown_location("postgresql://bob:s3cret@db/sales")
        'postgresql://bob:***@db/sales'
        >>> shown_location("/data/sales.csv")
        '/data/sales.csv'
    """
    return redact_url(location) if "://" in location else location


def resolve_source(records: Sequence[SourceRecord], query: str) -> SourceRecord:
    """The one source ``query`` names: its location, its id, its URL (password or not), or a
    part of its location no other source shares.

    Raises:
        ConfigError: no source matches (with "Did you mean"), or several do (listed).
    """
    text = query.strip()
    wanted = {text, shown_location(text)}
    if not is_database_url(text) and text:
        wanted.add(str(Path(text).expanduser().resolve()))
    exact = [r for r in records if r.location in wanted or r.source_id == text]
    if len(exact) == 1:
        return exact[0]
    named = [r for r in records if r.kind == "file" and PurePath(r.location).name == text]
    if len(named) == 1:  # `fruit.csv` beside `fruit.csv.bak`
        return named[0]
    folded = text.casefold()
    partial = [r for r in records if folded and folded in r.location.casefold()]
    if len(partial) == 1:
        return partial[0]
    if partial:
        shown = ", ".join(repr(shown_location(r.location)) for r in partial[:5])
        more = f" and {len(partial) - 5} more" if len(partial) > 5 else ""
        raise ConfigError(
            f"{query!r} matches {len(partial)} sources ({shown}{more}); give more of the path "
            "or the full location (`tablerag sources` lists them)."
        )
    raise ConfigError(f"No source {query!r} in the workspace.{_did_you_mean(records, text)}")


def _did_you_mean(records: Sequence[SourceRecord], text: str) -> str:
    names: dict[str, str] = {}
    for r in records:
        shown = shown_location(r.location)
        names.setdefault(shown, shown)
        names.setdefault(PurePath(r.location).name, shown)
    close = difflib.get_close_matches(text, list(names), n=3, cutoff=0.5)
    picks = list(dict.fromkeys(names[c] for c in close))
    hint = f" Did you mean {', '.join(repr(p) for p in picks)}?" if picks else ""
    return f"{hint} `tablerag sources` lists them."


@dataclass(frozen=True)
class Removed:
    """What :func:`remove_source` took out of the workspace."""

    location: str
    tables: tuple[str, ...]
    chunks: int


def remove_source(ws: Workspace, record: SourceRecord) -> Removed:
    """Remove a source with its tables, catalog rows, document, chunks, annotations and cached
    profiles, in one transaction (all of it or, on failure, nothing).

    The text index still lists the chunks until :func:`tablerag.rag.index.prune_index` drops
    them (until then it no longer matches the chunks, and search refuses to use it).
    """
    with ws.transaction() as con:
        forget_source(con, record.source_id)
    return Removed(shown_location(record.location), record.tables, record.chunks)


@dataclass(frozen=True)
class RefreshPlan:
    """What ``refresh`` will re-read, and the sources it cannot (with the reason and fix)."""

    targets: tuple[Target, ...]
    refused: tuple[tuple[SourceRecord, str], ...]


def refresh_plan(
    records: Iterable[SourceRecord], *, urls: dict[str, str] | None = None
) -> RefreshPlan:
    """The targets that re-read ``records``: files from their path, databases from their URL.

    Args:
        records: the sources to refresh.
        urls: source id → the URL as the user typed it (with an inline password the workspace
            does not keep).
    """
    targets: list[Target] = []
    refused: list[tuple[SourceRecord, str]] = []
    for r in records:
        if r.kind == "database":
            # A stored URL has no password (``user:***@``): the connection finds it the ways
            # tablerag.sql.credentials lists, or takes the URL the user typed with it.
            url = (urls or {}).get(r.source_id, r.location)
            targets.append(Target(location=r.location, url=url))
        elif is_gone(r):
            refused.append(
                (
                    r,
                    "its file is gone; ingest it from where it is now (a moved file is "
                    f"recognised by its content) or forget it with `tablerag remove {r.location}`",
                )
            )
        else:
            targets.append(Target(location=r.location, path=Path(r.location)))
    return RefreshPlan(tuple(targets), tuple(refused))


@dataclass(frozen=True)
class TableChange:
    """How one table differs between two catalogs."""

    table: str
    change: str
    """``added``, ``removed`` or ``changed``."""
    columns_added: tuple[str, ...] = ()
    columns_removed: tuple[str, ...] = ()
    retyped: tuple[str, ...] = ()
    """``column: OLD → NEW`` for each column whose type changed."""

    def line(self) -> str:
        """One line of the refresh report.

        Example:
            >>> TableChange("orders", "changed", ("note",), ("memo",), ("qty: INTEGER → BIGINT",)
            ...             ).line()
            'orders: columns added note; removed memo; retyped qty: INTEGER → BIGINT'
            >>> TableChange("old_orders", "removed").line()
            'old_orders: removed (dropped or renamed at the source; no longer in the catalog)'
        """
        if self.change == "added":
            return f"{self.table}: added"
        if self.change == "removed":
            return (
                f"{self.table}: removed (dropped or renamed at the source; no longer in the "
                "catalog)"
            )
        parts = []
        if self.columns_added:
            parts.append("columns added " + ", ".join(self.columns_added))
        if self.columns_removed:
            parts.append("removed " + ", ".join(self.columns_removed))
        if self.retyped:
            parts.append("retyped " + ", ".join(self.retyped))
        return f"{self.table}: " + "; ".join(parts)


def catalog_changes(before: Iterable[TableInfo], after: Iterable[TableInfo]) -> list[TableChange]:
    """The tables added, removed or whose columns changed, by table name.

    Example:
        >>> from tablerag.types import ColumnInfo
        >>> def t(name, *cols):
        ...     return TableInfo(name, "db", tuple(ColumnInfo(c, ty) for c, ty in cols), 0)
        >>> old = [t("orders", ("id", "INT"), ("memo", "VARCHAR")), t("gone", ("x", "INT"))]
        >>> new = [t("orders", ("id", "BIGINT"), ("note", "VARCHAR")), t("fresh", ("y", "INT"))]
        >>> [c.line() for c in catalog_changes(old, new)][0]
        'fresh: added'
        >>> [c.change for c in catalog_changes(old, new)]
        ['added', 'removed', 'changed']
    """
    old = {t.name: t for t in before}
    new = {t.name: t for t in after}
    out: list[TableChange] = []
    for name in sorted(old.keys() | new.keys()):
        if name not in old:
            out.append(TableChange(name, "added"))
        elif name not in new:
            out.append(TableChange(name, "removed"))
        else:
            was = {c.name: c.type for c in old[name].columns}
            now = {c.name: c.type for c in new[name].columns}
            change = TableChange(
                name,
                "changed",
                tuple(c for c in now if c not in was),
                tuple(c for c in was if c not in now),
                tuple(f"{c}: {was[c]} → {now[c]}" for c in now if c in was and was[c] != now[c]),
            )
            if change.columns_added or change.columns_removed or change.retyped:
                out.append(change)
    return out
