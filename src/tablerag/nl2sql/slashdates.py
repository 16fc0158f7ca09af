"""Slash dates: a date the question writes ``03/05/2026`` read in the order the data's file wrote.

A user's ``payments.csv`` wrote ``03/05/2026`` … ``05/13/2026``; ingest read it month first and
stored DATEs. Asked "How much was paid on 03/05/2026?", the model wrote ``paid_on =
'2026-05-03'`` (day first), status ``ok``, wrong (issue 23, ud-30). Nothing in a stored DATE says
which order the file used; ingest keeps it as the column's unit (``MM/DD/YYYY``,
:attr:`tablerag.types.ColumnInfo.written_order`), and this module reads the question's
all-number dates by it: the ``dates_read`` answer check (:mod:`tablerag.nl2sql.checks`) doubts
a query that compares the column with the other reading. (A note telling the model the date in
the data's order, ``slash_dates``, was removed: it changed no answer on six sets, see
docs/stages.md.) Only dates both orders could mean are read (``13/05/2026`` says its own order).
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterable
from dataclasses import dataclass

from tablerag.types import ColumnInfo, DayMonth

_SLASH_DATE = re.compile(r"(?<![\d./-])(\d{1,2})([/.])(\d{1,2})\2(\d{4})(?![\d/]|\.\d)")


@dataclass(frozen=True)
class SlashDate:
    """A date the question writes with all-number day and month, both 12 or less."""

    written: str
    """As the question writes it (``03/05/2026``)."""
    first: int
    second: int
    year: int

    def read(self, order: DayMonth) -> str:
        """The ISO date it is when read month first (``mdy``) or day first (``dmy``).

        Example:
            >>> d = slash_dates("paid on 03/05/2026?")[0]
            >>> d.read("mdy"), d.read("dmy")
            ('2026-03-05', '2026-05-03')
        """
        month, day = (self.first, self.second) if order == "mdy" else (self.second, self.first)
        return dt.date(self.year, month, day).isoformat()


@dataclass(frozen=True)
class DateReading:
    """A question's date read by a column whose file wrote its dates in a known order."""

    written: str
    """The date as the question writes it (``03/05/2026``)."""
    table: str
    column: str
    form: str
    """How the column's file wrote dates (``MM/DD/YYYY``)."""
    right: str
    """The date in that order (ISO)."""
    other: str
    """The date in the other order (ISO): a query comparing the column with it misread it."""


def slash_dates(question: str) -> list[SlashDate]:
    """The dates ``question`` writes as ``03/05/2026`` or ``3.5.2026`` that both orders could
    mean (first and second part 12 or less, and different).

    Example:
        >>> [d.written for d in slash_dates("Paid on 03/05/2026, 3.5.2026 or 13/05/2026?")]
        ['03/05/2026', '3.5.2026']
        >>> slash_dates("on 04/04/2026, 2026/03/05, version 1.2.2026.7 or 12.5")
        []
    """
    out = []
    for m in _SLASH_DATE.finditer(question):
        first, second, year = int(m.group(1)), int(m.group(3)), int(m.group(4))
        if 1 <= first <= 12 and 1 <= second <= 12 and first != second:
            out.append(SlashDate(m.group(0), first, second, year))
    return out


def date_readings(question: str, columns: Iterable[tuple[str, ColumnInfo]]) -> list[DateReading]:
    """Each ambiguous date of ``question`` read by each (table, column) whose written order
    the catalog keeps.

    Example:
        >>> paid = ("payments", ColumnInfo("paid_on", "DATE", unit="MM/DD/YYYY"))
        >>> r = date_readings("How much was paid on 03/05/2026?", [paid])[0]
        >>> r.column, r.right, r.other, r.form
        ('paid_on', '2026-03-05', '2026-05-03', 'MM/DD/YYYY')
        >>> date_readings("How much was paid on 03/05/2026?", [("t", ColumnInfo("d", "DATE"))])
        []
    """
    dates = slash_dates(question)
    ordered = [(t, c, c.written_order) for t, c in columns]
    return [
        DateReading(
            d.written,
            table,
            c.name,
            c.unit or "",
            d.read(order),
            d.read("dmy" if order == "mdy" else "mdy"),
        )
        for d in dates
        for table, c, order in ordered
        if order is not None
    ]
