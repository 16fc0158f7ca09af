"""Totals and subtotal rows: found in a table's rows, kept out of the stored table, reported.

A sheet made for people often ends with a ``合计`` / ``Total`` row (or opens with one, or closes
each group with a ``小计``). Stored as a data row it doubles every sum a question asks for
(issue 23: "员工的月薪总和是多少？" answered 140000 instead of 70000), so such rows are left out
of the SQL table and each one is reported with its row label. They are left out rather than
flagged in a column because no question over the table wants them: a flag column would have to
be filtered by every query the model writes, and one forgotten ``WHERE`` is the wrong answer
the issue is about; the report names the rows so the user can still find them in the file.

A row is a totals row when

* its label (the first non-empty cell, or its only text cell) is a totals word (``合计``,
  ``总计``, ``小计``, ``共计``, ``华东小计``, ``Total``, ``Subtotal``, ``Grand total``, ``Sum``,
  with an optional colon) and the row holds a number, and either it is among the first or last
  two rows, or one of its numbers equals the sum of the rows above it (since the previous totals
  row, or since the start); or
* it has no label, it is the last row, and at least two of its numbers (most of them, and not
  zero) equal the column sums of the rows above within rounding.

A column *named* ``total`` is not a totals row (only data rows are read), and a row whose first
cell merely contains a totals word (``Total Recall``) is not one either.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

from tablerag.ingest import infer
from tablerag.lang.totals import LABEL
from tablerag.types import Problem

Row = Sequence[str | None]

_EDGE_ROWS = 2
_MAX_LABELLED = 200
HINT = re.compile(r"计|計|总和|total|sum")
"""Every totals label holds one of these once lower-cased (``(?i)`` makes Python's search 3x
slower); RE2 reads the pattern alike."""
_PLAIN = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?")
_FRACTION = re.compile(r"\.(\d+)")


@dataclass(frozen=True)
class TotalRow:
    """One row found to be a totals row."""

    index: int
    """Position in the rows given (0-based)."""
    label: str
    """The totals word the row carries, or ``""`` for a row found by its sums alone."""
    reason: str
    """Why it was taken for one, as the report says it."""


def is_total_label(text: str | None) -> bool:
    """Whether a cell is a totals label (whole cell, spaces inside Chinese words ignored).

    Example:
        >>> [is_total_label(t) for t in ("合 计", "华东小计", "Grand Total:", "Career total")]
        [True, True, True, True]
        >>> is_total_label("Total Recall"), is_total_label("Summary")
        (False, False)
    """
    if not text:
        return False
    compact = text.strip(infer.WHITESPACE)
    if re.search(r"[\u4e00-\u9fff]", compact):
        compact = re.sub(r"[\s\u3000]+", "", compact)
    return LABEL.fullmatch(compact) is not None


def number(text: str | None) -> float | None:
    """The value of a numeric cell as type inference reads it (units, separators, ``(5)``).

    Example:
        >>> number("¥70,000.00"), number("(1,234)"), number("12.5%"), number("E001")
        (70000.0, -1234.0, 12.5, None)
    """
    if not text:
        return None
    if _PLAIN.fullmatch(text):  # the common case, without type inference
        return float(text)
    value = text.strip(infer.WHITESPACE)
    shape = infer.shape_of(value)
    if shape is None or shape.kind != "number":
        return None
    digits = re.sub(r"[^0-9.]", "", value)
    if not digits or digits == ".":
        return None
    magnitude = float(digits)
    return -magnitude if "(" in value or value.lstrip().startswith("-") else magnitude


def find_totals(rows: Sequence[Row]) -> list[TotalRow]:
    """The totals rows among ``rows`` (data rows, header excluded), in order.

    Example:
        >>> rows = [["张三", "30000"], ["李四", "40000"], ["合计", "70000"]]
        >>> [(t.index, t.label) for t in find_totals(rows)]
        [(2, '合计')]
        >>> find_totals([["a", "1", "2"], ["b", "3", "4"], [None, "4", "6"]])[0].reason
        'its numbers are the sums of the rows above (2 columns)'
        >>> find_totals([["1", "2"], ["1", "3"], ["2", "5"]])  # plain numbers: no label column
        []
        >>> [t.reason for t in find_totals([["a", "1"], ["b", "2"], ["合计", None]])]
        ["a '合计' row at the end of the table, empty"]
        >>> edges = [["Total", "1"], ["x", "2"], ["y", "3"], ["z", "4"], ["Total", "5"]]
        >>> [t.index for t in find_totals(edges)]
        [0, 4]
    """
    n = len(rows)
    columns = _Columns(rows)
    candidates = [i for i, row in enumerate(rows) if HINT.search(_joined(row).lower())]
    if len(candidates) > _MAX_LABELLED:  # a column of category values, not totals rows
        candidates = [i for i in candidates if i < _EDGE_ROWS or i >= n - _EDGE_ROWS]
    # the block of labelled rows that ends the table counts as its end (Total per country,
    # then Career total)
    labelled = set(candidates)
    tail = n
    while tail > 0 and tail - 1 in labelled and _label(rows[tail - 1]) is not None:
        tail -= 1
    found: list[TotalRow] = []
    taken: set[int] = set()
    start = 0  # first data row of the current group
    for i in candidates:
        row = rows[i]
        label = _label(row)
        numbers = _numbers(row) if label is not None else {}
        if label is not None and not numbers and i == n - 1 and i > 0 and _only_label(row):
            # its sums are formulas without a cached value (a file no spreadsheet saved)
            found.append(TotalRow(i, label, f"a {label!r} row at the end of the table, empty"))
            continue
        if label is None or not numbers:
            continue
        group = [k for k in range(start, i) if k not in taken]
        above = [k for k in range(i) if k not in taken]
        if columns.matching(numbers, group, row, least=1) or columns.matching(
            numbers, above, row, least=1
        ):
            reason = f"a {label!r} row whose numbers are sums of the rows above"
        elif i < _EDGE_ROWS or i >= min(n - _EDGE_ROWS, tail):
            reason = f"a {label!r} row at the {'top' if i < _EDGE_ROWS else 'end'} of the table"
        else:
            continue
        found.append(TotalRow(i, label, reason))
        taken.add(i)
        start = i + 1
    last = rows[-1] if n >= 3 and n - 1 not in taken else None
    if last is not None and maybe_unlabelled_total(last):
        numbers = _numbers(last)
        above = [k for k in range(n - 1) if k not in taken]
        hits = columns.matching(numbers, above, last, least=2)
        if len(hits) >= 2 and 2 * len(hits) > len(numbers) and columns.blank_label(last, above):
            reason = f"its numbers are the sums of the rows above ({len(hits)} columns)"
            found.append(TotalRow(n - 1, "", reason))
    return found


def drop_totals(
    rows: Sequence[Row], labels: Sequence[str]
) -> tuple[list[Row], list[str], list[Problem]]:
    """``rows`` without their totals rows, the labels of the rows kept, and one problem per row
    left out.

    Example:
        >>> kept, names, problems = drop_totals([["a", "1"], ["b", "2"], ["合计", "3"]],
        ...                                     ["row 2", "row 3", "row 4"])
        >>> names, [p.line() for p in problems]  # doctest: +NORMALIZE_WHITESPACE
        (['row 2', 'row 3'], ["row 4: a totals row: a '合计' row whose numbers are sums of the
        rows above (kept out of the table; sum the rows instead)"])
    """
    totals = find_totals(rows)
    if not totals:
        return list(rows), list(labels), []
    out = {t.index for t in totals}
    problems = [
        Problem(labels[t.index], f"a totals row: {t.reason}", TOTALS_ACTION) for t in totals
    ]
    kept = [r for i, r in enumerate(rows) if i not in out]
    kept_labels = [label for i, label in enumerate(labels) if i not in out]
    return kept, kept_labels, problems


TOTALS_ACTION = "kept out of the table; sum the rows instead"


def edge_label(row: Row) -> str | None:
    """The totals word of a row that also holds a number (enough at a table's edge), or None.

    Example:
        >>> edge_label(["Total", None, "12"]), edge_label(["Total", None, None])
        ('Total', None)
    """
    label = _label(row)
    return label if label is not None and _numbers(row) else None


def _label(row: Row) -> str | None:
    """The totals word of a row: its first non-empty cell, or its only non-numeric cell."""
    cells = [c for c in row if c is not None and c.strip(infer.WHITESPACE)]
    if not cells:
        return None
    texts = [c for c in cells if number(c) is None]
    candidates = [cells[0]] + (texts if len(texts) == 1 else [])
    for cell in candidates:
        if is_total_label(cell):
            return cell.strip(infer.WHITESPACE)
    return None


def _only_label(row: Row) -> bool:
    return sum(1 for c in row if _kind(c) != _EMPTY) == 1


def _joined(row: Row) -> str:
    return "\x1f".join([c for c in row if c])


def maybe_unlabelled_total(row: Row) -> bool:
    """A cheap first test for a last row of sums: two numbers or more, an empty cell, no text."""
    kinds = [_kind(c) for c in row]
    return kinds.count(_NUMBER) >= 2 and _EMPTY in kinds and _TEXT not in kinds


def _numbers(row: Row) -> dict[int, float]:
    return {j: v for j, c in enumerate(row) if (v := number(c)) is not None}


_EMPTY, _NUMBER, _TEXT = 0, 1, 2


def _kind(cell: str | None) -> int:
    if not cell or not cell.strip(infer.WHITESPACE):
        return _EMPTY
    return _NUMBER if number(cell) is not None else _TEXT


class _Columns:
    """The rows read column by column, each column once and only when a test needs it."""

    def __init__(self, rows: Sequence[Row]) -> None:
        self.rows = rows
        self._read: dict[int, tuple[list[float | None], list[int], list[int]]] = {}

    def column(self, j: int) -> tuple[list[float | None], list[int], list[int]]:
        """(value or None, kind, decimals) of every row's cell ``j``."""
        if j not in self._read:
            cells = [r[j] if j < len(r) else None for r in self.rows]
            kinds = [_kind(c) for c in cells]
            values = [
                number(c) if k == _NUMBER else None for c, k in zip(cells, kinds, strict=True)
            ]
            self._read[j] = (values, kinds, [_decimals(c) for c in cells])
        return self._read[j]

    def matching(
        self, numbers: dict[int, float], above: Sequence[int], texts: Row, *, least: int
    ) -> list[int]:
        """Columns whose value in the totals row (``numbers``, read from ``texts``) is the
        (non-zero) sum of the rows ``above`` within rounding (``least``: the fewest rows a sum
        may have). A column with text among those rows is no sum."""
        if len(above) < least:
            return []
        hits = []
        for j, value in numbers.items():
            values, kinds, decimals = self.column(j)
            if any(kinds[k] == _TEXT for k in above):
                continue
            present = [v for k in above if (v := values[k]) is not None]
            if len(present) < least:
                continue
            total = math.fsum(present)
            if total == 0:
                continue
            shown = 0.5 * 10.0 ** -_decimals(texts[j])  # the total itself is rounded as shown
            unit = 0.5 * 10.0 ** -max(decimals[k] for k in above)
            tolerance = shown + min(unit * len(present), 0.001 * abs(total))
            if abs(value - total) <= tolerance + 1e-9 * abs(total):
                hits.append(j)
        return hits

    def blank_label(self, row: Row, above: Sequence[int]) -> bool:
        """Whether ``row`` is empty in a column every row above fills with text (the label
        column of a totals row without a label): a row of plain numbers is never a sum."""
        for j, cell in enumerate(row):
            if _kind(cell) != _EMPTY:
                continue
            _, kinds, _ = self.column(j)
            if above and all(kinds[k] == _TEXT for k in above):
                return True
        return False


def _decimals(text: str | None) -> int:
    match = _FRACTION.search(text or "")
    return len(match.group(1)) if match else 0
