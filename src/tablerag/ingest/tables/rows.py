"""Stage rows of strings held in Python (tables from documents, sheets, repaired CSVs).

Shared cleaning for every reader: headers become unique, non-empty SQL names (each rename is
reported), short rows are padded with NULL, long rows keep their extra fields in ``extra_<n>``
columns, and empty cells become NULL. Nothing is dropped without a line in the report.
"""

from __future__ import annotations

import tempfile
import uuid
from collections.abc import Sequence
from pathlib import Path

import duckdb

from tablerag.ingest import limits
from tablerag.ingest.store import sanitize_column_name, sanitize_column_names
from tablerag.ingest.tables.notes import drop_notes
from tablerag.ingest.tables.totals import drop_totals
from tablerag.store.staging import STAGE_PREFIX, StagedTable
from tablerag.types import Problem

Row = Sequence[str | None]
_LISTED = 5


def stage_rows(
    con: duckdb.DuckDBPyConnection,
    name: str,
    header: Sequence[str],
    rows: Sequence[Row],
    *,
    origin: str = "",
    page: int | None = None,
    row_labels: Sequence[str] | None = None,
) -> StagedTable:
    """Stage a table given as a header and rows of strings (all VARCHAR, types come later).

    Args:
        con: the DuckDB connection the store will use.
        name: the suggested table name.
        header: the header cells.
        rows: the data rows; cells may be None; rows may be shorter or longer than the header.
        origin: where the table was found (``"sheet 'Q1'"``, ``"table 2"``...).
        page: the page the table was found on, if any.
        row_labels: how to name each row in the report (``"line 7"``); default ``"row <n>"``.

    Notes under the table (``注：…``, ``Source: …``, see :mod:`.notes`) are left out of the rows
    and kept as the table's ``notes``; totals and subtotal rows (``合计``, ``Total``..., see
    :mod:`.totals`) are left out; both are reported; ``rows_read`` counts the rows kept.

    Returns:
        The staged table, with every rename, padding, extra column and totals row reported.
    """
    where = f"{origin or name}"
    limits.check_columns(name, len(header), where)
    labels = row_labels or [f"row {n}" for n in range(1, len(rows) + 1)]
    rows, labels, problems, notes = drop_notes(rows, labels)
    rows, labels, totals = drop_totals(rows, labels)
    problems += totals
    fitted, originals = fit_rows(header, rows, labels, problems)
    limits.check_columns(name, len(originals), where)
    names, renames = clean_header(originals)
    problems += renames
    if not rows:
        problems.append(
            Problem("", "the table has a header but no data rows", "stored as an empty table")
        )
    relation = new_relation_name()
    load_rows(con, relation, names, fitted)
    return StagedTable(
        name=name,
        relation=relation,
        originals=tuple(originals),
        rows_read=len(rows),
        origin=origin,
        page=page,
        problems=problems,
        notes=notes,
    )


def clean_header(header: Sequence[str]) -> tuple[list[str], list[Problem]]:
    """SQL names for a header, and a problem for every empty or repeated header cell.

    Example:
        >>> names, problems = clean_header(["id", "", "amount", "Amount"])
        >>> names
        ['id', 'col_2', 'amount', 'amount_2']
        >>> [p.line() for p in problems]  # doctest: +NORMALIZE_WHITESPACE
        ["column 2: the header cell is empty (named 'col_2')",
         "column 4: the header 'Amount' repeats an earlier one (named 'amount_2')"]
    """
    names = sanitize_column_names(header)
    alone = [sanitize_column_name(text, n) for n, text in enumerate(header, 1)]
    problems = []
    for position, (text, name, single) in enumerate(zip(header, names, alone, strict=True), 1):
        if not text.strip():
            problems.append(
                Problem(f"column {position}", "the header cell is empty", f"named {name!r}")
            )
        elif name != single:
            problems.append(
                Problem(
                    f"column {position}",
                    f"the header {text!r} repeats an earlier one",
                    f"named {name!r}",
                )
            )
    return names, problems


def fit_rows(
    header: Sequence[str],
    rows: Sequence[Row],
    labels: Sequence[str],
    problems: list[Problem],
) -> tuple[list[list[str | None]], list[str]]:
    """Make every row as wide as the header (plus ``extra_<n>`` columns for long rows).

    Empty strings become None. Trailing empty fields past the header are not data and are
    dropped, with one problem saying how many rows had them.

    Returns:
        The rows, all of one width, and the header extended with the extra columns.

    Example:
        >>> problems = []
        >>> fit_rows(["a", "b"], [["1"], ["2", "3", "4"], ["5", "", ""]], ["r1", "r2", "r3"],
        ...          problems)
        ([['1', None, None], ['2', '3', '4'], ['5', None, None]], ['a', 'b', 'extra_1'])
        >>> [p.line() for p in problems]  # doctest: +NORMALIZE_WHITESPACE
        ['r1: 1 row(s) have fewer fields than the header (2) (padded with NULL)',
         'r2: 1 row(s) have more fields than the header (2) (kept in extra columns extra_1)',
         'r3: 1 row(s) end with empty fields past the header (2) (empty fields ignored)']
    """
    width = len(header)
    short, long, trailing = [], [], []
    cleaned: list[list[str | None]] = []
    for label, row in zip(labels, rows, strict=True):
        cells: list[str | None] = [None if cell is None or cell == "" else cell for cell in row]
        if len(cells) > width:
            while len(cells) > width and cells[-1] is None:
                cells.pop()
            if len(cells) == width:
                trailing.append(label)
        if len(cells) < width:
            short.append(label)
        elif len(cells) > width:
            long.append(label)
        cleaned.append(cells)
    extra = max((len(cells) - width for cells in cleaned), default=0)
    total = width + max(extra, 0)
    fitted = [cells + [None] * (total - len(cells)) for cells in cleaned]
    originals = list(header) + [f"extra_{n}" for n in range(1, extra + 1)]
    if short:
        problems.append(
            _rows_problem(short, f"have fewer fields than the header ({width})", "padded with NULL")
        )
    if long:
        names = ", ".join(originals[width:])
        problems.append(
            _rows_problem(
                long,
                f"have more fields than the header ({width})",
                f"kept in extra columns {names}",
            )
        )
    if trailing:
        problems.append(
            _rows_problem(
                trailing, f"end with empty fields past the header ({width})", "empty fields ignored"
            )
        )
    return fitted, originals


def load_rows(
    con: duckdb.DuckDBPyConnection,
    relation: str,
    names: Sequence[str],
    rows: Sequence[Sequence[str | None]],
) -> None:
    """Create the temp table ``relation`` with VARCHAR columns ``names`` holding ``rows``.

    The rows go through a temporary RFC 4180 file that DuckDB reads back exactly (None is
    written unquoted and read as NULL; every string is quoted), far faster than row inserts.
    """
    columns = "{" + ", ".join(f"{_literal(n)}: 'VARCHAR'" for n in names) + "}"
    with tempfile.TemporaryDirectory(prefix="tablerag-") as folder:
        path = Path(folder) / "rows.csv"
        with path.open("w", encoding="utf-8", newline="") as handle:
            for row in rows:
                handle.write(
                    ",".join(
                        "" if cell is None else '"' + cell.replace('"', '""') + '"' for cell in row
                    )
                    + "\n"
                )
        con.execute(
            f"CREATE TEMP TABLE {quote_name(relation)} AS SELECT * FROM read_csv(?, "
            f"columns={columns}, header=false, delim=',', quote='\"', escape='\"', "
            "auto_detect=false, strict_mode=true, allow_quoted_nulls=false, "
            "new_line='\\n', parallel=false)",
            [str(path)],
        )


def new_relation_name() -> str:
    """A fresh name for a staging table."""
    return f"{STAGE_PREFIX}{uuid.uuid4().hex[:16]}"


def quote_name(name: str) -> str:
    """A quoted SQL identifier."""
    return '"' + name.replace('"', '""') + '"'


def _literal(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def _rows_problem(labels: Sequence[str], what: str, action: str) -> Problem:
    shown = ", ".join(labels[:_LISTED])
    more = f" and {len(labels) - _LISTED} more" if len(labels) > _LISTED else ""
    return Problem(f"{shown}{more}", f"{len(labels)} row(s) {what}", action)
