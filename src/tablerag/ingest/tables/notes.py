"""Notes under a table: found in a table's last rows, kept with the table, not as its rows.

A sheet or CSV made for people often ends with a line of text under the data: ``注：早鸟九折为
开课前30天以上报名的优惠价``, ``Source: NBS``, ``* excludes refunds``. Stored as a data row it
is counted by every ``COUNT(*)`` (issue 29: "报名记录表里一共有多少条报名？" answered 161 instead
of 160). Such rows are left out of the SQL table, and their text is kept as the table's
description (the schema the model reads, ``tablerag schema``, the table's card in the text
index) and named in the ingest report: nothing is dropped silently.

The rule is read from the table's own shape, not from a list of words. Walking up from the last
row, a row is a note while

* the table has two columns or more, and at least half of the rows above it fill two cells or
  more (a one-cell row is unusual in this table);
* the row fills exactly one cell, and that cell is not a number or a date;
* the text does not fit its column, measured in display width (a Chinese character counts two)
  against the values the column holds in the rows above: it is more than twice as wide as the
  widest of them and at least :data:`MIN_WIDTH` wide; or, when its column holds no text above
  (only numbers and dates), wider than every value there and at least :data:`MIN_WIDTH` wide;
  or, when it opens with a note marker (``注：``, ``Source:``, ``*``, from ``lang/notes.json``),
  wider than every value there.

Empty rows between the data and its notes go with the notes (a blank line of a CSV that some
writers spell ``,,,``). At most :data:`MAX_NOTES` rows are taken.

Why these signals: the row's sparseness is what a note and a last data row with missing values
share, so it alone decides nothing; what tells them apart is the filled cell against its column.
A last row holding only an id (``E0161`` under ``E0001``…``E0160``) has the width and shape of
the ids above and stays data, whether or not a blank row precedes it. A blank row before the
candidate is not a signal: DuckDB's CSV reader skips blank lines, and the same file must be
read the same way by every reader; a note written directly under the data is found all the
same. The marker words only lower the bar for a note whose text is short; with no marker a
note is still found by its width.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

from tablerag.ingest import infer
from tablerag.lang.notes import MARKER
from tablerag.types import Problem

Row = Sequence[str | None]

MIN_WIDTH = 8
"""The narrowest note found by its width alone (four Chinese characters, eight Latin ones)."""
MAX_NOTES = 10
"""More one-cell rows than this at the end are the table's own rows, not notes."""
NOTES_ACTION = "kept as the table's note, not as a row"


@dataclass(frozen=True)
class NoteRow:
    """One row found to be a note under the table."""

    index: int
    """Position in the rows given (0-based)."""
    text: str
    """The note's text, stripped; ``""`` for an empty row between the data and its notes."""


def find_notes(rows: Sequence[Row]) -> list[NoteRow]:
    """The note rows (and the empty rows between them and the data) that end ``rows``, in order.

    Args:
        rows: the data rows, header excluded; cells may be None; rows may be ragged.

    Returns:
        The rows to keep out of the table, in order; none when the last row is data.

    Example:
        >>> rows = [["E001", "张三", "3000"], ["E002", "李四", "4000"], [None, None, None],
        ...         ["注：金额单位为元，含税。", None, None]]
        >>> [(n.index, n.text) for n in find_notes(rows)]
        [(2, ''), (3, '注：金额单位为元，含税。')]
        >>> find_notes(rows[:2] + [["E003", None, None]])  # an id alone: a row with gaps
        []
        >>> [n.text for n in find_notes(rows[:2] + [["Prices include VAT", "", ""]])]
        ['Prices include VAT']
        >>> find_notes([["a", None], ["b", None], ["a long sentence here", None]])  # sparse
        []
    """
    width = max((len(r) for r in rows), default=0)
    if width < 2:
        return []
    # the run of rows of one cell (or none) that ends the table; its cells are measured
    # against the rows above it, so one note does not widen the column for the next
    start, sparse = len(rows), 0
    while start > 0 and len(filled := _filled(rows[start - 1])) <= 1:
        sparse += len(filled)
        if sparse > MAX_NOTES:
            break
        start -= 1
    above = _Above(rows[:start])
    found: list[NoteRow] = []
    empty: list[NoteRow] = []
    for i in range(len(rows) - 1, start - 1, -1):
        filled = _filled(rows[i])
        if not filled:
            empty.append(NoteRow(i, ""))
        elif above.is_note(*filled[0]):
            found.append(NoteRow(i, filled[0][1]))
        else:
            break
    if not found:
        return []
    return sorted(found + empty, key=lambda n: n.index)


def drop_notes(
    rows: Sequence[Row], labels: Sequence[str]
) -> tuple[list[Row], list[str], list[Problem], list[str]]:
    """``rows`` without the notes under them, the labels of the rows kept, one report line per
    note row, and the notes' texts in order.

    Example:
        >>> kept, names, problems, notes = drop_notes(
        ...     [["a1", "1"], ["a2", "2"], ["Source: the 2026 census of all districts", None]],
        ...     ["row 2", "row 3", "row 4"])
        >>> names, notes
        (['row 2', 'row 3'], ['Source: the 2026 census of all districts'])
        >>> [p.line() for p in problems]  # doctest: +NORMALIZE_WHITESPACE
        ["row 4: 1 note row under the table: 'Source: the 2026 census of all districts'
        (kept as the table's note, not as a row)"]
    """
    found = find_notes(rows)
    if not found:
        return list(rows), list(labels), [], []
    out = {n.index for n in found}
    kept = [r for i, r in enumerate(rows) if i not in out]
    kept_labels = [label for i, label in enumerate(labels) if i not in out]
    return kept, kept_labels, [report(found, labels)], [n.text for n in found if n.text]


def report(found: Sequence[NoteRow], labels: Sequence[str]) -> Problem:
    """The report line for the notes ``found`` (``labels``: how each row is named).

    Example:
        >>> line = report([NoteRow(5, ""), NoteRow(6, "注：含税")], [f"row {n}" for n in range(8)])
        >>> line.where, line.what, line.is_note
        ('row 6', "1 note row under the table: '注：含税' (1 empty row before it)", True)
    """
    texts = [n for n in found if n.text]
    where = ", ".join(labels[n.index] for n in texts)
    shown = "; ".join(repr(n.text) for n in texts)
    empty = len(found) - len(texts)
    before = f" ({empty} empty row{'s' if empty > 1 else ''} before it)" if empty else ""
    count = f"{len(texts)} note row{'s' if len(texts) > 1 else ''}"
    return Problem(where, f"{count} under the table: {shown}{before}", NOTES_ACTION, is_note=True)


def maybe_note(row: Row) -> bool:
    """A cheap first test for a last row that may be a note: one filled cell, not a number.

    Example:
        >>> maybe_note(["注：含税", None, None]), maybe_note(["E001", "3000", None])
        (True, False)
    """
    filled = _filled(row)
    return len(filled) == 1 and infer.shape_of(filled[0][1]) is None


def display_width(text: str) -> int:
    """Columns ``text`` takes on screen: wide (Chinese, full-width) characters count two.

    Example:
        >>> display_width("注：含税"), display_width("E0161")
        (8, 5)
    """
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


class _Above:
    """The rows above the trailing one-cell rows, read once per column a candidate sits in."""

    def __init__(self, rows: Sequence[Row]) -> None:
        self.rows = rows
        wide = sum(1 for r in rows if len(_filled(r)) >= 2)
        self.usual = len(rows) >= 2 and 2 * wide >= len(rows)
        """Enough rows, most of them filling two cells or more: a one-cell row is unusual."""
        self._columns: dict[int, tuple[int, bool]] = {}

    def column(self, j: int) -> tuple[int, bool]:
        """(display width of the widest value of column ``j``, whether one of them is text)."""
        if j not in self._columns:
            values = [
                text
                for r in self.rows
                if j < len(r) and (cell := r[j]) is not None
                if (text := cell.strip(infer.WHITESPACE))
            ]
            widest = max((display_width(v) for v in values), default=0)
            self._columns[j] = (widest, any(infer.shape_of(v) is None for v in values))
        return self._columns[j]

    def is_note(self, column: int, text: str) -> bool:
        """Whether ``text``, alone in cell ``column`` below these rows, is a note."""
        if not self.usual or infer.shape_of(text) is not None:
            return False
        widest, has_text = self.column(column)
        width = display_width(text)
        if MARKER.match(text):
            return width > widest
        if not has_text:  # only numbers and dates in the column
            return width > widest and width >= MIN_WIDTH
        return width > 2 * widest and width >= MIN_WIDTH


def _filled(row: Row) -> list[tuple[int, str]]:
    """(position, stripped text) of the non-empty cells of ``row``."""
    return [
        (j, text)
        for j, cell in enumerate(row)
        if cell is not None and (text := cell.strip(infer.WHITESPACE))
    ]
