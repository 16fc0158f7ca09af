"""Plain text to blocks: paragraphs on blank lines, heading-like lines, numbered clauses."""

from __future__ import annotations

import re
from pathlib import Path

from tablerag.ingest.documents._blocks import (
    _CN_NUM,
    build_document,
    is_clause_start,
    join_lines,
    load_text_file,
    normalise_levels,
)
from tablerag.types import Block, Document

# (pattern, level before normalisation); the first match wins. 第三条 is a clause, not a heading.
_HEADINGS = (
    (re.compile(rf"^第[{_CN_NUM}\d]+[编篇部]"), 1),
    (re.compile(r"^(?:part)\s+[\dIVXLC]+\b", re.I), 1),
    (re.compile(rf"^第[{_CN_NUM}\d]+章"), 2),
    (re.compile(r"^(?:chapter|appendix)\s+[\dA-Z]{1,6}\b", re.I), 2),
    (re.compile(rf"^第[{_CN_NUM}\d]+节"), 3),
    (re.compile(r"^section\s+[\d.]+\b", re.I), 3),
    (re.compile(rf"^[{_CN_NUM}]+、"), 4),
)
_ALL_CAPS = re.compile(r"^[A-Z0-9][A-Z0-9 &,'’:/\-.]*$")
_ALL_CAPS_LEVEL = 2
_TITLE_LEVEL = 0
_SENTENCE_END = ("。", "！", "？", "；", ".", "!", "?", ";", "，", ",", "：", ":")


def _heading_level(line: str, *, alone: bool = True) -> int | None:
    """The level of a line that looks like a heading, else None.

    A short ALL CAPS line counts only when it stands ``alone`` between blank lines, so code or
    log lines (``SELECT``, ``INFO``) inside a block stay text.

    Example:
        >>> [_heading_level(s) for s in ("第一章 总则", "一、范围", "Chapter 2 Scope", "NOTICE")]
        [2, 4, 2, 2]
        >>> [_heading_level(s) for s in ("第三条 报销", "一、本办法自发布之日起施行。", "OK.")]
        [None, None, None]
    """
    if len(line) > 60 or line.endswith(_SENTENCE_END):
        return None
    for pattern, level in _HEADINGS:
        if pattern.match(line):
            return level
    letters = sum(1 for c in line if c.isalpha())
    if alone and len(line.split()) <= 8 and letters >= 3 and _ALL_CAPS.match(line):
        return _ALL_CAPS_LEVEL
    return None


def _hard_wrapped(lines: list[str]) -> bool:
    """Whether lines are one paragraph wrapped at a fixed width.

    Otherwise (lines ending sentences and of very different lengths, or longer than anyone wraps
    at) every line is a paragraph of its own, as in most Chinese text files.

    Example:
        >>> _hard_wrapped(["Hotels are paid up to the city", "limit of 600 yuan per night."])
        True
        >>> _hard_wrapped(["第一段很长" * 30, "第二段。", "第三段也很长" * 20])
        False
    """
    if len(lines) < 2 or not any(line.endswith(_SENTENCE_END) for line in lines[:-1]):
        return True
    longest = max(len(line) for line in lines)
    if longest > 120:
        return False
    full = sum(1 for line in lines[:-1] if len(line) >= 0.7 * longest)
    return full >= (len(lines) - 1) / 2


def _is_title(block_lines: list[str]) -> bool:
    """A first block made of one short line without sentence punctuation is the title."""
    if len(block_lines) != 1:
        return False
    line = block_lines[0].strip()
    return 0 < len(line) <= 40 and not line.endswith(_SENTENCE_END) and not is_clause_start(line)


def parse_text(text: str, source: str, *, default_title: str = "") -> Document:
    """Parse plain text into heading and paragraph blocks.

    Paragraphs are separated by blank lines; wrapped lines are joined (no space between Chinese
    characters). A line that opens a numbered clause (``第三条``, ``（一）``, ``1.``) starts its own
    paragraph, and so does every line of a block that is not hard-wrapped. Lines like
    ``第一章 总则``, ``一、总则``, ``Chapter 2 …`` or a lone short ALL CAPS line become headings,
    and a lone short first line becomes the title heading.

    Args:
        text: The text.
        source: The source name stored on the document.
        default_title: Title when the text has no title line or heading.

    Returns:
        The document; heading levels renumbered from 1.

    Example:
        >>> text = "差旅管理办法\\n\\n第一章 总则\\n第一条 为规范\\n差旅。\\n第二条 适用。"
        >>> doc = parse_text(text, "a.txt")
        >>> [(b.kind, b.level, b.text) for b in doc.blocks]  # doctest: +NORMALIZE_WHITESPACE
        [('heading', 1, '差旅管理办法'), ('heading', 2, '第一章 总则'),
         ('paragraph', 0, '第一条 为规范差旅。'), ('paragraph', 0, '第二条 适用。')]
    """
    blocks: list[Block] = []
    para: list[str] = []

    def flush() -> None:
        if para:
            units = [join_lines(para)] if _hard_wrapped(para) else list(para)
            blocks.extend(Block("paragraph", unit) for unit in units)
            para.clear()

    groups = re.split(r"\n[ \t\u3000]*\n", text.replace("\r\n", "\n").replace("\r", "\n"))
    for index, group in enumerate(g for g in groups if g.strip()):
        lines = [line.strip() for line in group.split("\n") if line.strip()]
        titled = index == 0 and _is_title(lines)
        if titled and _heading_level(lines[0]) in (None, _ALL_CAPS_LEVEL):
            blocks.append(Block("heading", lines[0], level=_TITLE_LEVEL))
            continue
        for line in lines:
            level = _heading_level(line, alone=len(lines) == 1)
            if level is not None:
                flush()
                blocks.append(Block("heading", line, level=level))
                continue
            if is_clause_start(line):
                flush()
            para.append(line)
        flush()
    return build_document(source, normalise_levels(blocks), default_title=default_title)


def load_text(path: Path) -> Document:
    """Read a ``.txt`` file into a document; see :func:`load_text_file`."""
    return load_text_file(path, parse_text)
