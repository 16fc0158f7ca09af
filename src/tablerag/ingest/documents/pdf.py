"""PDF to blocks with pdfplumber: prose by line gaps, headings by font size, ruled tables and
tables without ruling lines found by the alignment of their columns."""

from __future__ import annotations

import re
import statistics
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pdfplumber
from pdfminer.pdfdocument import PDFEncryptionError
from pdfminer.psexceptions import PSException
from pdfplumber.utils.exceptions import MalformedPDFException, PdfminerException

from tablerag.errors import SourceError
from tablerag.ingest.documents._blocks import (
    empty_problem,
    first_heading,
    is_caption,
    is_clause_start,
    join_lines,
    table_block,
)
from tablerag.ingest.tables.totals import number
from tablerag.types import Block, Document, Problem

_HEADING_RATIO = 1.15
_MAX_HEADING_CHARS = 120
_SENTENCE_END = (".", "。", "!", "！", "?", "？", ":", "：", ";", "；")
_PAGE_NUMBER = re.compile(
    r"^\s*(?:第\s*\d+\s*页(?:\s*共\s*\d+\s*页)?|[-–—]?\s*\d+\s*[-–—]?|page\s+\d+(?:\s+of\s+\d+)?"
    r"|\d+\s*/\s*\d+)\s*$",
    re.I,
)


@dataclass(frozen=True)
class _Line:
    top: float
    bottom: float
    x1: float
    size: float
    text: str


@dataclass(frozen=True)
class _Table:
    top: float
    rows: list[list[str | None]]
    aligned: bool = False
    """Found by the alignment of its text (no ruling lines)."""


@dataclass(frozen=True)
class _Page:
    number: int
    lines: list[_Line]
    tables: list[_Table]
    images: int


def _outside(bboxes: Sequence[tuple[float, float, float, float]]) -> Any:
    def keep(obj: dict[str, Any]) -> bool:
        x = (float(obj.get("x0", 0)) + float(obj.get("x1", 0))) / 2
        y = (float(obj.get("top", 0)) + float(obj.get("bottom", 0))) / 2
        return not any(x0 <= x <= x1 and top <= y <= bottom for x0, top, x1, bottom in bboxes)

    return keep


def _read_page(page: Any) -> _Page:
    found = page.find_tables()
    tables = [_Table(float(t.bbox[1]), t.extract()) for t in found]
    boxes = [tuple(t.bbox) for t in found]
    for bbox, rows in _aligned_tables(page, boxes):
        tables.append(_Table(bbox[1], rows, aligned=True))
        boxes.append(bbox)
    text_page = page.filter(_outside(boxes)) if boxes else page
    lines = []
    for raw in text_page.extract_text_lines(return_chars=True, strip=True):
        text = str(raw["text"]).strip()
        if not text:
            continue
        sizes = [round(float(c["size"]) * 2) / 2 for c in raw["chars"] if str(c["text"]).strip()]
        size = statistics.median(sizes) if sizes else 0.0
        lines.append(_Line(float(raw["top"]), float(raw["bottom"]), float(raw["x1"]), size, text))
    return _Page(int(page.page_number), lines, tables, len(page.images))


_CELL_GAP = 0.8
"""A gap between two words wider than this many times their font size separates two cells."""
_ALIGNED_MIN_ROWS = 3
_ALIGNED_MAX_CELL_CHARS = 40


@dataclass(frozen=True)
class _Segment:
    x0: float
    x1: float
    text: str


def _line_segments(words: Sequence[dict[str, Any]]) -> list[_Segment]:
    """The words of one line grouped into cells at wide gaps."""
    segments: list[_Segment] = []
    for word in sorted(words, key=lambda w: float(w["x0"])):
        x0, x1, size = float(word["x0"]), float(word["x1"]), float(word.get("size") or 10)
        if segments and x0 - segments[-1].x1 <= _CELL_GAP * size:
            last = segments[-1]
            segments[-1] = _Segment(last.x0, x1, f"{last.text} {word['text']}")
        else:
            segments.append(_Segment(x0, x1, str(word["text"])))
    return segments


def _aligned(a: Sequence[_Segment], b: Sequence[_Segment]) -> bool:
    """Same number of cells, each overlapping the one above it and no other."""
    if len(a) != len(b):
        return False
    for j, (upper, lower) in enumerate(zip(a, b, strict=True)):
        if lower.x1 < upper.x0 or lower.x0 > upper.x1:
            return False
        if j + 1 < len(a) and lower.x1 >= a[j + 1].x0:
            return False
    return True


def _aligned_tables(
    page: Any, ruled: Sequence[tuple[float, float, float, float]]
) -> list[tuple[tuple[float, float, float, float], list[list[str | None]]]]:
    """Tables without ruling lines (issue 36): runs of at least three consecutive lines, outside
    the ruled tables, that split at wide gaps into the same columns (each cell over the one
    above it), short cells, and a column of numbers below its header, so that two-column prose
    or a list with tab stops is not taken for a table.

    Returns:
        (bounding box, rows) of each table, header row first.
    """
    keep = _outside(ruled)
    words = [
        w for w in page.extract_words(extra_attrs=["size"]) if keep(w) and str(w["text"]).strip()
    ]
    lines: list[list[dict[str, Any]]] = []
    for word in sorted(words, key=lambda w: (round(float(w["top"])), float(w["x0"]))):
        if lines and abs(float(word["top"]) - float(lines[-1][0]["top"])) <= 2:
            lines[-1].append(word)
        else:
            lines.append([word])
    found = []
    run: list[tuple[list[dict[str, Any]], list[_Segment]]] = []
    for line in [*lines, []]:
        segments = _line_segments(line) if line else []
        if len(segments) >= 2 and (not run or _aligned(run[-1][1], segments)):
            run.append((line, segments))
            continue
        if len(run) >= _ALIGNED_MIN_ROWS:
            rows: list[list[str | None]] = [[seg.text for seg in segs] for _, segs in run]
            if _tabular(rows):
                run_words = [w for ln, _ in run for w in ln]
                bbox = (
                    min(float(w["x0"]) for w in run_words),
                    min(float(w["top"]) for w in run_words),
                    max(float(w["x1"]) for w in run_words),
                    max(float(w["bottom"]) for w in run_words),
                )
                found.append((bbox, rows))
        run = [(line, segments)] if len(segments) >= 2 else []
    return found


def _tabular(rows: Sequence[Sequence[str | None]]) -> bool:
    """Short cells, and some column whose every cell below the header is a number."""
    cells = [c or "" for row in rows for c in row]
    if any(len(c) > _ALIGNED_MAX_CELL_CHARS for c in cells):
        return False
    body = rows[1:]
    return any(all(_is_number(row[j] or "") for row in body) for j in range(len(rows[0])))


def _drop_running_text(pages: list[_Page]) -> list[_Page]:
    """Remove page numbers and running headers/footers repeated on most pages."""
    edge_texts: Counter[str] = Counter()
    for page in pages:
        for line in {page.lines[0].text, page.lines[-1].text} if page.lines else ():
            edge_texts[line] += 1
    running = {t for t, n in edge_texts.items() if len(pages) >= 3 and n >= max(3, len(pages) / 2)}
    out = []
    for page in pages:
        lines = [
            line
            for i, line in enumerate(page.lines)
            if not (
                i in (0, len(page.lines) - 1)
                and (line.text in running or _PAGE_NUMBER.match(line.text))
            )
        ]
        out.append(_Page(page.number, lines, page.tables, page.images))
    return out


@dataclass(frozen=True)
class _Layout:
    body: float
    heading_levels: dict[float, int]
    para_gap: float
    right_edge: float


def _layout(pages: list[_Page]) -> _Layout:
    """Body font size (most characters), heading sizes by rank, paragraph gap and right margin."""
    weights: Counter[float] = Counter()
    for page in pages:
        for line in page.lines:
            weights[line.size] += len(line.text)
    body = weights.most_common(1)[0][0] if weights else 0.0
    sizes = {
        line.size
        for page in pages
        for line in page.lines
        if line.size > body * _HEADING_RATIO and len(line.text) <= _MAX_HEADING_CHARS
    }
    levels = {size: i + 1 for i, size in enumerate(sorted(sizes, reverse=True))}
    gaps: list[float] = []
    edges: list[float] = []
    for page in pages:
        body_lines = [line for line in page.lines if line.size == body]
        edges.extend(line.x1 for line in body_lines)
        gaps.extend(
            b.top - a.bottom
            for a, b in zip(body_lines, body_lines[1:], strict=False)
            if b.top > a.bottom
        )
    line_gap = statistics.median(gaps) if gaps else 0.0
    return _Layout(body, levels, line_gap + 0.4 * body, max(edges, default=0.0))


def _page_blocks(
    page: _Page, layout: _Layout, first_table: int
) -> tuple[list[Block], list[Problem]]:
    blocks: list[Block] = []
    problems: list[Problem] = []
    para: list[str] = []
    prev: _Line | None = None

    def flush() -> None:
        if para:
            blocks.append(Block("paragraph", join_lines(para), page=page.number))
            para.clear()

    items: list[_Line | _Table] = [*page.lines, *page.tables]
    items.sort(key=lambda item: item.top)
    n_table = first_table
    for item in items:
        if isinstance(item, _Table):
            flush()
            n_table += 1
            caption = ""
            if blocks and blocks[-1].kind == "paragraph" and is_caption(blocks[-1].text):
                caption = blocks.pop().text
            where = f"table {n_table} (page {page.number})"
            block, found = table_block(item.rows, where=where, caption=caption, page=page.number)
            problems.extend(found)
            if item.aligned and block is not None:
                problems.append(
                    Problem(
                        where,
                        "a table without ruling lines",
                        "found by the alignment of its columns; check its cells",
                    )
                )
            if block is not None:
                blocks.append(block)
            prev = None
            continue
        level = layout.heading_levels.get(item.size)
        if level is not None:
            flush()
            last = blocks[-1] if blocks else None
            joined = (
                last is not None
                and last.kind == "heading"
                and last.level == level
                and prev is not None
                and prev.size == item.size
                and item.top - prev.bottom < item.size * 0.6
            )
            if joined and last is not None:
                text = join_lines([last.text, item.text])
                blocks[-1] = Block("heading", text, level=level, page=page.number)
            else:
                blocks.append(Block("heading", item.text, level=level, page=page.number))
        else:
            if prev is not None and para and _breaks(prev, item, layout):
                flush()
            if is_clause_start(item.text):
                flush()
            para.append(item.text)
        prev = item
    flush()
    return blocks, problems


def _breaks(prev: _Line, line: _Line, layout: _Layout) -> bool:
    """A new paragraph starts after a wide gap, a size change or a short sentence-final line."""
    if line.top - prev.bottom > layout.para_gap or abs(line.size - prev.size) > 0.5:
        return True
    short = prev.x1 < layout.right_edge - 3 * max(layout.body, 1.0)
    return short and prev.text.endswith(_SENTENCE_END)


_CONTINUED = re.compile(
    r"^\s*(?:[(（]?\s*(?:续(?:表)?|接上页|continued)\s*[)）]?|.{0,40}[(（]\s*(?:续|continued)\s*[)）])\s*$",
    re.I,
)


def join_continued_tables(blocks: Sequence[Block]) -> tuple[list[Block], list[Problem]]:
    """Join a table that runs over several pages into one table block, and report each join.

    A table block continues the previous one when it opens the next page (nothing before it
    on that page but a "(续)" / "(continued)" line) and the previous one closes its page, both
    have the same number of columns, and either its first row repeats the header, or it has no
    header of its own: its first row is typed like the previous table's data rows (numbers
    where they have numbers), not like a header (text over numbers).

    Example:
        >>> head = ("id", "amount")
        >>> a = Block("table", page=1, rows=(head, ("1", "10.5")))
        >>> b = Block("table", page=2, rows=(head, ("2", "3")))
        >>> c = Block("table", page=3, rows=(("3", "4"),))
        >>> joined, problems = join_continued_tables([a, b, c])
        >>> len(joined), joined[0].rows[1:], joined[0].page
        (1, (('1', '10.5'), ('2', '3'), ('3', '4')), 1)
        >>> [p.line() for p in problems]  # doctest: +NORMALIZE_WHITESPACE
        ['pages 1-3: a table continues over 3 pages (the header repeated on page 2; no header on
          page 3) (joined into one table of 3 rows)']
    """
    out: list[Block] = []
    runs: dict[int, list[tuple[bool, int]]] = {}  # index in out -> (header repeated, page)
    pages: dict[int, int] = {}  # index in out -> last page it reached
    for i, block in enumerate(blocks):
        at = _continues(out, pages, blocks, i)
        if at is None:
            out.append(block)
            if block.kind == "table":
                pages[len(out) - 1] = block.page or 0
            continue
        first = out[at]
        repeated = block.rows[0] == first.rows[0]
        rows = block.rows[1:] if repeated else block.rows
        out[at] = Block("table", first.text, first.level, first.page, first.rows + rows)
        del out[at + 1 :]  # a "(续)" line between the two
        pages[at] = block.page or 0
        runs.setdefault(at, []).append((repeated, block.page or 0))
    problems = [
        Problem(
            f"pages {out[at].page}-{pages[at]}",
            f"a table continues over {pages[at] - (out[at].page or 0) + 1} pages ({_ways(how)})",
            f"joined into one table of {len(out[at].rows) - 1} rows",
        )
        for at, how in runs.items()
    ]
    return out, problems


def _ways(how: Sequence[tuple[bool, int]]) -> str:
    parts = []
    for repeated, what in ((True, "the header repeated"), (False, "no header")):
        pages = [str(page) for again, page in how if again is repeated]
        if pages:
            parts.append(f"{what} on page{'s' if len(pages) > 1 else ''} {', '.join(pages)}")
    return "; ".join(parts)


def _continues(
    out: Sequence[Block], pages: dict[int, int], blocks: Sequence[Block], i: int
) -> int | None:
    """The index in ``out`` of the table ``blocks[i]`` continues, or None."""
    block = blocks[i]
    if block.kind != "table" or not block.rows or block.page is None:
        return None
    at = len(out) - 1
    while at >= 0 and out[at].kind == "paragraph" and out[at].page == block.page:
        if not _CONTINUED.match(out[at].text):
            return None
        at -= 1
    if at < 0 or out[at].kind != "table" or pages.get(at) != block.page - 1:
        return None
    first = out[at]
    if len(first.rows[0]) != len(block.rows[0]) or len(first.rows) < 2:
        return None
    if block.rows[0] == first.rows[0]:
        return at
    return at if _typed_like(block.rows[0], first.rows[1:]) else None


def _typed_like(row: Sequence[str], data: Sequence[Sequence[str]]) -> bool:
    """Whether ``row`` reads as a data row of ``data``: every column the data fills with numbers
    holds a number (or nothing) in ``row``, and at least one such column exists."""
    numeric = [
        j
        for j in range(len(row))
        if all(_is_number(r[j]) for r in data if r[j]) and any(r[j] for r in data)
    ]
    return bool(numeric) and all(not row[j] or _is_number(row[j]) for j in numeric)


def _is_number(text: str) -> bool:
    return number(text) is not None


def _no_text_problems(pages: list[_Page]) -> list[Problem]:
    blank = [p.number for p in pages if not p.lines and not p.tables]
    if not blank:
        return []
    action = "skipped; OCR is not supported: run OCR (e.g. ocrmypdf) and ingest the result"
    if len(blank) == len(pages):
        return [Problem("", "the PDF has no text layer (scanned images?)", action)]
    return [
        Problem(f"page {n}", "no text layer (scanned image or blank page)", action) for n in blank
    ]


def _open_error(source: str, exc: Exception) -> SourceError:
    cause = exc.args[0] if isinstance(exc, PdfminerException) and exc.args else exc
    if isinstance(cause, PDFEncryptionError):
        return SourceError(
            source,
            f"{source} is encrypted with a password; save an unprotected copy (print to PDF or "
            "qpdf --decrypt) and ingest that.",
        )
    return SourceError(
        source,
        f"{source} is not a readable PDF ({type(cause).__name__}: {cause}); check that the file is "
        "complete and really a PDF, or re-export it from the original program.",
    )


def load_pdf(path: Path) -> Document:
    """Read a PDF's text layer and ruled tables, page by page.

    Prose is split into paragraphs by line gaps and clause markers; lines set in a font larger than
    the body text become headings (levels by size); tables found by pdfplumber become ``table``
    blocks and their text is kept out of the prose. Page numbers and running headers are dropped.

    Args:
        path: The PDF file.

    Returns:
        The document; every block carries its 1-based page number. Pages without text are reported
        in ``problems`` (OCR is not supported).

    Raises:
        SourceError: The file is not a PDF, is damaged, or is password-protected.
        OSError: The file cannot be read (the dispatcher maps it to ``SourceError``).
    """
    source = str(path)
    try:
        with pdfplumber.open(path) as pdf:
            pages = []
            for pdf_page in pdf.pages:
                pages.append(_read_page(pdf_page))
                pdf_page.close()  # free the page's parsed objects: big PDFs stay small in memory
    except (PdfminerException, MalformedPDFException, PSException) as exc:
        raise _open_error(source, exc) from exc
    problems = _no_text_problems(pages)
    pages = _drop_running_text(pages)
    layout = _layout(pages)
    blocks: list[Block] = []
    for page in pages:
        tables_before = sum(1 for b in blocks if b.kind == "table")
        page_blocks, page_problems = _page_blocks(page, layout, tables_before)
        blocks.extend(page_blocks)
        problems.extend(page_problems)
    blocks, joined = join_continued_tables(blocks)
    problems.extend(joined)
    if blocks or not problems:
        problems.extend(empty_problem(blocks))
    return Document(
        source=source,
        title=first_heading(blocks, path.stem),
        blocks=tuple(blocks),
        problems=tuple(problems),
    )
