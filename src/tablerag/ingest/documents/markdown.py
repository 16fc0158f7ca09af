"""Markdown to blocks: headings (ATX and setext), paragraphs, clauses, pipe tables, code."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from tablerag.ingest.documents._blocks import (
    build_document,
    is_caption,
    is_clause_start,
    join_lines,
    load_text_file,
    table_block,
)
from tablerag.types import Block, Document, Problem

_ATX = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")
_SETEXT = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")
_THEMATIC = re.compile(r"^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_TABLE_SEP = re.compile(r"^\s*\|?\s*:?-+:?\s*(?:\|\s*:?-+:?\s*)*\|?\s*$")
_QUOTE = re.compile(r"^ {0,3}>\s?")
_BULLET = re.compile(r"^\s*[-*+]\s+")
_HTML_COMMENT = re.compile(r"<!--.*?-->", re.S)

_INLINE = (
    (re.compile(r"!\[([^\]]*)\]\([^)]*\)"), r"\1"),  # image -> alt text
    (re.compile(r"\[([^\]]+)\]\([^)]*\)"), r"\1"),  # link -> its text
    (re.compile(r"(\*\*|__)(?=\S)(.+?)(?<=\S)\1"), r"\2"),  # strong
    (re.compile(r"(?<![\w*])\*(?=\S)(.+?)(?<=\S)\*(?![\w*])"), r"\1"),  # emphasis
    (re.compile(r"(?<!\w)_(?=\S)(.+?)(?<=\S)_(?!\w)"), r"\1"),
    (re.compile(r"~~(.+?)~~"), r"\1"),
    (re.compile(r"`([^`]+)`"), r"\1"),
    (re.compile(r"</?(?:br|span|b|i|em|strong|sup|sub|u|font)\b[^>]*>", re.I), " "),
    (re.compile(r"\\([\\`*_{}\[\]()#+\-.!|])"), r"\1"),  # backslash escapes
)


def plain(text: str) -> str:
    """Strip inline Markdown (emphasis, links, images, code marks, escapes) from text.

    Example:
        >>> plain("**Limit**: see [the policy](http://x) and `max_days`, snake_case ok")
        'Limit: see the policy and max_days, snake_case ok'
    """
    for pattern, repl in _INLINE:
        text = pattern.sub(repl, text)
    return text.strip()


def _cells(line: str) -> list[str]:
    body = line.strip()
    if body.startswith("|"):
        body = body[1:]
    if body.endswith("|") and not body.endswith("\\|"):
        body = body[:-1]
    return [plain(c.replace("\\|", "|")) for c in re.split(r"(?<!\\)\|", body)]


@dataclass
class _Parser:
    lines: list[str]
    blocks: list[Block] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    para: list[str] = field(default_factory=list)
    para_is_item: bool = False
    tables: int = 0

    def flush(self) -> None:
        if self.para:
            text = plain(join_lines(self.para))
            if text:
                self.blocks.append(Block("paragraph", text))
        self.para, self.para_is_item = [], False

    def run(self) -> None:
        i = 0
        while i < len(self.lines):
            i = self.step(i)
        self.flush()

    def step(self, i: int) -> int:
        line = self.lines[i]
        nxt = self.lines[i + 1] if i + 1 < len(self.lines) else ""
        if _FENCE.match(line):
            self.flush()
            return self.fence(i)
        if not line.strip():
            self.flush()
        elif (m := _ATX.match(line)) is not None:
            self.flush()
            text = plain(m.group(2) or "")
            if text:
                self.blocks.append(Block("heading", text, level=len(m.group(1))))
        elif self.para and not self.para_is_item and (m := _SETEXT.match(line)) is not None:
            text = plain(join_lines(self.para))
            self.para = []
            self.blocks.append(Block("heading", text, level=1 if m.group(1)[0] == "=" else 2))
        elif _THEMATIC.match(line):
            self.flush()
        elif "|" in line and _TABLE_SEP.match(nxt) and "-" in nxt:
            self.flush()
            return self.table(i)
        elif _QUOTE.match(line):
            self.para.append(_QUOTE.sub("", line))
        elif is_clause_start(line):
            self.flush()
            self.para, self.para_is_item = [_BULLET.sub("", line)], True
        else:
            self.para.append(line)
        return i + 1

    def fence(self, i: int) -> int:
        mark = _FENCE.match(self.lines[i])
        assert mark is not None
        fence = mark.group(1)
        body: list[str] = []
        j = i + 1
        while j < len(self.lines):
            if self.lines[j].strip().startswith(fence[0] * len(fence)) and not self.lines[
                j
            ].strip().strip(fence[0]):
                j += 1
                break
            body.append(self.lines[j])
            j += 1
        code = "\n".join(body).strip("\n")
        if code.strip():
            self.blocks.append(Block("paragraph", code))
        return j

    def table(self, i: int) -> int:
        rows = [_cells(self.lines[i])]
        j = i + 2
        while j < len(self.lines) and "|" in self.lines[j] and self.lines[j].strip():
            rows.append(_cells(self.lines[j]))
            j += 1
        self.tables += 1
        caption = ""
        last = self.blocks[-1] if self.blocks else None
        if last is not None and last.kind == "paragraph" and is_caption(last.text):
            caption = last.text
            self.blocks.pop()
        block, problems = table_block(rows, where=f"table {self.tables}", caption=caption)
        self.problems.extend(problems)
        if block is not None:
            self.blocks.append(block)
        return j


def _front_matter(lines: list[str]) -> tuple[list[str], str]:
    """Drop a leading YAML front-matter block; return the rest and its ``title:`` if any."""
    if not lines or lines[0].strip() != "---":
        return lines, ""
    for j in range(1, min(len(lines), 60)):
        if lines[j].strip() in ("---", "..."):
            title = ""
            for meta in lines[1:j]:
                key, _, value = meta.partition(":")
                if key.strip().lower() == "title":
                    title = value.strip().strip("'\"")
            return lines[j + 1 :], title
        if lines[j].strip() and ":" not in lines[j] and not lines[j].startswith((" ", "-")):
            break
    return lines, ""


def parse_markdown(text: str, source: str, *, default_title: str = "") -> Document:
    """Parse Markdown text into a document of heading, paragraph and table blocks.

    Args:
        text: The Markdown text.
        source: The source name stored on the document.
        default_title: Title used when the text has neither front-matter title nor ``#`` heading.

    Returns:
        The document, blocks in reading order.

    Example:
        >>> text = "# 制度\\n\\n第一条 适用范围。\\n第二条 标准。\\n\\n|a|b|\\n|-|-|\\n|1|2|"
        >>> doc = parse_markdown(text, "p.md")
        >>> [(b.kind, b.text or b.rows) for b in doc.blocks]  # doctest: +NORMALIZE_WHITESPACE
        [('heading', '制度'), ('paragraph', '第一条 适用范围。'), ('paragraph', '第二条 标准。'),
         ('table', (('a', 'b'), ('1', '2')))]
    """
    lines, title = _front_matter(_HTML_COMMENT.sub("", text).splitlines())
    parser = _Parser(lines)
    parser.run()
    return build_document(
        source, parser.blocks, parser.problems, title=title, default_title=default_title
    )


def load_markdown(path: Path) -> Document:
    """Read a ``.md``/``.markdown`` file into a document; see :func:`load_text_file`."""
    return load_text_file(path, parse_markdown)
