"""Claude through the Anthropic Messages API, over plain httpx (no SDK)."""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from typing import Any

from tablerag.errors import ConfigError, ProviderError
from tablerag.llm._http import HTTPChat, RetryPolicy, loads_event
from tablerag.llm._urls import is_loopback_url, setting
from tablerag.llm.base import DEFAULT_MAX_TOKENS, DEFAULT_TIMEOUT_S, LLM, Completion, Message
from tablerag.llm.structured import json_instruction

ANTHROPIC_URL = "https://api.anthropic.com"
API_VERSION = "2023-06-01"
_FINISH = {"end_turn": "stop", "stop_sequence": "stop", "max_tokens": "length"}


def to_anthropic(
    messages: Sequence[Message], extra_system: str = ""
) -> tuple[str, list[dict[str, str]]]:
    """Split a chat into Anthropic's ``system`` text and alternating user/assistant turns.

    System messages are joined into ``system``; consecutive turns of one role are merged, and a
    chat that starts with the assistant gets a placeholder user turn first, as the API needs.

    Example:
        >>> to_anthropic([{"role": "system", "content": "Be brief."},
        ...               {"role": "user", "content": "a"}, {"role": "user", "content": "b"}])
        ('Be brief.', [{'role': 'user', 'content': 'a\\n\\nb'}])
    """
    system = [m["content"] for m in messages if m["role"] == "system"]
    if extra_system:
        system.append(extra_system)
    turns: list[dict[str, str]] = []
    for message in messages:
        if message["role"] == "system":
            continue
        if turns and turns[-1]["role"] == message["role"]:
            turns[-1]["content"] += "\n\n" + message["content"]
        else:
            turns.append({"role": message["role"], "content": message["content"]})
    if not turns or turns[0]["role"] != "user":
        turns.insert(0, {"role": "user", "content": "(continue)"})
    return "\n\n".join(system), turns


class AnthropicLLM(LLM):
    """Anthropic's Messages API: spec ``anthropic:<model>``.

    The key comes from ``api_key``, ``TABLERAG_ANTHROPIC_API_KEY`` or ``ANTHROPIC_API_KEY``; the
    base URL from ``base_url``, ``TABLERAG_ANTHROPIC_BASE_URL`` or ``ANTHROPIC_BASE_URL``
    (default ``https://api.anthropic.com``).

    Raises:
        ConfigError: no model name, or no key for a base URL that is not on this machine.
    """

    backend = "anthropic"
    supports_streaming = True
    is_remote = True

    def __init__(
        self,
        model: str = "",
        *,
        base_url: str | None = None,
        api_key: str | None = None,
        retry: RetryPolicy | None = None,
    ) -> None:
        super().__init__(model)
        if not model:
            raise ConfigError(
                "The anthropic LLM needs a model name; write the spec as 'anthropic:MODEL', "
                "e.g. TABLERAG_LLM=anthropic:claude-sonnet-4-5."
            )
        base = setting(base_url, "TABLERAG_ANTHROPIC_BASE_URL", "ANTHROPIC_BASE_URL")
        self.base_url = (base or ANTHROPIC_URL).rstrip("/")
        key = setting(api_key, "TABLERAG_ANTHROPIC_API_KEY", "ANTHROPIC_API_KEY")
        if not key and not is_loopback_url(self.base_url):
            raise ConfigError(
                "No Anthropic API key: set ANTHROPIC_API_KEY (or TABLERAG_ANTHROPIC_API_KEY), "
                "or choose another backend with TABLERAG_LLM (e.g. 'local')."
            )
        headers = {"anthropic-version": API_VERSION}
        if key:
            headers["x-api-key"] = key
        self.http = HTTPChat("anthropic", self.base_url, headers, retry)

    def close(self) -> None:
        """Close the HTTP connection pool."""
        self.http.close()

    def _payload(
        self,
        messages: Sequence[Message],
        max_tokens: int,
        temperature: float,
        stop: Sequence[str],
        json_schema: dict[str, Any] | None,
    ) -> dict[str, Any]:
        extra = json_instruction(json_schema) if json_schema is not None else ""
        system, turns = to_anthropic(messages, extra)
        payload: dict[str, Any] = {
            "model": self.model,
            "messages": turns,
            "max_tokens": max_tokens,
            "temperature": temperature,
        }
        if system:
            payload["system"] = system
        if stop:
            payload["stop_sequences"] = list(stop)
        return payload

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
        """POST the chat to ``/v1/messages``; see :meth:`LLM.complete`."""
        started = time.perf_counter()
        payload = self._payload(messages, max_tokens, temperature, stop, json_schema)
        reply = self.http.post("/v1/messages", payload, timeout_s=timeout_s)
        try:
            blocks = reply["content"]
            text = "".join(b.get("text", "") for b in blocks if b.get("type") == "text")
        except (KeyError, TypeError, AttributeError) as exc:
            raise ProviderError(
                f"{self.base_url!r} answered without a 'content' list; check that it is the "
                "Anthropic Messages API.",
                provider=self.backend,
            ) from exc
        usage = reply.get("usage") if isinstance(reply.get("usage"), dict) else {}
        reason = reply.get("stop_reason") or "end_turn"
        return self._record(
            messages,
            text,
            started=started,
            prompt_tokens=usage.get("input_tokens"),
            completion_tokens=usage.get("output_tokens"),
            finish_reason=_FINISH.get(reason, reason),
            model=reply.get("model") or self.model,
        )

    def stream(
        self,
        messages: Sequence[Message],
        *,
        max_tokens: int = DEFAULT_MAX_TOKENS,
        temperature: float = 0.0,
        stop: Sequence[str] = (),
        timeout_s: float = DEFAULT_TIMEOUT_S,
    ) -> Iterator[str]:
        """Stream the answer over server-sent events; usage is recorded when it ends."""
        started = time.perf_counter()
        payload = self._payload(messages, max_tokens, temperature, stop, None)
        payload["stream"] = True
        pieces: list[str] = []
        reason, prompt_tokens, completion_tokens = "end_turn", None, None
        for _, data in self.http.stream("/v1/messages", payload, timeout_s=timeout_s):
            event = loads_event(self.backend, data)
            kind = event.get("type")
            if kind == "error":
                detail = (event.get("error") or {}).get("message", data[:200])
                raise ProviderError(
                    f"anthropic stream failed: {detail!r}; try again later.",
                    provider=self.backend,
                )
            if kind == "message_start":
                prompt_tokens = ((event.get("message") or {}).get("usage") or {}).get(
                    "input_tokens"
                )
            elif kind == "content_block_delta":
                piece = (event.get("delta") or {}).get("text") or ""
                if piece:
                    pieces.append(piece)
                    yield piece
            elif kind == "message_delta":
                reason = (event.get("delta") or {}).get("stop_reason") or reason
                completion_tokens = (event.get("usage") or {}).get("output_tokens")
            elif kind == "message_stop":
                break
        self._record(
            messages,
            "".join(pieces),
            started=started,
            prompt_tokens=prompt_tokens,
            completion_tokens=completion_tokens,
            finish_reason=_FINISH.get(reason, reason),
        )
