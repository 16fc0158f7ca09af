"""Choosing a backend by spec string: TABLERAG_LLM, the registry, unknown names."""

from __future__ import annotations

import pytest

from tablerag import registry
from tablerag.errors import ConfigError, UnknownBackendError
from tablerag.llm import DEFAULT_LLM, load_llm
from tablerag.llm.openai import OpenAILLM
from tablerag.llm.testing import ScriptedLLM


def test_builtin_llm_backends_are_registered() -> None:
    assert {"anthropic", "llamacpp", "local", "openai", "scripted"} <= set(registry.names("llm"))
    assert DEFAULT_LLM == "local"


def test_spec_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TABLERAG_LLM", "scripted:double")
    llm = load_llm()
    assert isinstance(llm, ScriptedLLM) and llm.spec == "scripted:double"


def test_openai_spec_with_a_loopback_base_url(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TABLERAG_OPENAI_BASE_URL", "http://127.0.0.1:11434/v1")
    with load_llm("openai:qwen2.5:7b") as llm:
        assert isinstance(llm, OpenAILLM) and llm.model == "qwen2.5:7b"


def test_an_instance_is_passed_through() -> None:
    llm = ScriptedLLM()
    assert load_llm(llm) is llm


def test_unknown_backend_suggests_the_closest_name() -> None:
    with pytest.raises(UnknownBackendError, match="Did you mean 'openai'") as info:
        load_llm("opnai:gpt-4o")
    assert info.value.kind == "llm" and info.value.name == "opnai"


@pytest.mark.parametrize(
    ("spec", "words"),
    [
        pytest.param("openai", "openai:MODEL", id="openai-without-model"),
        pytest.param("anthropic", "anthropic:MODEL", id="anthropic-without-model"),
        pytest.param("llamacpp", "llamacpp:/path", id="llamacpp-without-path"),
        pytest.param("llamacpp:/no/such/model.gguf", "does not exist", id="llamacpp-bad-path"),
        pytest.param("local:other-model", "llamacpp:/path/model.gguf", id="local-with-model"),
    ],
)
def test_bad_specs_say_how_to_fix(spec: str, words: str) -> None:
    with pytest.raises(ConfigError, match=words.replace("/", ".").replace(":", ".")):
        load_llm(spec)
