"""The loop's budgets: sub-questions, LLM tokens and a deadline for one question."""

from __future__ import annotations

from dataclasses import dataclass, field

from tablerag.answer import BudgetName
from tablerag.deadline import Deadline
from tablerag.llm.base import LLM


@dataclass
class Budget:
    """Counts what one question has spent; :meth:`exhausted` names the first budget run out.

    Tokens are read from the model's usage counters (prompt + completion since the start), so
    every call the loop makes (SQL repairs, passage answers) counts. Time is the loop's
    deadline: the earlier of the question's and ``loop_max_seconds`` from the loop's start.

    Example:
        >>> from tablerag.llm.testing import ScriptedLLM
        >>> b = Budget(ScriptedLLM(), max_steps=2, max_tokens=1000, deadline=Deadline.after(60))
        >>> b.exhausted(steps_done=1), b.exhausted(steps_done=2), b.max_seconds
        (None, 'steps', 60)
    """

    llm: LLM
    max_steps: int
    max_tokens: int
    deadline: Deadline
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
    def max_seconds(self) -> float:
        """The time limit the deadline was made from."""
        return self.deadline.seconds

    def limit(self, name: BudgetName) -> float:
        """The limit of budget ``name``."""
        return {"steps": self.max_steps, "tokens": self.max_tokens, "seconds": self.max_seconds}[
            name
        ]

    def exhausted(self, *, steps_done: int) -> BudgetName | None:
        """The budget that has run out (seconds, then steps, then tokens), or None.

        Time comes first: once it is up no call can be made, not even the last one the step
        budget allows.
        """
        if self.deadline.expired():
            return "seconds"
        if steps_done >= self.max_steps:
            return "steps"
        if self.tokens >= self.max_tokens:
            return "tokens"
        return None
