"""Which database of a catalog of many a question is about, from the evidence as a whole.

A workspace can hold several databases (``tablerag ingest postgresql://… sqlite:///…``); their
tables are named ``<db>.<table>`` and the part before the first dot is the *database*. A
question's words then match names in several of them, and one generic word ("人" matches a
table called 人 in one database and ``人数`` columns in ten) must not outweigh several specific
ones ("成都每天有多少人坐地铁" names 地铁 and 成都, found in one database only).

Each database gets a score: the sum, over the distinct question terms found in its names or
values, of the term's rarity across databases (``log(N / databases holding it)``, as in IDF),
divided by a mild length normalisation (a database with more names matches more words by
chance). Terms are Chinese character bigrams and characters (characters count less), English
words, and values of the value index found in the question. Earlier turns of a conversation add
their terms at a lower weight, so a follow-up with no evidence of its own ("最大的是哪个？")
stays in the database of the conversation.

Pure functions over the catalog's names; the per-catalog vocabulary is built once (memoised).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from tablerag.linking.catalog import SchemaCatalog
from tablerag.linking.text import QueryText, bigrams, content_words, han_text, name_words
from tablerag.linking.values import ValueMatch


def database_of(table: str) -> str:
    """The database part of a table name (before the first dot), "" for a bare name.

    Example:
        >>> database_of("pg.public.orders"), database_of("voter_1.地区信息"), database_of("t")
        ('pg', 'voter_1', '')
    """
    return table.partition(".")[0] if "." in table else ""


@dataclass(frozen=True)
class DatabaseOptions:
    """Knobs of :func:`database_scores`; the defaults are the measured ones (bench/RESULTS.md)."""

    char_weight: float = 0.5
    """A single Chinese character counts this much of a bigram or an English word."""
    history_weight: float = 0.8
    """A term of an earlier turn counts this much (the question's own terms count 1)."""
    length_norm: float = 0.3
    """0: no length normalisation; 1: scores divided by the vocabulary size over the mean."""
    value_weight: float = 1.0
    """A value of the question found in a database counts this much of a name term."""


@dataclass(frozen=True)
class Vocabulary:
    """The terms of each database's names, and in how many databases each term occurs."""

    terms: Mapping[str, frozenset[str]]
    """Database → the terms of its table and column names and descriptions."""
    frequency: Mapping[str, int]
    """Term → how many databases hold it."""

    @property
    def size(self) -> int:
        """How many databases."""
        return len(self.terms)

    def rarity(self, term: str, holders: int | None = None) -> float:
        """IDF-like weight of a term held by ``holders`` databases (default: its frequency).

        Example:
            >>> v = Vocabulary({"a": frozenset({"人", "地铁"}), "b": frozenset({"人"})},
            ...                {"人": 2, "地铁": 1})
            >>> v.rarity("人"), round(v.rarity("地铁"), 3), v.rarity("船")
            (0.0, 0.693, 0.0)
        """
        n = self.frequency.get(term, 0) if holders is None else holders
        return math.log(self.size / n) if n else 0.0


def name_terms(name: str) -> set[str]:
    """The terms of a schema name: its Chinese characters and bigrams, and English words.

    Example:
        >>> sorted(name_terms("城市地铁")), sorted(name_terms("Song_release_year"))
        (['地', '地铁', '城', '城市', '市', '市地', '铁'], ['release', 'song', 'year'])
    """
    han = han_text(name)
    return set(han) | bigrams(han) | set(name_words(name))


def vocabulary(catalog: SchemaCatalog) -> Vocabulary:
    """The per-database terms of ``catalog`` (built once per catalog)."""
    cached = catalog.memo.get("database_vocabulary")
    if isinstance(cached, Vocabulary):
        return cached
    terms: dict[str, set[str]] = {}
    for t in catalog.tables.values():
        found = terms.setdefault(database_of(t.name), set())
        found |= name_terms(t.name.partition(".")[2] or t.name)
        found |= _description_terms(t.description)
        for c in t.columns:
            found |= name_terms(c.name) | name_terms(c.original) | _description_terms(c.description)
    frequency = Counter(term for found in terms.values() for term in found)
    vocab = Vocabulary({db: frozenset(found) for db, found in terms.items()}, frequency)
    catalog.memo["database_vocabulary"] = vocab
    return vocab


def _description_terms(text: str) -> set[str]:
    return {w for w in content_words(text) if not han_text(w)} | name_terms(han_text(text))


def question_terms(text: str, char_weight: float) -> dict[str, float]:
    """The terms of a question with their weights: bigrams and English words 1, characters less.

    Example:
        >>> sorted(question_terms("地铁 lines", 0.5).items())
        [('line', 1.0), ('地', 0.5), ('地铁', 1.0), ('铁', 0.5)]
    """
    q = QueryText.of(text)
    out = {c: char_weight for c in q.han_chars}
    out.update({g: 1.0 for g in q.han_bigrams if len(g) == 2})
    out.update({w: 1.0 for w in q.words if not han_text(w)})
    return out


def database_scores(
    catalog: SchemaCatalog,
    question: str,
    history: Sequence[str] = (),
    *,
    values: Iterable[tuple[ValueMatch, float]] = (),
    options: DatabaseOptions | None = None,
) -> dict[str, float]:
    """Score every database of ``catalog`` by the question's evidence as a whole.

    Args:
        catalog: a catalog whose table names carry a database part (``db.table``).
        question: the question.
        history: earlier questions of the conversation, oldest first.
        values: value matches of the question and its history, each with the weight of the
            turn it came from (the linker has them already).
        options: weights.

    Returns:
        Database → score (0 when no term matched); empty for a catalog of one database.
    """
    opts = options or DatabaseOptions()
    vocab = vocabulary(catalog)
    if vocab.size < 2:
        return {}
    weights: dict[str, float] = {}
    for turn, w in [*((h, opts.history_weight) for h in history), (question, 1.0)]:
        for term, x in question_terms(turn, opts.char_weight).items():
            weights[term] = max(weights.get(term, 0.0), x * w)
    mean = sum(len(t) for t in vocab.terms.values()) / vocab.size
    scores: dict[str, float] = {}
    for db, found in vocab.terms.items():
        total = sum(x * vocab.rarity(t) for t, x in weights.items() if t in found)
        scores[db] = total / (1 - opts.length_norm + opts.length_norm * len(found) / mean)
    for value, held_by, w in _value_terms(values):
        for db in held_by:
            scores[db] = scores.get(db, 0.0) + opts.value_weight * w * vocab.rarity(
                value, len(held_by)
            )
    return scores


def _value_terms(
    values: Iterable[tuple[ValueMatch, float]],
) -> list[tuple[str, frozenset[str], float]]:
    """(value, databases holding it, weight of its best match) for each distinct value."""
    holders: dict[str, set[str]] = {}
    weight: dict[str, float] = {}
    for m, w in values:
        holders.setdefault(m.value, set()).add(database_of(m.table))
        weight[m.value] = max(weight.get(m.value, 0.0), w * m.score)
    return [(v, frozenset(dbs), weight[v]) for v, dbs in holders.items()]
