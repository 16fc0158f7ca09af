"""The dev / held-out split of an evaluation set: a stable hash of each question's id.

About one question in three is held out. The held-out part is for reporting only: read its
questions, answers or per-case results while changing code and it stops measuring anything.
The split depends on the id alone, so adding a question never moves another one across.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Literal, TypeVar

from tablerag.errors import ConfigError

Part = Literal["dev", "heldout", "all"]
PARTS: tuple[str, ...] = ("dev", "heldout", "all")
HELDOUT_EVERY = 3
"""One id in this many (by its hash) is held out."""

T = TypeVar("T")


def part_of(qid: str) -> Literal["dev", "heldout"]:
    """The part question ``qid`` belongs to: the first 8 bytes of its SHA-256, modulo 3.

    Example:
        >>> [part_of(q) for q in ("c-01", "c-02", "c-03", "c-04")]
        ['dev', 'heldout', 'dev', 'dev']
    """
    digest = hashlib.sha256(qid.encode("utf-8")).digest()
    return "heldout" if int.from_bytes(digest[:8], "big") % HELDOUT_EVERY == 0 else "dev"


def select_part(items: Sequence[T], part: str, qid: str = "qid") -> list[T]:
    """The items of ``part`` (``dev``, ``heldout`` or ``all``), in their order.

    Raises:
        ConfigError: an unknown part.

    Example:
        >>> from types import SimpleNamespace as N
        >>> qs = [N(qid=f"c-{i:02d}") for i in range(1, 5)]
        >>> [q.qid for q in select_part(qs, "heldout")]
        ['c-02']
    """
    if part not in PARTS:
        raise ConfigError(f"Unknown part {part!r}: give --part one of {', '.join(PARTS)}.")
    if part == "all":
        return list(items)
    return [x for x in items if part_of(getattr(x, qid)) == part]
