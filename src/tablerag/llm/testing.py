"""Test doubles that ship with the package: a scripted LLM and a function-backed LLM.

``llm = ScriptedLLM(); llm.enqueue("SELECT 1", ProviderTimeout("slow"))`` answers the first call
with ``SELECT 1`` and raises on the second; ``llm.history`` holds every request. A queued
:class:`Truncated` text comes back as a completion cut off at ``max_tokens``
(``finish_reason="length"``).
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from tablerag.errors import ProviderError
from tablerag.llm.base import DEFAULT_MAX_TOKENS, DEFAULT_TIMEOUT_S, LLM, Completion, Message

# Falsy, so pytest never collects this module as tests; an (empty) mapping, as doctest expects.
__test__: dict[str, str] = {}

__all__ = ["Call", "FunctionLLM", "ScriptedLLM", "Truncated"]


@dataclass(frozen=True)
class Truncated:
    """A reply the model did not finish: it stopped at the token limit (``length``)."""

    text: str


Reply = str | Truncated | BaseException


@dataclass(frozen=True)
class Call:
    """One request a test double received."""

    messages: tuple[Message, ...]
    max_tokens: int
    temperature: float
    stop: tuple[str, ...]
    json_schema: dict[str, Any] | None
    timeout_s: float = DEFAULT_TIMEOUT_S


class _RecordingLLM(LLM):
    """Shared bookkeeping of the doubles: history of calls, usage recording."""

    supports_json = True

    def __init__(self, model: str = "") -> None:
        super().__init__(model or "scripted")
        self.history: list[Call] = []
        self._lock = threading.Lock()

    def _reply(self, messages: Sequence[Message]) -> Reply:
        raise NotImplementedError

    def complete(
        self,
        messages: Sequence[Message],
        *,
        max_tokens: int = DEFAULT_MAX_TOKENS,
        temperature: float = 0.0,
        stop: Sequence[str] = (),
        json_schema: dict[str, Any] | None = None,
        timeout_s: float = DEFAULT_TIMEOUT_S,
    ) -> Completion:
        """Return the next reply (or raise the next exception) and record the call."""
        started = time.perf_counter()
        with self._lock:
            self.history.append(
                Call(tuple(messages), max_tokens, temperature, tuple(stop), json_schema, timeout_s)
            )
            reply = self._reply(messages)
        if isinstance(reply, BaseException):
            raise reply
        if isinstance(reply, Truncated):
            return self._record(messages, reply.text, started=started, finish_reason="length")
        return self._record(messages, reply, started=started)


class ScriptedLLM(_RecordingLLM):
    """Replies with queued texts, in order; a queued exception is raised instead.

    Args:
        model: A name for the double (default ``scripted``).
        replies: Initial queue, as :meth:`enqueue` takes.
    """

    backend = "scripted"

    def __init__(self, model: str = "", replies: Sequence[Reply] = ()) -> None:
        super().__init__(model)
        self._queue: deque[Reply] = deque(replies)

    def enqueue(self, *replies: Reply) -> None:
        """Add replies (texts, :class:`Truncated` texts or exceptions to raise) to the queue."""
        with self._lock:
            self._queue.extend(replies)

    @property
    def pending(self) -> int:
        """Replies not used yet."""
        return len(self._queue)

    def _reply(self, messages: Sequence[Message]) -> Reply:
        if not self._queue:
            return ProviderError(
                f"ScriptedLLM has no reply left for call {len(self.history)}; enqueue one "
                "more reply in the test.",
                provider=self.backend,
            )
        return self._queue.popleft()


class FunctionLLM(_RecordingLLM):
    """Replies with ``function(messages)`` (a text or a :class:`Truncated` one); the function
    may raise to simulate failures."""

    backend = "function"

    def __init__(
        self, function: Callable[[Sequence[Message]], str | Truncated], model: str = ""
    ) -> None:
        super().__init__(model or "function")
        self.function = function

    def _reply(self, messages: Sequence[Message]) -> Reply:
        return self.function(messages)
