"""Match question words against schema names and descriptions, in Chinese and English.

Names are split on underscores, camel case and digits; English words are plural-folded; Chinese
text is compared by characters and character bigrams, so "电视剧" still meets "电视连续剧".
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from tablerag.lang.tokenize import light_stem, tokenize

_HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
_LATIN_WORD = re.compile(r"[a-z]+|\d+")
_GENERIC = frozenset({"id", "name", "code", "no", "num", "number", "type", "of", "in", "the"})


def name_words(name: str) -> tuple[str, ...]:
    """Split an identifier into lower-case, plural-folded English words (Han text dropped).

    Example:
        >>> name_words("Song_release_year")
        ('song', 'release', 'year')
        >>> name_words("CarMakers2")
        ('car', 'maker', '2')
        >>> name_words("歌手ID")
        ('id',)
    """
    spaced = _CAMEL.sub(" ", name)
    return tuple(light_stem(w) for w in _LATIN_WORD.findall(spaced.lower()))


def han_text(text: str) -> str:
    """The Han characters of ``text``, in order.

    Example:
        >>> han_text("歌手ID 名字")
        '歌手名字'
    """
    return "".join(_HAN.findall(text))


def bigrams(text: str) -> set[str]:
    """Character bigrams of a Han string (the string itself when it is one character).

    Example:
        >>> sorted(bigrams("电视剧"))
        ['电视', '视剧']
    """
    if len(text) < 2:
        return {text} if text else set()
    return {text[i : i + 2] for i in range(len(text) - 1)}


@dataclass(frozen=True)
class QueryText:
    """A question prepared once for many name comparisons."""

    text: str
    words: frozenset[str]
    """Plural-folded English words and jieba words (stopwords dropped)."""
    han: str
    han_chars: frozenset[str]
    han_bigrams: frozenset[str]

    @classmethod
    def of(cls, question: str) -> QueryText:
        """Prepare ``question``.

        Example:
            >>> q = QueryText.of("How many singers are there?")
            >>> sorted(q.words)
            ['mani', 'singer']
        """
        han = han_text(question)
        words = set(tokenize(question))
        words |= {light_stem(w) for w in _LATIN_WORD.findall(question.lower()) if len(w) > 2}
        words -= {"how", "are", "there", "the", "and", "for", "with", "what", "which"}
        return cls(
            text=question.lower(),
            words=frozenset(words),
            han=han,
            han_chars=frozenset(han),
            han_bigrams=frozenset(bigrams(han)),
        )


def word_score(words: tuple[str, ...], query: QueryText) -> float:
    """Share of a name's English words found in the question (prefix matches count half).

    Generic words (id, name, code...) are ignored when the name has a specific word: "song_name"
    does not match "names of singers".

    Example:
        >>> q = QueryText.of("List the names of singers")
        >>> word_score(("singer",), q), word_score(("name",), q), word_score(("song", "name"), q)
        (1.0, 1.0, 0.0)
        >>> word_score(("concert", "id"), QueryText.of("each concert"))
        1.0
    """
    if not words:
        return 0.0
    specific = [w for w in words if w not in _GENERIC] or list(words)
    hits = 0.0
    for w in specific:
        if w in query.words:
            hits += 1.0
        elif len(w) >= 4 and any(
            (q.startswith(w[:4]) and (w.startswith(q) or q.startswith(w))) for q in query.words
        ):
            hits += 0.5
    return hits / len(specific)


def table_word_score(words: tuple[str, ...], query: QueryText) -> float:
    """Like :func:`word_score`, but generic words count (at half weight): a table name is
    all identity, so "car_names" is a weaker match than "car_makers" for "car makers".

    Example:
        >>> q = QueryText.of("How many car makers are there?")
        >>> round(table_word_score(("car", "name"), q), 2), table_word_score(("car", "maker"), q)
        (0.67, 1.0)
    """
    if not words:
        return 0.0
    total = hits = 0.0
    for w in words:
        weight = 0.5 if w in _GENERIC else 1.0
        total += weight
        if w in query.words:
            hits += weight
        elif len(w) >= 4 and any(
            (q.startswith(w[:4]) and (w.startswith(q) or q.startswith(w))) for q in query.words
        ):
            hits += weight / 2
    return hits / total


def han_score(name: str, query: QueryText) -> float:
    """How much of a Chinese name the question covers: characters and bigrams, averaged; a
    short name (up to three characters) also counts by its characters alone ("船" for "船只").

    Example:
        >>> q = QueryText.of("有哪些电视剧在该频道上播放？")
        >>> han_score("频道", q)
        1.0
        >>> round(han_score("电视连续剧", q), 2)
        0.42
        >>> han_score("国籍", q), han_score("船只", QueryText.of("哪艘船最大？"))
        (0.0, 0.4)
    """
    han = han_text(name)
    if not han or not query.han:
        return 0.0
    if han in query.han:
        return 1.0
    chars = sum(c in query.han_chars for c in han) / len(han)
    grams = bigrams(han)
    pairs = len(grams & query.han_bigrams) / len(grams) if len(han) > 1 else chars
    return max((chars + pairs) / 2, 0.8 * chars if len(han) <= 3 else 0.0)


def name_score(name: str, query: QueryText) -> float:
    """Best match of a schema name (English words or Chinese characters) in the question.

    Example:
        >>> name_score("singer_in_concert", QueryText.of("How many singers?"))
        0.5
        >>> name_score("歌手", QueryText.of("有多少歌手？"))
        1.0
    """
    return max(word_score(name_words(name), query), han_score(name, query))


def content_words(text: str) -> tuple[str, ...]:
    """The words of a description worth matching (no digits, no one-letter words).

    Example:
        >>> content_words("Statistics month, format YYYY-MM")
        ('statistic', 'month', 'format', 'yyyy-mm')
    """
    return tuple(dict.fromkeys(w for w in tokenize(text) if len(w) > 1 and not w.isdigit()))


def words_score(words: tuple[str, ...], query: QueryText) -> float:
    """Share of ``words`` (from :func:`content_words`) found in the question.

    Example:
        >>> words_score(("statistic", "month"), QueryText.of("sales by month"))
        0.5
    """
    if not words:
        return 0.0
    return sum(w in query.words or (w in query.han and len(w) > 1) for w in words) / len(words)


def text_score(text: str, query: QueryText) -> float:
    """Share of a description's content words found in the question, as a weak signal.

    Example:
        >>> round(text_score("Statistics month, format YYYY-MM", QueryText.of("sales by month")), 2)
        0.25
    """
    return words_score(content_words(text), query)
