"""Built-in words the linker knows without any catalog: time expressions and metric names.

A workspace glossary (term → words, from the ``glossary`` of a descriptions file; see
:mod:`tablerag.store.glossary`) only adds words to the question before matching, so it can never
invent a table or a column.
The (English, Chinese) names of one metric let an English question find a Chinese glossary or
definitions row ("return rate" → 退货率) and the other way round: a workspace with a semantic
model gives them (its metrics' synonyms, :func:`tablerag.semantic.knowledge.metric_terms`,
carried by the catalog); one without falls back to the built-in
:func:`~tablerag.lang.messages.term_pairs` (``lang/terms.json``).
"""

from __future__ import annotations

from collections.abc import Sequence

from tablerag.lang.messages import term_pairs
from tablerag.lang.time import GRAINS


def time_grains(question: str) -> tuple[str, ...]:
    """The time grains a question talks about, most specific first.

    Example:
        >>> time_grains("上月华东的毛利是多少")
        ('month',)
        >>> time_grains("How many concerts are there in year 2014 or 2015?")
        ('year',)
        >>> time_grains("各品类的退款金额排名"), time_grains("2013年共有多少位获胜者？")
        ((), ('year',))
    """
    return tuple(grain for grain, pattern in GRAINS if pattern.search(question))


def expand(question: str, glossary: dict[str, tuple[str, ...]]) -> tuple[str, list[str]]:
    """Append the words of every glossary term found in ``question``; also say which matched.

    Example:
        >>> terms = {"毛利": ("净额", "成本"), "毛利率": ("净额", "成本", "margin")}
        >>> expand("上月华东的毛利是多少", terms)
        ('上月华东的毛利是多少 净额 成本', ['毛利'])
        >>> expand("上月毛利率最高的大区", terms)[1]
        ['毛利率']
    """
    hits = [term for term in glossary if term.lower() in question.lower()]
    # A longer term shadows the shorter one it contains (毛利率 over 毛利).
    hits = [t for t in hits if not any(t != o and t in o for o in hits)]
    extra = " ".join(w for t in hits for w in glossary[t])
    return (f"{question} {extra}" if extra else question), hits


def translate(question: str, pairs: Sequence[tuple[str, str]] = ()) -> str:
    """``question`` followed by the other language's names of the metrics it names.

    A longer term shadows a shorter one inside it (毛利率 names the margin, not 毛利). The
    ``pairs`` are the workspace's (its semantic model's synonyms), else the built-in ones.

    Example:
        >>> translate("Which categories had the highest return rate?")
        'Which categories had the highest return rate? 退货率'
        >>> translate("上月毛利率最高的大区")
        '上月毛利率最高的大区 gross margin'
        >>> translate("How many singers are there?")
        'How many singers are there?'
    """
    text = question.lower()
    named = dict.fromkeys(t for pair in pairs or term_pairs() for t in pair if t in text)
    kept = [t for t in named if not any(t != o and t in o for o in named)]
    extra = dict.fromkeys(o for t in kept for o in equivalents(t, pairs)[1:] if o not in text)
    return f"{question} {' '.join(extra)}" if extra else question


def equivalents(term: str, pairs: Sequence[tuple[str, str]] = ()) -> tuple[str, ...]:
    """``term`` and its names in the other language (by ``pairs``, else the built-in ones).

    Example:
        >>> equivalents("退货率"), equivalents("return rate"), equivalents("rate")
        (('退货率', 'return rate', 'refund rate'), ('return rate', '退货率'), ('rate',))
    """
    low = term.lower()
    out = [term]
    for english, chinese in pairs or term_pairs():
        other = chinese if low == english else english if low == chinese else None
        if other is not None and other not in out:
            out.append(other)
    return tuple(out)
