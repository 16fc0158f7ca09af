"""Text rules shared by the document loaders: clause markers, line joining, tables, headings."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Protocol

from tablerag.ingest.encoding import decode
from tablerag.types import Block, Document, Problem

_CN_NUM = "一二三四五六七八九十百千零〇两"

CLAUSE_START = re.compile(
    r"""^\s*(?:
        [-*+•·●▪◦]\s                                  # bullets
      | \d{1,3}(?:\.\d{1,3})+\s                        # 3.2 Limits
      | \d{1,3}(?:[.．](?!\d)|[)、])                    # 1.  1)  1、
      | [（(](?:["""
    + _CN_NUM
    + r"""]+|\d+)[）)]      # （一） (1)
      | 第["""
    + _CN_NUM
    + r"""\d]+条                   # 第三条
      | ["""
    + _CN_NUM
    + r"""]+、                       # 一、
      | [①-⑳]                                          # circled numbers
      | [a-z][.)]\s                                    # a) b.
    )""",
    re.VERBOSE,
)

_CJK_CHAR = re.compile(r"[\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uff00-\uffef]")
_SPACES = re.compile(r"\s+")


def is_clause_start(line: str) -> bool:
    """Tell whether a line opens a list item or a numbered clause.

    Example:
        >>> [is_clause_start(s) for s in ("1. Scope", "（一）范围", "第三条 报销", "3.2 Limits")]
        [True, True, True, True]
        >>> [is_clause_start(s) for s in ("一、总则", "- item", "Revenue grew 3.2%", "2024年")]
        [True, True, False, False]
    """
    return CLAUSE_START.match(line) is not None


def join_lines(lines: Iterable[str]) -> str:
    """Join wrapped lines of one paragraph: no space between two CJK characters, else one space.

    Example:
        >>> join_lines(["差旅费按", "标准报销", "within 30", "days."])
        '差旅费按标准报销 within 30 days.'
    """
    out = ""
    for raw in lines:
        line = raw.strip()
        if not line:
            continue
        if out and not (_CJK_CHAR.match(out[-1]) and _CJK_CHAR.match(line[0])):
            out += " "
        out += line
    return out


def squash(text: str) -> str:
    """Collapse runs of whitespace to one space and strip.

    Example:
        >>> squash("  a\\n  b\\tc ")
        'a b c'
    """
    return _SPACES.sub(" ", text).strip()


def table_block(
    rows: Sequence[Sequence[str | None]], *, where: str, caption: str = "", page: int | None = None
) -> tuple[Block | None, list[Problem]]:
    """Make a rectangular ``table`` block from raw rows (header first), reporting what was fixed.

    Cells are whitespace-squashed, empty rows dropped, short rows padded with empty cells and
    rows longer than the header widen the table with unnamed columns.

    Args:
        rows: Cell texts, header row first; None cells become empty strings.
        where: Where the table is, for problem reports (e.g. ``"table 2 (page 3)"``).
        caption: Text stored as the block's caption.
        page: Page number of the table, if known.

    Returns:
        The block (None when no non-empty row is left) and the problems found.

    Example:
        >>> block, problems = table_block([["a", "b"], ["1"], ["", ""]], where="table 1")
        >>> block.rows
        (('a', 'b'), ('1', ''))
        >>> [p.line() for p in problems]  # doctest: +NORMALIZE_WHITESPACE
        ['table 1: 1 empty row (dropped)',
         'table 1: 1 row has fewer cells than the header (padded with empty cells)']
    """
    problems: list[Problem] = []
    cleaned = [tuple(squash(c or "") for c in row) for row in rows]
    kept = [row for row in cleaned if any(row)]
    if len(kept) < len(cleaned):
        n = len(cleaned) - len(kept)
        problems.append(Problem(where, f"{n} empty row{'s' if n > 1 else ''}", "dropped"))
    if not kept:
        return None, problems
    width = max(len(row) for row in kept)
    head = len(kept[0])
    short = sum(1 for row in kept[1:] if len(row) < head)
    if width > head:
        problems.append(
            Problem(
                where, f"some rows have {width} cells, the header {head}", "added unnamed columns"
            )
        )
    if short:
        verb = "rows have" if short > 1 else "row has"
        problems.append(
            Problem(where, f"{short} {verb} fewer cells than the header", "padded with empty cells")
        )
    square = tuple(row + ("",) * (width - len(row)) for row in kept)
    return Block("table", text=caption, page=page, rows=square), problems


def normalise_levels(blocks: Sequence[Block]) -> tuple[Block, ...]:
    """Renumber heading levels so the distinct levels used become 1, 2, 3... in order.

    Example:
        >>> bs = normalise_levels([Block("heading", "A", level=2), Block("heading", "B", level=5)])
        >>> [b.level for b in bs]
        [1, 2]
    """
    levels = sorted({b.level for b in blocks if b.kind == "heading"})
    rank = {level: i + 1 for i, level in enumerate(levels)}
    return tuple(
        Block(b.kind, b.text, rank[b.level], b.page, b.rows) if b.kind == "heading" else b
        for b in blocks
    )


_CAPTION = re.compile(r"^(?:表|图表|Table|Tab\.)\s*[\w.\-" + _CN_NUM + r"]*\s*[:：.]?", re.I)


def is_caption(text: str) -> bool:
    """Tell whether a short line names the table that follows it (``表1 …``, ``Table 2: …``).

    Example:
        >>> [is_caption(s) for s in ("表1 住宿标准", "Table 2: Limits", "Table 3 shows that x.")]
        [True, True, False]
    """
    return len(text) <= 60 and not text.endswith((".", "。")) and _CAPTION.match(text) is not None


def first_heading(blocks: Sequence[Block], default: str) -> str:
    """The text of the first top-level heading, else ``default``.

    Example:
        >>> first_heading([Block("paragraph", "x"), Block("heading", "Policy", level=1)], "f")
        'Policy'
    """
    for block in blocks:
        if block.kind == "heading" and block.level == 1:
            return block.text
    return default


def empty_problem(blocks: Sequence[Block]) -> list[Problem]:
    """A problem when a document has no text at all, so the user learns why nothing was indexed.

    Example:
        >>> [p.what for p in empty_problem([])]
        ['the document has no text']
    """
    if any(b.text or b.rows for b in blocks):
        return []
    return [Problem("", "the document has no text", "nothing indexed; check the file's content")]


def build_document(
    source: str,
    blocks: Sequence[Block],
    problems: Sequence[Problem] = (),
    *,
    title: str = "",
    default_title: str = "",
) -> Document:
    """Assemble a loader's result: title from metadata, else first heading, else the default.

    A document without any text also gets the :func:`empty_problem` problem.

    Example:
        >>> doc = build_document("a.md", [Block("heading", "Policy", level=1)], default_title="a")
        >>> doc.title, doc.problems
        ('Policy', ())
        >>> [p.what for p in build_document("b.md", [], default_title="b").problems]
        ['the document has no text']
    """
    final = tuple(blocks)
    return Document(
        source=source,
        title=title or first_heading(final, default_title),
        blocks=final,
        problems=(*problems, *empty_problem(final)),
    )


class TextParser(Protocol):
    """A ``parse_*`` function: decoded text and its source name to a document."""

    def __call__(self, text: str, source: str, *, default_title: str = "") -> Document: ...


def load_text_file(path: Path, parse: TextParser) -> Document:
    """Decode a text file (UTF-8, UTF-16 or GB18030) and parse it; the title defaults to the stem.

    Args:
        path: The file to read.
        parse: The format's parser, e.g. ``parse_markdown``.

    Returns:
        The parsed document; ``source`` is ``str(path)``.

    Raises:
        SourceError: The bytes are not text in any encoding tablerag recognises.
        OSError: The file cannot be read (the dispatcher maps it to ``SourceError``).
    """
    text, _ = decode(path.read_bytes(), str(path))
    return parse(text, str(path), default_title=path.stem)
