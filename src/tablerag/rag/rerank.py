"""Rerankers: reorder the fused candidates with a stronger (slower) model.

No PyPI package bundles a cross-encoder that runs offline, so the default is the identity and
the real option is a reranking server or API (``api:<model>``): Jina, Cohere, vLLM, TEI or
llama.cpp's ``/rerank`` endpoint.
"""

from __future__ import annotations

import dataclasses
from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import TYPE_CHECKING, ClassVar

from tablerag.errors import ConfigError, ProviderError
from tablerag.llm._urls import setting

if TYPE_CHECKING:
    from tablerag.types import Hit


class Reranker(ABC):
    """Scores (query, passage) pairs; :meth:`rerank` sorts hits by that score."""

    backend: ClassVar[str] = ""
    is_remote: ClassVar[bool] = False

    def __init__(self, model: str = "") -> None:
        self.model = model

    @property
    def spec(self) -> str:
        """The ``backend:model`` spec of this reranker."""
        return f"{self.backend}:{self.model}" if self.model else self.backend

    @abstractmethod
    def score(self, query: str, texts: Sequence[str]) -> list[float]:
        """One relevance score per text, higher is better.

        Raises:
            ProviderError: the backend failed.
        """

    def rerank(self, query: str, hits: Sequence[Hit]) -> list[Hit]:
        """Hits sorted by the reranker's score (stable for ties), re-ranked from 1."""
        if not hits:
            return []
        scores = self.score(query, [h.text for h in hits])
        if len(scores) != len(hits):
            raise ProviderError(
                f"Reranker {self.spec!r} returned {len(scores)} scores for {len(hits)} texts; "
                "check the server.",
                provider=self.backend,
            )
        order = sorted(range(len(hits)), key=lambda i: -scores[i])
        return [
            dataclasses.replace(hits[i], score=float(scores[i]), rank=rank)
            for rank, i in enumerate(order, start=1)
        ]


class IdentityReranker(Reranker):
    """Keeps the fused order and scores: the default (spec ``identity``)."""

    backend = "identity"

    def score(self, query: str, texts: Sequence[str]) -> list[float]:
        """Decreasing scores that keep the input order."""
        return [float(len(texts) - i) for i in range(len(texts))]

    def rerank(self, query: str, hits: Sequence[Hit]) -> list[Hit]:
        """The hits unchanged."""
        return list(hits)


class APIReranker(Reranker):
    """A ``/rerank`` endpoint in the Jina/Cohere shape (also vLLM, llama.cpp): ``api:<model>``.

    POSTs ``{model, query, documents}`` to ``{base_url}/rerank`` and reads
    ``results[].index`` / ``results[].relevance_score``. The URL comes from ``base_url`` or
    ``TABLERAG_RERANK_BASE_URL``; the key from ``api_key`` or ``TABLERAG_RERANK_API_KEY``.
    """

    backend = "api"
    is_remote = True

    def __init__(
        self,
        model: str = "",
        *,
        base_url: str | None = None,
        api_key: str | None = None,
        timeout_s: float = 30.0,
    ) -> None:
        super().__init__(model)
        url = setting(base_url, "TABLERAG_RERANK_BASE_URL")
        if not url:
            raise ConfigError(
                "The api reranker needs a server: set TABLERAG_RERANK_BASE_URL, e.g. "
                "http://localhost:8000/v1."
            )
        self.base_url = url.rstrip("/")
        self._api_key = setting(api_key, "TABLERAG_RERANK_API_KEY")
        self.timeout_s = timeout_s

    def score(self, query: str, texts: Sequence[str]) -> list[float]:
        """Ask the server to score every text against the query."""
        from tablerag.llm._http import post_json  # httpx only when a reranker server is used

        payload: dict[str, object] = {"query": query, "documents": list(texts)}
        if self.model:
            payload["model"] = self.model
        reply = post_json(
            f"{self.base_url}/rerank",
            payload,
            api_key=self._api_key,
            timeout_s=self.timeout_s,
            provider="rerank",
        )
        scores = [float("-inf")] * len(texts)
        try:
            for item in reply["results"]:
                scores[int(item["index"])] = float(item["relevance_score"])
        except (KeyError, TypeError, ValueError, IndexError) as exc:
            raise ProviderError(
                f"Reranker at {self.base_url!r} answered without 'results[].index' and "
                "'relevance_score'; check that it speaks the Jina/Cohere rerank API.",
                provider="rerank",
            ) from exc
        return scores
