"""Rerankers: identity default and the /rerank API client against a loopback server."""

from __future__ import annotations

from typing import Any

import pytest

from tablerag import registry
from tablerag.errors import ConfigError, ProviderError
from tablerag.rag.rerank import APIReranker, IdentityReranker
from tablerag.rag.retrieve import search
from tablerag.store.workspace import Workspace

from ..embed.loopback import Loopback, loopback

__all__ = ["loopback"]


def _by_keyword(path: str, body: dict[str, Any], headers: dict[str, str]) -> tuple[int, Any]:
    docs = body["documents"]
    scores = [1.0 if "gift" in d else 0.1 * i for i, d in enumerate(docs)]
    return 200, {"results": [{"index": i, "relevance_score": s} for i, s in enumerate(scores)]}


def test_api_reranker_reorders_search_hits(corpus_ws: Workspace, loopback: Loopback) -> None:
    loopback.reply = _by_keyword
    reranker = APIReranker("bge-reranker-v2-m3", base_url=loopback.url, api_key="k")
    hits = search(corpus_ws, "refund policy", k=3, mode="bm25", reranker=reranker)
    path, body, headers = loopback.requests[0]
    assert path == "/v1/rerank" and body["model"] == "bge-reranker-v2-m3"
    assert body["query"] == "refund policy" and headers["authorization"] == "Bearer k"
    assert hits[0].chunk_id == "en-2" and hits[0].score == 1.0 and hits[0].rank == 1
    assert {h.chunk_id for h in hits} == {"en-1", "en-2"}  # only these share a word


def test_api_reranker_from_spec_and_env(
    loopback: Loopback, monkeypatch: pytest.MonkeyPatch, corpus_ws: Workspace
) -> None:
    loopback.reply = _by_keyword
    monkeypatch.setenv("TABLERAG_RERANK_BASE_URL", loopback.url)
    hits = search(corpus_ws, "refund policy", k=2, mode="bm25", reranker="api:jina-reranker")
    assert hits[0].chunk_id == "en-2"


def test_api_reranker_errors(loopback: Loopback, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TABLERAG_RERANK_BASE_URL", raising=False)
    with pytest.raises(ConfigError, match="TABLERAG_RERANK_BASE_URL"):
        registry.create("reranker", "api:m")
    loopback.reply = lambda p, b, h: (200, {"results": [{"index": 0}]})
    with pytest.raises(ProviderError, match="relevance_score"):
        APIReranker("m", base_url=loopback.url).score("q", ["a"])
    loopback.reply = lambda p, b, h: (500, {"error": "boom"})
    with pytest.raises(ProviderError, match="HTTP 500"):
        APIReranker("m", base_url=loopback.url).score("q", ["a"])


def test_identity_keeps_order(corpus_ws: Workspace) -> None:
    plain = search(corpus_ws, "客户", k=4)
    same = search(corpus_ws, "客户", k=4, reranker="identity")
    assert same == plain
    assert IdentityReranker().rerank("q", []) == []
