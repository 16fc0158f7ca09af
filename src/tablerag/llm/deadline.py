"""An LLM view whose every call ends by the question's deadline.

``QA.ask`` wraps its model in :class:`DeadlineLLM` for one question and hands that to the
paths, so every call they make - SQL, repairs, explanations, passages, the loop's planning -
gets ``min(timeout_s, what is left)`` and, once the time is up, fails at once with
:class:`~tablerag.errors.ProviderTimeout` (which every path already turns into an answer).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from tablerag.deadline import Deadline, applied
from tablerag.errors import ProviderError, ProviderTimeout
from tablerag.llm.base import (
    DEFAULT_MAX_TOKENS,
    DEFAULT_TIMEOUT_S,
    LLM,
    Completion,
    Message,
    Usage,
)

#: A call with less time than this left is not started: no model answers that fast.
MIN_CALL_S = 0.05


class DeadlineLLM(LLM):
    """The calls of ``inner``, each limited to the time left until ``deadline``.

    Calls are recorded in this view's ``usage`` too (as :class:`~tablerag.llm.cache.CachedLLM`
    does), so a budget reading it counts only this question's calls.

    Args:
        inner: the model.
        deadline: the question's deadline.
        usage: record this view's calls here (a request's own usage); default a new one.
        cancelled: once set (the client went away), no new call starts.
        on_call: called with each completion (a request's trace).
    """

    def __init__(
        self,
        inner: LLM,
        deadline: Deadline,
        *,
        usage: Usage | None = None,
        cancelled: threading.Event | None = None,
        on_call: Callable[[Completion], None] | None = None,
    ) -> None:
        super().__init__(inner.model)
        self.inner, self.deadline = inner, deadline
        if usage is not None:
            self.usage = usage
        self.cancelled, self.on_call = cancelled, on_call
        self.backend = inner.backend  # type: ignore[misc]  # mirror the wrapped backend
        self.supports_json = inner.supports_json  # type: ignore[misc]
        self.supports_streaming = inner.supports_streaming  # type: ignore[misc]
        self.is_remote = inner.is_remote  # type: ignore[misc]

    @property
    def spec(self) -> str:
        """The wrapped LLM's spec."""
        return self.inner.spec

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
        """Ask the wrapped model with what is left of the question's time; see
        :meth:`LLM.complete`.

        Raises:
            ProviderTimeout: the question's time ran out before or during the call.
        """
        limit = self._limit(timeout_s)
        try:
            with applied(self.deadline):
                completion = self.inner.complete(
                    messages,
                    max_tokens=max_tokens,
                    temperature=temperature,
                    stop=stop,
                    json_schema=json_schema,
                    timeout_s=limit,
                )
        except ProviderTimeout as exc:
            raise self._late(exc) from exc
        self.usage.add(completion)
        if self.on_call is not None:
            self.on_call(completion)
        return completion

    def stream(
        self,
        messages: Sequence[Message],
        *,
        max_tokens: int = DEFAULT_MAX_TOKENS,
        temperature: float = 0.0,
        stop: Sequence[str] = (),
        timeout_s: float = DEFAULT_TIMEOUT_S,
    ) -> Iterator[str]:
        """Stream from the wrapped model with what is left of the question's time."""
        before = self.inner.usage.calls
        try:
            yield from self.inner.stream(
                messages,
                max_tokens=max_tokens,
                temperature=temperature,
                stop=stop,
                timeout_s=self._limit(timeout_s),
            )
        except ProviderTimeout as exc:
            raise self._late(exc) from exc
        for record in self.inner.usage.since(before):
            self.usage.add(record)

    def _limit(self, timeout_s: float) -> float:
        if self.cancelled is not None and self.cancelled.is_set():
            raise ProviderError(
                "The request was cancelled (the client went away); no further model call is "
                "made for it.",
                provider=self.backend,
            )
        left = self.deadline.remaining()
        if left < MIN_CALL_S:
            raise ProviderTimeout(
                f"The question's time limit ({self.deadline.seconds:g} s) ran out before this "
                "model call; raise answer_max_seconds or ask a narrower question.",
                provider=self.backend,
            )
        return min(timeout_s, left)

    def _late(self, exc: ProviderTimeout) -> ProviderTimeout:
        """The backend's timeout, saying so when it was the question's deadline that ended it."""
        if not self.deadline.expired():
            return exc
        return ProviderTimeout(
            f"The question's time limit ({self.deadline.seconds:g} s) ran out during a model "
            f"call ({exc}); raise answer_max_seconds or ask a narrower question.",
            provider=exc.provider or self.backend,
        )
