"""How a note under a table opens, in one place (``lang/notes.json``).

The ingest keeps a sheet's footnote row (``注：…``, ``Source: …``) out of the table's rows and
with the table as a note (:mod:`tablerag.ingest.tables.notes`); an opening marker read from
here is one of its signals, never the only one.

Example:
    >>> [bool(MARKER.match(s)) for s in ("注：早鸟九折", "Note 1: prices", "* excludes VAT")]
    [True, True, True]
    >>> [bool(MARKER.match(s)) for s in ("注册用户", "Notebook", "数据")]
    [False, False, False]
"""

from __future__ import annotations

import re

from tablerag.lang.wordlists import word_list


def _words(key: str) -> list[str]:
    return word_list("notes", key)


def _alternatives(words: list[str]) -> str:
    return "|".join(map(re.escape, sorted(words, key=len, reverse=True)))


MARKER = re.compile(
    r"\s*(?:"
    r"(?:" + _alternatives(_words("zh")) + r")\s*\d*\s*[:：]"
    r"|(?i:" + _alternatives(_words("en")) + r")\s*\d*\s*[:：]"
    r"|(?:" + _alternatives(_words("symbols")) + r")"
    r")"
)
"""The opening of a note (``match`` it at the start of a cell)."""

__all__ = ["MARKER"]
