"""The texts the user reads, in Chinese and English, and the bilingual metric names.

Both are data (``lang/messages.json``, ``lang/terms.json``), read once on first use. A message
is a ``str.format`` template per language; :func:`message` renders one::

    message("nl2sql.no_sql", "en", n=3)
"""

from __future__ import annotations

import difflib
import json
import string
from collections.abc import Mapping
from functools import lru_cache
from importlib import resources
from types import MappingProxyType
from typing import Any, Literal

from tablerag.errors import ConfigError

Language = Literal["zh", "en"]
#: The languages every message is written in.
LANGUAGES: tuple[Language, ...] = ("zh", "en")
LANGUAGE_NAMES: Mapping[Language, str] = MappingProxyType({"zh": "Chinese", "en": "English"})
"""Each language as a prompt names it ("Answer in {language}")."""


def _read(name: str) -> Any:
    text = resources.files("tablerag.lang").joinpath(name).read_text("utf-8")
    return json.loads(text)


@lru_cache(maxsize=1)
def load_messages() -> Mapping[str, Mapping[Language, str]]:
    """The packaged messages (``tablerag/lang/messages.json``) by id, read once.

    Raises:
        ConfigError: an entry is not one text per language.
    """
    data: dict[str, dict[str, str]] = _read("messages.json")["messages"]
    out: dict[str, Mapping[Language, str]] = {}
    for key, entry in data.items():
        if set(entry) != set(LANGUAGES) or not all(isinstance(t, str) for t in entry.values()):
            raise ConfigError(
                f"Message {key!r} in messages.json needs one text for each of {LANGUAGES!r}."
            )
        out[key] = MappingProxyType({lang: entry[lang] for lang in LANGUAGES})
    return MappingProxyType(out)


def templates(key: str) -> Mapping[Language, str]:
    """The unrendered templates of message ``key``, one per language.

    Example:
        >>> templates("nl2sql.no_data")["en"]
        'No matching data was found.'

    Raises:
        ConfigError: no message has this id (the closest id is named).
    """
    messages = load_messages()
    found = messages.get(key)
    if found is None:
        hint = difflib.get_close_matches(key, list(messages), n=1)
        tail = f" Did you mean {hint[0]!r}?" if hint else ""
        raise ConfigError(f"Unknown message {key!r}.{tail}")
    return found


def placeholders(template: str) -> frozenset[str]:
    """The names of the ``{...}`` fields of a ``str.format`` template.

    Example:
        >>> sorted(placeholders("{word}: {column} is {value}, not {word}"))
        ['column', 'value', 'word']
    """
    return frozenset(name for _, name, _, _ in string.Formatter().parse(template) if name)


def message(key: str, language: Language, **values: object) -> str:
    """Message ``key`` in ``language``, its placeholders filled from ``values``.

    Example:
        >>> message("nl2sql.no_sql", "en", n=3)
        'Could not write a SQL query that runs for this question (3 attempts).'
        >>> message("nl2sql.no_data", "zh")
        '没有找到匹配的数据。'

    Raises:
        ConfigError: unknown id (the closest is named), unknown language, or a placeholder
            without a value.
    """
    texts = templates(key)
    if language not in texts:
        raise ConfigError(f"Unknown language {language!r} for message {key!r}; use zh or en.")
    template = texts[language]
    missing = sorted(placeholders(template) - values.keys())
    if missing:
        raise ConfigError(f"Message {key!r} needs a value for {', '.join(missing)}.")
    return template.format(**values)


@lru_cache(maxsize=1)
def term_pairs() -> tuple[tuple[str, str], ...]:
    """(English, Chinese) names of one business metric (``tablerag/lang/terms.json``), read once.

    A Chinese term may have several English names.

    Example:
        >>> term_pairs()[0]
        ('return rate', '退货率')
    """
    pairs: list[dict[str, str]] = _read("terms.json")["pairs"]
    return tuple((pair["en"], pair["zh"]) for pair in pairs)
