"""Results to take away: ``--csv FILE`` and ``--xlsx FILE`` on ``ask`` and ``sql``.

The rows written are the rows shown (masked by the engine, within its row cap). A file is
written whole or not at all: into a temporary file beside it, then renamed. Text that a
spreadsheet would run as a formula (``=``, ``+``, ``-``, ``@`` first) stays text: an
apostrophe before it in CSV, a string cell in XLSX.
"""

from __future__ import annotations

import csv
import datetime as dt
import decimal
import os
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Annotated, Any

import typer

from tablerag.cli._common import err_console, shown
from tablerag.errors import ConfigError

CsvOpt = Annotated[
    Path | None,
    typer.Option(
        "--csv", help="Also write the result rows to this CSV file (UTF-8).", dir_okay=False
    ),
]
XlsxOpt = Annotated[
    Path | None,
    typer.Option("--xlsx", help="Also write the result rows to this Excel file.", dir_okay=False),
]
_FORMULA_LEADS = ("=", "+", "-", "@", "\t", "\r")
_Writer = Callable[[Path, Sequence[str], Sequence[Sequence[Any]]], None]
XLSX_MAX_ROWS = 1_048_575
"""Rows an Excel sheet holds below its header row."""


def save_result(
    columns: Sequence[str],
    rows: Sequence[Sequence[Any]],
    *,
    csv_path: Path | None = None,
    xlsx_path: Path | None = None,
) -> list[Path]:
    """Write the result to the files asked for; the paths written.

    Raises:
        ConfigError: a file could not be written (the reason and what to do).
    """
    writers: list[tuple[Path | None, _Writer]] = [(csv_path, _write_csv), (xlsx_path, _write_xlsx)]
    written: list[Path] = []
    for path, write in writers:
        if path is not None:
            _atomically(path, write, columns, rows)
            written.append(path)
    return written


def save_or_exit(
    columns: Sequence[str],
    rows: Sequence[Sequence[Any]],
    *,
    truncated: bool,
    csv_path: Path | None,
    xlsx_path: Path | None,
) -> None:
    """Write the rows to the files asked for and say so on standard error.

    Raises:
        typer.Exit: code 1 when a file could not be written (the reason printed).
    """
    try:
        written = save_result(columns, rows, csv_path=csv_path, xlsx_path=xlsx_path)
    except ConfigError as exc:
        err_console.print(f"[bold red]error:[/] {shown(exc)}", highlight=False)
        raise typer.Exit(1) from exc
    cut = " (cut at the row cap)" if truncated else ""
    for path in written:
        err_console.print(f"saved {len(rows):,} rows{cut} to {shown(path)}", highlight=False)


def as_text(value: Any) -> Any:
    """A cell as a spreadsheet should keep it: formula-looking text behind an apostrophe.

    Example:
        >>> as_text("=HYPERLINK(\\"http://x\\")"), as_text(-3), as_text("-3 元"), as_text("East")
        ('\\'=HYPERLINK("http://x")', -3, "'-3 元", 'East')
    """
    if isinstance(value, str) and value.startswith(_FORMULA_LEADS):
        return "'" + value
    return value


def _write_csv(path: Path, columns: Sequence[str], rows: Sequence[Sequence[Any]]) -> None:
    with path.open("w", encoding="utf-8", newline="") as out:
        writer = csv.writer(out)
        writer.writerow([as_text(c) for c in columns])
        writer.writerows([as_text(v) for v in row] for row in rows)


def _write_xlsx(path: Path, columns: Sequence[str], rows: Sequence[Sequence[Any]]) -> None:
    from openpyxl import Workbook  # imported on use: `tablerag --help` stays light

    if len(rows) > XLSX_MAX_ROWS:
        raise ConfigError(
            f"{len(rows):,} rows do not fit one Excel sheet ({XLSX_MAX_ROWS:,}); use --csv."
        )
    book = Workbook(write_only=True)
    sheet = book.create_sheet("result")
    sheet.append([_cell(sheet, c) for c in columns])
    for row in rows:
        sheet.append([_cell(sheet, v) for v in row])
    book.save(path)


def _cell(sheet: Any, value: Any) -> Any:
    """A cell whose text is never read as a formula, and whose numbers stay numbers."""
    from openpyxl.cell import WriteOnlyCell
    from openpyxl.utils.exceptions import IllegalCharacterError

    if value is None or isinstance(
        value, bool | int | float | decimal.Decimal | dt.date | dt.datetime | dt.time
    ):
        return WriteOnlyCell(sheet, value=value)
    cell = WriteOnlyCell(sheet, value=None)
    text = str(value)
    try:
        cell.value = text
    except IllegalCharacterError:  # control characters Excel cannot hold
        cell.value = "".join(ch for ch in text if ch.isprintable() or ch in "\t\n")
    cell.data_type = "s"  # openpyxl would store "=..." as a formula
    return cell


def _atomically(
    path: Path, write: _Writer, columns: Sequence[str], rows: Sequence[Sequence[Any]]
) -> None:
    folder = path.parent if str(path.parent) else Path(".")
    try:
        fd, name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".part", dir=folder)
    except OSError as exc:
        raise ConfigError(
            f"Cannot write {str(path)!r}: {exc.strerror or exc}; choose a folder you can write to."
        ) from exc
    os.close(fd)
    tmp = Path(name)
    try:
        write(tmp, columns, rows)
        os.replace(tmp, path)
    except OSError as exc:
        raise ConfigError(
            f"Cannot write {str(path)!r}: {exc.strerror or exc}; free some space or choose "
            "another path."
        ) from exc
    finally:
        tmp.unlink(missing_ok=True)
