"""Chat completions from any OpenAI-compatible endpoint, over plain httpx (no SDK).

One adapter covers OpenAI, DeepSeek, Qwen/DashScope, vLLM, Ollama, the llama.cpp server and
LM Studio: they all speak ``POST {base_url}/chat/completions``.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from typing import Any

from tablerag.errors import ConfigError, ProviderError
from tablerag.llm._http import HTTPChat, RetryPolicy, loads_event
from tablerag.llm._urls import OPENAI_URL as OPENAI_URL
from tablerag.llm._urls import is_loopback_url, openai_endpoint
from tablerag.llm.base import DEFAULT_MAX_TOKENS, DEFAULT_TIMEOUT_S, LLM, Completion, Message
from tablerag.llm.structured import json_instruction

_FINISH = {"stop": "stop", "length": "length", "eos": "stop", "content_filter": "content_filter"}


class OpenAILLM(LLM):
    """An OpenAI-compatible chat endpoint: spec ``openai:<model>``.

    The base URL comes from ``base_url``, else ``TABLERAG_OPENAI_BASE_URL``, else
    ``OPENAI_BASE_URL``, else OpenAI itself (e.g. ``http://localhost:11434/v1`` for Ollama,
    ``https://api.deepseek.com/v1``, ``https://dashscope.aliyuncs.com/compatible-mode/v1``).
    The key comes from ``api_key``, ``TABLERAG_OPENAI_API_KEY`` or ``OPENAI_API_KEY``; servers
    on loopback may run without one.

    Args:
        model: Model name the server knows.
        base_url: API base URL (overrides the environment).
        api_key: API key (overrides the environment).
        retry: Retry policy for timeouts, 429 and 5xx.

    Raises:
        ConfigError: no model name, or no key for a base URL that is not on this machine.
    """

    backend = "openai"
    supports_json = True
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
                "The openai LLM needs a model name; write the spec as 'openai:MODEL', "
                "e.g. TABLERAG_LLM=openai:gpt-4o-mini."
            )
        self.base_url, key = openai_endpoint(base_url, api_key)
        if not key and not is_loopback_url(self.base_url):
            raise ConfigError(
                f"No API key for {self.base_url!r}: set TABLERAG_OPENAI_API_KEY (or "
                "OPENAI_API_KEY), or point TABLERAG_OPENAI_BASE_URL at a server on this machine "
                "such as http://localhost:11434/v1 (Ollama), which needs none."
            )
        headers = {"Authorization": f"Bearer {key}"} if key else {}
        self.http = HTTPChat("openai", self.base_url, headers, retry)

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
        chat = [{"role": m["role"], "content": m["content"]} for m in messages]
        payload: dict[str, Any] = {
            "model": self.model,
            "messages": chat,
            "max_tokens": max_tokens,
            "temperature": temperature,
        }
        if stop:
            payload["stop"] = list(stop)
        if json_schema is not None:
            # json_object is the JSON mode every compatible server knows; OpenAI also requires
            # the word "JSON" in the chat, which the schema instruction provides.
            payload["response_format"] = {"type": "json_object"}
            chat.insert(0, {"role": "system", "content": json_instruction(json_schema)})
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
        """POST the chat to ``/chat/completions``; see :meth:`LLM.complete`."""
        started = time.perf_counter()
        payload = self._payload(messages, max_tokens, temperature, stop, json_schema)
        reply = self.http.post("/chat/completions", payload, timeout_s=timeout_s)
        try:
            choice = reply["choices"][0]
            text = choice["message"].get("content") or ""
            reason = choice.get("finish_reason") or "stop"
        except (KeyError, IndexError, TypeError, AttributeError) as exc:
            raise ProviderError(
                f"{self.base_url!r} answered without 'choices[0].message'; check that it is "
                "an OpenAI-compatible chat endpoint.",
                provider=self.backend,
            ) from exc
        usage = reply.get("usage") if isinstance(reply, dict) else None
        usage = usage if isinstance(usage, dict) else {}
        return self._record(
            messages,
            text,
            started=started,
            prompt_tokens=usage.get("prompt_tokens"),
            completion_tokens=usage.get("completion_tokens"),
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
        reason, usage = "stop", {}
        for _, data in self.http.stream("/chat/completions", payload, timeout_s=timeout_s):
            if data.strip() == "[DONE]":
                break
            event = loads_event(self.backend, data)
            if isinstance(event.get("usage"), dict):
                usage = event["usage"]
            for choice in event.get("choices") or []:
                piece = (choice.get("delta") or {}).get("content") or ""
                if piece:
                    pieces.append(piece)
                    yield piece
                reason = choice.get("finish_reason") or reason
        self._record(
            messages,
            "".join(pieces),
            started=started,
            prompt_tokens=usage.get("prompt_tokens"),
            completion_tokens=usage.get("completion_tokens"),
            finish_reason=_FINISH.get(reason, reason),
        )
