"""Cheap cues that a question leans on the conversation before it (issue 34).

A follow-up ("那华南呢？", "按渠道拆开", "and for damaged goods?") points back with a pronoun,
opens or ends like a continuation, or is too short to stand alone. Only a question with a cue
costs a model call to be resolved (:mod:`tablerag.conversation`); the words are data
(``lang/followups.json``), everything here is pure.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

_HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_WORD = re.compile(r"[A-Za-z0-9']+")
_TRAILING = re.compile(r"[\s?？!！。.,，]+\Z")


@dataclass(frozen=True)
class Cues:
    """The cue words of ``lang/followups.json``, compiled."""

    refer: re.Pattern[str]
    starts: re.Pattern[str]
    ends: re.Pattern[str]
    modify: re.Pattern[str]
    short_han: int
    short_words: int
    pick: re.Pattern[str]
    ordinals: dict[str, int]
    unresolved: re.Pattern[str]
    lead_zh: tuple[str, ...]
    lead_en: frozenset[str]


def _alternation(zh: list[str], en: list[str], *, anchor: str = "") -> re.Pattern[str]:
    words = [re.escape(w) for w in sorted(zh, key=len, reverse=True)]
    words += [rf"(?<![a-z]){re.escape(w)}(?![a-z])" for w in sorted(en, key=len, reverse=True)]
    body = "|".join(words)
    if anchor == "start":
        return re.compile(rf"\A\s*(?:{body})", re.I)
    if anchor == "end":
        return re.compile(rf"(?:{body})\s*\Z", re.I)
    return re.compile(body, re.I)


@lru_cache(maxsize=1)
def cues() -> Cues:
    """The packaged cue words, read once."""
    text = resources.files("tablerag.lang").joinpath("followups.json").read_text("utf-8")
    data = json.loads(text)
    return Cues(
        refer=_alternation(data["refer"]["zh"], data["refer"]["en"]),
        starts=_alternation(data["starts"]["zh"], data["starts"]["en"], anchor="start"),
        ends=_alternation(data["ends"]["zh"], data["ends"]["en"], anchor="end"),
        modify=_alternation(data["modify"]["zh"], data["modify"]["en"]),
        short_han=int(data["short_han"]),
        short_words=int(data["short_words"]),
        pick=_pick_pattern(data["picks"]),
        ordinals={k.lower(): int(v) for k, v in data["picks"]["ordinals"].items()},
        unresolved=_alternation(data["unresolved"]["zh"], data["unresolved"]["en"]),
        lead_zh=tuple(sorted(data["unresolved"]["lead_zh"], key=len, reverse=True)),
        lead_en=frozenset(w.lower() for w in data["unresolved"]["lead_en"]),
    )


def _pick_pattern(picks: dict[str, list[str] | dict[str, int]]) -> re.Pattern[str]:
    """A whole reply that names a choice by its number: ``2``, ``选2``, ``第二个``, ``option
    2``, ``the second one``."""
    words = [re.escape(str(w)) for w in sorted(picks["ordinals"], key=len, reverse=True)]
    before = "|".join(re.escape(str(w)) for w in picks["before"])
    after = "|".join(re.escape(str(w)) for w in picks["after"])
    number = rf"(\d{{1,2}}|{'|'.join(words)})"
    return re.compile(rf"\A(?:(?:{before})\s*)*{number}(?:\s*(?:{after}))*\Z", re.I)


def dependency_cues(question: str) -> tuple[str, ...]:
    """Why ``question`` may depend on earlier turns: ``refer``, ``starts``, ``ends``,
    ``short``; empty when it reads as a question on its own.

    Example:
        >>> dependency_cues("那华南呢？")
        ('starts', 'ends', 'short')
        >>> dependency_cues("and for damaged goods?")
        ('starts', 'short')
        >>> dependency_cues("上月华东的毛利是多少？"), dependency_cues("What is the refund policy?")
        ((), ())
    """
    c = cues()
    text = question.strip()
    bare = _TRAILING.sub("", text)
    found = []
    if c.refer.search(text):
        found.append("refer")
    if c.starts.search(text):
        found.append("starts")
    if c.ends.search(bare):
        found.append("ends")
    han = len(_HAN.findall(text))
    words = len(_WORD.findall(text))
    if (han and han <= c.short_han and words <= 1) or (not han and 0 < words <= c.short_words):
        found.append("short")
    return tuple(dict.fromkeys(found))


def unresolved_reference(question: str) -> str | None:
    """The pronoun ``question`` opens with that points back to something it does not name
    ("他们的名字是什么？", "其中哪些超过10斤？", "Show their ages."), or the continuation it is
    ("那最大马力的呢？"); None when it names what it asks about (a pronoun after a noun points
    to that noun: "所有歌手的姓名以及他们的歌曲").

    Example:
        >>> unresolved_reference("他们的名字是什么？"), unresolved_reference("显示它们的ID和名字。")
        ('他们', '它们')
        >>> unresolved_reference("那最大马力的呢？"), unresolved_reference("Show their ages.")
        ('那…呢', 'their')
        >>> unresolved_reference("请列出所有歌手的姓名以及他们的歌曲数量。") is None
        True
        >>> unresolved_reference("What are the names of singers and their ages?") is None
        True
        >>> unresolved_reference("How many departments have their office in 上海?") is None
        True
        >>> unresolved_reference("上月华东的毛利是多少？") is None
        True
        >>> unresolved_reference("按渠道呢？")
        '按…呢'
    """
    c = cues()
    text = question.strip()
    found = c.unresolved.search(text)
    if found is not None:
        before = text[: found.start()]
        if _HAN.search(found.group(0)):
            lead = "".join(_HAN.findall(before))
            while lead and (word := next((w for w in c.lead_zh if lead.startswith(w)), "")):
                lead = lead[len(word) :]
            if not lead:
                return found.group(0)
        elif all(w.lower() in c.lead_en for w in _WORD.findall(before)):
            return found.group(0)
    opened = c.starts.search(text) if _HAN.search(text) else None
    if opened is not None and c.ends.search(_TRAILING.sub("", text)):
        return opened.group(0).strip() + "…呢"
    return None


def modifies_query(question: str) -> bool:
    """Whether ``question`` reads like a change to the previous query (another value, a
    grouping, a comparison, fewer columns) - then the previous SQL is its starting point.

    Example:
        >>> modifies_query("按渠道拆开"), modifies_query("and for damaged goods?")
        (True, False)
    """
    return cues().modify.search(question) is not None


def picked_number(reply: str) -> int | None:
    """The choice a reply names by its number (1-based), or None when it names none that way.

    Example:
        >>> [picked_number(t) for t in ("2", "选2", "第二个", "option 3", "the first one")]
        [2, 2, 2, 3, 1]
        >>> picked_number("华南的毛利") is None
        True
    """
    c = cues()
    found = c.pick.match(_TRAILING.sub("", reply.strip()))
    if found is None:
        return None
    token = found.group(1).lower()
    return int(token) if token.isdigit() else c.ordinals.get(token)
