"""JSON and JSON Lines files: arrays of objects become tables, with the types JSON carries.

Accepted shapes: an array of objects; an object whose values include arrays of objects (each
such array becomes a table ``<stem>_<key>``; a single array is named after the file); one object
per line (``.jsonl``, ``.ndjson``, or a ``.json`` file written that way).

Nested objects are flattened ONE level (``{"addr": {"city": "X"}}`` -> column ``addr.city``),
because SQL over flat columns is what people and models write reliably; anything deeper, and
every array, is kept as JSON text so nothing is lost. Column types come from the JSON values:
booleans, integers, numbers (DOUBLE), strings; a key holding several kinds of value, or only
nulls, is VARCHAR. String columns whose every value is a date or timestamp become DATE or
TIMESTAMP; other strings stay strings, since the writer chose them (``"00123"``, ``"1,200"``).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import duckdb

from tablerag.errors import SourceError
from tablerag.ingest import infer, limits
from tablerag.ingest.encoding import decode
from tablerag.ingest.tables.rows import (
    clean_header,
    load_rows,
    new_relation_name,
    quote_name,
)
from tablerag.store.staging import StagedTable
from tablerag.types import Problem

Record = dict[str, Any]
_LINES_SUFFIXES = (".jsonl", ".ndjson")
_INT64 = 2**63


def read_json(path: Path, con: duckdb.DuckDBPyConnection) -> list[StagedTable]:
    """Stage the arrays of objects of a JSON or JSON Lines file as typed tables.

    Raises:
        SourceError: the file is empty, is not valid JSON (the message gives line and column),
            or holds no array of objects.
    """
    data = path.read_bytes()
    if not data.strip():
        raise SourceError(path.name, f"{path.name!r} is empty; export the data again.")
    limits.check_depth(str(path), limits.json_depth(data), "JSON values")
    text, _ = decode(data, path.name)
    problems: list[Problem] = []
    if path.suffix.lower() in _LINES_SUFFIXES:
        tables = [(path.stem, _parse_lines(text, path.name))]
    else:
        try:
            document = json.loads(text)
        except json.JSONDecodeError as exc:
            if exc.msg != "Extra data":
                raise _syntax_error(path.name, exc) from exc
            tables = [(path.stem, _parse_lines(text, path.name))]
            problems.append(
                Problem("", "the file holds one JSON value per line", "read as JSON Lines")
            )
        else:
            tables = _find_tables(document, path)
    staged = [_stage(con, name, records, path.name) for name, records in tables]
    staged[0].problems[:0] = problems
    return staged


def flatten(record: Record) -> Record:
    """Flatten nested objects one level; deeper objects and all arrays become JSON text.

    Example:
        >>> flatten({"id": 1, "addr": {"city": "杭州", "geo": {"lat": 30}}, "tags": ["a"]})
        {'id': 1, 'addr.city': '杭州', 'addr.geo': '{"lat": 30}', 'tags': '["a"]'}
    """
    out: Record = {}
    for key, value in record.items():
        if isinstance(value, dict):
            for inner, item in value.items():
                out[f"{key}.{inner}"] = _scalar(item)
        else:
            out[key] = _scalar(value)
    return out


def _scalar(value: Any) -> Any:
    if isinstance(value, dict | list):
        return json.dumps(value, ensure_ascii=False)
    return value


def _parse_lines(text: str, source: str) -> list[Record]:
    records = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except json.JSONDecodeError as exc:
            raise SourceError(
                source,
                f"{source!r} is not valid JSON Lines: line {number} "
                f"column {exc.colno}: {exc.msg}; fix that line.",
            ) from exc
        if not isinstance(value, dict):
            raise SourceError(
                source,
                f"{source!r} line {number} holds a "
                f"{type(value).__name__}, not an object; write one object per "
                "line.",
            )
        records.append(value)
    if not records:
        raise SourceError(source, f"{source!r} holds no objects; write one object per line.")
    return records


def _find_tables(document: Any, path: Path) -> list[tuple[str, list[Record]]]:
    if _is_records(document):
        return [(path.stem, document)]
    if isinstance(document, dict):
        arrays = [(key, value) for key, value in document.items() if _is_records(value)]
        if len(arrays) == 1:
            return [(path.stem, arrays[0][1])]
        if arrays:
            return [(f"{path.stem}_{key}", value) for key, value in arrays]
    raise SourceError(
        path.name,
        f"{path.name!r} holds no array of objects; tablerag reads "
        '[{...}, ...] or {"key": [{...}, ...]}.',
    )


def _is_records(value: Any) -> bool:
    return isinstance(value, list) and bool(value) and all(isinstance(v, dict) for v in value)


def _stage(
    con: duckdb.DuckDBPyConnection, name: str, records: Sequence[Record], source: str
) -> StagedTable:
    flat = [flatten(record) for record in records]
    keys: dict[str, None] = {}
    for record in flat:
        keys.update(dict.fromkeys(record))
    originals = list(keys)
    limits.check_columns(source, len(originals), f"table {name!r}")
    names, problems = clean_header(originals)
    columns = [[record.get(key) for record in flat] for key in originals]
    types = [_column_type(values) for values in columns]
    rows = [[_text(column[i]) for column in columns] for i in range(len(flat))]
    raw = new_relation_name()
    load_rows(con, raw, names, rows)
    select = ", ".join(
        t.sql(quote_name(n)) + f" AS {quote_name(n)}" for n, t in zip(names, types, strict=True)
    )
    relation = new_relation_name()
    con.execute(
        f"CREATE TEMP TABLE {quote_name(relation)} AS SELECT {select} FROM {quote_name(raw)}"
    )
    con.execute(f"DROP TABLE {quote_name(raw)}")
    return StagedTable(
        name=name,
        relation=relation,
        originals=tuple(originals),
        rows_read=len(flat),
        origin=source,
        problems=problems,
        typed=True,
    )


def _column_type(values: Sequence[Any]) -> infer.ColumnType:
    present = [v for v in values if v is not None]
    kinds = {type(v) for v in present}
    if not present:
        return infer.TEXT
    if kinds == {bool}:
        return infer.ColumnType("BOOLEAN", cast="CAST({col} AS BOOLEAN)")
    if kinds == {int} and all(-_INT64 <= v < _INT64 for v in present):
        return infer.ColumnType("BIGINT", cast="CAST({col} AS BIGINT)")
    if kinds <= {int, float} and bool not in kinds:
        return infer.ColumnType("DOUBLE", cast="CAST({col} AS DOUBLE)")
    if kinds == {str}:
        decided = infer.infer_column(present)
        if decided.sql_type in ("DATE", "TIMESTAMP"):
            return decided
    return infer.TEXT


def _text(value: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return repr(value)
    return str(value)


def _syntax_error(source: str, exc: json.JSONDecodeError) -> SourceError:
    return SourceError(
        source,
        f"{source!r} is not valid JSON: line {exc.lineno} column "
        f"{exc.colno}: {exc.msg}; fix the file or export it again.",
    )
