"""The word lists of ``lang/*.json``, read once each: one loader for every module of
:mod:`tablerag.lang` that keeps its words in a data file."""

from __future__ import annotations

import json
from functools import cache
from importlib import resources


@cache
def lang_data(name: str) -> dict[str, object]:
    """The object in ``tablerag/lang/<name>.json``."""
    text = resources.files("tablerag.lang").joinpath(f"{name}.json").read_text("utf-8")
    data: dict[str, object] = json.loads(text)
    return data


def word_list(name: str, key: str) -> list[str]:
    """The list of words under ``key`` in ``lang/<name>.json``.

    Example:
        >>> "合计" in word_list("totals", "zh")
        True
    """
    words = lang_data(name)[key]
    if not isinstance(words, list):
        raise TypeError(f"lang/{name}.json: {key!r} is not a list of words.")
    return [str(w) for w in words]
