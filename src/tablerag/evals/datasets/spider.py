"""Spider 1.0 in its original format: ``dev.json``, ``tables.json``, ``database/<db>/<db>.sqlite``.

Schemas come from ``tables.json`` (original table and column names, types, primary and foreign
keys; the readable names become descriptions when they add something). SQLite files, when
present, are only opened read-only, for values.
"""

from __future__ import annotations

import json
import logging
import sqlite3
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from tablerag.errors import ConfigError
from tablerag.types import ColumnInfo, ForeignKey, TableInfo

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class LinkingCase:
    """One question with its gold SQL over one database."""

    db_id: str
    question: str
    sql: str
    history: tuple[str, ...] = ()
    """Earlier questions of the same conversation (CHASE), oldest first."""


@dataclass(frozen=True)
class Dataset:
    """Questions plus the schemas (and SQLite files, where present) they run on."""

    name: str
    cases: tuple[LinkingCase, ...]
    schemas: dict[str, list[TableInfo]]
    databases: dict[str, Path] = field(default_factory=dict)


def read_json(path: Path) -> Any:
    """Read one JSON file of a dataset.

    Raises:
        ConfigError: the file is missing or not valid JSON.
    """
    if not path.is_file():
        raise ConfigError(f"Missing dataset file {str(path)!r}; check --path.")
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise ConfigError(f"{str(path)!r} is not valid JSON ({exc}); re-download it.") from exc


def _readable(original: str, readable: str) -> str:
    """The readable name as a description, when it says more than the original name."""
    squash = "".join(ch for ch in original.lower() if ch.isalnum())
    if "".join(ch for ch in readable.lower() if ch.isalnum()) == squash:
        return ""
    return readable


def schema_from_record(
    record: dict[str, Any], *, keep_foreign_keys: bool = True
) -> list[TableInfo]:
    """Turn one ``tables.json`` record into TableInfo objects.

    Example:
        >>> rec = {"db_id": "d", "table_names_original": ["singer", "song"],
        ...        "table_names": ["singer", "song"],
        ...        "column_names_original": [[-1, "*"], [0, "Singer_ID"], [1, "SingerRef"]],
        ...        "column_names": [[-1, "*"], [0, "singer id"], [1, "singer ref"]],
        ...        "column_types": ["text", "number", "number"],
        ...        "primary_keys": [1], "foreign_keys": [[2, 1]]}
        >>> [t.name for t in schema_from_record(rec)], schema_from_record(rec)[1].foreign_keys
        (['singer', 'song'], (ForeignKey(columns=('SingerRef',), ref_table='singer', \
ref_columns=('Singer_ID',)),))
    """
    names = record["table_names_original"]
    cols = record["column_names_original"]
    readable = record.get("column_names") or cols
    types = record["column_types"]
    table_of = {i: names[t] for i, (t, _) in enumerate(cols) if t >= 0}
    pks: dict[str, list[str]] = {}
    for pk in record.get("primary_keys", []):
        for i in pk if isinstance(pk, list) else [pk]:
            pks.setdefault(table_of[i], []).append(cols[i][1])
    fks: dict[str, list[ForeignKey]] = {}
    if keep_foreign_keys:
        for child, parent in record.get("foreign_keys", []):
            fk = ForeignKey((cols[child][1],), table_of[parent], (cols[parent][1],))
            fks.setdefault(table_of[child], []).append(fk)
    out = []
    for t, name in enumerate(names):
        columns = tuple(
            ColumnInfo(
                name=c[1],
                type=types[i],
                description=_readable(c[1], readable[i][1]),
            )
            for i, c in enumerate(cols)
            if c[0] == t
        )
        tr = record.get("table_names", names)[t]
        out.append(
            TableInfo(
                name=name,
                source=record["db_id"],
                columns=columns,
                row_count=0,
                description=_readable(name, tr),
                primary_key=tuple(pks.get(name, ())),
                foreign_keys=tuple(fks.get(name, ())),
                stored=False,
            )
        )
    return out


def read_tables_json(path: Path, *, keep_foreign_keys: bool = True) -> dict[str, list[TableInfo]]:
    """Every schema of a Spider-format ``tables.json``, by ``db_id``."""
    return {
        r["db_id"]: schema_from_record(r, keep_foreign_keys=keep_foreign_keys)
        for r in read_json(path)
    }


def databases(root: Path, db_ids: list[str]) -> dict[str, Path]:
    """The ``database/<db>/<db>.sqlite`` files that exist under ``root``."""
    found = {db: root / "database" / db / f"{db}.sqlite" for db in db_ids}
    return {db: p for db, p in found.items() if p.is_file()}


def without_missing_tables(
    schemas: dict[str, list[TableInfo]], found: dict[str, Path]
) -> dict[str, list[TableInfo]]:
    """The schemas without the tables their SQLite file lacks, each one warned about.

    Spider-derived schema files list SQLite's internal ``sqlite_sequence`` (and, in copies,
    tables a rebuilt database never got); reading values or row counts from such a table ended
    the whole run with "no such table" (issue 22). Foreign keys to a dropped table go with it. A
    database that cannot be opened is left as it is (its questions fail one by one, as before).
    """
    out = dict(schemas)
    for db, path in sorted(found.items()):
        tables = schemas.get(db)
        if not tables:
            continue
        present = _sqlite_tables(path)
        if present is None:
            continue
        missing = {t.name for t in tables if t.name.casefold() not in present}
        if not missing:
            continue
        for name in sorted(missing):
            log.warning(
                "the schema of %r lists table %r, which its database %s lacks; left out",
                db,
                name,
                path,
            )
        out[db] = [
            replace(t, foreign_keys=tuple(f for f in t.foreign_keys if f.ref_table not in missing))
            for t in tables
            if t.name not in missing
        ]
    return out


def _sqlite_tables(path: Path) -> set[str] | None:
    """Case-folded names of the tables and views of a SQLite file; None when it cannot be read."""
    try:
        con = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    except sqlite3.Error:
        return None
    try:
        rows = con.execute("SELECT name FROM sqlite_master WHERE type IN ('table', 'view')")
        return {str(r[0]).casefold() for r in rows.fetchall()}
    except sqlite3.Error:
        return None
    finally:
        con.close()


def load_spider(path: Path, *, keep_foreign_keys: bool = True) -> Dataset:
    """Read Spider's ``dev.json`` and ``tables.json`` (and find the SQLite files) under ``path``.

    Raises:
        ConfigError: a file is missing or malformed.
    """
    schemas = read_tables_json(path / "tables.json", keep_foreign_keys=keep_foreign_keys)
    cases = tuple(
        LinkingCase(r["db_id"], r["question"], r["query"])
        for r in read_json(path / "dev.json")
        if r["db_id"] in schemas
    )
    found = databases(path, sorted(schemas))
    return Dataset("spider", cases, without_missing_tables(schemas, found), found)
