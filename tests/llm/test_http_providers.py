"""Provider contract on the loopback server, for the OpenAI and the Anthropic shapes."""

from __future__ import annotations

import time
from collections.abc import Callable

import pytest
from pydantic import BaseModel

from tablerag.errors import ConfigError, ProviderError, ProviderTimeout
from tablerag.llm._http import RetryPolicy
from tablerag.llm.anthropic import AnthropicLLM
from tablerag.llm.base import LLM, Message, estimate_prompt_tokens
from tablerag.llm.openai import OpenAILLM
from tablerag.tokens import count_tokens
from tests.llm import server as srv
from tests.llm.conftest import FAST_RETRY, SHAPES, Shape

Build = Callable[[str, RetryPolicy], LLM]

CHAT: list[Message] = [
    {"role": "system", "content": "You answer briefly."},
    {"role": "user", "content": "上月华东的毛利是多少？"},
]


class SQLReply(BaseModel):
    sql: str
    confidence: float


def test_completion_text_usage_and_request_shape(
    server: srv.LoopbackServer, shape: Shape, build: Build
) -> None:
    llm = build(server.url, FAST_RETRY)
    server.enqueue(shape.reply("SELECT 1"))
    result = llm.complete(CHAT, max_tokens=64, temperature=0.2, stop=[";"])
    assert result.text == "SELECT 1"
    assert (result.prompt_tokens, result.completion_tokens) == shape.usage
    assert not result.tokens_estimated and not result.cached
    assert result.finish_reason == "stop" and result.latency_ms > 0
    assert llm.usage.calls == 1 and llm.usage.prompt_tokens == shape.usage[0]
    (request,) = server.requests
    assert request.path == shape.path
    assert request.body["max_tokens"] == 64 and request.body["temperature"] == 0.2
    if shape.name == "openai":
        assert request.body["messages"] == CHAT and request.body["stop"] == [";"]
    else:
        assert request.body["system"] == "You answer briefly."
        assert request.body["messages"] == [CHAT[1]]
        assert request.body["stop_sequences"] == [";"]
        assert request.headers["anthropic-version"] == "2023-06-01"


def test_streaming_yields_pieces_and_records_usage(
    server: srv.LoopbackServer, shape: Shape, build: Build
) -> None:
    llm = build(server.url, FAST_RETRY)
    server.enqueue(shape.stream(["华东", "毛利", " is 42"]))
    pieces = list(llm.stream(CHAT))
    assert pieces == ["华东", "毛利", " is 42"]
    assert server.requests[0].body["stream"] is True
    assert llm.usage.calls == 1 and llm.usage.records[0].text == "华东毛利 is 42"


def test_stream_arrives_piece_by_piece(
    server: srv.LoopbackServer, shape: Shape, build: Build
) -> None:
    llm = build(server.url, FAST_RETRY)
    server.enqueue(shape.stream(["a", "b", "c"], event_delay_s=0.15))
    pieces = llm.stream(CHAT)
    first = next(pieces)
    got_first = time.perf_counter()
    assert first == "a"
    assert list(pieces) == ["b", "c"]
    assert time.perf_counter() - got_first >= 0.25  # b and c were still on their way


def test_http_500_then_success_is_retried(
    server: srv.LoopbackServer, shape: Shape, build: Build
) -> None:
    llm = build(server.url, FAST_RETRY)
    server.enqueue(srv.error_reply(500), srv.error_reply(503), shape.reply("ok"))
    assert llm.complete(CHAT).text == "ok"
    assert len(server.requests) == 3


def test_http_500_every_time_gives_up_with_the_status(
    server: srv.LoopbackServer, shape: Shape, build: Build
) -> None:
    llm = build(server.url, FAST_RETRY)
    server.enqueue(*[srv.error_reply(502, "bad gateway")] * 3)
    with pytest.raises(ProviderError) as info:
        llm.complete(CHAT)
    assert info.value.status_code == 502 and "HTTP 502" in str(info.value)
    assert len(server.requests) == 3  # 1 try + max_retries


def test_429_waits_for_retry_after(server: srv.LoopbackServer, shape: Shape, build: Build) -> None:
    llm = build(server.url, RetryPolicy(max_retries=1, base_delay_s=0.01, max_delay_s=5))
    server.enqueue(srv.error_reply(429, "slow down", retry_after="0.3"), shape.reply("ok"))
    started = time.perf_counter()
    assert llm.complete(CHAT).text == "ok"
    assert time.perf_counter() - started >= 0.3
    assert llm.http.waits == [0.3]  # type: ignore[attr-defined]


def test_401_is_not_retried_and_says_check_the_key(
    server: srv.LoopbackServer, shape: Shape, build: Build
) -> None:
    llm = build(server.url, FAST_RETRY)
    server.enqueue(srv.error_reply(401, "invalid key"))
    with pytest.raises(ProviderError, match="check the API key"):
        llm.complete(CHAT)
    assert len(server.requests) == 1


def test_timeout_raises_provider_timeout(
    server: srv.LoopbackServer, shape: Shape, build: Build
) -> None:
    llm = build(server.url, RetryPolicy(max_retries=1, base_delay_s=0.01))
    server.enqueue(srv.Reply(delay_s=5), srv.Reply(delay_s=5))
    started = time.perf_counter()
    with pytest.raises(ProviderTimeout, match="did not answer within 0.2 s"):
        llm.complete(CHAT, timeout_s=0.2)
    assert time.perf_counter() - started < 0.7
    # the limit covers the retries: the first attempt used it all, so none is made
    assert len(server.requests) == 1


def test_a_fast_failure_is_retried_within_the_time_limit(
    server: srv.LoopbackServer, shape: Shape, build: Build
) -> None:
    llm = build(server.url, RetryPolicy(max_retries=2, base_delay_s=0.01))
    server.enqueue(srv.error_reply(503), srv.Reply(delay_s=5), srv.Reply(delay_s=5))
    started = time.perf_counter()
    with pytest.raises(ProviderTimeout, match="retries included"):
        llm.complete(CHAT, timeout_s=0.5)
    assert time.perf_counter() - started < 1.0
    assert len(server.requests) == 2  # the 503 is retried; the hung retry ends the time


def test_a_retry_after_longer_than_the_time_left_is_not_waited_for(
    server: srv.LoopbackServer, shape: Shape, build: Build
) -> None:
    llm = build(server.url, RetryPolicy(max_retries=2, base_delay_s=0.01, max_delay_s=30))
    server.enqueue(srv.error_reply(429, retry_after="20"), srv.Reply(delay_s=5))
    started = time.perf_counter()
    with pytest.raises(ProviderError, match="HTTP 429"):
        llm.complete(CHAT, timeout_s=2)
    assert time.perf_counter() - started < 1.0
    assert len(server.requests) == 1 and llm.http.waits == []  # type: ignore[attr-defined]


def test_malformed_json_body_is_a_provider_error(
    server: srv.LoopbackServer, shape: Shape, build: Build
) -> None:
    llm = build(server.url, FAST_RETRY)
    server.enqueue(srv.Reply(body=b'{"choices": [ oops'))
    with pytest.raises(ProviderError, match="malformed JSON"):
        llm.complete(CHAT)


def test_json_without_the_expected_fields_is_a_provider_error(
    server: srv.LoopbackServer, shape: Shape, build: Build
) -> None:
    llm = build(server.url, FAST_RETRY)
    server.enqueue(srv.Reply(body={"unexpected": True}))
    with pytest.raises(ProviderError, match="answered without"):
        llm.complete(CHAT)


def test_malformed_stream_event_is_a_provider_error(
    server: srv.LoopbackServer, shape: Shape, build: Build
) -> None:
    llm = build(server.url, FAST_RETRY)
    server.enqueue(srv.Reply(events=("data: {not json",)))
    with pytest.raises(ProviderError, match="malformed stream event"):
        list(llm.stream(CHAT))


def test_empty_content_is_an_empty_text(
    server: srv.LoopbackServer, shape: Shape, build: Build
) -> None:
    llm = build(server.url, FAST_RETRY)
    server.enqueue(shape.reply(""))
    result = llm.complete(CHAT)
    assert result.text == "" and llm.usage.calls == 1


def test_unreachable_server_is_a_provider_error(build: Build) -> None:
    with srv.LoopbackServer() as gone:
        url = gone.url
    llm = build(url, RetryPolicy(max_retries=0))
    with pytest.raises(ProviderError, match="Cannot reach"):
        llm.complete(CHAT, timeout_s=2)


def test_structured_output_invalid_then_valid(
    server: srv.LoopbackServer, shape: Shape, build: Build
) -> None:
    llm = build(server.url, FAST_RETRY)
    server.enqueue(
        shape.reply('{"sql": "SELECT 1"}'),
        shape.reply('```json\n{"sql": "SELECT 1", "confidence": 0.9}\n```'),
    )
    reply = llm.complete_structured(CHAT, SQLReply)
    assert reply == SQLReply(sql="SELECT 1", confidence=0.9)
    retry_chat = server.requests[1].body["messages"]
    assert "confidence: Field required" in retry_chat[-1]["content"]
    if shape.name == "openai":
        assert server.requests[0].body["response_format"] == {"type": "json_object"}
        assert "JSON schema" in server.requests[0].body["messages"][0]["content"]
    else:
        assert "JSON schema" in server.requests[0].body["system"]


def test_structured_output_invalid_every_time(
    server: srv.LoopbackServer, shape: Shape, build: Build
) -> None:
    llm = build(server.url, FAST_RETRY)
    server.enqueue(*[shape.reply("I cannot do that.")] * 2)
    with pytest.raises(ProviderError, match="no valid SQLReply in 2 attempts"):
        llm.complete_structured(CHAT, SQLReply, retries=1)
    assert len(server.requests) == 2


def test_openai_without_key_for_a_remote_url_says_how_to_fix() -> None:
    with pytest.raises(ConfigError) as info:
        OpenAILLM("gpt-4o-mini")
    message = str(info.value)
    assert "TABLERAG_OPENAI_API_KEY" in message and "OPENAI_API_KEY" in message
    assert "TABLERAG_OPENAI_BASE_URL" in message


def test_openai_key_and_base_url_come_from_the_environment(
    server: srv.LoopbackServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", server.url + "/v1")
    monkeypatch.setenv("TABLERAG_OPENAI_API_KEY", "sk-test")
    server.enqueue(srv.openai_reply("hi"))
    with OpenAILLM("m") as llm:
        assert llm.complete(CHAT).text == "hi"
    assert server.requests[0].headers["authorization"] == "Bearer sk-test"


def test_loopback_openai_server_needs_no_key(server: srv.LoopbackServer) -> None:
    server.enqueue(srv.openai_reply("hi", usage=False))
    with OpenAILLM("qwen2.5", base_url=server.url + "/v1") as llm:
        result = llm.complete(CHAT)
    assert "authorization" not in server.requests[0].headers
    assert result.tokens_estimated  # the server reported no usage
    assert result.prompt_tokens == estimate_prompt_tokens(CHAT)
    assert result.completion_tokens == count_tokens("hi")


def test_anthropic_without_key_says_how_to_fix() -> None:
    with pytest.raises(ConfigError, match="ANTHROPIC_API_KEY"):
        AnthropicLLM("claude-sonnet-4-5")


def test_anthropic_sends_its_key_header(
    server: srv.LoopbackServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "ak-test")
    server.enqueue(srv.anthropic_reply("hi"))
    with AnthropicLLM("claude", base_url=server.url) as llm:
        llm.complete(CHAT)
    assert server.requests[0].headers["x-api-key"] == "ak-test"


@pytest.mark.parametrize("shape", [SHAPES[1]], ids=["anthropic"])
def test_anthropic_stream_error_event_is_a_provider_error(
    server: srv.LoopbackServer, build: Build
) -> None:
    llm = build(server.url, FAST_RETRY)
    server.enqueue(
        srv.Reply(
            events=('event: error\ndata: {"type": "error", "error": {"message": "Overloaded"}}',)
        )
    )
    with pytest.raises(ProviderError, match="Overloaded"):
        list(llm.stream(CHAT))
