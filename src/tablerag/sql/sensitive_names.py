"""Which names mark a column (or a key inside a JSON or struct value) sensitive.

The terms are data (:data:`_NAMES_FILE`, next to this module), not code: English words and
Chinese terms for secrets and personal data, and the measure words that keep a count or a rate
of personal data shown.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources

_NAMES_FILE = "sensitive_names.json"
"""The terms that mark a column sensitive by its name or comment (a data file, next to this)."""
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
_WORD_BREAK = re.compile(r"[^0-9a-z]+")


@dataclass(frozen=True)
class _Terms:
    contains: tuple[str, ...]
    words: tuple[tuple[str, ...], ...]

    @classmethod
    def read(cls, data: dict[str, list[str]]) -> _Terms:
        return cls(
            tuple(t.lower() for t in data.get("contains", ())),
            tuple(tuple(t.lower().split()) for t in data.get("words", ())),
        )

    def found(self, low: str, words: Sequence[str]) -> bool:
        if any(t in low for t in self.contains):
            return True
        joined = set(words)
        for phrase in self.words:
            n = len(phrase)
            if "".join(phrase) in joined or any(
                tuple(words[i : i + n]) == phrase for i in range(len(words) - n + 1)
            ):
                return True
        return False


class SensitiveNames:
    """Names and short comments that mark a column sensitive, from :data:`_NAMES_FILE`.

    ``always`` terms (passwords, keys) hide a column whatever else its name says; ``personal``
    terms (phone, address, birthday, bank account, ID and real names, in English and Chinese)
    hide it unless the name also has a ``measures`` word: a count, a rate, a total or a flag
    about personal data is not the data. English words are matched whole (``pass`` but not
    ``passenger``), camelCase and ``snake_case`` alike; Chinese terms anywhere.

    Example:
        >>> names = SensitiveNames.load()
        >>> [bool(names.search(n)) for n in ("user_password", "pass", "passenger_count",
        ...     "realName", "联系地址", "address_count", "birthday_month_sales", "hotel")]
        [True, True, False, True, True, False, False, False]
    """

    def __init__(self, always: _Terms, personal: _Terms, measures: _Terms, comment_chars: int):
        self._always, self._personal, self._measures = always, personal, measures
        self.max_comment_chars = comment_chars
        """Longer descriptions are prose, not a label: only a short one marks a column."""

    @classmethod
    def load(cls) -> SensitiveNames:
        """The terms of the packaged data file (read once)."""
        data = json.loads(resources.files(__package__).joinpath(_NAMES_FILE).read_text("utf-8"))
        return cls(
            _Terms.read(data["always"]),
            _Terms.read(data["personal"]),
            _Terms.read(data["measures"]),
            int(data["max_comment_chars"]),
        )

    def search(self, name: str) -> bool:
        """Whether ``name`` (a column name, or a short label) marks the column sensitive."""
        low = name.lower()
        words = [w for w in _WORD_BREAK.split(_CAMEL.sub("_", name).lower()) if w]
        if self._always.found(low, words):
            return True
        return self._personal.found(low, words) and not self._measures.found(low, words)

    def labels(self, comment: str) -> bool:
        """Whether a column's comment or description is a short label that marks it sensitive
        (``身份证号`` on a column ``id_no``); a longer text is prose and says nothing."""
        text = comment.strip()
        return 0 < len(text) <= self.max_comment_chars and self.search(text)


SENSITIVE_NAME = SensitiveNames.load()
"""Column names that hold personal data or secrets (English and Chinese)."""
