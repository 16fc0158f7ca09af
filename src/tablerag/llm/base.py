"""The LLM interface: one abstract ``complete``; usage, structured output and streaming here.

Implementations override :meth:`LLM.complete` (and :meth:`LLM.stream` when the backend can
stream). Everything a caller needs on top - recorded usage, pydantic-validated structured output
with retries - is a concrete method of the base class, so every backend behaves the same.
"""

from __future__ import annotations

import threading
import time
from abc import ABC, abstractmethod
from collections import deque
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal, Self, TypedDict, TypeVar

from pydantic import BaseModel, ValidationError

from tablerag.errors import ProviderError
from tablerag.llm.structured import extract_json, validation_feedback
from tablerag.tokens import count_tokens

Role = Literal["system", "user", "assistant"]
ModelT = TypeVar("ModelT", bound=BaseModel)

DEFAULT_MAX_TOKENS = 512
DEFAULT_TIMEOUT_S = 120.0
#: Finish reasons of a completion that was cut off (OpenAI ``length``; Anthropic ``max_tokens``
#: is mapped to it by the adapter).
TRUNCATED_REASONS = frozenset({"length", "max_tokens"})


class Message(TypedDict):
    """One chat turn, in the shape every chat API accepts."""

    role: Role
    content: str


@dataclass(frozen=True)
class Completion:
    """What one :meth:`LLM.complete` call returned."""

    text: str
    prompt_tokens: int
    completion_tokens: int
    latency_ms: float
    model: str
    cached: bool = False
    #: ``stop`` (natural end or a stop string), ``length`` (hit ``max_tokens``) or the backend's.
    finish_reason: str = "stop"
    #: The token counts are :func:`tablerag.tokens.count_tokens` estimates, not the provider's.
    tokens_estimated: bool = False

    @property
    def truncated(self) -> bool:
        """Whether generation was cut off (``length``) rather than finished: the text may end
        mid-sentence and must not be shown as a finished answer.

        Example:
            >>> Completion("Cloud grew", 9, 3, 1.0, "m", finish_reason="length").truncated
            True
        """
        return self.finish_reason in TRUNCATED_REASONS


RECORDS_KEPT = 256
"""The last completions a :class:`Usage` keeps (a server's model makes millions of calls; the
totals cover them all, the records only the latest)."""


@dataclass
class Usage:
    """Calls, tokens and latency added up over the life of one LLM object (thread-safe).

    One request's usage is its own ``Usage`` (the request's model view records into it,
    :class:`tablerag.llm.deadline.DeadlineLLM`), never a difference of a shared one's totals.

    Example:
        >>> u = Usage()
        >>> for i in range(RECORDS_KEPT + 2):
        ...     u.add(Completion("x", 1, 1, 1.0, "m"))
        >>> u.calls, len(u.records), len(u.since(RECORDS_KEPT))
        (258, 256, 2)
    """

    calls: int = 0
    cached_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    latency_ms: float = 0.0
    records: deque[Completion] = field(default_factory=lambda: deque(maxlen=RECORDS_KEPT))
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    def add(self, completion: Completion) -> None:
        """Record one call (a cache hit counts as a call and as a cached call)."""
        with self._lock:
            self.calls += 1
            self.cached_calls += int(completion.cached)
            self.prompt_tokens += completion.prompt_tokens
            self.completion_tokens += completion.completion_tokens
            self.latency_ms += completion.latency_ms
            self.records.append(completion)

    def since(self, calls: int) -> list[Completion]:
        """The records of the calls after the first ``calls`` (as far as they are still kept).

        Example:
            >>> u = Usage(); u.add(Completion("a", 1, 1, 1.0, "m")); mark = u.calls
            >>> u.add(Completion("b", 1, 1, 1.0, "m")); [c.text for c in u.since(mark)]
            ['b']
        """
        with self._lock:
            newer = max(0, self.calls - calls)
            return list(self.records)[-newer:] if newer else []

    @property
    def total_tokens(self) -> int:
        """Prompt plus completion tokens."""
        return self.prompt_tokens + self.completion_tokens

    def snapshot(self) -> dict[str, float]:
        """The totals as a plain dict, for reports and the answer envelope."""
        with self._lock:
            return {
                "calls": self.calls,
                "cached_calls": self.cached_calls,
                "prompt_tokens": self.prompt_tokens,
                "completion_tokens": self.completion_tokens,
                "latency_ms": round(self.latency_ms, 1),
            }


def estimate_prompt_tokens(messages: Sequence[Message]) -> int:
    """Estimated prompt tokens of a chat: content tokens plus 4 per message of framing.

    Example:
        >>> estimate_prompt_tokens([{"role": "user", "content": "报销标准"}])
        8
    """
    return sum(count_tokens(m["content"]) + 4 for m in messages)


class LLM(ABC):
    """A chat model. Subclasses implement :meth:`complete`; the rest is shared.

    Every instance keeps a :class:`Usage` in ``usage`` that :meth:`complete` implementations
    feed through :meth:`_record`.
    """

    backend: ClassVar[str] = ""
    #: ``json_schema=`` constrains or at least asks for JSON output (JSON mode, grammar).
    supports_json: ClassVar[bool] = False
    #: :meth:`stream` yields text as it is generated instead of all at the end.
    supports_streaming: ClassVar[bool] = False
    #: Calls leave the machine (cost money or need a server).
    is_remote: ClassVar[bool] = False

    def __init__(self, model: str = "") -> None:
        self.model = model
        self.usage = Usage()

    def close(self) -> None:
        """Release connections or files; the LLM is not used afterwards."""
        return None  # an optional hook: backends without resources have nothing to close

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    @property
    def spec(self) -> str:
        """The ``backend:model`` spec of this LLM (part of every cache key)."""
        return f"{self.backend}:{self.model}" if self.model else self.backend

    @abstractmethod
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
        """Answer a chat with one assistant message.

        Args:
            messages: The chat so far, oldest first.
            max_tokens: Most tokens to generate.
            temperature: Sampling temperature; 0 is (as near as the backend allows) greedy.
            stop: Strings that end generation (not included in the text).
            json_schema: Ask for a JSON object following this JSON schema, when the backend
                supports it (``supports_json``); otherwise the prompt must ask for JSON.
            timeout_s: Wall-clock limit of the call, retries included (a question's
                :class:`~tablerag.llm.deadline.DeadlineLLM` passes what is left of its time).

        Returns:
            The completion, with token usage (estimated when the backend reports none);
            ``finish_reason`` says whether it was cut off (:attr:`Completion.truncated`).

        Raises:
            ProviderTimeout: the backend did not finish within ``timeout_s`` (retries included).
            ProviderError: the backend failed or answered with something unusable.
            ConfigError: the backend is misconfigured (key, URL, model file).
        """

    def stream(
        self,
        messages: Sequence[Message],
        *,
        max_tokens: int = DEFAULT_MAX_TOKENS,
        temperature: float = 0.0,
        stop: Sequence[str] = (),
        timeout_s: float = DEFAULT_TIMEOUT_S,
    ) -> Iterator[str]:
        """Yield the answer in pieces; backends without streaming yield it in one piece.

        Raises:
            ProviderTimeout, ProviderError, ConfigError: as :meth:`complete`.
        """
        yield self.complete(
            messages,
            max_tokens=max_tokens,
            temperature=temperature,
            stop=stop,
            timeout_s=timeout_s,
        ).text

    def complete_structured(
        self,
        messages: Sequence[Message],
        model_cls: type[ModelT],
        *,
        retries: int = 2,
        max_tokens: int = DEFAULT_MAX_TOKENS,
        temperature: float = 0.0,
        timeout_s: float = DEFAULT_TIMEOUT_S,
    ) -> ModelT:
        """Ask for a JSON object, validate it with ``model_cls``; retry with the error fed back.

        Args:
            messages: The chat; it should say which JSON fields are wanted.
            model_cls: The pydantic model the reply must validate against.
            retries: Extra attempts after an invalid reply (the reply and the validation
                errors are appended to the chat each time).
            max_tokens: Most tokens per attempt.
            temperature: Sampling temperature.
            timeout_s: Wall-clock limit of one attempt.

        Returns:
            The validated model instance.

        Raises:
            ProviderError: every attempt answered with JSON that does not validate.
            ProviderTimeout: an attempt timed out (after the backend's own retries).
        """
        schema = model_cls.model_json_schema()
        chat = list(messages)
        problem = ""
        for _ in range(retries + 1):
            reply = self.complete(
                chat,
                max_tokens=max_tokens,
                temperature=temperature,
                json_schema=schema,
                timeout_s=timeout_s,
            )
            try:
                return model_cls.model_validate_json(extract_json(reply.text))
            except ValidationError as exc:
                problem = validation_feedback(exc)
            chat += [
                {"role": "assistant", "content": reply.text},
                {"role": "user", "content": problem},
            ]
        raise ProviderError(
            f"{self.spec} gave no valid {model_cls.__name__} in {retries + 1} attempts "
            f"(last problem: {problem.splitlines()[0]!r}); use a stronger model or simplify "
            "the request.",
            provider=self.backend,
        )

    def _record(
        self,
        messages: Sequence[Message],
        text: str,
        *,
        started: float,
        prompt_tokens: int | None = None,
        completion_tokens: int | None = None,
        finish_reason: str = "stop",
        model: str | None = None,
    ) -> Completion:
        """Build a :class:`Completion` (estimating missing token counts) and record it.

        Args:
            messages: The prompt, for the token estimate.
            text: The generated text.
            started: ``time.perf_counter()`` when the call began.
            prompt_tokens: Reported prompt tokens, if the backend gave them.
            completion_tokens: Reported completion tokens, if the backend gave them.
            finish_reason: Why generation ended.
            model: The model name the backend reported.
        """
        estimated = prompt_tokens is None or completion_tokens is None
        completion = Completion(
            text=text,
            prompt_tokens=(
                prompt_tokens if prompt_tokens is not None else estimate_prompt_tokens(messages)
            ),
            completion_tokens=(
                completion_tokens if completion_tokens is not None else count_tokens(text)
            ),
            latency_ms=(time.perf_counter() - started) * 1000.0,
            model=model or self.model,
            finish_reason=finish_reason,
            tokens_estimated=estimated,
        )
        self.usage.add(completion)
        return completion
