"""Every time word tablerag knows, read from one data file (``lang/time.json``).

- :data:`RELATIVE`: words standing for a date relative to today (上个月, last year), with the
  unit and offset they mean: the SQL prompt's question writes the date after them
  (:mod:`tablerag.nl2sql.dates`);
- :func:`asked_words`: words that name a time (a question without them and without a date names
  no period; :mod:`tablerag.lang.asks`);
- :func:`cue_words`: the router's time cues (:mod:`tablerag.router.features`);
- :data:`GRAINS`: the time grain a question talks about (:mod:`tablerag.linking.lexicon`);
- :func:`months`: English month names and their numbers.

Example:
    >>> [(p.pattern.split("|")[0], unit, offset) for p, unit, offset in RELATIVE[:2]]
    [('上个月', 'month', -1), ('本月', 'month', 0)]
    >>> [g for g, p in GRAINS if p.search("上月的毛利")], months()["sept"]
    (['month'], 9)
"""

from __future__ import annotations

import json
import re
from functools import cache
from importlib import resources
from typing import Any, Literal

Unit = Literal["day", "month", "year"]


@cache
def _data() -> dict[str, Any]:
    text = resources.files("tablerag.lang").joinpath("time.json").read_text("utf-8")
    data: dict[str, Any] = json.loads(text)
    return data


def _relative() -> tuple[tuple[re.Pattern[str], Unit, int], ...]:
    out = []
    for entry in _data()["relative"]:
        words = [re.escape(w) for w in entry["zh"]]
        words += [rf"\b{re.escape(w)}\b" for w in entry["en"]]
        out.append((re.compile("|".join(words), re.I), entry["unit"], int(entry["offset"])))
    return tuple(out)


RELATIVE: tuple[tuple[re.Pattern[str], Unit, int], ...] = _relative()
"""(pattern, unit, offset) of each relative time word, in the order they are read."""

GRAINS: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (grain, re.compile("|".join(patterns), re.I)) for grain, patterns in _data()["grains"].items()
)
"""(grain, pattern) of each time grain, most specific first."""


def asked_words() -> tuple[list[str], list[str]]:
    """(Chinese, English) words that name a time."""
    asked = _data()["asked"]
    return list(asked["zh"]), list(asked["en"])


def cue_words() -> dict[str, list[str]]:
    """The router's time cues: ``zh`` and ``en`` words, ``regex`` patterns."""
    return {k: list(v) for k, v in _data()["cues"].items()}


def months() -> dict[str, int]:
    """English month names (and their short forms) → their numbers."""
    return dict(_data()["months"])


__all__ = ["GRAINS", "RELATIVE", "Unit", "asked_words", "cue_words", "months"]
