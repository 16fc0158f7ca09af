"""Descriptions of tables and columns supplied by people, in a small JSON file.

A file whose top-level ``"format"`` is ``"tablerag-table-descriptions/1"`` is not data: it
describes tables (description, grain, primary key, foreign keys) and their columns (description,
unit, code values, value formats, sensitive flag). Texts may be plain strings or ``{"zh": …,
"en": …}``. Ingesting such a file stores its annotations in ``tablerag.annotations``
(:func:`record_annotations`); the catalog merges them with what ingestion found, whichever file
comes first.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

import duckdb

from tablerag.errors import SourceError
from tablerag.types import ForeignKey, Problem

FORMAT = "tablerag-table-descriptions/1"
_MAX_BYTES = 5_000_000


@dataclass(frozen=True)
class Annotation:
    """What people said about one table (``column is None``) or one column."""

    table: str
    column: str | None
    description: str = ""
    unit: str | None = None
    sensitive: bool = False
    primary_key: tuple[str, ...] = ()
    foreign_keys: tuple[ForeignKey, ...] = field(default=())


def is_descriptions_file(path: Path) -> bool:
    """True when ``path`` is a JSON file in the descriptions format (cheap check on the head)."""
    if path.suffix.lower() != ".json" or path.stat().st_size > _MAX_BYTES:
        return False
    with path.open("rb") as fh:
        head = fh.read(4096)
    return FORMAT.encode() in head


def text_of(value: Any) -> str:
    """A bilingual ``{"zh": …, "en": …}`` text (or a plain string) as one line.

    Example:
        >>> text_of({"zh": "净额", "en": "Net amount"})
        '净额 / Net amount'
        >>> text_of("plain")
        'plain'
    """
    if isinstance(value, dict):
        return " / ".join(str(v) for v in value.values() if v)
    return "" if value is None else str(value)


def read_descriptions(path: Path) -> list[Annotation]:
    """Parse a descriptions file.

    Raises:
        SourceError: not valid JSON, or not the expected shape.
    """
    try:
        doc = json.loads(path.read_text(encoding="utf-8-sig"))
        return list(_annotations(doc))
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise SourceError(str(path), f"{path.name!r} is not valid UTF-8 JSON: {exc}.") from exc
    except (TypeError, KeyError, AttributeError) as exc:
        raise SourceError(
            str(path),
            f"{path.name!r} does not follow {FORMAT!r}: expected "
            '{"tables": {NAME: {"description": …, "columns": {COL: {…}}}}} '
            f"({type(exc).__name__}: {exc}).",
        ) from exc


def record_annotations(
    con: duckdb.DuckDBPyConnection, source_id: str, notes: Iterable[Annotation]
) -> list[Annotation]:
    """Store the annotations of a descriptions file (inside the caller's transaction).

    Names are matched to the catalog without regard to case (as SQL does for unquoted
    names): an annotation of ``Staff.Salary`` is stored for the ingested ``staff.salary``, so
    a ``"sensitive": true`` flag cannot miss its column by a capital letter. Names no ingested
    table has yet are stored as written and matched the same way when that table comes.

    Args:
        con: the workspace connection.
        source_id: the descriptions file's source (forgetting it deletes them).
        notes: what :func:`read_descriptions` found.

    Returns:
        The annotations as stored (names spelled as the catalog spells them).
    """
    stored = [_spelled(con, a) for a in notes]
    con.executemany(
        "INSERT INTO tablerag.annotations VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        [
            [
                source_id,
                a.table,
                a.column,
                a.description,
                a.unit,
                a.sensitive,
                list(a.primary_key),
                json.dumps([asdict(fk) for fk in a.foreign_keys], ensure_ascii=False),
            ]
            for a in stored
        ],
    )
    _forget_flagged_values(con, [a for a in stored if a.sensitive and a.column is not None])
    return stored


def _forget_flagged_values(con: duckdb.DuckDBPyConnection, flagged: list[Annotation]) -> None:
    """Drop what the workspace kept of columns a person now flags sensitive: their sample
    values in the catalog, and the cached profiles of their tables (profiled again, without
    them, when next needed)."""
    for a in flagged:
        con.execute(
            "UPDATE tablerag.columns SET samples = [] "
            "WHERE lower(table_name) = lower(?) AND lower(column_name) = lower(?)",
            [a.table, a.column],
        )
    for table in {a.table.lower() for a in flagged}:
        con.execute("DELETE FROM tablerag.profiles WHERE lower(table_name) = ?", [table])


def _spelled(con: duckdb.DuckDBPyConnection, note: Annotation) -> Annotation:
    """``note`` with its table and column named as the catalog names them, when it has them."""
    table = con.execute(
        "SELECT table_name FROM tablerag.tables WHERE lower(table_name) = lower(?) "
        "ORDER BY table_name = ? DESC, table_name LIMIT 1",
        [note.table, note.table],
    ).fetchone()
    if table is None:
        return note
    column = note.column
    if column is not None:
        found = con.execute(
            "SELECT column_name FROM tablerag.columns WHERE table_name = ? "
            "AND lower(column_name) = lower(?) ORDER BY column_name = ? DESC LIMIT 1",
            [table[0], column, column],
        ).fetchone()
        column = found[0] if found else column
    return replace(note, table=table[0], column=column)


def unknown_names(con: duckdb.DuckDBPyConnection, notes: Iterable[Annotation]) -> list[Problem]:
    """One problem per annotation that names a table or column the catalog does not have (case
    aside): most often a misspelling, and for a ``"sensitive": true`` flag a column left shown.

    A descriptions file ingested before its data names tables not ingested yet; the problem
    says so, and the annotation applies when the table comes.
    """
    out: list[Problem] = []
    tables = {
        r[0].lower() for r in con.execute("SELECT table_name FROM tablerag.tables").fetchall()
    }
    columns = {
        (r[0].lower(), r[1].lower())
        for r in con.execute("SELECT table_name, column_name FROM tablerag.columns").fetchall()
    }
    for a in notes:
        what = "flag" if a.sensitive else "description"
        if a.table.lower() not in tables:
            if a.sensitive:
                out.append(
                    Problem(
                        f"{a.table}.{a.column}",
                        f"sensitive {what} names a table no ingested source has (yet)",
                        "applies when it is ingested; check the spelling with `tablerag tables`",
                    )
                )
        elif a.column is not None and (a.table.lower(), a.column.lower()) not in columns:
            out.append(
                Problem(
                    f"{a.table}.{a.column}",
                    f"{'sensitive ' if a.sensitive else ''}{what} names no column of "
                    f"table {a.table!r}",
                    "ignored; check the spelling with `tablerag schema " + a.table + "`",
                )
            )
    return out


def read_glossary_section(path: Path) -> dict[str, tuple[str, ...]]:
    """The ``glossary`` of a descriptions file: term → the words it stands for (empty if none).

    Raises:
        SourceError: not valid JSON, or the glossary is not an object of lists of strings.

    Example:
        >>> import json, tempfile
        >>> f = Path(tempfile.mkdtemp()) / "d.json"
        >>> _ = f.write_text(json.dumps({"format": FORMAT, "tables": {},
        ...                              "glossary": {"毛利": ["净额", "成本"]}}))
        >>> read_glossary_section(f)
        {'毛利': ('净额', '成本')}
    """
    try:
        glossary = json.loads(path.read_text(encoding="utf-8-sig")).get("glossary", {})
    except (json.JSONDecodeError, UnicodeDecodeError, AttributeError) as exc:
        raise SourceError(str(path), f"{path.name!r} is not a UTF-8 JSON object: {exc}.") from exc
    if not isinstance(glossary, dict) or not all(
        isinstance(t, str) and isinstance(w, list) and all(isinstance(x, str) for x in w)
        for t, w in glossary.items()
    ):
        raise SourceError(
            str(path),
            f"The glossary of {path.name!r} must map each term to a list of words, e.g. "
            '"glossary": {"毛利": ["净额", "成本", "net", "cost"]}.',
        )
    return {
        t.strip(): tuple(w.strip() for w in words if w.strip())
        for t, words in glossary.items()
        if t.strip()
    }


def _annotations(doc: dict[str, Any]) -> list[Annotation]:
    out: list[Annotation] = []
    for table, spec in doc["tables"].items():
        desc = text_of(spec.get("description"))
        if spec.get("grain"):
            desc = f"{desc} Grain: {text_of(spec['grain'])}".strip()
        fks = tuple(
            ForeignKey(tuple(fk["columns"]), fk["ref_table"], tuple(fk["ref_columns"]))
            for fk in spec.get("foreign_keys", [])
        )
        out.append(
            Annotation(
                table, None, desc, primary_key=tuple(spec.get("primary_key", [])), foreign_keys=fks
            )
        )
        for column, col in spec.get("columns", {}).items():
            text = text_of({k: v for k, v in col.items() if k in ("zh", "en")})
            if col.get("description"):
                text = text_of(col["description"])
            if col.get("values"):
                codes = ", ".join(f"{k}={text_of(v)}" for k, v in col["values"].items())
                text = f"{text}. Values: {codes}".strip(". ")
            if col.get("formats"):
                text = f"{text}. Formats: {', '.join(col['formats'])}"
            out.append(
                Annotation(
                    table,
                    column,
                    text,
                    unit=col.get("unit"),
                    sensitive=bool(col.get("sensitive", False)),
                )
            )
    return out


def flagged_columns(con: duckdb.DuckDBPyConnection, table: str) -> set[str]:
    """Columns of ``table`` that an ingested descriptions file marks ``"sensitive": true``,
    matched without regard to case: each as the flag writes it and as the catalog spells it."""
    rows = con.execute(
        "SELECT a.column_name, c.column_name FROM tablerag.annotations a "
        "LEFT JOIN tablerag.columns c ON lower(c.table_name) = lower(?) "
        "AND lower(c.column_name) = lower(a.column_name) "
        "WHERE lower(a.table_name) = lower(?) AND a.sensitive AND a.column_name IS NOT NULL",
        [table, table],
    ).fetchall()
    return {name for r in rows for name in r if name is not None}
