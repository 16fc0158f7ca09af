"""What kind of document a file is, and the units its chunks must keep whole.

A retrieved passage should be a whole rule or a whole answer (issue 23, seed 003: "规范制度类文档
适合按条款切, FAQ类文档适合按问答对切, 产品手册类适合按主题层级切"). Packing paragraphs up to a
size limit cuts a clause from its sub-items (``第六条`` in one chunk, ``6.3`` in the next) and a
question from its answer. So each document gets a kind, detected from its text or set per
source (the ``document_kinds`` setting), and the kind says what a unit is:

* ``rules`` (policies, regulations, metric definitions): a clause - a paragraph opening with
  ``第X条``, ``一、`` or ``1.2`` numbering, with the paragraphs and deeper-numbered items under
  it (``4.1``, ``（一）``, ``1)``, bullets). One clause per chunk.
* ``faq``: a question (``Q:``, ``问：``, ``Q3.`` or a short line ending in ``？``) with the
  paragraphs that answer it. One pair per chunk.
* ``manual`` and ``prose``: a section under its headings (the topic hierarchy): paragraphs are
  packed up to the size limit and never across a heading. They differ only in name, so the
  report says which was seen.

A unit longer than the size limit is still split (between paragraphs, then sentences).
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import PurePath
from typing import Literal

from tablerag.errors import ConfigError
from tablerag.types import Document, Problem

DocKind = Literal["rules", "faq", "manual", "prose"]
KINDS: tuple[DocKind, ...] = ("rules", "faq", "manual", "prose")
HOW: dict[DocKind, str] = {
    "rules": "by clause",
    "faq": "by question-answer pair",
    "manual": "by section (headings)",
    "prose": "by section (headings)",
}

_CN = "一二三四五六七八九十百千零〇两"
_ARTICLE = re.compile(rf"^\s*第[{_CN}\d]+条")
_CN_ITEM = re.compile(rf"^\s*[{_CN}]+、")
_DOTTED = re.compile(r"^\s*(\d{1,3}(?:\.\d{1,3})+)\.?(?:\s|(?=[^\d.]))")
_NUMBERED = re.compile(r"^\s*\d{1,3}(?:[.．](?!\d)|、)")
_SUB_ITEM = re.compile(
    rf"^\s*(?:[（(](?:[{_CN}]+|\d+)[）)]|\d{{1,3}}\)|[①-⑳]|[a-z][.)]\s|[-*+•·●▪◦]\s)"
)
_QUESTION = re.compile(
    r"^\s*(?:Q\s*\d*\s*[:：.、]|问\s*\d*\s*[:：]|问题\s*\d*\s*[:：]|Question\s*\d*\s*[:：])", re.I
)
_ANSWER = re.compile(r"^\s*(?:A\s*\d*\s*[:：.、]|答\s*[:：]|回答\s*[:：]|Answer\s*[:：])", re.I)
_ASKS = re.compile(r"[？?]\s*$")
_RULES_TITLE = re.compile(
    r"制度|办法|规定|规则|规范|政策|条例|细则|口径|守则|policy|policies|rules|regulation|terms",
    re.I,
)
_MANUAL_TITLE = re.compile(r"手册|指南|说明书|教程|handbook|manual|guide", re.I)
_Starts = Callable[[str, str | None], bool]
"""Whether a paragraph opens a new unit, given the paragraph that opened the current one."""
_MAX_QUESTION_CHARS = 120
_MIN_MARKS = 3


@dataclass(frozen=True)
class KindChoice:
    """The kind a document is chunked as, and why."""

    kind: DocKind
    reason: str
    """What decided: the evidence counted, or the setting entry that matched."""

    def problem(self) -> Problem:
        """The ingest report's note for it.

        Example:
            >>> KindChoice("faq", "detected: 4 pairs").problem().line()
            "document kind 'faq' (detected: 4 pairs) (chunked by question-answer pair)"
        """
        what = f"document kind {self.kind!r} ({self.reason})"
        return Problem("", what, f"chunked {HOW[self.kind]}", is_note=True)


def clause_rank(text: str) -> int | None:
    """How high a paragraph's clause marker ranks (0 highest), or None without one.

    Example:
        >>> [clause_rank(t) for t in ("第三条 名词", "3.1 退货", "3.1.2 x", "1. Scope", "（一）x")]
        [0, 2, 3, 1, 8]
        >>> clause_rank("Revenue grew 3.2% in 2024"), clause_rank("2024年")
        (None, None)
    """
    if _ARTICLE.match(text) or _CN_ITEM.match(text):
        return 0
    dotted = _DOTTED.match(text)
    if dotted:
        return dotted.group(1).count(".") + 1
    if _NUMBERED.match(text):
        return 1
    if _SUB_ITEM.match(text):
        return 8
    return None


def is_question(text: str) -> bool:
    """Whether a paragraph asks a FAQ question (``Q:``/``问：`` or a short line ending in ``？``).

    Example:
        >>> [is_question(t) for t in ("Q: How long?", "问：多久到账？", "多久到账？", "答：三天。")]
        [True, True, True, False]
    """
    if _QUESTION.match(text):
        return True
    return bool(_ASKS.search(text)) and len(text) <= _MAX_QUESTION_CHARS and "\n" not in text


def detect_kind(doc: Document) -> KindChoice:
    """The kind of a document from its text: question-answer pairs, numbered clauses, headings.

    Example:
        >>> from tablerag.types import Block
        >>> faq = Document("f.md", "FAQ", tuple(Block("paragraph", t) for t in
        ...     ("Q: 退款多久到账？", "A: 三个工作日。", "Q: 能换货吗？", "A: 可以。")))
        >>> detect_kind(faq)
        KindChoice(kind='faq', reason='detected: 2 question-answer pairs')
        >>> rules = Document("r.md", "退货政策", tuple(Block("paragraph", t) for t in
        ...     ("第一条 目的。", "第二条 范围。", "2.1 全部商品。", "第三条 解释。")))
        >>> detect_kind(rules).reason
        'detected: 3 clauses numbered 第X条 / 一、'
    """
    paragraphs = [b.text for b in doc.blocks if b.kind == "paragraph" and b.text.strip()]
    headings = [b.text for b in doc.blocks if b.kind == "heading" and b.text.strip()]
    marked = sum(1 for p in paragraphs if _QUESTION.match(p))
    answers = sum(1 for p in paragraphs if _ANSWER.match(p))
    if marked >= 2 and answers >= 2:
        return KindChoice("faq", f"detected: {min(marked, answers)} question-answer pairs")
    asked = sum(
        1
        for p, after in zip(paragraphs, paragraphs[1:], strict=False)
        if is_question(p) and not is_question(after)
    )
    if asked >= _MIN_MARKS and asked * 4 >= len(paragraphs):
        return KindChoice("faq", f"detected: {asked} questions each followed by an answer")
    ranks = [clause_rank(p) for p in paragraphs]
    top = sum(1 for r in ranks if r == 0)
    dotted = sum(1 for r in ranks if r is not None and 2 <= r <= 4)
    numbered = sum(1 for r in ranks if r == 1)
    title = doc.title + " " + PurePath(doc.source).stem
    if top >= _MIN_MARKS:
        return KindChoice("rules", f"detected: {top} clauses numbered 第X条 / 一、")
    if headings and _MANUAL_TITLE.search(title):
        return KindChoice("manual", f"detected: {len(headings)} headings and the title")
    if dotted >= _MIN_MARKS:
        return KindChoice("rules", f"detected: {dotted} clauses numbered like 1.2")
    if numbered >= 2 and _RULES_TITLE.search(title):
        return KindChoice("rules", f"detected: {numbered} numbered clauses and the title")
    if len(headings) >= _MIN_MARKS:
        return KindChoice("manual", f"detected: {len(headings)} headings")
    return KindChoice("prose", "detected: too few clauses, questions or headings to follow")


def parse_kinds(spec: str) -> list[tuple[str, DocKind]]:
    """Parse the ``document_kinds`` setting: comma-separated ``pattern=kind`` pairs.

    Raises:
        ConfigError: an entry is not ``pattern=kind`` or names an unknown kind.

    Example:
        >>> parse_kinds("faq*.md=faq, *政策*=rules")
        [('faq*.md', 'faq'), ('*政策*', 'rules')]
    """
    out: list[tuple[str, DocKind]] = []
    for entry in (e.strip() for e in spec.split(",")):
        if not entry:
            continue
        pattern, sep, kind = (part.strip() for part in entry.rpartition("="))
        if not sep or not pattern or kind not in KINDS:
            raise ConfigError(
                f"document_kinds entry {entry!r} is not 'pattern=kind' with kind one of "
                f"{', '.join(KINDS)}; write e.g. 'faq*.md=faq,*policy*=rules'."
            )
        out.append((pattern, kind))
    return out


def choose_kind(doc: Document, spec: str = "") -> KindChoice:
    """The kind the ``document_kinds`` setting gives the document (its first pattern matching
    the file name or path), else the detected one.

    Raises:
        ConfigError: the setting is malformed (see :func:`parse_kinds`).

    Example:
        >>> from tablerag.types import Block
        >>> choose_kind(Document("/d/help.md", "Help", (Block("paragraph", "x"),)), "help.md=faq")
        KindChoice(kind='faq', reason="set by document_kinds 'help.md=faq'")
    """
    path = PurePath(doc.source)
    for pattern, kind in parse_kinds(spec):
        if fnmatch.fnmatch(path.name, pattern) or fnmatch.fnmatch(str(path), pattern):
            return KindChoice(kind, f"set by document_kinds '{pattern}={kind}'")
    return detect_kind(doc)


def units(kind: DocKind, paragraphs: Sequence[str]) -> list[list[int]]:
    """Group a section's paragraphs (by index) into the units ``kind`` keeps whole.

    ``manual`` and ``prose`` keep every paragraph a unit of its own (they are packed later).

    Example:
        >>> units("rules", ["前言。", "第四条 退货。", "4.1 七日。", "4.2 例外。", "第五条 破损"])
        [[0], [1, 2, 3], [4]]
        >>> units("rules", ["1. Scope.", "Applies to all.", "2. Terms.", "a) x", "b) y"])
        [[0, 1], [2, 3, 4]]
        >>> units("faq", ["Hi.", "Q: 多久到？", "A: 三天。", "或找客服。", "问：能换？", "答：能"])
        [[0], [1, 2, 3], [4, 5]]
    """
    if kind == "faq":
        return _group(paragraphs, lambda text, _head: is_question(text))
    if kind == "rules":

        def starts(text: str, head: str | None) -> bool:
            rank = clause_rank(text)
            if rank is None:
                return False
            head_rank = None if head is None else clause_rank(head)
            return head_rank is None or rank <= head_rank

        return _group(paragraphs, starts)
    return [[i] for i in range(len(paragraphs))]


def _group(paragraphs: Sequence[str], starts: _Starts) -> list[list[int]]:
    out: list[list[int]] = []
    head: str | None = None  # the paragraph that opened the current unit (None: a preamble)
    for i, text in enumerate(paragraphs):
        if not out or starts(text, head):
            out.append([i])
            head = text if starts(text, None) else None
        else:
            out[-1].append(i)
    return out
