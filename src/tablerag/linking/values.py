"""The value index: which (table, column) holds a word of the question as a value.

"华东" is a row of ``dim_region.region_name``, not a column name; without this index the linker
could never find that table. Distinct values of text columns are indexed (capped per column);
a question matches a value exactly (the value occurs in it, on word boundaries for Latin text),
or fuzzily (difflib ratio over a window of the question) for values that share a rare character
n-gram with it. Lookups touch only the buckets of the question's own n-grams, so they stay fast
on catalogs with hundreds of tables.
"""

from __future__ import annotations

import difflib
import re
from collections import defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

MAX_VALUES_PER_COLUMN = 5_000
"""Columns with more distinct values are indexed on their first (sampled) values only."""

MAX_VALUE_CHARS = 60
FUZZY_RATIO = 0.86
_HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_BOUNDARY = re.compile(r"\w")
_EDGES = "\"'.,;:!?()[] "


@dataclass(frozen=True)
class ValueMatch:
    """A question word found as a value of ``table.column``."""

    table: str
    column: str
    value: str
    score: float
    """1.0 for an exact match, the fuzzy ratio otherwise."""
    how: str
    """``exact`` or ``fuzzy``."""


def normalise(value: str) -> str:
    """Lower-case, collapse spaces, drop surrounding quotes and punctuation.

    Example:
        >>> normalise('  "JetBlue  Airways" ')
        'jetblue airways'
    """
    return " ".join(value.lower().split()).strip(_EDGES)


def grams(text: str) -> set[str]:
    """Keys of a text: character bigrams of Han text, trigrams of the rest.

    Example:
        >>> sorted(grams("华东区"))
        ['东区', '华东']
        >>> sorted(grams("cats"))
        ['ats', 'cat']
    """
    n = 2 if _HAN.search(text) else 3
    if len(text) <= n:
        return {text}
    return {text[i : i + n] for i in range(len(text) - n + 1)}


def _indexable(value: str) -> bool:
    if not value or len(value) > MAX_VALUE_CHARS:
        return False
    if _HAN.search(value):
        return len(value) >= 2
    return len(value) >= 3 and not value.replace(".", "").replace("-", "").isdigit()


class ValueIndex:
    """Distinct text values of many columns, searchable by exact and fuzzy match."""

    def __init__(self) -> None:
        self._values: list[str] = []
        self._written: list[str] = []
        self._owners: list[list[tuple[str, str]]] = []
        self._by_value: dict[str, int] = {}
        self._buckets: dict[str, list[int]] = defaultdict(list)
        self._gram_count: dict[str, int] = defaultdict(int)
        self.columns: set[tuple[str, str]] = set()

    def __len__(self) -> int:
        return len(self._values)

    def add(self, table: str, column: str, values: Iterable[object]) -> None:
        """Index distinct values of ``table.column`` (non-text and long values are skipped)."""
        seen = 0
        for raw in values:
            if raw is None or isinstance(raw, (int, float, bool)):
                continue
            value = normalise(str(raw))
            if not _indexable(value):
                continue
            self.columns.add((table, column))
            vid = self._by_value.get(value)
            if vid is None:
                vid = len(self._values)
                self._values.append(value)
                self._written.append(" ".join(str(raw).split()).strip(_EDGES))
                self._owners.append([])
                self._by_value[value] = vid
                for g in grams(value):
                    self._gram_count[g] += 1
            owners = self._owners[vid]
            if (table, column) not in owners:
                owners.append((table, column))
                seen += 1
                if seen >= MAX_VALUES_PER_COLUMN:
                    break

    def extend(self, other: ValueIndex) -> None:
        """Add every value of ``other`` (call :meth:`freeze` afterwards)."""
        for vid, written in enumerate(other._written):
            for table, column in other._owners[vid]:
                self.add(table, column, [written])

    def restricted(self, tables: Iterable[str]) -> ValueIndex:
        """A frozen copy holding only the values of ``tables`` (for a sub-catalog)."""
        keep = set(tables)
        out = ValueIndex()
        for vid, written in enumerate(self._written):
            for table, column in self._owners[vid]:
                if table in keep:
                    out.add(table, column, [written])
        out.freeze()
        return out

    def items(self) -> Iterator[tuple[str, tuple[tuple[str, str], ...]]]:
        """Every value as first written, with the (table, column) pairs that store it.

        Values come in the order they were added, spelled as in the table (case kept, spaces
        collapsed, surrounding quotes and punctuation dropped), so a reader can tell the code
        ``PAID`` from the word "paid".

        Example:
            >>> ix = ValueIndex()
            >>> ix.add("sales", "status", ["PAID", " Refund  Due "])
            >>> ix.add("audit", "state", ["paid"])
            >>> for written, owners in ix.items():
            ...     print(written, owners)
            PAID (('sales', 'status'), ('audit', 'state'))
            Refund Due (('sales', 'status'),)
            >>> [written for written, _ in ix.restricted(["sales"]).items()]
            ['PAID', 'Refund Due']
        """
        for vid, written in enumerate(self._written):
            yield written, tuple(self._owners[vid])

    def freeze(self) -> None:
        """Bucket every value under its three rarest n-grams; call once after the last add.

        One shared n-gram is enough for an exact match to be found; three give a fuzzy match
        (a typo, a missing plural) a fair chance to share one of them with the question.
        """
        self._buckets.clear()
        for vid, value in enumerate(self._values):
            for g in sorted(grams(value), key=lambda g: (self._gram_count[g], g))[:3]:
                self._buckets[g].append(vid)

    def owners(self, value: str) -> list[tuple[str, str]]:
        """The (table, column) pairs that store ``value`` (compared as :func:`normalise` does).

        Example:
            >>> ix = ValueIndex()
            >>> ix.add("t1", "item", ["Total Other"])
            >>> ix.add("t2", "label", ["total  other:"])
            >>> ix.owners("TOTAL OTHER"), ix.owners("Other")
            ([('t1', 'item'), ('t2', 'label')], [])
        """
        vid = self._by_value.get(normalise(value))
        return list(self._owners[vid]) if vid is not None else []

    def search(self, question: str, *, fuzzy: bool = True, limit: int = 20) -> list[ValueMatch]:
        """Values of the index that occur in ``question`` (best first).

        Example:
            >>> ix = ValueIndex()
            >>> ix.add("dim_region", "region_name", ["华东", "华北", "上海"])
            >>> ix.add("airlines", "airline", ["JetBlue Airways", "United Airlines"])
            >>> ix.freeze()
            >>> [(m.column, m.value, m.how) for m in ix.search("上月华东的毛利是多少")]
            [('region_name', '华东', 'exact')]
            >>> [(m.value, m.how) for m in ix.search("flights of jetblue airway")]
            [('jetblue airways', 'fuzzy')]
            >>> [m.value for m in ix.search("去年United Airlines的航班有多少")]
            ['united airlines']
        """
        text = normalise(question)
        found: dict[int, tuple[float, str]] = {}
        for g in _keys(text):
            for vid in self._buckets.get(g, ()):
                if vid in found:
                    continue
                value = self._values[vid]
                if _occurs(value, text):
                    found[vid] = (1.0, "exact")
                elif fuzzy and len(value) >= 4:
                    ratio = _best_window_ratio(value, text)
                    if ratio >= FUZZY_RATIO:
                        found[vid] = (round(ratio, 3), "fuzzy")
        ranked = sorted(found.items(), key=lambda kv: (-kv[1][0], -len(self._values[kv[0]])))
        out = [
            ValueMatch(t, c, self._values[vid], score, how)
            for vid, (score, how) in ranked
            for t, c in self._owners[vid]
        ]
        return out[:limit]


def _keys(text: str) -> set[str]:
    """The n-grams a question is looked up by: its own, its words, and those of each stretch
    between Han characters (a Latin value written inside Chinese, "2025年的GMV是多少", is
    bucketed by its trigrams, not the text's bigrams).

    Example:
        >>> sorted(_keys("的gmv是"))
        ['gm', 'gmv', 'mv', 'v是', '的g', '的gmv是']
    """
    keys = grams(text) | set(text.split())
    if not _HAN.search(text):
        return keys  # a Latin question is keyed by its own trigrams already
    for stretch in _HAN.split(text):
        for word in stretch.split():
            keys |= grams(word) | {word}
        if stretch.strip():
            keys |= grams(stretch.strip())
    return keys


def _occurs(value: str, text: str) -> bool:
    start = text.find(value)
    while start >= 0:
        if _HAN.search(value):
            return True
        before = text[start - 1] if start > 0 else " "
        after = text[start + len(value) : start + len(value) + 1] or " "
        if not _joins(before) and (not _joins(after) or after in "s"):
            return True
        start = text.find(value, start + 1)
    return False


def _joins(char: str) -> bool:
    """Whether ``char`` continues a Latin word: a letter, digit or underscore, but not a Han
    character (in "2025年的GMV是多少" GMV stands alone).

    Example:
        >>> _joins("x"), _joins("的"), _joins(" ")
        (True, False, False)
    """
    return bool(_BOUNDARY.match(char)) and not _HAN.match(char)


def _best_window_ratio(value: str, text: str) -> float:
    n = len(value)
    best = 0.0
    matcher = difflib.SequenceMatcher(autojunk=False)
    matcher.set_seq2(value)
    for size in (n - 1, n, n + 1):
        if size <= 0 or size > len(text):
            continue
        for start in range(0, len(text) - size + 1):
            window = text[start : start + size]
            if window[0] != value[0]:
                continue
            matcher.set_seq1(window)
            if matcher.quick_ratio() < FUZZY_RATIO:
                continue
            best = max(best, matcher.ratio())
    return best
