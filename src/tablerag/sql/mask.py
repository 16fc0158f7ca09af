"""Mask personal data in query results before the model or the user sees them.

Cells are masked by :mod:`tablerag.sql.pii`; here a result's columns decide how: a column named
like a sensitive or hidden one is replaced whole, one the operator's ``allow_columns`` shows is
returned as it is, and every other cell has its personal data masked in place.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import replace
from typing import Any, TypeVar

from tablerag.sql.exposed import ExposedCatalog
from tablerag.sql.pii import MAX_DEPTH, mask_int, mask_number, mask_text, mask_value
from tablerag.sql.sensitive import SensitiveRules
from tablerag.sql.sensitive_names import SENSITIVE_NAME
from tablerag.types import Chunk, Hit

__all__ = [
    "MAX_DEPTH",
    "allowed_names",
    "mask_chunk",
    "mask_int",
    "mask_number",
    "mask_rows",
    "mask_text",
    "mask_value",
]


def mask_rows(
    columns: Sequence[str],
    rows: Sequence[Sequence[Any]],
    *,
    hidden: Collection[str] = frozenset(),
    allowed: Collection[str] = frozenset(),
) -> tuple[tuple[tuple[Any, ...], ...], tuple[str, ...]]:
    """Mask personal data in ``rows``; return the rows and the columns where something changed.

    Columns whose name marks them sensitive (``phone``, ``身份证``...) or that are named like a
    hidden column of the catalog (``hidden``, lower-case: flagged, or listed by the operator)
    are replaced whole; other cells have e-mails, ID, card and phone numbers masked in place
    (see :func:`mask_value`). A column named like one the operator's ``allow_columns`` shows
    (``allowed``, lower-case) is returned as it is, unless a hidden column has its name too.

    Example:
        >>> mask_rows(["name", "mobile"], [("Ann", "13812345678")])
        ((('Ann', '***'),), ('mobile',))
        >>> mask_rows(["name", "diagnosis"], [("Ann", "flu")], hidden={"diagnosis"})
        ((('Ann', '***'),), ('diagnosis',))
        >>> mask_rows(["name", "phone"], [("Ann", "13812345678")], allowed={"phone"})
        ((('Ann', '13812345678'),), ())
    """
    low = [c.lower() for c in columns]
    whole = [SENSITIVE_NAME.search(c) or c.lower() in hidden for c in columns]
    raw = [c in allowed and c not in hidden for c in low]
    changed: set[int] = set()
    out = []
    for row in rows:
        new = tuple(
            v if keep else mask_value(v, whole=w)
            for v, w, keep in zip(row, whole, raw, strict=True)
        )
        changed.update(
            i for i, (a, b) in enumerate(zip(row, new, strict=True)) if a is not b and a != b
        )
        out.append(new)
    return tuple(out), tuple(columns[i] for i in sorted(changed))


def allowed_names(catalog: ExposedCatalog, rules: SensitiveRules) -> frozenset[str]:
    """Lower-cased names of the readable columns of ``catalog`` that ``rules.allow`` names: the
    operator showed them although they look sensitive, so results show them unmasked.

    Example:
        >>> from tablerag.sql.sensitive import SensitiveRules
        >>> cat = ExposedCatalog.from_mapping({"stores": ["id", "phone"], "staff": ["phone"]})
        >>> sorted(allowed_names(cat, SensitiveRules(allow=("stores.phone",))))
        ['phone']
        >>> sorted(allowed_names(cat, SensitiveRules()))
        []
    """
    if not rules.allow:
        return frozenset()
    return frozenset(
        c.lower() for t in catalog.tables for c in t.columns if rules.allows(t.qualified, c)
    )


_WithText = TypeVar("_WithText", Chunk, Hit)


def mask_chunk(chunk: _WithText) -> _WithText:
    """A table's chunk (or search hit) with its text masked as a result cell is.

    Table chunks are masked when they are built (:func:`tablerag.ingest.chunking.table_chunks`);
    this masks them again where they are shown, for a workspace ingested before that. Document
    chunks are the documents' own prose and are returned as they are.

    Example:
        >>> c = Chunk("c1", "t.csv", 1, "| 13812345678 |", table="t")
        >>> mask_chunk(c).text, mask_chunk(replace(c, table=None)).text
        ('| 138****5678 |', '| 13812345678 |')
    """
    if chunk.table is None:
        return chunk
    masked = mask_text(chunk.text)
    return chunk if masked == chunk.text else replace(chunk, text=masked)
