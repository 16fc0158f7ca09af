"""The response cache: hits on identical requests, misses on any change, survives reopening."""

from __future__ import annotations

from pathlib import Path

import pytest

from tablerag.errors import ConfigError, ProviderError
from tablerag.llm import load_llm
from tablerag.llm.base import Message
from tablerag.llm.cache import CachedLLM, ResponseCache
from tablerag.llm.testing import ScriptedLLM

ASK: list[Message] = [{"role": "user", "content": "What is the refund policy?"}]


def test_identical_request_hits_the_cache(tmp_path: Path) -> None:
    inner = ScriptedLLM(replies=["Refunds within 30 days."])
    with CachedLLM(inner, tmp_path) as llm:
        first = llm.complete(ASK, max_tokens=50)
        second = llm.complete(ASK, max_tokens=50)
        assert not first.cached and second.cached
        assert second.text == first.text and second.prompt_tokens == first.prompt_tokens
        assert len(inner.history) == 1
        assert llm.usage.calls == 2 and llm.usage.cached_calls == 1


@pytest.mark.parametrize(
    "change",
    [
        pytest.param({"max_tokens": 51}, id="max_tokens"),
        pytest.param({"temperature": 0.7}, id="temperature"),
        pytest.param({"stop": ["\n"]}, id="stop"),
        pytest.param({"json_schema": {"type": "object"}}, id="json_schema"),
    ],
)
def test_a_changed_parameter_misses(tmp_path: Path, change: dict[str, object]) -> None:
    inner = ScriptedLLM(replies=["one", "two"])
    with CachedLLM(inner, tmp_path) as llm:
        llm.complete(ASK, max_tokens=50)
        options: dict[str, object] = {"max_tokens": 50, **change}
        assert llm.complete(ASK, **options).text == "two"  # type: ignore[arg-type]
        assert len(inner.history) == 2


def test_changed_messages_or_model_miss(tmp_path: Path) -> None:
    with CachedLLM(ScriptedLLM("a", replies=["one", "two"]), tmp_path) as llm:
        llm.complete(ASK)
        assert llm.complete([{"role": "user", "content": "other"}]).text == "two"
    with CachedLLM(ScriptedLLM("b", replies=["three"]), tmp_path) as other_model:
        assert other_model.complete(ASK).text == "three"


def test_cache_survives_reopening_and_failures_are_not_stored(tmp_path: Path) -> None:
    failing = ScriptedLLM(replies=[ProviderError("down"), "fresh"])
    with CachedLLM(failing, tmp_path) as llm:
        with pytest.raises(ProviderError):
            llm.complete(ASK)
        assert llm.complete(ASK).text == "fresh"
    with CachedLLM(ScriptedLLM(), tmp_path) as reopened:
        assert reopened.complete(ASK).text == "fresh"
        assert len(reopened.cache) == 1


def test_load_llm_turns_the_cache_on_only_with_a_folder(tmp_path: Path) -> None:
    assert isinstance(load_llm("scripted", cache_dir=tmp_path), CachedLLM)
    assert isinstance(load_llm("scripted"), ScriptedLLM)


def test_unusable_cache_file_is_a_config_error(tmp_path: Path) -> None:
    (tmp_path / "llm_cache.sqlite").write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(ConfigError, match="delete the file"):
        ResponseCache(tmp_path)


def test_the_cached_llm_reports_the_wrapped_spec(tmp_path: Path) -> None:
    class Named(ScriptedLLM):
        @property
        def spec(self) -> str:
            return "local:model.gguf"  # a stable name, as LocalLLM gives for a path

    with CachedLLM(Named("/home/someone/.cache/model.gguf"), tmp_path) as llm:
        assert llm.spec == "local:model.gguf"
