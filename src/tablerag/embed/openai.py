"""Embeddings from any OpenAI-compatible ``/embeddings`` endpoint (OpenAI, Ollama, vLLM, ...)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from tablerag.embed.base import Embedder, Matrix, Role, role_prefix
from tablerag.errors import ConfigError, ProviderError
from tablerag.llm._http import post_json
from tablerag.llm._urls import OPENAI_URL as OPENAI_URL
from tablerag.llm._urls import openai_endpoint


class OpenAIEmbedder(Embedder):
    """An OpenAI-compatible embeddings API: spec ``openai:<model>``.

    The base URL comes from ``base_url``, else ``TABLERAG_OPENAI_BASE_URL``, else
    ``OPENAI_BASE_URL``, else OpenAI itself; e.g. ``http://localhost:11434/v1`` for Ollama or
    ``https://dashscope.aliyuncs.com/compatible-mode/v1`` for DashScope. The key comes from
    ``api_key``, ``TABLERAG_OPENAI_API_KEY`` or ``OPENAI_API_KEY`` (local servers need none).
    Role prefixes for e5 / nomic models are added from the profile table in ``embed.base``.
    """

    backend = "openai"
    is_remote = True
    batch_size = 64

    def __init__(
        self,
        model: str = "",
        *,
        base_url: str | None = None,
        api_key: str | None = None,
        dimensions: int | None = None,
        timeout_s: float = 60.0,
    ) -> None:
        super().__init__(model)
        if not model:
            raise ConfigError(
                "The openai embedder needs a model name, e.g. 'openai:text-embedding-3-small'."
            )
        self.base_url, self._api_key = openai_endpoint(base_url, api_key)
        if self.base_url == OPENAI_URL and not self._api_key:
            raise ConfigError(
                "No OpenAI API key: set TABLERAG_OPENAI_API_KEY (or OPENAI_API_KEY), or set "
                "TABLERAG_OPENAI_BASE_URL to a local server such as http://localhost:11434/v1."
            )
        self.dimensions = dimensions
        self.timeout_s = timeout_s
        self.supports_roles = bool(role_prefix(model, "query") or role_prefix(model, "passage"))

    def embed_batch(self, texts: Sequence[str], *, role: Role) -> Matrix:
        """POST the texts to ``{base_url}/embeddings`` and return vectors in input order."""
        prefix = role_prefix(self.model, role)
        payload: dict[str, object] = {
            "model": self.model,
            "input": [prefix + t if t else prefix + " " for t in texts],
            "encoding_format": "float",
        }
        if self.dimensions:
            payload["dimensions"] = self.dimensions
        reply = post_json(
            f"{self.base_url}/embeddings",
            payload,
            api_key=self._api_key,
            timeout_s=self.timeout_s,
            provider="openai",
        )
        try:
            items = sorted(reply["data"], key=lambda item: int(item.get("index", 0)))
            vectors = [item["embedding"] for item in items]
        except (KeyError, TypeError, ValueError) as exc:
            raise ProviderError(
                f"Embeddings endpoint {self.base_url!r} answered without 'data[].embedding'; "
                "check that it is OpenAI-compatible.",
                provider="openai",
            ) from exc
        if len(vectors) != len(texts):
            raise ProviderError(
                f"Embeddings endpoint {self.base_url!r} returned {len(vectors)} vectors for "
                f"{len(texts)} texts; check the server.",
                provider="openai",
            )
        return np.asarray(vectors, dtype=np.float32)
