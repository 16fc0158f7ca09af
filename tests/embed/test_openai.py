"""OpenAI-compatible embeddings endpoint, against a loopback server."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from tablerag import registry
from tablerag.embed.openai import OpenAIEmbedder
from tablerag.errors import ConfigError, ProviderError, ProviderTimeout

from .loopback import Loopback


def _vectors(path: str, body: dict[str, Any], headers: dict[str, str]) -> tuple[int, Any]:
    # reply out of order on purpose: the embedder must sort by index
    data = [
        {"index": i, "embedding": [float(len(t)), 1.0, 0.0]} for i, t in enumerate(body["input"])
    ]
    return 200, {"data": list(reversed(data)), "model": body["model"]}


def test_embeds_in_input_order_with_role_prefixes(loopback: Loopback) -> None:
    loopback.reply = _vectors
    emb = OpenAIEmbedder("multilingual-e5-small", base_url=loopback.url, api_key="sk-test")
    vectors = emb.embed_passages(["a", "bbbb"])
    path, body, headers = loopback.requests[0]
    assert path == "/v1/embeddings"
    assert body["input"] == ["passage: a", "passage: bbbb"]
    assert headers["authorization"] == "Bearer sk-test"
    assert vectors.shape == (2, 3)
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, rtol=1e-6)
    assert vectors[1, 0] > vectors[0, 0]  # "passage: bbbb" is longer: row order kept
    emb.embed_query("q")
    assert loopback.requests[-1][1]["input"] == ["query: q"]
    assert emb.supports_roles and emb.dim == 3


def test_spec_through_registry_and_env(loopback: Loopback, monkeypatch: pytest.MonkeyPatch) -> None:
    loopback.reply = _vectors
    monkeypatch.setenv("TABLERAG_OPENAI_BASE_URL", loopback.url)
    monkeypatch.delenv("TABLERAG_OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    emb = registry.create("embedder", "openai:nomic-embed-text")
    assert emb.spec == "openai:nomic-embed-text"
    emb.embed_query("x")
    assert loopback.requests[-1][1]["input"] == ["search_query: x"]
    assert "authorization" not in loopback.requests[-1][2]


def test_http_errors_become_provider_errors(loopback: Loopback) -> None:
    loopback.reply = lambda p, b, h: (401, {"error": {"message": "bad key"}})
    emb = OpenAIEmbedder("m", base_url=loopback.url, api_key="x")
    with pytest.raises(ProviderError, match="HTTP 401.*API key") as info:
        emb.embed_query("x")
    assert info.value.status_code == 401


def test_malformed_and_short_replies(loopback: Loopback) -> None:
    emb = OpenAIEmbedder("m", base_url=loopback.url)
    loopback.reply = lambda p, b, h: (200, {"nothing": []})
    with pytest.raises(ProviderError, match="data\\[\\].embedding"):
        emb.embed_query("x")
    loopback.reply = lambda p, b, h: (200, {"data": []})
    with pytest.raises(ProviderError, match="0 vectors for 1 texts"):
        emb.embed_query("x")
    loopback.reply = lambda p, b, h: (200, b"<html>not json</html>")
    with pytest.raises(ProviderError, match="did not answer with JSON"):
        emb.embed_query("x")


def test_dimension_change_between_calls_is_caught(loopback: Loopback) -> None:
    emb = OpenAIEmbedder("m", base_url=loopback.url)
    loopback.reply = lambda p, b, h: (200, {"data": [{"index": 0, "embedding": [1.0, 0.0]}]})
    emb.embed_query("x")
    loopback.reply = lambda p, b, h: (200, {"data": [{"index": 0, "embedding": [1.0, 0.0, 0.0]}]})
    with pytest.raises(ProviderError, match="changed dimension from 2 to 3"):
        emb.embed_query("x")


def test_unreachable_server_and_timeout(loopback: Loopback) -> None:
    emb = OpenAIEmbedder("m", base_url="http://127.0.0.1:9/v1", timeout_s=2)
    with pytest.raises(ProviderError, match="Cannot reach"):
        emb.embed_query("x")
    import time

    def slow(p: str, b: dict[str, Any], h: dict[str, str]) -> tuple[int, Any]:
        time.sleep(0.5)
        return 200, {"data": [{"index": 0, "embedding": [1.0]}]}

    loopback.reply = slow
    with pytest.raises(ProviderTimeout, match="did not answer within"):
        OpenAIEmbedder("m", base_url=loopback.url, timeout_s=0.1).embed_query("x")


def test_openai_without_key_or_model_is_a_config_error(monkeypatch: pytest.MonkeyPatch) -> None:
    for var in (
        "TABLERAG_OPENAI_API_KEY",
        "OPENAI_API_KEY",
        "TABLERAG_OPENAI_BASE_URL",
        "OPENAI_BASE_URL",
    ):
        monkeypatch.delenv(var, raising=False)
    with pytest.raises(ConfigError, match="TABLERAG_OPENAI_API_KEY"):
        OpenAIEmbedder("text-embedding-3-small")
    with pytest.raises(ConfigError, match="needs a model name"):
        registry.create("embedder", "openai")
