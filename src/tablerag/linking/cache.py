"""The workspace's catalog for linking, with column profiles cached in the workspace.

Profiling reads a bounded sample of each stored table once; the result is kept with a
fingerprint (source content hash, row count, column names and types) and reused until the table
changes. The cache rows are read and written by :mod:`tablerag.store.profiles`; this module
encodes and decodes them. Tables of external databases queried in place are linked from their
names, types, CHECK constraints and catalog samples only.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import asdict, replace
from typing import Any

from tablerag.linking.catalog import (
    SchemaCatalog,
    TableSample,
    bare_profiles,
    build_catalog,
    sample_table,
)
from tablerag.linking.profile import ColumnProfile
from tablerag.linking.rows import DuckDBRows
from tablerag.settings import load_settings
from tablerag.sql.pii import mask_text
from tablerag.sql.sensitive import SensitiveRules, is_hidden, rules_from
from tablerag.store.glossary import read_glossary
from tablerag.store.profiles import CachedProfile, cached_profiles, save_profile
from tablerag.store.workspace import Workspace
from tablerag.types import TableInfo


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
                "lookup_rows": {k: list(v) for k, v in sample.lookup_rows.items()},
            },
            ensure_ascii=False,
        ),
    )


def _profile(data: Mapping[str, Any]) -> ColumnProfile:
    fields = dict(data)
    for key in ("samples", "enum_values", "checks"):
        fields[key] = tuple(fields.get(key, ()))
    fields["formats"] = tuple((f, float(s)) for f, s in fields.get("formats", ()))
    fields["enum_labels"] = tuple((str(c), str(lab)) for c, lab in fields.get("enum_labels", ()))
    return ColumnProfile(**fields)


def _from_json(profiles: str, values: str) -> TableSample | None:
    """The cached sample, or None when it was written before lookup rows were kept."""
    data = json.loads(values)
    if "lookup_rows" not in data:
        return None
    return TableSample(
        tuple(_profile(p) for p in json.loads(profiles)),
        {k: tuple(v) for k, v in data["distinct"].items()},
        tuple(data["composite_key"]),
        {k: tuple(v) for k, v in data["lookup_rows"].items()},
    )


def without_hidden(sample: TableSample, info: TableInfo, rules: SensitiveRules) -> TableSample:
    """``sample`` as the workspace may keep it and a prompt may show it (issue 28).

    A hidden column of ``info`` (:func:`is_hidden`) keeps its profile's counts and type; its
    samples, enum values and labels, format warning, distinct values and lookup rows go. Every
    other value is masked as a result cell is (:func:`~tablerag.sql.pii.mask_text`): a phone
    number in a visible note is no more shown by a sample than by ``tablerag sql``.

    Example:
        >>> from tablerag.types import ColumnInfo
        >>> info = TableInfo("t", "t.csv", (ColumnInfo("phone", "VARCHAR"),
        ...                                 ColumnInfo("note", "VARCHAR")), 1)
        >>> s = TableSample((ColumnProfile("t", "phone", "VARCHAR", samples=("13812345678",)),
        ...                  ColumnProfile("t", "note", "VARCHAR", samples=("ok 13812345678",))),
        ...                 {"phone": ("13812345678",), "note": ("ok 13812345678",)}, (),
        ...                 {"phone": ("13812345678",)})
        >>> bare = without_hidden(s, info, SensitiveRules())
        >>> [p.samples for p in bare.profiles], bare.distinct, bare.lookup_rows
        ([(), ('ok 138****5678',)], {'note': ('ok 138****5678',)}, {})
    """
    hidden = {c.name for c in info.columns if is_hidden(info.name, c, rules)}

    def masked(values: tuple[str, ...]) -> tuple[str, ...]:
        return tuple(mask_text(v) for v in values)

    return TableSample(
        tuple(
            replace(p, samples=(), enum_values=(), enum_labels=(), format_warning=None)
            if p.column in hidden
            else replace(
                p,
                samples=masked(p.samples),
                enum_values=masked(p.enum_values),
                enum_labels=tuple((c, mask_text(label)) for c, label in p.enum_labels),
            )
            for p in sample.profiles
        ),
        {k: masked(v) for k, v in sample.distinct.items() if k not in hidden},
        sample.composite_key,
        {k: masked(v) for k, v in sample.lookup_rows.items() if k not in hidden},
    )


def workspace_samples(
    ws: Workspace, *, refresh: bool = False, rules: SensitiveRules | None = None
) -> dict[str, TableSample]:
    """Profiles and distinct values of every stored table, from the cache or freshly sampled.

    Fresh samples are written back to the cache unless the workspace is read-only. No value
    of a hidden column is kept (:func:`without_hidden`), in the cache or in what is returned.

    Args:
        ws: the workspace.
        refresh: ignore the cache and profile every table again.
        rules: the operator's ``sensitive_columns``/``allow_columns``; None: the workspace's
            settings.

    Returns:
        Table name → sample.

    Raises:
        EngineError: a table could not be read.
    """
    if rules is None:
        rules = rules_from(load_settings(ws.path))
    hashes = {s.location: s.content_hash for s in ws.sources()}
    cached = cached_profiles(ws.con)
    rows = DuckDBRows(ws.con)
    out: dict[str, TableSample] = {}
    for table in ws.tables():
        if not table.stored:
            continue
        fp = fingerprint(table, hashes.get(table.source))
        hit = cached.get((table.name, table.source))
        if hit is not None and hit.fingerprint == fp and not refresh:
            got = _from_json(hit.profiles, hit.distinct_values)
            if got is not None:
                out[table.name] = without_hidden(got, table, rules)
                if out[table.name] == got or ws.read_only:
                    continue
                sample = out[table.name]  # cached before hidden values were left out: rewrite
            else:
                sample = without_hidden(sample_table(table, rows), table, rules)
        else:
            sample = without_hidden(sample_table(table, rows), table, rules)
        out[table.name] = sample
        if not ws.read_only:
            profiles, distinct = _to_json(sample)
            save_profile(ws.con, table.name, table.source, CachedProfile(fp, profiles, distinct))
    return out


def workspace_catalog(
    ws: Workspace, *, refresh: bool = False, glossary: Mapping[str, tuple[str, ...]] | None = None
) -> SchemaCatalog:
    """The linking catalog of a workspace (profiles cached, sensitive columns hidden), with the
    workspace glossary unless ``glossary`` is given.

    Raises:
        EngineError: a table could not be read.
    """
    samples = workspace_samples(ws, refresh=refresh)
    terms = read_glossary(ws.con) if glossary is None else glossary
    return build_catalog(ws.tables(), samples=samples, glossary=terms)


def table_profiles(ws: Workspace, name: str) -> tuple[ColumnProfile, ...]:
    """The column profiles of one table, e.g. for ``tablerag schema TABLE``.

    A stored table's profiles come from the cache (sampled when missing), with the code →
    label enums of the lookup tables its columns reference; a table queried in place gets
    profiles from its names, types, CHECK constraints and catalog samples. Sensitive columns
    are left out.

    Raises:
        ConfigError: no such table.
        EngineError: a table could not be read.
    """
    info = ws.table(name)
    hidden = {c.name for c in info.columns if c.sensitive}
    if not info.stored:
        return tuple(p for p in bare_profiles(info) if p.column not in hidden)
    samples = workspace_samples(ws)
    if info.name not in samples:
        return ()
    catalog = build_catalog(ws.tables(), samples=samples, index_values=False, redact=False)
    return tuple(
        catalog.profiles.get((info.name, p.column), p)
        for p in samples[info.name].profiles
        if p.column not in hidden
    )
