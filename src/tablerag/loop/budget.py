"""The loop's budgets: sub-questions, LLM tokens and wall-clock seconds for one question."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from tablerag.answer import BudgetName
from tablerag.llm.base import LLM


@dataclass
class Budget:
    """Counts what one question has spent; :meth:`exhausted` names the first budget run out.

    Tokens are read from the model's usage counters (prompt + completion since the start), so
    every call the loop makes (SQL repairs, passage answers) counts.

    Example:
        >>> from tablerag.llm.testing import ScriptedLLM
        >>> b = Budget(ScriptedLLM(), max_steps=2, max_tokens=1000, max_seconds=60.0)
        >>> b.exhausted(steps_done=1), b.exhausted(steps_done=2)
        (None, 'steps')
    """

    llm: LLM
    max_steps: int
    max_tokens: int
    max_seconds: float
    started: float = field(default_factory=time.monotonic)
    _base: int = field(init=False, default=0)

    def __post_init__(self) -> None:
        self._base = self._used()

    def _used(self) -> int:
        snap = self.llm.usage.snapshot()
        return int(snap["prompt_tokens"] + snap["completion_tokens"])

    @property
    def tokens(self) -> int:
        """LLM tokens spent since the budget started."""
        return self._used() - self._base

    @property
    def seconds(self) -> float:
        """Seconds since the budget started."""
        return time.monotonic() - self.started

    def exhausted(self, *, steps_done: int) -> BudgetName | None:
        """The budget that has run out (steps, then tokens, then seconds), or None."""
        if steps_done >= self.max_steps:
            return "steps"
        if self.tokens >= self.max_tokens:
            return "tokens"
        if self.seconds >= self.max_seconds:
            return "seconds"
        return None
