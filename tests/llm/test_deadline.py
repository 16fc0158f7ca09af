"""Time that is bounded (issue 23): a call's limit covers its retries, a question's deadline
covers every call, against loopback endpoints that hang, trickle or stall, and the local
backend's stopping criterion (with a stand-in llama.cpp module, never the real model)."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tablerag.deadline import Deadline, applied, current_deadline
from tablerag.errors import ProviderTimeout
from tablerag.llm import llamacpp
from tablerag.llm._http import RetryPolicy
from tablerag.llm.base import Message
from tablerag.llm.deadline import DeadlineLLM
from tablerag.llm.openai import OpenAILLM
from tablerag.llm.testing import FunctionLLM, ScriptedLLM, Truncated
from tests.llm.stalling import StallingServer, chat_body

CHAT: list[Message] = [{"role": "user", "content": "上月华东的毛利是多少？"}]
RETRY = RetryPolicy(max_retries=2, base_delay_s=0.01, max_delay_s=0.05)


def _endpoint(server: StallingServer) -> OpenAILLM:
    return OpenAILLM("gpt-test", base_url=server.url, retry=RETRY)


def _elapsed(started: float) -> float:
    return time.monotonic() - started


def test_a_hung_endpoint_ends_at_the_calls_limit_retries_included() -> None:
    with StallingServer("hang") as server, _endpoint(server) as llm:
        started = time.monotonic()
        with pytest.raises(ProviderTimeout, match=r"within 1 s \(retries included\)"):
            llm.complete(CHAT, timeout_s=1.0)
        # before: three attempts of 1 s each and two waits (issue 23: 362 s for a 120 s limit)
        assert 0.9 < _elapsed(started) < 1.5
        assert server.connections == 1


def test_a_trickling_endpoint_ends_at_the_calls_limit() -> None:
    # a byte every 50 ms never trips httpx's per-read timeout; the whole body takes ~8 s
    body = chat_body("x" * 60)
    with (
        StallingServer("trickle", body=body, interval_s=0.05) as server,
        _endpoint(server) as llm,
    ):
        started = time.monotonic()
        with pytest.raises(ProviderTimeout, match="did not answer within 1 s"):
            llm.complete(CHAT, timeout_s=1.0)
        assert _elapsed(started) < 1.5


def test_a_body_that_stops_arriving_is_cut_by_the_watchdog() -> None:
    # half the body trickles for ~0.6 s, then nothing: the read timeout set at the start (1 s)
    # would end it at ~1.6 s; the watchdog ends it at the limit
    body = chat_body("y" * 40)
    with (
        StallingServer("stall", body=body, piece=16, interval_s=0.1) as server,
        _endpoint(server) as llm,
    ):
        started = time.monotonic()
        with pytest.raises(ProviderTimeout, match="did not answer within 1 s"):
            llm.complete(CHAT, timeout_s=1.0)
        assert _elapsed(started) < 1.35


def test_a_slow_but_complete_trickle_within_the_limit_is_answered() -> None:
    body = chat_body("ok")
    with (
        StallingServer("trickle", body=body, piece=40, interval_s=0.05) as server,
        _endpoint(server) as llm,
    ):
        assert llm.complete(CHAT, timeout_s=5.0).text == "ok"


def test_every_call_through_the_deadline_gets_what_is_left() -> None:
    inner = ScriptedLLM(replies=["a", "b"])
    llm = DeadlineLLM(inner, Deadline.after(30))
    llm.complete(CHAT, timeout_s=120)
    llm.complete(CHAT, timeout_s=5)
    first, second = (call.timeout_s for call in inner.history)
    assert 29 < first <= 30 and second == 5
    assert llm.usage.calls == 2 and inner.usage.calls == 2


def test_a_call_after_the_deadline_fails_at_once_and_says_which_setting() -> None:
    inner = ScriptedLLM(replies=["never used"])
    llm = DeadlineLLM(inner, Deadline.after(0))
    with pytest.raises(ProviderTimeout, match="answer_max_seconds"):
        llm.complete(CHAT)
    assert inner.history == [] and inner.pending == 1


def test_a_hung_endpoint_ends_at_the_questions_deadline() -> None:
    with StallingServer("hang") as server, _endpoint(server) as endpoint:
        llm = DeadlineLLM(endpoint, Deadline.after(1.0))
        started = time.monotonic()
        with pytest.raises(ProviderTimeout, match=r"time limit \(1 s\) ran out during"):
            llm.complete(CHAT, timeout_s=120)
        assert _elapsed(started) < 1.5
        with pytest.raises(ProviderTimeout, match="ran out before this model call"):
            llm.complete(CHAT, timeout_s=120)
        assert server.connections == 1


def test_the_running_calls_deadline_is_visible_below_it() -> None:
    seen: list[Deadline | None] = []

    def reply(messages: object) -> str:
        seen.append(current_deadline())
        return "ok"

    deadline = Deadline.after(10)
    DeadlineLLM(FunctionLLM(reply), deadline).complete(CHAT)
    with applied(Deadline.after(1)) as earlier:
        DeadlineLLM(FunctionLLM(reply), deadline).complete(CHAT)  # the earlier one stays
    assert seen == [deadline, earlier] and current_deadline() is None


def test_a_truncated_scripted_reply_is_a_length_completion() -> None:
    llm = ScriptedLLM(replies=[Truncated("The categories with the highest"), "done"])
    cut, whole = llm.complete(CHAT), llm.complete(CHAT)
    assert (cut.finish_reason, cut.truncated) == ("length", True)
    assert (whole.finish_reason, whole.truncated) == ("stop", False)


# --- the local backend, with a stand-in llama.cpp module ---------------------------------


class _FakeLlama:
    """Generates one token every ``per_token_s``, lazily as llama-cpp-python 0.3 streams: the
    next token is sampled only when the stream is read. Its ``create_chat_completion`` takes
    only the keywords of the real one that tablerag may pass, so an option the real library
    does not know fails here too (a ``stopping_criteria`` once did, with the real model only)."""

    per_token_s = 0.05
    tokens = 200
    prompt_s_per_char = 0.0
    """Time to read the prompt before the first token (llama.cpp sends nothing meanwhile)."""

    def __init__(self, **options: Any) -> None:
        self.calls: list[dict[str, Any]] = []
        self.sampled = 0
        self.cache: Any = None

    def set_cache(self, cache: Any) -> None:
        """The real one's: the prompt-state cache consulted before each prompt."""
        self.cache = cache

    def create_chat_completion(
        self,
        messages: list[dict[str, str]],
        *,
        temperature: float = 0.2,
        max_tokens: int | None = None,
        stop: list[str] | None = None,
        stream: bool = False,
        response_format: dict[str, Any] | None = None,
    ) -> Iterator[dict[str, Any]]:
        self.calls.append({"messages": messages, "max_tokens": max_tokens, "stream": stream})
        assert stream, "tablerag streams the local model's completion"
        return self._tokens(messages, max_tokens or self.tokens)

    def _tokens(self, messages: list[dict[str, str]], max_tokens: int) -> Iterator[dict[str, Any]]:
        time.sleep(sum(len(m["content"]) for m in messages) * self.prompt_s_per_char)
        for n in range(min(self.tokens, max_tokens)):
            time.sleep(self.per_token_s)
            self.sampled += 1
            yield {"choices": [{"delta": {"content": f"t{n} "}, "finish_reason": None}]}
        yield {"choices": [{"delta": {}, "finish_reason": "length"}]}


class _FakeModule:
    Llama = _FakeLlama


@pytest.fixture
def local(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> llamacpp.LlamaCppLLM:
    monkeypatch.setattr(llamacpp, "_llama_module", lambda: _FakeModule)
    model = tmp_path / "fake.gguf"
    model.write_bytes(b"GGUF")
    return llamacpp.LlamaCppLLM(str(model))


def test_the_local_model_stops_generating_at_the_questions_deadline(
    local: llamacpp.LlamaCppLLM,
) -> None:
    llm = DeadlineLLM(local, Deadline.after(0.5))
    started = time.monotonic()
    with pytest.raises(ProviderTimeout, match="ran out during a model call"):
        llm.complete(CHAT, max_tokens=400, timeout_s=120)
    assert _elapsed(started) < 0.8
    llama, _ = local._model()
    assert len(llama.calls) == 1
    assert llama.sampled < 0.8 / _FakeLlama.per_token_s  # generation stopped, not run to the end
    assert local.usage.calls == 0  # a cut-off generation is not a completion


def test_the_local_model_finishes_within_the_deadline(local: llamacpp.LlamaCppLLM) -> None:
    done = DeadlineLLM(local, Deadline.after(5)).complete(CHAT, max_tokens=4)
    assert done.finish_reason == "length" and done.truncated and done.completion_tokens == 4


def test_a_local_call_queued_behind_another_waits_only_until_the_deadline(
    local: llamacpp.LlamaCppLLM,
) -> None:
    _, lock = local._model()
    lock.acquire()  # another question holds the model
    try:
        llm = DeadlineLLM(local, Deadline.after(0.4))
        started = time.monotonic()
        with pytest.raises(ProviderTimeout, match="busy"):
            llm.complete(CHAT, timeout_s=120)
        assert _elapsed(started) < 0.7
    finally:
        lock.release()
    # without a question's deadline the wait is not charged: the call runs after the lock
    releaser = threading.Timer(0.3, lock.release)
    lock.acquire()
    releaser.start()
    assert local.complete(CHAT, max_tokens=2, timeout_s=0.25).completion_tokens == 2


def test_a_local_call_whose_prompt_cannot_be_read_in_time_is_not_started(
    local: llamacpp.LlamaCppLLM, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_FakeLlama, "prompt_s_per_char", 0.002)
    short: list[Message] = [{"role": "user", "content": "rows of t " * 20}]  # ~0.4 s to read
    long: list[Message] = [{"role": "user", "content": "rows of t " * 100}]  # ~2 s to read
    DeadlineLLM(local, Deadline.after(10)).complete(short, max_tokens=1)  # the rate is measured
    llama, _ = local._model()
    started = time.monotonic()
    with pytest.raises(ProviderTimeout, match="to read this prompt"):
        DeadlineLLM(local, Deadline.after(1.0)).complete(long, max_tokens=1)
    assert _elapsed(started) < 0.2 and len(llama.calls) == 1  # refused, not started
    # a prompt that fits is read and answered
    assert DeadlineLLM(local, Deadline.after(3.0)).complete(long, max_tokens=1).text


def test_the_options_passed_to_llama_cpp_are_ones_it_takes() -> None:
    """The stand-in above takes the real keywords; this checks them against the installed
    llama-cpp-python when there is one (the ``local`` extra)."""
    llama_cpp = pytest.importorskip("llama_cpp")
    import inspect

    real = set(inspect.signature(llama_cpp.Llama.create_chat_completion).parameters)
    ours = set(inspect.signature(_FakeLlama.create_chat_completion).parameters) - {"self"}
    assert ours <= real, ours - real
