"""The LLM contract on the scripted doubles: usage, structured output, streaming fallback."""

from __future__ import annotations

import threading
from collections.abc import Sequence

import pytest
from pydantic import BaseModel, Field

from tablerag.errors import ProviderError, ProviderTimeout
from tablerag.llm.base import Message, estimate_prompt_tokens
from tablerag.llm.testing import FunctionLLM, ScriptedLLM
from tablerag.tokens import count_tokens

ASK: list[Message] = [{"role": "user", "content": "退货率超过10%的商品有哪些？"}]


class Intent(BaseModel):
    intent: str
    confidence: float = Field(ge=0, le=1)


def test_scripted_replies_in_order_and_records_history() -> None:
    llm = ScriptedLLM(replies=["first"])
    llm.enqueue("second")
    assert llm.complete(ASK, max_tokens=7).text == "first"
    assert llm.complete(ASK, stop=["\n"]).text == "second"
    assert [c.max_tokens for c in llm.history] == [7, 512]
    assert llm.history[1].stop == ("\n",) and llm.history[0].messages == tuple(ASK)
    assert llm.pending == 0


def test_usage_adds_up_estimated_tokens() -> None:
    llm = ScriptedLLM(replies=["SELECT 1", "SELECT 2"])
    first = llm.complete(ASK)
    llm.complete(ASK)
    assert first.tokens_estimated and first.model == "scripted"
    assert first.prompt_tokens == estimate_prompt_tokens(ASK)
    assert first.completion_tokens == count_tokens("SELECT 1")
    snap = llm.usage.snapshot()
    assert snap["calls"] == 2 and snap["prompt_tokens"] == 2 * first.prompt_tokens
    assert llm.usage.total_tokens == 2 * (first.prompt_tokens + first.completion_tokens)


def test_usage_is_thread_safe() -> None:
    llm = FunctionLLM(lambda messages: "ok")
    threads = [
        threading.Thread(target=lambda: [llm.complete(ASK) for _ in range(50)]) for _ in range(4)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert llm.usage.calls == 200 and len(llm.usage.records) == 200


def test_queued_exception_is_raised() -> None:
    llm = ScriptedLLM(replies=[ProviderTimeout("too slow", provider="scripted")])
    with pytest.raises(ProviderTimeout):
        llm.complete(ASK)
    assert llm.usage.calls == 0


def test_running_out_of_replies_says_what_to_do() -> None:
    with pytest.raises(ProviderError, match="enqueue one more reply"):
        ScriptedLLM().complete(ASK)


def test_function_llm_sees_the_messages() -> None:
    def echo(messages: Sequence[Message]) -> str:
        return messages[-1]["content"].upper()

    assert FunctionLLM(echo).complete([{"role": "user", "content": "abc"}]).text == "ABC"


def test_stream_falls_back_to_one_piece() -> None:
    llm = ScriptedLLM(replies=["whole answer"])
    assert list(llm.stream(ASK)) == ["whole answer"]
    assert not llm.supports_streaming and llm.usage.calls == 1


def test_structured_invalid_then_valid_feeds_the_error_back() -> None:
    llm = ScriptedLLM(
        replies=[
            '{"intent": "data", "confidence": 7}',
            'Here: {"intent": "data", "confidence": 0.8}',
        ]
    )
    assert llm.complete_structured(ASK, Intent) == Intent(intent="data", confidence=0.8)
    retry = llm.history[1].messages
    assert retry[-2] == {"role": "assistant", "content": '{"intent": "data", "confidence": 7}'}
    assert (
        "confidence" in retry[-1]["content"] and "less than or equal to 1" in retry[-1]["content"]
    )
    assert llm.history[0].json_schema == Intent.model_json_schema()


def test_structured_invalid_every_time_is_a_provider_error() -> None:
    llm = ScriptedLLM(replies=["nope", "{}", "[1, 2]"])
    with pytest.raises(ProviderError, match="no valid Intent in 3 attempts") as info:
        llm.complete_structured(ASK, Intent, retries=2)
    assert info.value.provider == "scripted" and llm.pending == 0


def test_structured_does_not_swallow_provider_errors() -> None:
    llm = ScriptedLLM(replies=["garbage", ProviderTimeout("slow", provider="scripted")])
    with pytest.raises(ProviderTimeout):
        llm.complete_structured(ASK, Intent)
