"""Every rate word tablerag knows, read from one data file (``lang/rates.json``).

- :func:`asked_words`: words of a question asking one ratio or average (:mod:`tablerag.lang.asks`);
- :func:`share_words`: words of a share of a whole, at most 100 (:mod:`tablerag.lang.asks`);
- :data:`COLUMN`: a column name that holds a rate (:mod:`tablerag.loop.tiers`).

Example:
    >>> bool(COLUMN.search("refund_pct")), bool(COLUMN.search("amount"))
    (True, False)
"""

from __future__ import annotations

import json
import re
from functools import cache
from importlib import resources
from typing import Any


@cache
def _data() -> dict[str, Any]:
    text = resources.files("tablerag.lang").joinpath("rates.json").read_text("utf-8")
    data: dict[str, Any] = json.loads(text)
    return data


def asked_words() -> tuple[list[str], list[str]]:
    """(Chinese, English) words of a question asking one ratio or average."""
    return list(_data()["asked"]["zh"]), list(_data()["asked"]["en"])


def share_words() -> tuple[list[str], list[str]]:
    """(Chinese, English) words of a rate, a ratio or a percentage (a share of a whole)."""
    return list(_data()["share"]["zh"]), list(_data()["share"]["en"])


COLUMN = re.compile("|".join(_data()["columns"]), re.IGNORECASE)
"""A part of a column name that holds a rate."""

__all__ = ["COLUMN", "asked_words", "share_words"]
