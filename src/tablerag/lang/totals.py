"""The labels of a totals row, in one place (``lang/totals.json``).

The ingest drops a sheet's ``合计`` / ``Total`` row (:mod:`tablerag.ingest.tables.totals`), and
the answer checks doubt a result or a table holding one (:mod:`tablerag.nl2sql.checks`); both
read the labels from here.

Example:
    >>> "合计" in TOTAL_LABELS, "grand total" in TOTAL_LABELS, "华东" in TOTAL_LABELS
    (True, True, False)
    >>> [bool(LABEL.fullmatch(s)) for s in ("华东小计", "Grand total:", "Sub-total", "华东")]
    [True, True, True, False]
"""

from __future__ import annotations

import re

from tablerag.lang.wordlists import lang_data, word_list


def _words(key: str) -> list[str]:
    return word_list("totals", key)


TOTAL_LABELS: frozenset[str] = frozenset(w.lower() for w in (*_words("zh"), *_words("en")))
"""Labels of totals rows (lower-case), matched whole."""

LABEL = re.compile(
    r"(?:.{0,12}?(?:" + "|".join(map(re.escape, _words("zh"))) + r"))[:：]?"
    r"|(?i:" + str(lang_data("totals")["en_pattern"]) + r")[:：]?"
)
"""A totals row's label as a sheet writes it (matched whole: ``华东小计``, ``Grand total:``)."""

__all__ = ["LABEL", "TOTAL_LABELS"]
