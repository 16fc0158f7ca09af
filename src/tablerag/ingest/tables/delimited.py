"""CSV and TSV files: DuckDB's reader on the fast path, Python's csv module when that is not exact.

The dialect (delimiter; RFC 4180 ``""`` or backslash ``\\"`` quote escapes) is sniffed from the
head of the file in Python and handed to DuckDB explicitly, every column as VARCHAR; the same
scan types the values (``store.load_typed``: types proposed from the head, proven on every
value) into a table of the ``data`` schema, which ``store_table`` renames instead of copying.
DuckDB runs in strict mode with a rejects table: any rejected line, or a row count that does
not reconcile with the file, sends the whole file through Python's csv module instead, which
pads short rows, keeps extra fields and reports both. The report says why.
"""

from __future__ import annotations

import _csv
import csv
import io
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass, replace
from pathlib import Path

import duckdb
import numpy as np

from tablerag.errors import SourceError
from tablerag.ingest import limits
from tablerag.ingest.encoding import utf8_path
from tablerag.ingest.infer import ColumnType
from tablerag.ingest.store import load_typed, propose, propose_types
from tablerag.ingest.tables import notes, totals
from tablerag.ingest.tables.rows import (
    clean_header,
    new_relation_name,
    quote_name,
    stage_rows,
)
from tablerag.store.staging import StagedTable
from tablerag.types import Problem

DELIMITERS = (",", "\t", ";", "|")
_HEAD_BYTES = 256 * 1024
_SNIFF_RECORDS = 200
_INVALID_UTF8 = "invalid UTF-8"
_LONG_LINE = "a line is longer than DuckDB's default line limit"
_MAX_LINE_BYTES = 100_000_000
"""Line limit of the retry. DuckDB's default (2 MB) keeps its reader parallel: its buffers grow
with the limit, and a file that fits in one buffer is read by one thread."""
_PROPOSAL_ROWS = 500
_TOTALS_SCAN_ROWS = 20_000
_TOTALS_EDGE_ROWS = 2
_NOTES_HEAD_ROWS = 2_000
_SCAN_BYTES = 4 << 20
csv.field_size_limit(2**31 - 1)


@dataclass(frozen=True)
class Dialect:
    """How a delimited file is written."""

    delimiter: str
    backslash: bool
    """Quotes inside quoted fields are written ``\\"`` (WikiTQ style) instead of ``""``."""
    quoting: bool = True
    """False: ``"`` is an ordinary character (a file that never quotes its fields)."""

    def reader(self, lines: Iterable[str], *, strict: bool = False) -> _csv.Reader:
        """A Python csv reader for this dialect (``strict``: raise on bad quoting)."""
        if not self.quoting:
            return csv.reader(lines, delimiter=self.delimiter, quoting=csv.QUOTE_NONE)
        if self.backslash:
            return csv.reader(
                lines, delimiter=self.delimiter, escapechar="\\", doublequote=False, strict=strict
            )
        return csv.reader(lines, delimiter=self.delimiter, strict=strict)


def read_csv(path: Path, con: duckdb.DuckDBPyConnection) -> list[StagedTable]:
    """Read a CSV or TSV file (any delimiter of ``DELIMITERS``) into one staged table.

    Args:
        path: the file; its first non-blank record is the header.
        con: the connection the rows are staged in.

    Returns:
        One staged table named after the file stem.

    Raises:
        SourceError: the file is empty, binary, or has no header.
    """
    with tempfile.TemporaryDirectory(prefix="tablerag-csv-") as folder:
        text_path, encoding = utf8_path(_non_empty(path), Path(folder), head_only=True)
        head = _head(text_path)
        if not head.strip():
            raise SourceError(
                path.name,
                f"{path.name!r} has no header row; add one (the first line names the columns).",
            )
        lines, has_backslash_quote = _scan(text_path)
        dialect = sniff(
            head, prefer_tab=path.suffix.lower() == ".tsv", backslash_possible=has_backslash_quote
        )
        limits.check_columns(path.name, _header_width(text_path, dialect))
        staged, reason = _read_fast(con, path, text_path, dialect, head, lines)
        if reason == _INVALID_UTF8:
            text_path, encoding = utf8_path(path, Path(folder))
            lines, _ = _scan(text_path)
            staged, reason = _read_fast(con, path, text_path, dialect, head, lines)
        if reason == _LONG_LINE:
            staged, reason = _read_fast(
                con, path, text_path, dialect, head, lines, max_line_bytes=_MAX_LINE_BYTES
            )
        problems: list[Problem] = []
        if encoding != "utf-8":
            problems.append(Problem("", f"the file is encoded as {encoding}", "converted to UTF-8"))
        if staged is None:
            staged = _read_python(con, path, text_path, dialect)
            staged.problems.insert(0, Problem("", reason, "read with Python's csv module"))
        staged.problems[:0] = problems
    return [staged]


def sniff(head: str, *, prefer_tab: bool = False, backslash_possible: bool = False) -> Dialect:
    """Choose the delimiter and quote escape that make the head's records most regular.

    Example:
        >>> sniff("a;b;c\\n1;2,5;3\\n4;5;6\\n")
        Dialect(delimiter=';', backslash=False, quoting=True)
        >>> sniff('a,b\\n"say \\\\"hi\\\\", ok",2\\n', backslash_possible=True)
        Dialect(delimiter=',', backslash=True, quoting=True)
    """
    order = ("\t", ",", ";", "|") if prefer_tab else DELIMITERS
    best: tuple[float, int, int, int] = (-1.0, 0, 0, 0)
    chosen = Dialect(order[0], False)
    # On a tie the backslash style wins only if the head shows it, or shows no "" escape.
    shows_backslash = '\\"' in head or '""' not in head
    escapes = (
        ((True, False) if shows_backslash else (False, True)) if backslash_possible else (False,)
    )
    for rank, delimiter in enumerate(order):
        for backslash in escapes:
            dialect = Dialect(delimiter, backslash)
            score = _regularity(head, dialect)
            key = (*score, -rank)
            if key > best:
                best, chosen = key, dialect
    return chosen


def _regularity(head: str, dialect: Dialect) -> tuple[float, int, int]:
    """(share of records as wide as the header, 1 if every quote closed, header width).

    Width 1 scores zero.

    Parsed strictly: quoting that breaks the dialect's rules scores zero; a quoted field still
    open at the end (the head was cut there, or the file is broken) only ends the count.
    """
    records = []
    closed = 1
    try:
        for record in dialect.reader(io.StringIO(head), strict=True):
            if record:
                records.append(len(record))
            if len(records) >= _SNIFF_RECORDS:
                break
    except csv.Error as exc:
        if "unexpected end of data" not in str(exc):
            return 0.0, 0, 0
        closed = 0
    if len(records) > 1 and len(records) < _SNIFF_RECORDS:
        records = records[:-1] if not head.endswith("\n") else records
    if not records or records[0] < 2:
        return 0.0, closed, 1
    width = records[0]
    return sum(1 for n in records if n == width) / len(records), closed, width


def _read_fast(
    con: duckdb.DuckDBPyConnection,
    path: Path,
    text_path: Path,
    dialect: Dialect,
    head: str,
    lines: int,
    *,
    max_line_bytes: int | None = None,
) -> tuple[StagedTable | None, str]:
    """Stage with DuckDB's reader; (None, reason) when the result would not be exact.

    ``max_line_bytes`` raises DuckDB's line limit; by default its own limit applies, which
    keeps the scan parallel, and an over-long line comes back as the reason ``_LONG_LINE``.
    """
    if head.startswith(("\n", "\r")):
        return None, "the file starts with blank lines"
    records = _head_records(head, dialect)
    header = records[0] if records else []
    names, problems = clean_header(header)
    proposals = {
        name: propose([row[j] if j < len(row) else None for row in records[1:]])
        for j, name in enumerate(names)
    }
    relation = new_relation_name()
    table = f"data.{quote_name(relation)}"  # the final table, renamed by the store: no copy
    rejects, scans = f"{relation}_rejects", f"{relation}_scans"
    columns = "{" + ", ".join(f"{_literal(n)}: 'VARCHAR'" for n in names) + "}"
    escape = "\\" if dialect.backslash else '"'
    source = (
        f"read_csv(?, columns={columns}, header=true, "
        f"delim={_literal(dialect.delimiter)}, quote='\"', escape={_literal(escape)}, "
        "auto_detect=false, strict_mode=true, store_rejects=true, "
        f"rejects_table={_literal(rejects)}, rejects_scan={_literal(scans)}"
        + (f", max_line_size={max_line_bytes})" if max_line_bytes else ")")
    )
    con.execute("CREATE SCHEMA IF NOT EXISTS data")
    try:
        decided = load_typed(
            con, source, [str(text_path)], [(n, n) for n in names], proposals, table, problems
        )
    except duckdb.Error as exc:
        con.execute(f"DROP TABLE IF EXISTS {table}")
        return None, f"DuckDB could not read the file exactly ({_first_line(exc)})"
    try:
        bad = con.execute(
            f"SELECT DISTINCT line, error_type FROM {quote_name(rejects)} ORDER BY line LIMIT 3"
        ).fetchall()
        count = _count(con, f"SELECT count(DISTINCT line) FROM {quote_name(rejects)}")
    finally:
        con.execute(f"DROP TABLE IF EXISTS {quote_name(rejects)}")
        con.execute(f"DROP TABLE IF EXISTS {quote_name(scans)}")
    rows = _count(con, f"SELECT count(*) FROM {table}")
    if bad:
        con.execute(f"DROP TABLE {table}")
        if any(kind == "INVALID ENCODING" for _, kind in bad):
            return None, _INVALID_UTF8
        if max_line_bytes is None and any(kind == "LINE SIZE OVER MAXIMUM" for _, kind in bad):
            return None, _LONG_LINE
        shown = ", ".join(f"line {line}: {kind.lower()}" for line, kind in bad)
        return None, f"{count} line(s) do not fit the header ({shown})"
    if lines != rows + 1:
        python_rows, blank = _count_records(text_path, dialect)
        if python_rows != rows:
            con.execute(f"DROP TABLE {table}")
            return None, (f"DuckDB read {rows} rows where Python's csv module reads {python_rows}")
        if blank:
            problems.append(Problem("", f"{blank} blank line(s)", "skipped"))
    if rows == 0:
        problems.append(
            Problem("", "the file has a header but no data rows", "stored as an empty table")
        )
    by_line = lines == rows + 1
    noted, texts = _drop_notes(con, table, rows, problems, by_line=by_line)
    dropped = _drop_totals(con, table, rows - noted, problems, by_line=by_line)
    if noted or dropped:
        rows -= noted + dropped
        decided |= _retype(con, relation, problems)
    units = {name: t.unit for name, t in decided.items() if t.unit}
    staged = StagedTable(
        name=path.stem,
        relation=relation,
        originals=tuple(header),
        rows_read=rows,
        origin=path.name,
        problems=problems,
        typed=True,
        units=units,
        final=True,
        notes=texts,
    )
    return staged, ""


def _drop_notes(
    con: duckdb.DuckDBPyConnection,
    table: str,
    rows: int,
    problems: list[Problem],
    *,
    by_line: bool,
) -> tuple[int, list[str]]:
    """Delete the notes under the typed table (:mod:`.notes`), report them; (rows deleted,
    the notes' texts).

    Only a table whose last row may be a note is read: all of it up to ``_TOTALS_SCAN_ROWS``
    rows, else its first ``_NOTES_HEAD_ROWS`` rows (the columns' widths) and its last rows.
    ``by_line``: rows are file lines (no blank lines), so a row is named ``line <n>``.
    """
    if rows < 3:
        return 0, []
    cast = f"SELECT rowid, COLUMNS(* EXCLUDE (rowid))::VARCHAR FROM (SELECT rowid, * FROM {table})"
    last = con.execute(f"{cast} ORDER BY rowid DESC LIMIT 1").fetchone()
    if last is None or not notes.maybe_note(list(last[1:])):
        return 0, []  # the common case: one row read
    if rows <= _TOTALS_SCAN_ROWS:
        fetched = con.execute(f"{cast} ORDER BY rowid").fetchall()
        positions = list(range(len(fetched)))
    else:
        tail_rows = 2 * notes.MAX_NOTES + 2
        head = con.execute(f"{cast} ORDER BY rowid LIMIT {_NOTES_HEAD_ROWS}").fetchall()
        tail = con.execute(f"{cast} ORDER BY rowid DESC LIMIT {tail_rows}").fetchall()[::-1]
        fetched = head + tail
        positions = list(range(len(head))) + list(range(rows - len(tail), rows))
    found = notes.find_notes([list(r[1:]) for r in fetched])
    if not found:
        return 0, []
    labels = [f"line {at + 2}" if by_line else f"row {at + 1}" for at in positions]
    problems.append(notes.report(found, labels))
    listed = ", ".join(str(int(fetched[n.index][0])) for n in found)
    con.execute(f"DELETE FROM {table} WHERE rowid IN ({listed})")
    return len(found), [n.text for n in found if n.text]


def _drop_totals(
    con: duckdb.DuckDBPyConnection,
    table: str,
    rows: int,
    problems: list[Problem],
    *,
    by_line: bool,
) -> int:
    """Delete the totals rows (:mod:`.totals`) of the typed table, report each; how many.

    Up to ``_TOTALS_SCAN_ROWS`` rows every row is read (sums checked); a longer table has only
    its first and last rows checked for a totals label. ``by_line``: rows are file lines
    (no blank lines), so a row is named ``line <n>``.
    """
    if rows == 0:
        return 0
    cast = f"SELECT rowid, COLUMNS(* EXCLUDE (rowid))::VARCHAR FROM (SELECT rowid, * FROM {table})"
    edge = _TOTALS_EDGE_ROWS
    last = con.execute(f"{cast} ORDER BY rowid DESC LIMIT 1").fetchone()
    if not _labelled_rows(con, table) and not (
        last is not None and totals.maybe_unlabelled_total(list(last[1:]))
    ):
        return 0  # the common case: one scan of the text columns, nothing read into Python
    if rows <= _TOTALS_SCAN_ROWS:
        fetched = con.execute(f"{cast} ORDER BY rowid").fetchall()
        positions = list(range(len(fetched)))
    else:  # only the edges: the first and the last rows
        head = con.execute(f"{cast} ORDER BY rowid LIMIT {edge}").fetchall()
        tail = con.execute(f"{cast} ORDER BY rowid DESC LIMIT {edge}").fetchall()[::-1]
        fetched = head + tail
        positions = list(range(edge)) + list(range(rows - edge, rows))
    cells = [list(r[1:]) for r in fetched]
    if rows <= _TOTALS_SCAN_ROWS:
        found = [(t.index, t.reason) for t in totals.find_totals(cells)]
    else:
        found = [
            (i, f"a {label!r} row at the {'top' if i < edge else 'end'} of the table")
            for i, row in enumerate(cells)
            if (label := totals.edge_label(row)) is not None
        ]
    for i, reason in found:
        at = positions[i]
        name = f"line {at + 2}" if by_line else f"row {at + 1}"
        problems.append(Problem(name, f"a totals row: {reason}", totals.TOTALS_ACTION))
    if found:
        listed = ", ".join(str(int(fetched[i][0])) for i, _ in found)
        con.execute(f"DELETE FROM {table} WHERE rowid IN ({listed})")
    return len(found)


def _retype(
    con: duckdb.DuckDBPyConnection, relation: str, problems: list[Problem]
) -> dict[str, ColumnType]:
    """Type again the text columns of ``data.<relation>`` that only its totals rows kept text
    (``序号`` 1, 2, 3 over ``合计``); the table is rebuilt only when one of them types.

    Returns:
        Column -> its new type, for the columns that changed.
    """
    table = f"data.{quote_name(relation)}"
    columns = [(str(r[0]), str(r[1])) for r in con.execute(f"DESCRIBE {table}").fetchall()]
    proposals = {n: t for n, t in propose_types(con, table, columns).items() if t.check}
    if not proposals:
        return {}
    rebuilt = f"data.{quote_name(relation + '_retyped')}"
    notes: list[Problem] = []
    decided = load_typed(con, table, [], [(n, n) for n, _ in columns], proposals, rebuilt, notes)
    con.execute(f"DROP TABLE {table}")
    con.execute(f"ALTER TABLE {rebuilt} RENAME TO {quote_name(relation)}")
    changed = {n: t for n, t in decided.items() if t.sql_type != "VARCHAR"}
    problems.extend(p for p in notes if any(p.where == f"column {n!r}" for n in changed))
    return changed


def _labelled_rows(con: duckdb.DuckDBPyConnection, table: str) -> bool:
    """Whether a text cell of ``table`` may hold a totals word (labels are never numbers)."""
    texts = [str(r[0]) for r in con.execute(f"DESCRIBE {table}").fetchall() if r[1] == "VARCHAR"]
    if not texts:
        return False
    joined = f"lower(concat_ws(chr(31), {', '.join(quote_name(n) for n in texts)}))"
    test = f"regexp_matches({joined}, {_literal(totals.HINT.pattern)})"  # one regex a row
    return con.execute(f"SELECT 1 FROM {table} WHERE {test} LIMIT 1").fetchone() is not None


def _head_records(head: str, dialect: Dialect) -> list[list[str]]:
    """The header and up to 500 records of the head (the last, maybe cut, record dropped)."""
    records: list[list[str]] = []
    try:
        for record in dialect.reader(io.StringIO(head)):
            if record:
                records.append(record)
            if len(records) > _PROPOSAL_ROWS:
                break
    except csv.Error:
        pass
    if len(records) > 1 and len(records) <= _PROPOSAL_ROWS and not head.endswith("\n"):
        records.pop()
    return records


def _read_python(
    con: duckdb.DuckDBPyConnection, path: Path, text_path: Path, dialect: Dialect
) -> StagedTable:
    """Read every record with Python's csv module: strictly, else leniently and say so."""
    problems: list[Problem] = []
    try:
        header, rows, labels, blank = _python_records(text_path, dialect, strict=True)
    except csv.Error as exc:
        unclosed = "unexpected end of data" in str(exc)
        unquoted = _unquoted_records(text_path, dialect) if unclosed else None
        if unquoted is not None:
            header, rows, labels, blank = unquoted
            problems.append(
                Problem(
                    "",
                    "a '\"' opens a field that is never closed; the file quotes no field and "
                    "without quoting every row has the header's field count",
                    "read with '\"' as an ordinary character",
                )
            )
        elif unclosed:
            raise SourceError(
                path.name,
                f"{path.name!r} has a quoted field that is never closed (it runs to the end "
                "of the file); close the quote and ingest it again.",
            ) from exc
        else:
            header, rows, labels, blank = _python_records(text_path, dialect, strict=False)
            problems.append(Problem("", f"malformed quoting ({exc})", "read leniently"))
    if header is None:
        raise SourceError(path.name, f"{path.name!r} has no header row; add one.")
    staged = stage_rows(con, path.stem, header, rows, origin=path.name, row_labels=labels)
    staged.problems[:0] = problems
    if blank:
        staged.problems.append(Problem("", f"{blank} blank line(s)", "skipped"))
    return staged


def _python_records(
    text_path: Path, dialect: Dialect, *, strict: bool
) -> tuple[list[str] | None, list[list[str]], list[str], int]:
    """(header, rows, a "line <n>" label per row, blank lines)."""
    header: list[str] | None = None
    rows: list[list[str]] = []
    labels: list[str] = []
    blank = 0
    with text_path.open(encoding="utf-8", newline="") as handle:
        reader = dialect.reader(handle, strict=strict)
        for record in reader:
            if not record:
                blank += 1
            elif header is None:
                header = record
            else:
                rows.append(record)
                labels.append(f"line {reader.line_num}")
    return header, rows, labels, blank


def _unquoted_records(
    text_path: Path, dialect: Dialect
) -> tuple[list[str] | None, list[list[str]], list[str], int] | None:
    """The records read with quoting off, when the file never quotes a field and every row then
    has the header's field count (a lone ``"`` in a file that does not use quoting)."""
    records = _python_records(text_path, replace(dialect, quoting=False), strict=True)
    header, rows = records[0], records[1]
    if header is None or any(len(row) != len(header) for row in rows):
        return None
    quoted = any(len(f) > 1 and f[0] == f[-1] == '"' for row in [header, *rows] for f in row)
    return None if quoted else records


def _count_records(text_path: Path, dialect: Dialect) -> tuple[int, int]:
    """(non-blank records after the header, blank lines) as Python's csv module reads them."""
    records = blank = 0
    with text_path.open(encoding="utf-8", newline="") as handle:
        try:
            for record in dialect.reader(handle):
                if record:
                    records += 1
                else:
                    blank += 1
        except csv.Error:
            return -1, blank
    return max(records - 1, 0), blank


def _scan(path: Path) -> tuple[int, bool]:
    """(number of lines, whether a backslash-escaped quote occurs), streaming the file."""
    newlines = returns = 0
    backslash_quote = False
    last = b""
    with path.open("rb", buffering=0) as handle:
        while chunk := handle.read(_SCAN_BYTES):
            newlines += _count_byte(chunk, 10)
            if newlines == 0:
                returns += _count_byte(chunk, 13)
            if not backslash_quote and (b"\\" in chunk or last[-1:] == b"\\"):
                backslash_quote = b'\\"' in chunk or (last[-1:] == b"\\" and chunk[:1] == b'"')
            last = chunk
    if newlines == 0 and returns:  # classic Mac line ends
        return returns + (0 if last.endswith(b"\r") else 1), backslash_quote
    return newlines + (1 if last and not last.endswith(b"\n") else 0), backslash_quote


def _count_byte(data: bytes, byte: int) -> int:
    """How many times ``byte`` occurs in ``data`` (numpy's SIMD loops: ``bytes.count`` takes
    several instructions per byte, and the scan reads the whole file).

    Example:
        >>> _count_byte(b"a\\nb\\n\\n", 10)
        3
    """
    return int(np.count_nonzero(np.frombuffer(data, dtype=np.uint8) == byte))


def _header_width(text_path: Path, dialect: Dialect) -> int:
    """Fields of the first record (the header), read whole however long it is."""
    with text_path.open(encoding="utf-8", errors="replace", newline="") as handle:
        try:
            for record in dialect.reader(handle):
                if record:
                    return len(record)
        except csv.Error:
            return 0  # the readers report the quoting in their own words
    return 0


def _head(path: Path) -> str:
    with path.open("rb") as handle:
        data = handle.read(_HEAD_BYTES)
    text = data.decode("utf-8", errors="ignore")
    if len(data) == _HEAD_BYTES and "\n" in text:
        text = text[: text.rindex("\n") + 1]
    return text


def _non_empty(path: Path) -> Path:
    try:
        size = path.stat().st_size
    except OSError as exc:
        raise SourceError(
            path.name,
            f"Cannot read {str(path)!r} ({exc.strerror}); check the path and its permissions.",
        ) from exc
    if size == 0:
        raise SourceError(path.name, f"{path.name!r} is empty; export the table again.")
    return path


def _count(con: duckdb.DuckDBPyConnection, sql: str) -> int:
    row = con.execute(sql).fetchone()
    assert row is not None
    return int(row[0])


def _literal(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def _first_line(exc: BaseException) -> str:
    return str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
