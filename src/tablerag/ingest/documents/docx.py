"""Word ``.docx`` to blocks with python-docx: styled headings, list items, tables in body order."""

from __future__ import annotations

import re
import zipfile
from pathlib import Path
from typing import Any

import docx
from docx.opc.exceptions import OpcError
from docx.oxml.ns import qn
from docx.table import Table
from docx.text.paragraph import Paragraph
from lxml.etree import XMLSyntaxError  # type: ignore[import-untyped]

from tablerag.errors import SourceError
from tablerag.ingest.documents._blocks import (
    empty_problem,
    first_heading,
    is_caption,
    squash,
    table_block,
)
from tablerag.types import Block, Document, Problem

# "Heading 2", "heading 2", "标题 2", "標題 2", "Überschrift 2", "Titre 2" ...
_HEADING_STYLE = re.compile(r"^(?:heading|标题|標題|überschrift|titre|título|titolo)\s*(\d)$", re.I)
_TITLE_STYLES = frozenset({"title", "标题", "標題", "titel", "titre", "título", "titolo"})
_TITLE_LEVEL = 0


def _style_level(paragraph: Paragraph) -> int | None:
    """Heading level from the paragraph style or its outline level, None for body text."""
    style = paragraph.style
    name = (style.name or "").strip() if style is not None else ""
    match = _HEADING_STYLE.match(name)
    if match is not None:
        return int(match.group(1))
    if name.lower() in _TITLE_STYLES:
        return _TITLE_LEVEL
    ppr = paragraph._p.pPr
    outline = ppr.find(qn("w:outlineLvl")) if ppr is not None else None
    if outline is not None:
        value = outline.get(qn("w:val"))
        if value is not None and value.isdigit() and int(value) < 9:
            return int(value) + 1
    return None


def _is_caption_style(paragraph: Paragraph) -> bool:
    style = paragraph.style
    return style is not None and (style.name or "").lower() in ("caption", "题注")


def _table_rows(table: Table) -> list[list[str]]:
    """Cell texts row by row; python-docx repeats a merged cell in every grid cell it covers."""
    rows: list[list[str]] = []
    for row in table.rows:
        rows.append([squash(cell.text) for cell in row.cells])
    return rows


def _body_items(document: Any) -> list[Paragraph | Table]:
    """Paragraphs and tables of the main body in the order they appear."""
    items: list[Paragraph | Table] = []
    for child in document.element.body.iterchildren():
        if child.tag == qn("w:p"):
            items.append(Paragraph(child, document))
        elif child.tag == qn("w:tbl"):
            items.append(Table(child, document))
    return items


def _blocks(document: Any) -> tuple[list[Block], list[Problem]]:
    blocks: list[Block] = []
    problems: list[Problem] = []
    tables = 0
    pending_caption = ""
    for item in _body_items(document):
        if isinstance(item, Table):
            tables += 1
            caption = pending_caption
            if (
                not caption
                and blocks
                and blocks[-1].kind == "paragraph"
                and is_caption(blocks[-1].text)
            ):
                caption = blocks.pop().text
            block, found = table_block(_table_rows(item), where=f"table {tables}", caption=caption)
            problems.extend(found)
            if block is not None:
                blocks.append(block)
            pending_caption = ""
            continue
        text = item.text.strip()
        if not text:
            continue
        level = _style_level(item)
        if level is not None:
            blocks.append(Block("heading", squash(text), level=level))
        elif _is_caption_style(item):
            pending_caption = squash(text)
        else:
            if pending_caption:
                blocks.append(Block("paragraph", pending_caption))
                pending_caption = ""
            blocks.append(Block("paragraph", text))
    if pending_caption:
        blocks.append(Block("paragraph", pending_caption))
    return blocks, problems


def load_docx(path: Path) -> Document:
    """Read a Word ``.docx`` file: headings from styles, paragraphs and tables in body order.

    Heading styles are recognised in English and Chinese (``Heading 1``, ``标题 1``, ``Title``) and
    by outline level. List paragraphs are kept as their own paragraphs. Merged table cells are
    repeated in every cell they cover. Headers, footers, footnotes and text boxes are not read.

    Args:
        path: The ``.docx`` file.

    Returns:
        The document (no page numbers: Word files have no fixed pages).

    Raises:
        SourceError: The file is not a ``.docx`` (e.g. an old ``.doc``) or is damaged.
        OSError: The file cannot be read (the dispatcher maps it to ``SourceError``).
    """
    source = str(path)
    try:
        document = docx.Document(str(path))
    except (zipfile.BadZipFile, OpcError, KeyError, XMLSyntaxError, ValueError) as exc:
        # ValueError: a valid Office package that is not a Word file (e.g. a renamed .xlsx).
        raise SourceError(
            source,
            f"{source} is not a readable Word .docx file ({type(exc).__name__}: {exc}); open it "
            "in Word or LibreOffice and save it again as .docx (old .doc files must be converted).",
        ) from exc
    blocks, problems = _blocks(document)
    levels = sorted({b.level for b in blocks if b.kind == "heading"})
    rank = {level: i + 1 for i, level in enumerate(levels)}
    final = tuple(
        Block("heading", b.text, rank[b.level]) if b.kind == "heading" else b for b in blocks
    )
    title = str(document.core_properties.title or "").strip()
    return Document(
        source=source,
        title=title or first_heading(final, path.stem),
        blocks=final,
        problems=tuple(problems + empty_problem(final)),
    )
