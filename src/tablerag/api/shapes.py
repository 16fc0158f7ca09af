"""What the HTTP API and the MCP server show of the workspace's tables: one shape for both,
with the same rules as ``tablerag schema`` — a hidden column's values never shown, every other
value masked as a result cell is."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from tablerag.api.schemas import ColumnOut, HitOut, SqlOut, TableOut
from tablerag.linking.profile import ColumnProfile
from tablerag.sql.pii import mask_text
from tablerag.sql.sensitive import SensitiveRules, is_hidden_column
from tablerag.types import TableInfo

Profiles = Mapping[tuple[str, str], ColumnProfile]


def tables_named(places: Iterable[Any], name: str | None) -> list[tuple[str, TableInfo]]:
    """(source label, table) pairs of every source in ``places``: all of them, or those called
    ``name`` (``label.table`` too), case-insensitively."""
    out = []
    low = name.lower() if name is not None else None
    for place in places:
        for t in place.tables:
            if low is None or low in (t.name.lower(), f"{place.label}.{t.name}".lower()):
                out.append((place.label, t))
    return out


def table_out(
    label: str,
    info: TableInfo,
    rules: SensitiveRules | None = None,
    *,
    profiles: Profiles | None = None,
    keep_hidden: bool = True,
) -> TableOut:
    """``info`` as the API shows it; with ``rules``, its columns too: a hidden column with no
    values (left out entirely unless ``keep_hidden``), every other column's samples and enum
    values masked."""
    columns = None
    if rules is not None:
        columns = []
        for c in info.columns:
            hidden = is_hidden_column(c, table=info.name, rules=rules)
            if hidden and not keep_hidden:
                continue
            p = _profile(profiles or {}, label, info.name, c.name)
            columns.append(
                ColumnOut(
                    name=c.name,
                    type=c.type,
                    unit=c.unit or (p.unit if p else None),
                    description=c.description,
                    samples=[] if hidden else [mask_text(v) for v in c.samples],
                    values=[] if hidden or p is None else [mask_text(v) for v in _enum(p)],
                    hidden=hidden,
                )
            )
        shown = {c.name for c in columns}
        keys = [
            f"({', '.join(fk.columns)}) -> {fk.ref_table}({', '.join(fk.ref_columns)})"
            for fk in info.foreign_keys
            if set(fk.columns) <= shown
        ]
    else:
        keys = []
    return TableOut(
        name=info.name,
        source=label,
        rows=info.row_count,
        description=info.description,
        columns=columns,
        primary_key=list(info.primary_key),
        foreign_keys=keys,
    )


def hits_out(hits: Iterable[Any]) -> list[HitOut]:
    """Found passages as the API and the MCP tools return them."""
    return [
        HitOut(
            chunk_id=h.chunk_id,
            source=h.source,
            heading_path=list(h.heading_path),
            page=h.page,
            table=h.table,
            score=h.score,
            text=h.text,
        )
        for h in hits
    ]


def sql_out(label: str, result: Any) -> SqlOut:
    """A gated query's result (capped, masked) as the API and the MCP tools return it."""
    return SqlOut(
        source=label,
        columns=list(result.columns),
        rows=[list(r) for r in result.rows],
        truncated=result.truncated,
        elapsed_ms=result.elapsed_ms,
        sql=result.sql_executed,
        masked_columns=list(result.masked_columns),
    )


def _profile(profiles: Profiles, label: str, table: str, column: str) -> ColumnProfile | None:
    return profiles.get((table, column)) or profiles.get((f"{label}.{table}", column))


def _enum(p: ColumnProfile) -> tuple[str, ...]:
    if p.enum_labels:
        return tuple(f"{code}={text}" for code, text in p.enum_labels)
    return p.enum_values


__all__ = ["Profiles", "hits_out", "sql_out", "table_out", "tables_named"]
