"""Excel workbooks (.xlsx, .xlsm): every non-empty sheet becomes one staged table.

Spreadsheets made for people carry decoration: title rows above the header, header cells merged
across columns (``2026`` over ``Q1 | Q2``), cells merged down the data, formulas. The header is
the first row wide enough to be one; merged header cells are repeated across their columns or
joined with the row below (``2026 / Q1``); merged data cells repeat their value. Formulas give
their cached value; a formula with none is stored as NULL and reported. Dates stay dates.
"""

from __future__ import annotations

import datetime as dt
import math
import zipfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import duckdb
import openpyxl
from openpyxl.utils.exceptions import InvalidFileException

from tablerag.errors import SourceError
from tablerag.ingest.tables.rows import stage_rows
from tablerag.store.staging import StagedTable
from tablerag.types import Problem

_READ_ONLY_BYTES = 20 * 1024 * 1024  # bigger workbooks are streamed (merged cells unknown)
_HEADER_SEARCH_ROWS = 20
Grid = list[list[str | None]]


@dataclass
class _Sheet:
    """One worksheet as strings, with its merged ranges (0-based, inclusive)."""

    title: str
    grid: Grid
    merged: list[tuple[int, int, int, int]] = field(default_factory=list)
    no_cache: list[str] = field(default_factory=list)


def read_excel(path: Path, con: duckdb.DuckDBPyConnection) -> list[StagedTable]:
    """Read every sheet of an .xlsx/.xlsm workbook into staged tables.

    Tables are named after the sheet when the workbook has several sheets, otherwise after the
    file. Empty sheets are skipped and reported on the first table.

    Raises:
        SourceError: the file is not a readable workbook, or every sheet is empty.
    """
    sheets = _load(path)
    staged: list[StagedTable] = []
    skipped: list[Problem] = []
    for sheet in sheets:
        name = sheet.title if len(sheets) > 1 else path.stem
        table = _stage_sheet(con, sheet, name)
        if table is None:
            skipped.append(Problem(f"sheet {sheet.title!r}", "the sheet is empty", "skipped"))
        else:
            staged.append(table)
    if not staged:
        raise SourceError(
            path.name,
            f"Every sheet of {path.name!r} is empty; put a table with a header row on a sheet.",
        )
    staged[0].problems[:0] = skipped
    return staged


def _load(path: Path) -> list[_Sheet]:
    read_only = path.stat().st_size > _READ_ONLY_BYTES
    try:
        values = openpyxl.load_workbook(path, data_only=True, read_only=read_only)
        formulas = openpyxl.load_workbook(path, data_only=False, read_only=True)
    except (InvalidFileException, zipfile.BadZipFile, KeyError, OSError, ValueError) as exc:
        raise SourceError(
            path.name,
            f"{path.name!r} is not a readable Excel workbook ({exc}); save it again as .xlsx.",
        ) from exc
    try:
        sheets = []
        for ws in values.worksheets:
            grid = [[_text(v) for v in row] for row in ws.iter_rows(values_only=True)]
            merged = (
                []
                if read_only
                else [
                    (r.min_row - 1, r.min_col - 1, r.max_row - 1, r.max_col - 1)
                    for r in ws.merged_cells.ranges
                ]
            )
            no_cache = _formulas_without_cache(formulas[ws.title], grid)
            sheets.append(_Sheet(ws.title, grid, merged, no_cache))
        return sheets
    finally:
        values.close()
        formulas.close()


def _formulas_without_cache(ws: Any, grid: Grid) -> list[str]:
    """Cells holding a formula whose cached value is missing (never computed by Excel)."""
    out = []
    for r, row in enumerate(ws.iter_rows(values_only=True)):
        for c, value in enumerate(row):
            if (
                isinstance(value, str)
                and value.startswith("=")
                and (r >= len(grid) or c >= len(grid[r]) or grid[r][c] is None)
            ):
                out.append(f"{openpyxl.utils.get_column_letter(c + 1)}{r + 1}")
    return out


def _stage_sheet(con: duckdb.DuckDBPyConnection, sheet: _Sheet, name: str) -> StagedTable | None:
    grid = sheet.grid
    _fill_merged(grid, sheet.merged)
    cols = [
        c
        for c in range(max((len(r) for r in grid), default=0))
        if any(c < len(r) and r[c] is not None for r in grid)
    ]
    if not cols:
        return None
    first, last = cols[0], cols[-1]
    grid = [(row + [None] * (last + 1 - len(row)))[first : last + 1] for row in grid]
    merged = [(r0, c0 - first, r1, c1 - first) for r0, c0, r1, c1 in sheet.merged]
    problems: list[Problem] = []
    header_at = _header_row(grid, merged)
    header, data_at = _header(grid, merged, header_at)
    if header_at > 0:
        titles = [v for row in grid[:header_at] for v in row if v]
        shown = f": {titles[0]!r}" if titles else ""
        problems.append(Problem(f"rows 1-{header_at}", f"rows above the header{shown}", "skipped"))
    if data_at == header_at + 2:
        problems.append(
            Problem(
                f"rows {header_at + 1}-{header_at + 2}",
                "the header spans two rows (merged cells)",
                "joined as 'upper / lower'",
            )
        )
    rows, labels, gaps, blank = [], [], [], 0
    for number, row in enumerate(grid[data_at:], start=data_at + 1):
        if all(v is None for v in row):
            blank += 1
            continue
        rows.append(row)
        labels.append(f"row {number}")
        gaps.append(blank)  # blank rows seen before this one
    blank_at = len(problems)
    data_merges = sum(1 for r0, *_ in merged if r0 >= data_at)
    if data_merges:
        problems.append(
            Problem(
                "",
                f"{data_merges} merged cell range(s) in the data",
                "the value repeated in every merged cell",
            )
        )
    if sheet.no_cache:
        shown = ", ".join(sheet.no_cache[:5]) + (" ..." if len(sheet.no_cache) > 5 else "")
        problems.append(
            Problem(
                shown,
                f"{len(sheet.no_cache)} formula cell(s) have no cached "
                "value (the file was not saved by Excel)",
                "stored as NULL; open and save the workbook in Excel to compute them",
            )
        )
    staged = stage_rows(con, name, header, rows, origin=f"sheet {sheet.title!r}", row_labels=labels)
    # blank rows after the last row of data (before the notes under it, or at the end) are not
    # inside the table
    last = len(rows) - 1 - len(staged.notes)  # one note a row; the rows hold no blank row
    inside = gaps[last] if last >= 0 else 0
    if inside:
        problems.insert(blank_at, Problem("", f"{inside} blank row(s) inside the table", "skipped"))
    staged.problems[:0] = problems
    return staged


def _fill_merged(grid: Grid, merged: Sequence[tuple[int, int, int, int]]) -> None:
    """Repeat each merged range's value in all of its cells."""
    for r0, c0, r1, c1 in merged:
        if r0 >= len(grid) or c0 >= len(grid[r0]):
            continue
        value = grid[r0][c0]
        for r in range(r0, min(r1 + 1, len(grid))):
            row = grid[r]
            row.extend([None] * (c1 + 1 - len(row)))
            for c in range(c0, c1 + 1):
                row[c] = value


def _header_row(grid: Grid, merged: Sequence[tuple[int, int, int, int]]) -> int:
    """The first row with enough cells of its own (a merged title counts once) to be a header."""
    width = len(grid[0]) if grid else 0
    needed = min(width, max(2, math.ceil(width / 2)))
    covered = {
        (r, c)
        for r0, c0, r1, c1 in merged
        for r in range(r0, r1 + 1)
        for c in range(c0, c1 + 1)
        if (r, c) != (r0, c0)
    }
    for index, row in enumerate(grid[:_HEADER_SEARCH_ROWS]):
        own = sum(1 for c, v in enumerate(row) if v is not None and (index, c) not in covered)
        if own >= needed:
            return index
    return next((i for i, row in enumerate(grid) if any(v is not None for v in row)), 0)


def _header(
    grid: Grid, merged: Sequence[tuple[int, int, int, int]], at: int
) -> tuple[list[str], int]:
    """The header texts and the index of the first data row (one or two header rows)."""
    top = [v or "" for v in grid[at]]
    groups = [(c0, c1) for r0, c0, r1, c1 in merged if r0 == at and r1 == at and c1 > c0]
    below = grid[at + 1] if at + 1 < len(grid) else None
    if (
        not groups
        or below is None
        or not all(
            below[c] is not None and not _is_number(below[c])
            for c0, c1 in groups
            for c in range(c0, c1 + 1)
        )
    ):
        return top, at + 1
    tall = {c for r0, c0, r1, c1 in merged if r0 == at and r1 > at for c in range(c0, c1 + 1)}
    header = []
    for c, upper in enumerate(top):
        lower = "" if c in tall else (below[c] or "")
        header.append(" / ".join(part for part in (upper, lower) if part))
    return header, at + 2


def _is_number(text: str | None) -> bool:
    try:
        float(text or "")
    except ValueError:
        return False
    return True


def _text(value: object) -> str | None:
    """A cell value as the text type inference reads (dates ISO, whole floats without .0)."""
    if value is None or value == "":
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        if value.is_integer() and abs(value) < 1e15:
            return str(int(value))
        return repr(value)
    if isinstance(value, dt.datetime):
        if value.time() == dt.time(0):
            return value.date().isoformat()
        return value.isoformat(sep=" ")
    if isinstance(value, dt.date | dt.time):
        return value.isoformat()
    return str(value)
