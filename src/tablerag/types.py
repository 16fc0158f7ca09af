"""Shared frozen value types passed between ingestion, storage, retrieval and answering."""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

BlockKind = Literal["heading", "paragraph", "table"]
DayMonth = Literal["mdy", "dmy"]
_WRITTEN_DATES = re.compile(r"(MM|DD)([/.-])(?:DD|MM)\2YYYY\b")


def source_label(source: str) -> str:
    """How a source is named to the model: its last path part, never the folder or the host.

    Example:
        >>> source_label("/home/ana/finance/2024/budget.xlsx"), source_label("notes.md")
        ('budget.xlsx', 'notes.md')
        >>> source_label("postgresql://ana@db.internal:5432/sales")
        'sales (postgresql)'
    """
    scheme, sep, _ = source.partition("://")
    name = source.rstrip("/").rsplit("/", 1)[-1]
    return f"{name} ({scheme.split('+', 1)[0]})" if sep else name


@dataclass(frozen=True)
class Problem:
    """One line of a source's ingest report: where, what went wrong, and what was done about it.

    Example:
        >>> Problem("row 17", "3 fields where the header has 5", "padded with NULL").line()
        'row 17: 3 fields where the header has 5 (padded with NULL)'
    """

    where: str
    what: str
    action: str
    is_note: bool = False
    """A fact about how the source was read (its document kind, a file merged), not a defect:
    reports count and show notes apart from problems."""

    def line(self) -> str:
        """Render as one report line."""
        head = f"{self.where}: " if self.where else ""
        return f"{head}{self.what} ({self.action})"


def problems_and_notes(
    items: tuple[Problem, ...] | list[Problem],
) -> tuple[list[Problem], list[Problem]]:
    """The real problems of a report, then its notes, each in the order found.

    Example:
        >>> kind = Problem("", "document kind 'faq'", "chunked by pair", is_note=True)
        >>> short = Problem("row 3", "2 fields", "padded")
        >>> problems_and_notes((kind, short)) == ([short], [kind])
        True
    """
    return [p for p in items if not p.is_note], [p for p in items if p.is_note]


@dataclass(frozen=True)
class Block:
    """One structural piece of a document, in reading order.

    ``heading``: ``text`` is the heading, ``level`` its depth (1 = top).
    ``paragraph``: ``text`` is one paragraph, list item or numbered clause.
    ``table``: ``rows`` holds the cells, header row first; ``text`` is a caption if any.
    """

    kind: BlockKind
    text: str = ""
    level: int = 0
    page: int | None = None
    rows: tuple[tuple[str, ...], ...] = ()


@dataclass(frozen=True)
class Document:
    """A document read from one source file, before chunking."""

    source: str
    title: str
    blocks: tuple[Block, ...]
    problems: tuple[Problem, ...] = ()


@dataclass(frozen=True)
class Chunk:
    """A retrievable piece of text, traceable to its source, heading path, page and table.

    ``table`` is the SQL table the chunk was cut from (TableRAG's chunk -> table mapping f),
    or None for prose.
    """

    chunk_id: str
    source: str
    ordinal: int
    text: str
    heading_path: tuple[str, ...] = ()
    page: int | None = None
    table: str | None = None


@dataclass(frozen=True)
class ColumnInfo:
    """One column of a stored table, as the catalog knows it."""

    name: str
    type: str
    original: str = ""
    unit: str | None = None
    """The unit of a number column (``%``, ``元``); for a date column typed from all-number
    dates, how the file wrote them (``MM/DD/YYYY``, ``DD.MM.YYYY``: see ``written_order``)."""
    samples: tuple[str, ...] = ()
    description: str = ""
    sensitive: bool = False
    """Marked sensitive (by a person or a rule): never shown to a model, masked in results."""

    @property
    def written_order(self) -> DayMonth | None:
        """Whether the file wrote this date column's dates month first (``mdy``) or day first
        (``dmy``), as ingest recorded it in ``unit``; None when it did not (issue 23).

        Example:
            >>> ColumnInfo("paid_on", "DATE", unit="MM/DD/YYYY").written_order
            'mdy'
            >>> ColumnInfo("paid_on", "DATE", unit="DD.MM.YYYY").written_order
            'dmy'
            >>> ColumnInfo("paid_on", "DATE").written_order
            >>> ColumnInfo("amount", "DECIMAL(18,2)", unit="MM/DD/YYYY").written_order
        """
        if not self.unit or not self.type.upper().startswith(("DATE", "TIMESTAMP")):
            return None
        found = _WRITTEN_DATES.match(self.unit)
        if found is None:
            return None
        return "mdy" if found.group(1) == "MM" else "dmy"


ROWS_UNKNOWN = -1
"""``TableInfo.row_count`` of a database table whose rows could not be counted."""
ROWS_NO_ACCESS = -2
"""``TableInfo.row_count`` of a database table the connected role may not read."""


def rows_label(row_count: int) -> str:
    """A table's row count as listings show it.

    Example:
        >>> rows_label(3757), rows_label(ROWS_UNKNOWN), rows_label(ROWS_NO_ACCESS)
        ('3,757', 'unknown', 'no access')
    """
    if row_count == ROWS_NO_ACCESS:
        return "no access"
    return "unknown" if row_count < 0 else f"{row_count:,}"


@dataclass(frozen=True)
class TableInfo:
    """One SQL table of the workspace (or of an external database queried in place)."""

    name: str
    source: str
    columns: tuple[ColumnInfo, ...]
    row_count: int
    """Rows in the table; :data:`ROWS_UNKNOWN` or :data:`ROWS_NO_ACCESS` for a database
    table that could not be counted."""
    origin: str = ""
    page: int | None = None
    description: str = ""
    primary_key: tuple[str, ...] = ()
    foreign_keys: tuple[ForeignKey, ...] = ()
    stored: bool = True
    """True when the rows live in the workspace (schema ``data``); False for a table of an
    external database that is queried in place."""
    checks: tuple[str, ...] = ()
    """CHECK constraint expressions declared on the table or its columns (SQL text)."""


@dataclass(frozen=True)
class ForeignKey:
    """``columns`` of a table reference ``ref_columns`` of ``ref_table``."""

    columns: tuple[str, ...]
    ref_table: str
    ref_columns: tuple[str, ...]


SourceStatus = Literal["added", "replaced", "unchanged", "skipped", "failed"]


@dataclass(frozen=True)
class SourceReport:
    """What happened to one source during ``ingest``: counts reconciled and every problem."""

    source: str
    kind: str
    status: SourceStatus
    tables: tuple[str, ...] = ()
    rows_read: int = 0
    rows_stored: int = 0
    chunks: int = 0
    problems: tuple[Problem, ...] = field(default=())
    """Problems and notes in the order found (:func:`problems_and_notes` parts them)."""
    error: str | None = None


@dataclass(frozen=True)
class Hit:
    """One search result: the chunk, where it comes from, and why it ranked where it did."""

    chunk_id: str
    source: str
    ordinal: int
    text: str
    heading_path: tuple[str, ...]
    page: int | None
    table: str | None
    """The SQL table the chunk was cut from (TableRAG's chunk → table map), None for prose."""
    score: float
    """The score of the mode: BM25, cosine, RRF, or the reranker's."""
    rank: int
    bm25: float | None = None
    """BM25 score, when the chunk was among the lexical candidates."""
    dense: float | None = None
    """Cosine similarity, when the chunk was among the dense candidates."""
    bm25_rank: int | None = None
    dense_rank: int | None = None

    @property
    def chunk(self) -> Chunk:
        """The hit as a plain :class:`~tablerag.types.Chunk`."""
        return Chunk(
            self.chunk_id,
            self.source,
            self.ordinal,
            self.text,
            self.heading_path,
            self.page,
            self.table,
        )

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (``heading_path`` as a list)."""
        data = asdict(self)
        data["heading_path"] = list(self.heading_path)
        return data
