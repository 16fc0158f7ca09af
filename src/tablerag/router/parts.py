"""The parts of a question: clauses that each ask something, and which side each part leans to.

A question such as "今年经销商的净额是多少？按手册他们的佣金比例是多少？" asks for a figure from
the tables *and* for what a document says. Routed as a whole it goes to one path, and half of it
is never answered (issue 23). :func:`split_parts` cuts a question at the places where a new
question starts (sentence ends, "，再 / ，并 / 同时 / 以及", "and what / and how", ", then"); the
router measures each part with its usual evidence, and :func:`two_sides` says whether one part is
clearly a data part and another clearly a document part.

The joiner and opener words are data: the ``parts`` entry of ``data/cues.json``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Any, Literal

Side = Literal["data", "document"]
_EDGE = re.compile(r"^[\s，,、:：]+|[\s，,、:：]+$")


@dataclass(frozen=True)
class PartCues:
    """The compiled ``parts`` entry of ``cues.json``: split points and kinds of document."""

    stops: re.Pattern[str]
    """Sentence ends: every one starts a new part."""
    question_end: re.Pattern[str]
    """A Chinese clause that ends like a question ("…是多少，"), up to its comma."""
    zh: re.Pattern[str]
    """A comma followed by a joiner (dropped) or an opener (kept), or a joiner of its own."""
    en: re.Pattern[str]
    """A comma or space, then "and / also / then" before an opener, or ", then"."""
    documents: re.Pattern[str]
    """Kinds of document ("制度", "handbook"): a part naming one asks what it says."""
    asks: re.Pattern[str]
    """Question words and request verbs: a part without one asks nothing of its own."""

    @classmethod
    def build(cls, data: dict[str, Any]) -> PartCues:
        """Compile the lists of the ``parts`` entry (see ``cues.json``)."""

        def alt(words: Sequence[str]) -> str:
            return "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True))

        zh = (
            rf"[，,]\s*(?:{alt(data['zh_joiners'])})\s*"
            rf"|[，,]\s*(?=(?:{alt(data['zh_openers'])}))"
            rf"|(?:{alt(data['zh_joiners_anywhere'])})"
        )
        en = (
            rf"(?:,\s*|\s+)(?:(?:{alt(data['en_joiners'])})\s+)+(?=(?:{alt(data['en_openers'])})\b)"
            rf"|,\s*(?:and\s+)?(?:{alt(data['en_comma_joiners'])})\s+"
        )
        ends = rf"((?:{alt(data['zh_question_ends'])})[\u4e00-\u9fff]{{0,2}})[，,]"
        return cls(
            re.compile(data["stops"]),
            re.compile(ends),
            re.compile(zh),
            re.compile(en, re.IGNORECASE),
            _words(data["documents"]),
            _words(data["asks"]),
        )


def _words(lists: dict[str, list[str]]) -> re.Pattern[str]:
    """Chinese words as substrings, English ones as whole words, case-insensitive."""
    zh = "|".join(re.escape(w) for w in sorted(lists["zh"], key=len, reverse=True))
    en = "|".join(re.escape(w) for w in sorted(lists["en"], key=len, reverse=True))
    return re.compile(rf"{zh}|(?<![a-z])(?:{en})(?![a-z])", re.IGNORECASE)


@lru_cache(maxsize=1)
def load_part_cues() -> PartCues:
    """The packaged part cues (``tablerag/router/data/cues.json``, entry ``parts``)."""
    text = resources.files("tablerag.router").joinpath("data/cues.json").read_text("utf-8")
    return PartCues.build(json.loads(text)["parts"])


def split_parts(question: str) -> tuple[str, ...]:
    """The parts of ``question``, in order; one part when nothing splits it.

    Joiner words ("并", "另外", "and", "then") are dropped; openers ("是否", "按", "what")
    stay with their part. A comma splits only after a clause that ends like a question or
    before a joiner or opener: "上月华东的毛利，环比变化多少" is one question.

    Example:
        >>> split_parts("今年经销商的净额是多少？按手册他们的佣金比例是多少？")
        ('今年经销商的净额是多少', '按手册他们的佣金比例是多少')
        >>> split_parts("西南大区三季度毛利率多少，是否满足制度里的毛利要求")
        ('西南大区三季度毛利率多少', '是否满足制度里的毛利要求')
        >>> split_parts("给出各渠道的销售额，再告诉我每个渠道的结算方式")
        ('给出各渠道的销售额', '告诉我每个渠道的结算方式')
        >>> split_parts("How many refunds were there, and what does the customer provide?")
        ('How many refunds were there', 'what does the customer provide')
        >>> split_parts("List sales by channel, then explain the fee.")
        ('List sales by channel', 'explain the fee')
        >>> split_parts("上月退款有多少笔，退款需要谁审批")
        ('上月退款有多少笔', '退款需要谁审批')
        >>> split_parts("华东和华北上月的销售额分别是多少？")
        ('华东和华北上月的销售额分别是多少',)
        >>> split_parts("What is the return rate of phones and headphones?")
        ('What is the return rate of phones and headphones',)
    """
    cues = load_part_cues()
    parts: list[str] = []
    for sentence in cues.stops.split(cues.question_end.sub(r"\1。", question)):
        for clause in cues.zh.split(sentence):
            parts.extend(cues.en.split(clause))
    cleaned = (_EDGE.sub("", p) for p in parts)
    return tuple(p for p in cleaned if p)


def asks(part: str) -> bool:
    """Whether ``part`` asks something: a question word or a request verb.

    Example:
        >>> asks("客户需要提供什么"), asks("tell me the fee"), asks("按退货率从高到低排序")
        (True, True, False)
    """
    return load_part_cues().asks.search(part) is not None


def cites_document(part: str) -> bool:
    """Whether ``part`` names a kind of document (制度, 手册, policy, handbook, ...).

    Example:
        >>> cites_document("按手册他们的佣金比例是多少"), cites_document("what the policy says")
        (True, True)
        >>> cites_document("今年经销商的净额是多少"), cites_document("Which rulers sold best")
        (False, False)
    """
    return load_part_cues().documents.search(part) is not None


@dataclass(frozen=True)
class PartEvidence:
    """One part and the router's raw evidence for each side."""

    text: str
    data: float
    knowledge: float
    document_cues: tuple[str, ...] = ()
    """The part's policy and meta cue words ("who approves", "口径"): never a clear data part."""
    doc: float = 0.0
    """Document-side strength of the retrieval probe for this part."""
    table: float = 0.0
    """Table-side strength of the retrieval probe for this part."""


@dataclass(frozen=True)
class LeanRule:
    """How clear a part must be to count as one side (``two_part`` in the router's weights).

    A data part needs several data cues (``data_floor``), well ahead of its knowledge evidence,
    and no document cue word; a document part needs less, because documents are asked about in
    words no cue list holds, and a part that names a kind of document is a document part, as
    is a part short of data evidence whose retrieval probe finds prose and no table chunk
    ("what does a customer need to provide for a damaged-goods claim").
    """

    data_floor: float
    data_margin: float
    document_floor: float
    document_margin: float
    probe_floor: float = 1.0
    """A part short of data evidence whose probe finds prose this strongly and no table
    chunk is a document part (asked in words no cue list holds)."""


def lean(part: PartEvidence, rule: LeanRule) -> Side | None:
    """The side ``part`` clearly leans to, or None when it asks nothing or is weak or mixed.

    Example:
        >>> rule = LeanRule(data_floor=2.4, data_margin=1.0, document_floor=1.2,
        ...                 document_margin=0.5)
        >>> lean(PartEvidence("上月华东的毛利是多少", 4.2, 0.0), rule)
        'data'
        >>> lean(PartEvidence("Who approves a discount above 10%", 2.5, 1.4, ("approve",)), rule)
        >>> lean(PartEvidence("线上退款多久原路退回", 0.3, 1.9), rule)
        'document'
        >>> lean(PartEvidence("按制度毛利率的最低要求是多少", 4.2, 2.8), rule)
        'document'
        >>> lean(PartEvidence("华东的毛利是多少", 1.0, 0.6), rule) is None
        True
        >>> lean(PartEvidence("并按手册排序", 0.3, 1.9), rule) is None
        True
        >>> probed = LeanRule(2.4, 1.0, 1.2, 0.5, probe_floor=0.3)
        >>> lean(PartEvidence("告诉我每个渠道的结算方式", 1.6, 1.1, (), doc=0.43), probed)
        'document'
        >>> lean(PartEvidence("给出各渠道的销售额", 2.6, 0.9, (), doc=0.5), probed)
        'data'
    """
    if not asks(part.text):
        return None
    if cites_document(part.text):
        return "document"
    data_ahead = part.data - part.knowledge
    if part.data >= rule.data_floor and data_ahead >= rule.data_margin and not part.document_cues:
        return "data"
    if part.knowledge >= rule.document_floor and -data_ahead >= rule.document_margin:
        return "document"
    if part.doc >= rule.probe_floor and part.table == 0 and part.data < rule.data_floor:
        return "document"
    return None


def two_sides(
    parts: Sequence[PartEvidence], rule: LeanRule
) -> tuple[PartEvidence, PartEvidence] | None:
    """The first clear data part and the first clear document part, or None without both.

    Example:
        >>> rule = LeanRule(2.4, 1.0, 1.2, 0.5)
        >>> figure = PartEvidence("今年经销商的净额是多少", 3.9, 0.2)
        >>> rule_part = PartEvidence("按手册他们的佣金比例是多少", 3.2, 1.3)
        >>> [p.text for p in two_sides([figure, rule_part], rule) or ()]
        ['今年经销商的净额是多少', '按手册他们的佣金比例是多少']
        >>> two_sides([figure, PartEvidence("各渠道呢", 2.6, 0.0)], rule) is None
        True
    """
    by_side: dict[Side, PartEvidence] = {}
    for part in parts:
        side = lean(part, rule)
        if side is not None:
            by_side.setdefault(side, part)
    if "data" in by_side and "document" in by_side:
        return by_side["data"], by_side["document"]
    return None
