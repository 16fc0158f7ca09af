"""The loop's budgets: sub-questions, LLM tokens and a deadline for one question."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from tablerag.answer import BudgetName
from tablerag.deadline import Deadline
from tablerag.llm.base import LLM

RESERVE_SHARE = 1 / 3
"""Share of the time left kept for later calls before the pace of the calls is known."""


@dataclass
class Budget:
    """Counts what one question has spent; :meth:`exhausted` names the first budget run out,
    :meth:`affords` says whether more calls fit in the time left at the pace so far.

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
    _calls: int = field(init=False, default=0)
    _started: float = field(init=False, default=0.0)

    def __post_init__(self) -> None:
        self._base = self._used()
        self._calls = int(self.llm.usage.snapshot()["calls"])
        self._started = time.monotonic()

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

    @property
    def call_seconds(self) -> float | None:
        """Seconds the loop has taken per model call since the budget started (None before
        any): the pace its next calls are expected to go at, the work between calls
        (retrieval, queries) included."""
        calls = int(self.llm.usage.snapshot()["calls"]) - self._calls
        if calls <= 0:
            return None
        return (time.monotonic() - self._started) / calls

    def affords(self, calls: int) -> bool:
        """Whether ``calls`` more model calls, at the pace of those made so far, end before
        the deadline (True before the first call: there is nothing to go by).

        Example:
            >>> from tablerag.llm.testing import ScriptedLLM
            >>> b = Budget(ScriptedLLM(replies=["x"]), max_steps=5, max_tokens=10**6,
            ...            deadline=Deadline.after(100))
            >>> b.affords(50)
            True
            >>> b._started -= 30  # as if the loop had run 30 s
            >>> _ = b.llm.complete([{"role": "user", "content": "q"}])  # its one call
            >>> b.affords(3), b.affords(4)
            (True, False)
        """
        pace = self.call_seconds
        return pace is None or self.deadline.remaining() >= calls * pace

    def leaving(self, calls: int, *, share: float = RESERVE_SHARE) -> Deadline:
        """The deadline that leaves time for ``calls`` model calls after it: at the pace so
        far, or before the first call ``share`` of what is left (a step's SQL repairs must not
        eat the time of its passages and of the final answer).

        Example:
            >>> from tablerag.llm.testing import ScriptedLLM
            >>> b = Budget(ScriptedLLM(), max_steps=5, max_tokens=10**6,
            ...            deadline=Deadline.after(90))
            >>> 59 < b.leaving(2).remaining() <= 60
            True
        """
        pace = self.call_seconds
        left = self.deadline.remaining()
        keep = calls * pace if pace is not None else left * share
        return Deadline(self.deadline.expires_at - min(keep, left), self.deadline.seconds)

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
