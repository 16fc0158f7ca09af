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
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import duckdb

from tablerag.errors import SourceError
from tablerag.types import ForeignKey

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
) -> None:
    """Store the annotations of a descriptions file (inside the caller's transaction).

    Args:
        con: the workspace connection.
        source_id: the descriptions file's source (forgetting it deletes them).
        notes: what :func:`read_descriptions` found.
    """
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
            for a in notes
        ],
    )


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
    """Columns of ``table`` that an ingested descriptions file marks ``"sensitive": true``."""
    rows = con.execute(
        "SELECT column_name FROM tablerag.annotations "
        "WHERE table_name = ? AND sensitive AND column_name IS NOT NULL",
        [table],
    ).fetchall()
    return {r[0] for r in rows}
