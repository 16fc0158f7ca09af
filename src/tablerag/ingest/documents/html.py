"""HTML to blocks with BeautifulSoup: headings, paragraphs, list items, pre, tables."""

from __future__ import annotations

import codecs
import re
import warnings
from dataclasses import dataclass, field
from pathlib import Path

from bs4 import BeautifulSoup, MarkupResemblesLocatorWarning, XMLParsedAsHTMLWarning
from bs4.element import Comment, Declaration, Doctype, NavigableString, ProcessingInstruction, Tag

from tablerag.ingest import limits
from tablerag.ingest.documents._blocks import (
    build_document,
    join_lines,
    squash,
    table_block,
)
from tablerag.ingest.encoding import decode
from tablerag.types import Block, Document, Problem

_DROP = frozenset(
    {"script", "style", "nav", "noscript", "template", "head", "svg", "iframe", "button", "select"}
)
_HEADINGS = {f"h{n}": n for n in range(1, 7)}
_INLINE = frozenset(
    {
        "a",
        "abbr",
        "b",
        "bdi",
        "bdo",
        "cite",
        "code",
        "data",
        "dfn",
        "em",
        "font",
        "i",
        "kbd",
        "label",
        "mark",
        "q",
        "s",
        "samp",
        "small",
        "span",
        "strike",
        "strong",
        "sub",
        "sup",
        "time",
        "u",
        "var",
        "wbr",
        "img",
        "input",
        "ins",
        "del",
    }
)
_CHARSET = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?([A-Za-z0-9_\-]+)""", re.I)
_MAX_SPAN = 1000
_SKIP_STRINGS = (Comment, Declaration, Doctype, ProcessingInstruction)


def _span(cell: Tag, attr: str, limit: int) -> int:
    raw = str(cell.get(attr) or "1").strip()
    return max(1, min(int(raw), limit)) if raw.isdigit() else 1


def _table_rows(table: Tag) -> list[list[str]]:
    """Cell texts of a table (not of tables nested in it); col/rowspan cells are repeated."""
    trs = [tr for tr in table.find_all("tr") if tr.find_parent("table") is table]
    grid: dict[tuple[int, int], str] = {}
    widths: dict[int, int] = {}
    for r, tr in enumerate(trs):
        c = 0
        for cell in tr.find_all(["td", "th"], recursive=False):
            while (r, c) in grid:
                c += 1
            text = squash(cell.get_text(" "))
            colspan = _span(cell, "colspan", _MAX_SPAN)
            rowspan = _span(cell, "rowspan", len(trs) - r)
            for dr in range(rowspan):
                for dc in range(colspan):
                    grid[(r + dr, c + dc)] = text
                    widths[r + dr] = max(widths.get(r + dr, 0), c + dc + 1)
            c += colspan
    return [[grid.get((r, c), "") for c in range(widths.get(r, 0))] for r in range(len(trs))]


@dataclass
class _Walker:
    blocks: list[Block] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    buf: list[str] = field(default_factory=list)
    tables: int = 0

    def flush(self) -> None:
        text = squash(join_lines("".join(self.buf).split("\n")))
        if text:
            self.blocks.append(Block("paragraph", text))
        self.buf = []

    def walk(self, node: Tag) -> None:
        for child in node.children:
            if isinstance(child, _SKIP_STRINGS):
                continue
            if isinstance(child, NavigableString):
                self.buf.append(str(child))
            elif isinstance(child, Tag):
                self.visit(child)

    def visit(self, tag: Tag) -> None:
        name = tag.name
        if name in _DROP:
            return
        if name == "br":
            self.buf.append("\n")
        elif name in _INLINE:
            self.walk(tag)
        elif name in _HEADINGS:
            self.flush()
            text = squash(tag.get_text(" "))
            if text:
                self.blocks.append(Block("heading", text, level=_HEADINGS[name]))
        elif name == "pre":
            self.flush()
            text = tag.get_text().strip("\n")
            if text.strip():
                self.blocks.append(Block("paragraph", text))
        elif name == "table":
            self.flush()
            self.table(tag)
        else:  # p, li, div, section, blockquote... and unknown tags: a block boundary
            self.flush()
            self.walk(tag)
            self.flush()

    def table(self, tag: Tag) -> None:
        self.tables += 1
        caption_tag = tag.find("caption")
        caption = squash(caption_tag.get_text(" ")) if isinstance(caption_tag, Tag) else ""
        block, problems = table_block(
            _table_rows(tag), where=f"table {self.tables}", caption=caption
        )
        self.problems.extend(problems)
        if block is not None:
            self.blocks.append(block)


def parse_html(html: str, source: str, *, default_title: str = "") -> Document:
    """Parse HTML into blocks; scripts, styles and navigation are dropped.

    Args:
        html: The HTML text.
        source: The source name stored on the document.
        default_title: Title when the page has neither ``<title>`` nor ``<h1>``.

    Returns:
        The document, blocks in reading order.

    Example:
        >>> doc = parse_html("<h2>Limits</h2><script>x()</script><ul><li>Hotel <b>600</b></li>"
        ...                  "</ul><table><tr><th colspan=2>City</th></tr></table>", "p.html")
        >>> [(b.kind, b.text or b.rows) for b in doc.blocks]
        [('heading', 'Limits'), ('paragraph', 'Hotel 600'), ('table', (('City', 'City'),))]
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MarkupResemblesLocatorWarning)
        warnings.simplefilter("ignore", XMLParsedAsHTMLWarning)
        soup = BeautifulSoup(html, "html.parser")
    limits.check_depth(source, element_depth(soup), "HTML elements")
    title_tag = soup.find("title")
    title = squash(title_tag.get_text(" ")) if isinstance(title_tag, Tag) else ""
    walker = _Walker()
    body = soup.find("body")
    walker.walk(body if isinstance(body, Tag) else soup)
    walker.flush()
    return build_document(
        source, walker.blocks, walker.problems, title=title, default_title=default_title
    )


def element_depth(root: Tag) -> int:
    """The deepest element nesting under ``root``, walked without recursion (the walker
    recurses, so the depth is checked first).

    Example:
        >>> element_depth(BeautifulSoup("<div><p><b>x</b></p><p></p></div>", "html.parser"))
        3
    """
    deepest = 0
    stack: list[tuple[Tag, int]] = [(root, 0)]
    while stack:
        tag, depth = stack.pop()
        deepest = max(deepest, depth)
        stack.extend((child, depth + 1) for child in tag.contents if isinstance(child, Tag))
    return deepest


def _decode_html(data: bytes, source: str) -> str:
    """Decode with the ``<meta charset>`` the page declares, else detect the encoding."""
    declared = _CHARSET.search(data[:4096])
    if declared is not None and not data.startswith((codecs.BOM_UTF8, b"\xff\xfe", b"\xfe\xff")):
        name = declared.group(1).decode("ascii").lower()
        try:
            codecs.lookup(name)
        except LookupError:
            pass
        else:
            if name in ("gb2312", "gbk"):
                name = "gb18030"  # superset; pages labelled gb2312 often hold GBK characters
            return data.decode(name, errors="replace")
    return decode(data, source)[0]


def load_html(path: Path) -> Document:
    """Read an ``.html``/``.htm`` file into a document.

    Args:
        path: The file to read.

    Returns:
        The parsed document; ``source`` is ``str(path)``.

    Raises:
        SourceError: The bytes are not text in any encoding tablerag recognises.
        OSError: The file cannot be read (the dispatcher maps it to ``SourceError``).
    """
    source = str(path)
    return parse_html(_decode_html(path.read_bytes(), source), source, default_title=path.stem)
