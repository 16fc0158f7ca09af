"""Query rewriting for retrieval: the words people use replaced by the documents' own terms.

A question asks "退钱多久到账" where the policy says "退款" and "到账时间"; BM25 finds no shared
word and the embedding lands between. A curator lists, per term of the documents, the words
people use for it (the ``terms`` of the semantic model's extension, docs/knowledge.md); this
module applies that list to one query. It is a pure function of the query and the list: no
model call, no word list of its own.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, get_args

RewriteMode = Literal["off", "replace", "expand"]
REWRITE_MODES: tuple[str, ...] = get_args(RewriteMode)

Synonym = tuple[str, str]
"""``(words people use, the documents' term)``: ``("退钱", "退款")``."""

_HAN = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")


@dataclass(frozen=True)
class Rewrite:
    """A query as asked and as searched, with the synonyms that changed it."""

    query: str
    text: str
    """What BM25 and the query embedder read."""
    replaced: tuple[Synonym, ...] = ()
    """Each ``(words, term)`` found in the query, in the order they occur."""

    @property
    def changed(self) -> bool:
        return self.text != self.query


def unchanged(query: str) -> Rewrite:
    """The query searched as asked."""
    return Rewrite(query, query)


def rewrite_query(
    query: str, synonyms: Sequence[Synonym], *, mode: RewriteMode = "replace"
) -> Rewrite:
    """Rewrite ``query`` with the curated ``synonyms`` for the lexical and dense searches.

    The longest words match first and a span of the query is rewritten once; Chinese words
    match anywhere, Latin ones as whole words, case-insensitively. A word whose term the query
    already holds changes nothing.

    Args:
        query: the question as asked.
        synonyms: ``(words, term)`` pairs.
        mode: ``replace`` (the words give way to the term), ``expand`` (the terms are added
            after the question) or ``off``.

    Example:
        >>> pairs = [("退钱", "退款"), ("多久到账", "到账时间"), ("item number", "SKU")]
        >>> rewrite_query("退钱多久到账？", pairs).text
        '退款到账时间？'
        >>> rewrite_query("退钱多久到账？", pairs, mode="expand").text
        '退钱多久到账？ 退款 到账时间'
        >>> r = rewrite_query("Where is the Item Number printed?", pairs)
        >>> r.text, r.replaced
        ('Where is the SKU printed?', (('item number', 'SKU'),))
        >>> rewrite_query("退款退钱规则", pairs).changed
        False
    """
    if mode == "off" or not synonyms:
        return unchanged(query)
    lowered = query.lower()
    spans: list[tuple[int, int, Synonym]] = []
    for words, term in sorted(synonyms, key=lambda p: -len(p[0])):
        if not words.strip() or term.lower() in lowered:
            continue
        for m in _pattern(words).finditer(lowered):
            if not any(m.start() < end and start < m.end() for start, end, _ in spans):
                spans.append((m.start(), m.end(), (words, term)))
    if not spans:
        return unchanged(query)
    spans.sort()
    found = tuple(dict.fromkeys(pair for _, _, pair in spans))
    if mode == "expand":
        terms = dict.fromkeys(term for _, term in found)
        return Rewrite(query, f"{query} {' '.join(terms)}", found)
    out, at = [], 0
    for start, end, (_, term) in spans:
        out += [query[at:start], term]
        at = end
    out.append(query[at:])
    return Rewrite(query, "".join(out), found)


def _pattern(words: str) -> re.Pattern[str]:
    """Chinese words anywhere; Latin words whole, any run of spaces between them."""
    parts = [re.escape(w) for w in words.lower().split()]
    if _HAN.search(words):
        return re.compile(r"\s*".join(parts))
    body = r"\s+".join(parts)
    return re.compile(rf"(?<![a-z0-9_]){body}(?![a-z0-9_])")
