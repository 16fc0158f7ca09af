"""What a step of the answer pipeline is, and the one switch that turns steps off by name.

A step (:class:`Stage`) is one small function that handles one failure: a *note* adds a line to
what the model reads, a *mend* rewrites without another model call, a *doubt* sends what ran
back to the model once, a *check* judges what the model wrote or what a query found. Every step
is registered in :mod:`tablerag.nl2sql.stages` (the document answer's checks are defined by the
path below it, :data:`tablerag.rag.answer.DOC_CHECKS`, and listed there too); this module sits
below every path so that each can hold its pipeline's tuple and read its :class:`Switches`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Generic, Literal, TypeVar

Family = Literal["note", "mend", "doubt", "check"]
FAMILIES: dict[str, Family] = {
    "notes": "note",
    "mends": "mend",
    "doubts": "doubt",
    "checks": "check",
}
F = TypeVar("F")


@dataclass(frozen=True)
class Stage(Generic[F]):
    """One named stage: what it is, why it exists, and the function that runs it."""

    name: str
    family: Family
    reason: str
    """The failure it handles, in one line."""
    run: F


def bound(stage: Stage[Any], run: F) -> Stage[F]:
    """``stage``, registered with no function, with the function a pipeline above the registry
    runs it by (the loop's stages: :mod:`tablerag.nl2sql.stages` cannot import the loop)."""
    return Stage(stage.name, stage.family, stage.reason, run)


@dataclass(frozen=True)
class Switches:
    """Which stages run: all but those in ``off`` (built by
    :func:`tablerag.nl2sql.stages.switches`, which knows the registered names).

    Example:
        >>> Switches().on("rollup"), Switches(frozenset({"rollup"})).on("rollup")
        (True, False)
    """

    off: frozenset[str] = frozenset()

    def on(self, name: str) -> bool:
        """Whether the stage ``name`` (a registered name) runs."""
        return name not in self.off

    def enabled(self, stages: Sequence[Stage[F]]) -> list[Stage[F]]:
        """The stages of a pipeline that run, in order."""
        return [s for s in stages if self.on(s.name)]


ALL_ON = Switches()

__all__ = ["ALL_ON", "FAMILIES", "Family", "Stage", "Switches", "bound"]
