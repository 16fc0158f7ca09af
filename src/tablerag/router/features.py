"""Question features for the router: cue words, catalog words and values, time, length.

Everything here is pure and fast (no I/O after the cue file is read once): the router calls
:func:`extract_features` on every question.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from typing import Any

from tablerag.lang.time import cue_words
from tablerag.lang.tokenize import tokenize

#: Cue families of ``data/cues.json`` that are plain word lists.
FAMILIES = ("aggregate", "measure", "policy", "meta", "chitchat", "vague", "time")
_HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_DIGIT = re.compile(r"\d")
_CONTENT = re.compile(r"[\w\u3400-\u9fff]")
_PUNCT_END = re.compile(r"[?？!！。.,，;；:：~～\s]+$")
#: Multi-hop and set-level cues: a comparison, a change between two values, a share of a whole,
#: an answer that needs a first answer ("the region with the most X: what is its Y"). Questions
#: with one of these over tables and text go to the TableRAG loop.
MULTI_HOP = re.compile(
    r"(?<![a-z])(?:change (?:in|from|between)|difference between|compared (?:to|with)|"
    r"(?:increase|decrease|growth) (?:in|from|of)|percentage (?:change|of)|proportion of|"
    r"ratio of|share of|average (?:of|for)|sum of|total of|how many (?:of|times)|"
    r"both|respectively|and (?:its|their|the corresponding)|which .{1,40}? (?:has|had|have) "
    r"the (?:highest|lowest|largest|smallest|most|least)|(?:highest|lowest|largest|smallest)"
    r" .{1,40}? (?:and|then) (?:what|how))(?![a-z])"
    r"|相比|对比|比较|变化|增幅|降幅|增长率|同比|环比|之差|差额|差值|占比|比例|比重|平均|合计|总计|"
    r"分别|各自|其中.{0,10}(?:最|哪)|最(?:高|低|多|少|大|小)的.{1,12}(?:的|是)"
)


@dataclass(frozen=True)
class CueSet:
    """One family of cue words: Chinese substrings and one English whole-word pattern."""

    zh: tuple[str, ...]
    en: tuple[str, ...]
    pattern: re.Pattern[str] | None
    regexes: tuple[re.Pattern[str], ...] = ()

    def find(self, text: str) -> list[str]:
        """The cues of this family found in ``text`` (lower-cased), longest Chinese first.

        A Chinese cue inside a longer one already found is not counted again.

        Example:
            >>> cues = CueSet.build(["多少", "多少钱"], ["how many", "rank*"])
            >>> cues.find("how many products rank first? 多少钱")
            ['多少钱', 'how many', 'rank']
        """
        found: list[str] = []
        for cue in self.zh:
            if cue in text and not any(cue in longer for longer in found):
                found.append(cue)
        if self.pattern is not None:
            found.extend(m.group(0) for m in self.pattern.finditer(text))
        found.extend(m.group(0) for rx in self.regexes for m in rx.finditer(text))
        return found

    @classmethod
    def build(cls, zh: Iterable[str], en: Iterable[str], regexes: Iterable[str] = ()) -> CueSet:
        """Compile a family; English cues ending in ``*`` match any word ending."""
        words = sorted({w.lower() for w in en}, key=len, reverse=True)
        alternatives = [
            re.escape(w[:-1]) + r"\w*" if w.endswith("*") else re.escape(w) for w in words
        ]
        pattern = (
            re.compile(r"(?<![a-z0-9])(?:" + "|".join(alternatives) + r")(?![a-z0-9])")
            if alternatives
            else None
        )
        return cls(
            zh=tuple(sorted(set(zh), key=len, reverse=True)),
            en=tuple(words),
            pattern=pattern,
            regexes=tuple(re.compile(r, re.IGNORECASE) for r in regexes),
        )


@dataclass(frozen=True)
class Cues:
    """All cue families plus the words that never count as catalog vocabulary."""

    families: Mapping[str, CueSet]
    quantity: CueSet
    reason: CueSet
    stop_vocabulary: frozenset[str]


@lru_cache(maxsize=1)
def load_cues() -> Cues:
    """The packaged cue lists (``tablerag/router/data/cues.json``), compiled once."""
    text = resources.files("tablerag.router").joinpath("data/cues.json").read_text("utf-8")
    data: dict[str, Any] = json.loads(text)
    data["time"] = cue_words()  # every time word is in lang/time.json
    families = {
        name: CueSet.build(data[name]["zh"], data[name]["en"], data[name].get("regex", ()))
        for name in FAMILIES
    }
    q = data["question"]
    return Cues(
        families=families,
        quantity=CueSet.build(q["quantity"]["zh"], q["quantity"]["en"]),
        reason=CueSet.build(q["reason"]["zh"], q["reason"]["en"]),
        stop_vocabulary=frozenset(data["stop_vocabulary"]),
    )


@dataclass(frozen=True)
class Vocabulary:
    """What the catalog knows: words of table/column names and descriptions, and values.

    ``values`` maps a distinct short text value (``华东``, ``PAID``) to where it lives
    (``dim_region.region_name``). Upper-case codes (``PAID``, ``JD``) match case-sensitively,
    so the verb "paid" is not the status ``PAID``; other values match case-insensitively.
    """

    words: frozenset[str] = frozenset()
    values: Mapping[str, str] = field(default_factory=dict)
    value_pattern: re.Pattern[str] | None = None
    code_pattern: re.Pattern[str] | None = None

    @classmethod
    def build(cls, words: Iterable[str], values: Mapping[str, str]) -> Vocabulary:
        """Index the words (as tokens) and the values (longest first, for one regex pass).

        Example:
            >>> v = Vocabulary.build(["region name", "sales"], {"华东": "r.name", "PAID": "s.st"})
            >>> sorted(v.words), v.match_values("上月华东 PAID 的销售额"), v.match_values("paid")
            (['region', 'sale'], ['PAID', '华东'], [])
        """
        stop = load_cues().stop_vocabulary
        tokens = {t for w in words for t in tokenize(w.replace("_", " "))}
        tokens = {t for t in tokens if t not in stop and len(t) > 1 and not t.isdigit()}
        codes = sorted((k for k in values if k.isascii() and k.isupper()), key=len, reverse=True)
        rest = sorted((k for k in values if k not in set(codes)), key=len, reverse=True)
        return cls(
            frozenset(tokens),
            dict(values),
            _alternation([k.lower() for k in rest]),
            _alternation(codes),
        )

    def match_words(self, tokens: Iterable[str]) -> list[str]:
        """The question tokens that are catalog words, in question order, each once."""
        seen: list[str] = []
        for t in tokens:
            if t in self.words and t not in seen:
                seen.append(t)
        return seen

    def match_values(self, text: str) -> list[str]:
        """The catalog values mentioned in ``text``, non-overlapping, each once.

        Returned as written in the catalog for codes, lower-cased for the others.
        """
        out: list[str] = []
        for pattern, haystack in ((self.code_pattern, text), (self.value_pattern, text.lower())):
            if pattern is None:
                continue
            for m in pattern.finditer(haystack):
                if m.group(0) not in out:
                    out.append(m.group(0))
        return out


def _alternation(keys: list[str]) -> re.Pattern[str] | None:
    """One regex for many literals; Latin ones only as whole words."""
    parts = [
        re.escape(k) if _HAN.search(k) else r"(?<![A-Za-z0-9])" + re.escape(k) + r"(?![A-Za-z0-9])"
        for k in keys
    ]
    return re.compile("|".join(parts)) if parts else None


@dataclass(frozen=True)
class Features:
    """The measured facts about one question that the router scores."""

    text: str
    length: int
    """Letters, digits and Han characters, punctuation and spaces excluded."""
    is_chinese: bool
    cues: Mapping[str, tuple[str, ...]]
    """Cue family → the cues found (see :data:`FAMILIES`)."""
    quantity_words: tuple[str, ...]
    reason_words: tuple[str, ...]
    catalog_words: tuple[str, ...]
    catalog_values: tuple[str, ...]
    digits: bool
    tokens: tuple[str, ...]
    leftover: tuple[str, ...]
    """Content tokens that no cue, catalog word or value explains."""
    multi_hop: tuple[str, ...] = ()
    """Multi-hop or set-level cues (see :data:`MULTI_HOP`)."""

    def count(self, family: str) -> int:
        """How many cues of ``family`` the question has."""
        return len(self.cues.get(family, ()))


def extract_features(question: str, vocabulary: Vocabulary | None = None) -> Features:
    """Measure ``question``: cue words per family, catalog words and values, time, length.

    Example:
        >>> f = extract_features("上月华东的毛利是多少？")
        >>> f.cues["aggregate"], f.cues["measure"], f.cues["time"], f.is_chinese
        (('多少',), ('毛利',), ('上月',), True)
        >>> extract_features("How is gross margin defined?").cues["meta"]
        ('defined',)
    """
    vocab = vocabulary or Vocabulary()
    cues = load_cues()
    original = _PUNCT_END.sub("", " ".join(question.split()))
    text = original.lower()
    said = quoted_out(text)  # a quoted title or value ('Hey', “你好”) is not a cue
    found = {name: tuple(cues.families[name].find(said)) for name in FAMILIES}
    tokens = tuple(tokenize(text))
    words = tuple(vocab.match_words(tokens))
    values = tuple(vocab.match_values(original))
    explained = " ".join([*(c for v in found.values() for c in v), *words, *values]).lower()
    leftover = tuple(t for t in tokens if t not in explained and not t.isdigit())
    han = len(_HAN.findall(text))
    return Features(
        text=text,
        length=len(_CONTENT.findall(text)),
        is_chinese=han > 0 and han * 2 >= len(re.findall(r"[a-z]", text)) / 3,
        cues=found,
        quantity_words=tuple(cues.quantity.find(text)),
        reason_words=tuple(cues.reason.find(text)),
        catalog_words=words,
        catalog_values=values,
        digits=bool(_DIGIT.search(text)),
        tokens=tokens,
        leftover=leftover,
        multi_hop=multi_hop_cues(text),
    )


_QUOTED = re.compile(
    r"(?<![a-z0-9])'[^'\n]{1,80}'(?![a-z0-9])|\"[^\"\n]{1,80}\"|“[^”\n]{1,80}”|‘[^’\n]{1,80}’"
    r"|「[^」\n]{1,80}」|『[^』\n]{1,80}』|``[^'\n]{1,80}''|`[^`\n]{1,80}`",
    re.I,
)


def quoted_out(text: str) -> str:
    """The text with its quoted spans blanked: a quoted title or value is data the question
    names, not words that ask something.

    Example:
        >>> quoted_out("Which singers have a song with the word 'Hey' in its title?")
        'Which singers have a song with the word   in its title?'
        >>> quoted_out("What's the “你好” column's type?")
        "What's the   column's type?"
    """
    return _QUOTED.sub(" ", text)


def multi_hop_cues(text: str) -> tuple[str, ...]:
    """The multi-hop / set-level cues of a (lower-cased) question.

    Example:
        >>> multi_hop_cues("what was the change in revenue from 2018 to 2019?")
        ('change in',)
        >>> multi_hop_cues("华东和华北的毛利相比如何"), multi_hop_cues("what is revenue in 2019?")
        (('相比',), ())
    """
    return tuple(m.group(0) for m in MULTI_HOP.finditer(text.lower()))
