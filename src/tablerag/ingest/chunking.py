"""Structure-aware chunking: documents and tables to retrievable chunks, never cutting a clause.

Rules (pure functions, no I/O):

* A heading closes the current chunk; every chunk keeps the path of headings above it.
* A document's kind decides the unit a chunk keeps whole (``tablerag.ingest.dockind``): a
  clause for rules and policies, a question with its answer for FAQs, a section otherwise.
* Consecutive paragraphs under the same heading are packed up to ``max_tokens``
  (``tablerag.tokens.count_tokens``). A paragraph or numbered clause is never cut unless it alone
  is over the limit; then it is split between sentences (``。！？；`` and ``.!?``) and, for a
  sentence still too long, between words or CJK characters.
* A table becomes Markdown chunks (context line, header, rows) split between rows, the header
  repeated in every part; a single row too long for the limit stays whole in its own chunk.
* Hidden (sensitive) columns, given by position, never enter a chunk: neither their header nor
  their values. The card says only how many were hidden, never which.
* Prose chunk text holds the paragraphs only; the heading path is in ``Chunk.heading_path`` so
  the index can add it to what it embeds.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field

from tablerag.errors import ConfigError
from tablerag.ingest import dockind
from tablerag.sql.mask import mask_value
from tablerag.tokens import count_tokens
from tablerag.types import Block, Chunk, Document, source_label

_SENTENCE_END = re.compile(r"[。！？；]+[”’」』）)\"']*|[.!?;]+[”’\"')\]]*(?=\s|$)|\n+")
_CUT_UNIT = re.compile(
    r"[\u3000-\u303f\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff\uff00-\uffef]"
    r"\s*|\S+?(?=[\u3000-\u303f\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff"
    r"\uff00-\uffef]|\s|$)\s*|\s+"
)
_PARAGRAPH_SEP = "\n\n"


def chunk_id(source: str, ordinal: int, text: str) -> str:
    """The deterministic id of a chunk: 16 hex characters of SHA-1 over source, ordinal and text.

    Example:
        >>> chunk_id("policy.md", 0, "第一条 适用范围。")
        'a493d75b67dae90f'
        >>> chunk_id("policy.md", 1, "第一条 适用范围。")
        'bb6ba2bf0337810a'
    """
    digest = hashlib.sha1(f"{source}\x1f{ordinal}\x1f{text}".encode())
    return digest.hexdigest()[:16]


def sentences(text: str) -> list[str]:
    """Split text after sentence ends (``。！？；`` and ``.!?;`` before a space) and line breaks.

    Pieces keep their trailing whitespace, so ``"".join(sentences(t)) == t``.

    Example:
        >>> sentences("住宿费按标准报销。超支自理！Meals are paid. Taxis too.")
        ['住宿费按标准报销。', '超支自理！', 'Meals are paid. ', 'Taxis too.']
        >>> sentences("Growth was 3.5% in 2024")
        ['Growth was 3.5% in 2024']
    """
    out: list[str] = []
    start = 0
    for match in _SENTENCE_END.finditer(text):
        end = match.end()
        while end < len(text) and text[end] in " \t":
            end += 1
        if end > start:
            out.append(text[start:end])
            start = end
    if start < len(text):
        out.append(text[start:])
    return out


_CJK_CLASS = (
    "\u3000-\u303f\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff\uff00-\uffef"
)
_CJK_CHAR = re.compile(f"[{_CJK_CLASS}]")
_WORD_RUN = re.compile(f"[^\\s{_CJK_CLASS}]+")


@dataclass(frozen=True)
class _Tally:
    """What ``count_tokens`` counts in a text (CJK characters, words) and whether the text
    starts and ends inside a word, so the count of a concatenation is found without reading
    the text again: packing stays linear in the text (issue 28: a 10 MB line took 200 s when
    every unit recounted the chunk it was added to).

    Example:
        >>> from tablerag.tokens import count_tokens
        >>> a, b = "travel exp", "enses 报销"
        >>> (_Tally.of(a) + _Tally.of(b)).tokens() == count_tokens(a + b)
        True
    """

    cjk: int = 0
    words: int = 0
    head: bool = False
    tail: bool = False
    empty: bool = True

    @classmethod
    def of(cls, text: str) -> _Tally:
        if not text:
            return _EMPTY
        words = _WORD_RUN.findall(text)
        return cls(
            cjk=len(_CJK_CHAR.findall(text)),
            words=len(words),
            head=bool(words) and text.startswith(words[0]),
            tail=bool(words) and text.endswith(words[-1]),
            empty=False,
        )

    def __add__(self, other: _Tally) -> _Tally:
        if other.empty:
            return self
        if self.empty:
            return other
        merged = 1 if self.tail and other.head else 0
        return _Tally(
            self.cjk + other.cjk, self.words + other.words - merged, self.head, other.tail, False
        )

    def tokens(self) -> int:
        """``count_tokens`` of the text counted (same rounding)."""
        return self.cjk + (self.words * 13 + 9) // 10


_EMPTY = _Tally()
_SEPARATOR = _Tally(empty=False)
"""The tally of a blank separator (``\\n\\n``): nothing counted, no word crosses it."""


def _pack(units: Sequence[str], max_tokens: int) -> list[str]:
    """Greedily concatenate consecutive text units while the result fits ``max_tokens``.

    The count of the packed text is kept as units come (as :class:`_Tally` does, inlined: this
    loop runs once per word of an over-long sentence).

    Example:
        >>> _pack(["a ", "b ", "c ", "d"], 3)
        ['a b ', 'c d']
    """
    out: list[str] = []
    current: list[str] = []
    cjk = words = 0
    tail = False
    for unit in units:
        if not unit:
            continue
        if unit.isascii():  # no CJK: the words are what str.split finds (same whitespace)
            u_cjk, u_words = 0, len(unit.split())
        else:
            u_cjk, u_words = len(_CJK_CHAR.findall(unit)), len(_WORD_RUN.findall(unit))
        first, last = unit[0], unit[-1]
        head = not first.isspace() and (first.isascii() or not _CJK_CHAR.match(first))
        merged = 1 if tail and head else 0
        if current and cjk + u_cjk + ((words + u_words - merged) * 13 + 9) // 10 > max_tokens:
            out.append("".join(current))
            current, cjk, words = [unit], u_cjk, u_words
        else:
            current.append(unit)
            cjk, words = cjk + u_cjk, words + u_words - merged
        tail = not last.isspace() and (last.isascii() or not _CJK_CHAR.match(last))
    if current:
        out.append("".join(current))
    return out


def split_long(text: str, max_tokens: int) -> list[str]:
    """Split one over-long paragraph into pieces of at most ``max_tokens``, sentences first.

    Text that fits comes back whole. Otherwise sentences are packed greedily; a sentence still
    over the limit is cut between words (English) or characters (CJK) as a last resort.
    Whitespace at cut points is dropped, nothing else.

    Args:
        text: The paragraph.
        max_tokens: The size limit (``count_tokens``), at least 1.

    Returns:
        The pieces, in order, none empty.

    Example:
        >>> split_long("第一句很长很长。第二句也很长。第三句。", 11)
        ['第一句很长很长。', '第二句也很长。第三句。']
        >>> split_long("一二三四五六七八九十", 4)
        ['一二三四', '五六七八', '九十']
        >>> split_long("short text", 100)
        ['short text']
    """
    if count_tokens(text) <= max_tokens:
        return [text.strip()] if text.strip() else []
    units: list[str] = []
    for sentence in sentences(text):
        if count_tokens(sentence) <= max_tokens:
            units.append(sentence)
        else:
            units.extend(_pack(_CUT_UNIT.findall(sentence), max_tokens))
    return [piece.strip() for piece in _pack(units, max_tokens) if piece.strip()]


def _tail(text: str, overlap_tokens: int) -> str:
    """The trailing whole sentences of ``text`` that fit in ``overlap_tokens`` (maybe empty)."""
    kept = ""
    for sentence in reversed(sentences(text)):
        candidate = sentence + kept
        if count_tokens(candidate) > overlap_tokens:
            break
        kept = candidate
    return kept.strip()


def _cell(value: object) -> str:
    text = "" if value is None else str(value)
    return " ".join(text.split()).replace("|", "\\|")


def _md_row(cells: Sequence[object]) -> str:
    return "| " + " | ".join(_cell(c) for c in cells) + " |"


def _without(cells: Sequence[object], hidden: Collection[int]) -> list[object]:
    """``cells`` minus the positions in ``hidden``.

    Example:
        >>> _without(["a", "pw", "b"], {1})
        ['a', 'b']
    """
    return [c for i, c in enumerate(cells) if i not in hidden]


def _hidden_note(count: int) -> str:
    """The note a card or context line carries for hidden columns (a count, never a name)."""
    if not count:
        return ""
    return f"({count} column{'s' if count > 1 else ''} hidden)"


def _table_texts(
    header: Sequence[str], rows: Sequence[Sequence[object]], context: str, max_tokens: int
) -> list[str]:
    """Markdown parts of a table, split between rows, each with context line and header."""
    head = _md_row(header) + "\n" + _md_row(["---"] * len(header))
    if context:
        head = context + "\n" + head
    parts: list[str] = []
    current: list[str] = []
    for row in rows:
        line = _md_row(row)
        if current and count_tokens("\n".join([head, *current, line])) > max_tokens:
            parts.append("\n".join([head, *current]))
            current = []
        current.append(line)
    if current or not parts:
        parts.append("\n".join([head, *current]))
    return parts


def _check_sizes(max_tokens: int, overlap_tokens: int) -> None:
    if max_tokens < 1:
        raise ConfigError(f"max_tokens is {max_tokens!r}; set a chunk size of at least 1 token.")
    if not 0 <= overlap_tokens < max_tokens:
        raise ConfigError(
            f"overlap_tokens is {overlap_tokens!r}; set it from 0 to less than max_tokens "
            f"({max_tokens})."
        )


@dataclass(frozen=True)
class _Piece:
    text: str
    heading_path: tuple[str, ...]
    page: int | None
    table: str | None = None


@dataclass
class _Packer:
    """Packs paragraph units of one section; emits pieces when full or when the section ends."""

    max_tokens: int
    overlap_tokens: int
    out: list[_Piece] = field(default_factory=list)
    units: list[str] = field(default_factory=list)
    page: int | None = None
    path: tuple[str, ...] = ()

    tally: _Tally = _EMPTY
    """Of ``_PARAGRAPH_SEP.join(units)``, kept as units come (no recount of the chunk)."""

    def add(self, unit: str, page: int | None, path: tuple[str, ...]) -> None:
        counted = _Tally.of(unit)
        if self.units and (self.tally + _SEPARATOR + counted).tokens() > self.max_tokens:
            last = self.units[-1]
            self.flush()
            tail = _tail(last, self.overlap_tokens) if self.overlap_tokens else ""
            if tail and count_tokens(tail + _PARAGRAPH_SEP + unit) <= self.max_tokens:
                self.units, self.page, self.tally = [tail], page, _Tally.of(tail)
        if not self.units:
            self.page, self.path = page, path
            self.tally = counted
        else:
            self.tally = self.tally + _SEPARATOR + counted
        self.units.append(unit)

    def flush(self) -> None:
        if self.units:
            text = _PARAGRAPH_SEP.join(self.units)
            self.out.append(_Piece(text, self.path, self.page))
        self.units, self.tally = [], _EMPTY


def _heading_path(stack: list[tuple[int, str]], block: Block) -> None:
    while stack and stack[-1][0] >= block.level:
        stack.pop()
    stack.append((block.level, block.text))


def _context_line(table: str | None, caption: str, path: tuple[str, ...]) -> str:
    parts = [f"Table {table}" if table else "", caption, " > ".join(path)]
    return " — ".join(p for p in parts if p)


def _number(source: str, pieces: Sequence[_Piece], start: int = 0) -> list[Chunk]:
    return [
        Chunk(
            chunk_id=chunk_id(source, start + i, p.text),
            source=source,
            ordinal=start + i,
            text=p.text,
            heading_path=p.heading_path,
            page=p.page,
            table=p.table,
        )
        for i, p in enumerate(pieces)
    ]


def chunk_document(
    doc: Document,
    *,
    table_names: Mapping[int, str],
    max_tokens: int = 400,
    overlap_tokens: int = 0,
    hidden: Mapping[int, Collection[int]] | None = None,
    kind: dockind.DocKind | None = None,
) -> list[Chunk]:
    """Cut a document into chunks that follow its headings, paragraphs, clauses and tables.

    The document's kind (:mod:`tablerag.ingest.dockind`) says what a chunk holds whole:
    ``rules`` one clause (``第六条`` with ``6.1``-``6.3``), ``faq`` one question with its
    answer, ``manual``/``prose`` the paragraphs of a section packed up to ``max_tokens``.

    Args:
        doc: The loaded document.
        table_names: For each table block, its index in ``doc.blocks`` -> the SQL table the
            pipeline stored it as; the table's chunks point to it (``Chunk.table``). A table
            block missing from the mapping is still chunked, with ``table=None``.
        max_tokens: Chunk size limit (``count_tokens``). Only a single paragraph piece or table
            row that cannot be split further may exceed it.
        overlap_tokens: When a section runs over several chunks, each later chunk starts with
            the last whole sentences (up to this many tokens) of the chunk before. 0 = none.
        hidden: For each table block, its index in ``doc.blocks`` -> the positions of the
            columns to leave out (header cell and every value; sensitive columns).
        kind: The chunking strategy; None detects it (``dockind.detect_kind``).

    Returns:
        Chunks in reading order, ordinals ``0..n-1``, ids from ``chunk_id``.

    Raises:
        ConfigError: ``max_tokens`` < 1, or ``overlap_tokens`` negative or not below it.

    Example:
        >>> doc = Document("p.md", "P", (
        ...     Block("heading", "总则", level=1),
        ...     Block("paragraph", "第一条 适用全体员工。"),
        ...     Block("paragraph", "第二条 按标准报销。"),
        ...     Block("heading", "标准", level=1),
        ...     Block("table", "住宿", rows=(("城市", "元"), ("北京", "600"))),
        ... ))
        >>> for c in chunk_document(doc, table_names={4: "p_table_1"}):
        ...     print(c.ordinal, c.heading_path, c.table, c.text, sep="; ")
        0; ('总则',); None; 第一条 适用全体员工。
        <BLANKLINE>
        第二条 按标准报销。
        1; ('标准',); p_table_1; Table p_table_1 — 住宿 — 标准
        | 城市 | 元 |
        | --- | --- |
        | 北京 | 600 |
    """
    _check_sizes(max_tokens, overlap_tokens)
    kind = kind or dockind.detect_kind(doc).kind
    packer = _Packer(max_tokens, overlap_tokens)
    stack: list[tuple[int, str]] = []
    section: list[Block] = []  # the paragraphs since the last heading or table

    def close_section() -> None:
        path = tuple(text for _, text in stack)
        for unit in dockind.units(kind, [b.text for b in section]):
            text = _PARAGRAPH_SEP.join(section[i].text.strip() for i in unit)
            whole = kind in ("rules", "faq")
            if whole and count_tokens(text) <= max_tokens:
                packer.add(text, section[unit[0]].page, path)  # a clause or answer kept whole
                continue
            if whole:  # too long for one chunk: chunks of its own, split between paragraphs
                packer.flush()
            for i in unit:
                for piece in split_long(section[i].text, max_tokens):
                    packer.add(piece, section[i].page, path)
            if whole:
                packer.flush()
        section.clear()

    for index, block in enumerate(doc.blocks):
        if block.kind == "heading":
            if block.text.strip():
                close_section()
                packer.flush()
                _heading_path(stack, block)
        elif block.kind == "paragraph":
            section.append(block)
        elif block.rows:
            close_section()
            packer.flush()
            path = tuple(text for _, text in stack)
            table = table_names.get(index)
            texts = document_table_texts(
                table,
                block.text,
                path,
                block.rows,
                max_tokens=max_tokens,
                hidden=(hidden or {}).get(index, ()),
            )
            packer.out.extend(_Piece(text, path, block.page, table) for text in texts)
    close_section()
    packer.flush()
    return _number(doc.source, packer.out)


def document_table_texts(
    table: str | None,
    caption: str,
    heading_path: tuple[str, ...],
    rows: Sequence[Sequence[object]],
    *,
    max_tokens: int = 400,
    hidden: Collection[int] = (),
) -> list[str]:
    """The Markdown parts of a table found in a document (header row first in ``rows``).

    Each part starts with a context line (table name, caption, heading path and, when columns
    are hidden, how many) and the header; hidden positions are left out of every row.

    Example:
        >>> texts = document_table_texts("t", "Staff", ("HR",), [("name", "id_card"),
        ...     ("Ann", "110101199003071234")], hidden={1})
        >>> print(texts[0])
        Table t — Staff — HR (1 column hidden)
        | name |
        | --- |
        | Ann |
    """
    gone = set(hidden)
    context = _context_line(table, caption, heading_path)
    width = max((len(r) for r in rows), default=0)
    note = _hidden_note(sum(1 for i in gone if 0 <= i < width))
    context = f"{context} {note}".strip() if note else context
    header = [str(h) for h in _without(rows[0], gone)] if rows else []
    body = [_without(r, gone) for r in rows[1:]]
    return _table_texts(header, body, context, max_tokens)


def table_chunks(
    table: str,
    source: str,
    header: Sequence[str],
    rows: Sequence[Sequence[object]],
    *,
    title: str = "",
    heading_path: tuple[str, ...] = (),
    page: int | None = None,
    max_tokens: int = 400,
    start_ordinal: int = 0,
    row_count: int | None = None,
    hidden: Collection[int] = (),
    note: str = "",
) -> list[Chunk]:
    """Chunks for a stand-alone table (CSV, Excel sheet): a table card, then its rows.

    The first chunk is the card: table name, title, source, columns, if given the row
    count, and the note written under the table (on the card only: the rows do not repeat
    it). Then the given rows follow as Markdown, split between rows with the header repeated.

    Args:
        table: The SQL table name (every chunk's ``table``).
        source: The source file or database the table came from.
        header: Column names (original headers read better than SQL names).
        rows: The rows to linearise (all, or a sample chosen by the caller); None -> empty cell.
        title: A human title (sheet name, caption), shown on the card and every part.
        heading_path: Stored on every chunk.
        page: Stored on every chunk.
        max_tokens: Size limit per chunk; a single row over it stays whole.
        start_ordinal: Ordinal of the card; the row chunks follow.
        row_count: Rows in the full table, shown on the card when given.
        hidden: Positions of the columns to leave out (header and every value); the card
            says how many, never which.
        note: The text written under the table in its file (``注：…``, ``Source: …``).

    Returns:
        The card chunk followed by the row chunks.

    Raises:
        ConfigError: ``max_tokens`` < 1.

    Example:
        >>> chunks = table_chunks("sales", "sales.csv", ["region", "amount"],
        ...                       [["华东", 10], ["华北", 20]], title="Sales 2024", row_count=2)
        >>> print(chunks[0].text)
        Table sales: Sales 2024
        Source: sales.csv
        Columns: region, amount
        Rows: 2
        >>> print(table_chunks("t", "t.csv", ["a"], [["1"]], note="Source: NBS")[0].text)
        Table t
        Source: t.csv
        Columns: a
        Note: Source: NBS
        >>> print(chunks[1].text)
        Table sales: Sales 2024
        | region | amount |
        | --- | --- |
        | 华东 | 10 |
        | 华北 | 20 |
        >>> chunks = table_chunks("users", "u.csv", ["name", "password"], [["Ann", "s3cret"]],
        ...                       hidden={1})
        >>> print(chunks[0].text)
        Table users
        Source: u.csv
        Columns: name (1 column hidden)
        >>> "s3cret" in chunks[1].text
        False
        >>> print(table_chunks("t", "t.csv", ["note"], [["call 13812345678"]])[1].text)
        Table t
        | note |
        | --- |
        | call 138****5678 |
    """
    _check_sizes(max_tokens, 0)
    context = f"Table {table}: {title}" if title else f"Table {table}"
    gone = {i for i in hidden if 0 <= i < len(header)}
    shown = [str(h) for h in _without(header, gone)]
    gone_note = _hidden_note(len(gone))
    card = [
        context,
        f"Source: {source_label(source)}",  # the folder is nobody's business (a model API)
        " ".join(p for p in ("Columns:", ", ".join(shown), gone_note) if p),
    ]
    if row_count is not None:
        card.append(f"Rows: {row_count}")
    if note:
        card.append(f"Note: {mask_value(note)}")  # masked as a cell is
    texts = ["\n".join(card)]
    if rows:
        # cells masked as a query's result is (tablerag.sql.mask): the text index, the prompts
        # and the citations then hold no more of a visible cell's personal data than `sql` shows
        kept = [[mask_value(v) for v in _without(r, set(hidden))] for r in rows]
        texts.extend(_table_texts(shown, kept, context, max_tokens))
    pieces = [_Piece(text, heading_path, page, table) for text in texts]
    return _number(source, pieces, start_ordinal)
