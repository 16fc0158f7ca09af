"""Year notes: a report table with one column per year, and no year or change column.

The model wrote ``SELECT change FROM t`` or counted rows for "how many years did X exceed …" over
such tables (``item``, ``col_2019``, ``col_2018``); the note says how a change and a "how many
years" count are written over year columns. The shape is found from the columns alone (at
least two numeric columns, each naming one distinct year), so it applies to any wide-by-year
table, a user's workbook as much as a financial report.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from tablerag.linking.catalog import SchemaCatalog, is_text_column
from tablerag.linking.profile import is_numeric_type
from tablerag.linking.render import ident

NOTED_TABLES = 2
"""Tables noted, the first retrieved ones."""
_YEAR = re.compile(r"(?<!\d)(?:19|20)\d{2}(?!\d)")
_HOW_MANY_YEARS = re.compile(r"how many (?:of the )?years|有几年|哪几年|多少年", re.I)


def year_notes(catalog: SchemaCatalog, tables: Sequence[str], question: str = "") -> list[str]:
    """A note for each of the first :data:`NOTED_TABLES` tables that hold one column per year.

    A report table (``item``, ``col_2019``, ``col_2018``) has no ``year`` and no ``change``
    column, and the model wrote ``SELECT change FROM t`` or counted rows for "how many years
    did X exceed …" (11 of 23 wrong TAT-QA arithmetic and count answers of the loop, first 64
    questions). The note says how those are written over year columns: the count for a "how
    many years" question, the change for any other (given both, the model wrote the count for
    "What was the change in …" in 2 of 6 TAT-QA change questions; with one, in none), both
    without a question. The count names the row filter: given the formula alone, the model
    wrote none in 10 of 16 "how many years" TAT-QA questions, and 4 with it (2 more right). A
    table with a year in two columns (one measure per year twice) gets none: "one column per
    year" would be false. The change is spelled for the two years the question names when both
    are columns, else for the latest two.

    Example:
        >>> from tablerag.linking.catalog import build_catalog
        >>> from tablerag.types import ColumnInfo, TableInfo
        >>> cols = [ColumnInfo("item", "VARCHAR"), ColumnInfo("col_2019", "BIGINT"),
        ...         ColumnInfo("col_2018", "BIGINT")]
        >>> cat = build_catalog([TableInfo("t", "t.csv", tuple(cols), 3)])
        >>> note = year_notes(cat, ["t"])[0]
        >>> note.startswith("-- t has one column per year (col_2019, col_2018)")
        True
        >>> "the change from 2018 to 2019 is col_2019 - col_2018;" in note
        True
        >>> "CAST(col_2019 > x AS INTEGER) + CAST(col_2018 > x AS INTEGER) in the one row" in note
        True
        >>> note.endswith("(WHERE item = its label).")
        True
        >>> year_notes(cat, ["t"], "What was the change in revenue?")[0].endswith("col_2018.")
        True
        >>> "change" in year_notes(cat, ["t"], "How many years did revenue exceed $5m?")[0][-60:]
        False
    """
    asked = set(_YEAR.findall(question))
    counts = bool(_HOW_MANY_YEARS.search(question))
    notes: list[str] = []
    for name in tables[:NOTED_TABLES]:
        years: list[tuple[str, str]] = []
        for c in catalog.tables[name].columns:
            found = _YEAR.findall(c.name)
            if len(found) == 1 and is_numeric_type(c.type):
                years.append((found[0], c.name))
        if len(years) < 2 or len({y for y, _ in years}) < len(years):
            continue
        named = [y for y in years if y[0] in asked]
        (new_year, new), (old_year, old) = sorted(named if len(named) > 1 else years)[::-1][:2]
        columns = ", ".join(ident(c) for _, c in years)
        change = f"the change from {old_year} to {new_year} is {ident(new)} - {ident(old)}"
        count = " + ".join(f"CAST({ident(c)} > x AS INTEGER)" for _, c in years)
        label = next((c.name for c in catalog.tables[name].columns if is_text_column(c)), None)
        counting = f'"how many years" adds {count}'
        if label is not None:
            counting += f" in the one row it asks about (WHERE {ident(label)} = its label)"
        how = [change] if question and not counts else [counting] if counts else [change, counting]
        notes.append(
            f"-- {ident(name)} has one column per year ({columns}) and no year or change column: "
            + "; ".join(how)
            + "."
        )
    return notes
