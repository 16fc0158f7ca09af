"""The workspace's catalog for linking, with column profiles cached in ``tablerag.profiles``.

Profiling reads a bounded sample of each stored table once; the result is kept with a
fingerprint (source content hash, row count, column names and types) and reused until the table
changes. Tables of external databases queried in place are linked from their names, types and
catalog samples only.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import asdict
from typing import Any

from tablerag.linking.catalog import SchemaCatalog, TableSample, build_catalog, sample_table
from tablerag.linking.profile import ColumnProfile
from tablerag.linking.rows import DuckDBRows
from tablerag.types import TableInfo
from tablerag.workspace import Workspace


def fingerprint(table: TableInfo, content_hash: str | None) -> str:
    """What must stay the same for a cached profile to be reused.

    Example:
        >>> from tablerag.types import ColumnInfo
        >>> fingerprint(TableInfo("t", "a.csv", (ColumnInfo("x", "INTEGER"),), 3), "abc")
        'abc|3|x:INTEGER'
    """
    cols = ",".join(f"{c.name}:{c.type}" for c in table.columns)
    return f"{content_hash or ''}|{table.row_count}|{cols}"


def _to_json(sample: TableSample) -> tuple[str, str]:
    return (
        json.dumps([asdict(p) for p in sample.profiles], ensure_ascii=False),
        json.dumps(
            {
                "distinct": {k: list(v) for k, v in sample.distinct.items()},
                "composite_key": list(sample.composite_key),
            },
            ensure_ascii=False,
        ),
    )


def _profile(data: Mapping[str, Any]) -> ColumnProfile:
    fields = dict(data)
    for key in ("samples", "enum_values"):
        fields[key] = tuple(fields.get(key, ()))
    fields["formats"] = tuple((f, float(s)) for f, s in fields.get("formats", ()))
    return ColumnProfile(**fields)


def _from_json(profiles: str, values: str) -> TableSample:
    data = json.loads(values)
    return TableSample(
        tuple(_profile(p) for p in json.loads(profiles)),
        {k: tuple(v) for k, v in data["distinct"].items()},
        tuple(data["composite_key"]),
    )


def workspace_samples(ws: Workspace, *, refresh: bool = False) -> dict[str, TableSample]:
    """Profiles and distinct values of every stored table, from the cache or freshly sampled.

    Fresh samples are written back to the cache unless the workspace is read-only.

    Args:
        ws: the workspace.
        refresh: ignore the cache and profile every table again.

    Returns:
        Table name → sample.

    Raises:
        EngineError: a table could not be read.
    """
    hashes = {s.location: s.content_hash for s in ws.sources()}
    cached = {
        (r[0], r[1]): (r[2], r[3], r[4])
        for r in ws.con.execute(
            "SELECT table_name, source, fingerprint, profiles, distinct_values "
            "FROM tablerag.profiles"
        ).fetchall()
    }
    rows = DuckDBRows(ws.con)
    out: dict[str, TableSample] = {}
    for table in ws.tables():
        if not table.stored:
            continue
        fp = fingerprint(table, hashes.get(table.source))
        hit = cached.get((table.name, table.source))
        if hit is not None and hit[0] == fp and not refresh:
            out[table.name] = _from_json(hit[1], hit[2])
            continue
        sample = sample_table(table, rows)
        out[table.name] = sample
        if not ws.read_only:
            profiles, distinct = _to_json(sample)
            ws.con.execute(
                "INSERT OR REPLACE INTO tablerag.profiles VALUES (?, ?, ?, now(), ?, ?)",
                [table.name, table.source, fp, profiles, distinct],
            )
    return out


def workspace_catalog(
    ws: Workspace, *, refresh: bool = False, glossary: Mapping[str, tuple[str, ...]] | None = None
) -> SchemaCatalog:
    """The linking catalog of a workspace (profiles cached, sensitive columns hidden).

    Raises:
        EngineError: a table could not be read.
    """
    samples = workspace_samples(ws, refresh=refresh)
    return build_catalog(ws.tables(), samples=samples, glossary=glossary)


def table_profiles(ws: Workspace, name: str) -> tuple[ColumnProfile, ...]:
    """The column profiles of one stored table (cached), e.g. for ``tablerag schema TABLE``.

    Sensitive columns are left out.

    Raises:
        ConfigError: no such table.
        EngineError: the table could not be read.
    """
    info = ws.table(name)
    hidden = {c.name for c in info.columns if c.sensitive}
    sample = workspace_samples(ws).get(info.name)
    if sample is None:
        return ()
    return tuple(p for p in sample.profiles if p.column not in hidden)
