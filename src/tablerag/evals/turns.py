"""The turns of a multi-turn dataset (CHASE) asked as a user asks them: in order, in one
session of the product (issue 34).

The runner calls a method once per turn, in dataset order, possibly from several threads, and
a resumed or sampled run may start in the middle of an interaction. :class:`Conversations`
keeps, per method and interaction, the session and the next turn to ask: a turn whose earlier
turns were not asked yet asks them first, in order, in the same session (their outcomes are
kept for when the runner asks for them); a turn asked again starts a new session.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from tablerag.evals.runner import Case, Outcome

Ask = Callable[[Case, str], Outcome]
"""``ask(case, session)``: one turn answered in ``session`` and scored."""


@dataclass
class _State:
    method: str
    interaction: str
    generation: int = 0
    next: int = 0
    kept: dict[int, Outcome] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def session(self) -> str:
        """The session id: letters, digits and ``_ . : -`` only."""
        name = self.interaction.replace("/", ":")
        return f"eval.{self.method}.{name}.{self.generation}"

    def restart(self) -> None:
        self.generation, self.next = self.generation + 1, 0
        self.kept.clear()


class Conversations:
    """Asks each interaction's turns in order, in one product session per method.

    Args:
        cases: every case of the dataset (a turn's earlier turns are found among them by
            ``interaction`` and ``turn`` in their context).
    """

    def __init__(self, cases: Sequence[Case]) -> None:
        self._turns = {
            (str(c.context["interaction"]), int(c.context["turn"])): c
            for c in cases
            if "interaction" in c.context
        }
        self._states: dict[tuple[str, str], _State] = {}
        self._lock = threading.Lock()

    def answer(self, method: str, case: Case, ask: Ask) -> Outcome:
        """The outcome of ``case`` as the turn of its interaction's session."""
        interaction, turn = str(case.context["interaction"]), int(case.context["turn"])
        with self._lock:
            state = self._states.setdefault(
                (method, interaction), _State(method=method, interaction=interaction)
            )
        with state.lock:  # one interaction's turns one at a time, in order
            if turn in state.kept:
                return state.kept.pop(turn)
            if turn < state.next:  # asked before in this session: a new one
                state.restart()
            while state.next < turn:
                earlier = self._turns[(interaction, state.next)]
                state.kept[state.next] = ask(earlier, state.session)
                state.next += 1
            outcome = ask(case, state.session)
            state.next = turn + 1
            return outcome
