"""The local model's time limit counts its own work, not the wait for the shared model lock.

A fake llama.cpp module stands in for the real one: it streams a few tokens with a fixed delay,
so the test runs in a second and needs no weights.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from tablerag.errors import ProviderTimeout
from tablerag.llm import llamacpp
from tablerag.llm.base import Message

TOKEN_DELAY_S = 0.05
CHAT: list[Message] = [{"role": "user", "content": "SELECT 1?"}]


class FakeLlama:
    """Streams ``tokens`` pieces, sleeping before each (the model's own work)."""

    tokens = 4

    def __init__(self, **_: Any) -> None:
        pass

    def set_cache(self, cache: Any) -> None:
        """The kept prompt states (issue 31): a model double keeps none."""

    def create_chat_completion(self, **_: Any) -> Iterator[dict[str, Any]]:
        for n in range(self.tokens):
            time.sleep(TOKEN_DELAY_S)
            last = n == self.tokens - 1
            yield {
                "choices": [
                    {"delta": {"content": f"t{n}"}, "finish_reason": "stop" if last else None}
                ]
            }


@pytest.fixture
def llm(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> llamacpp.LlamaCppLLM:
    weights = tmp_path / "fake.gguf"
    weights.write_bytes(b"GGUF")
    monkeypatch.setattr(llamacpp, "_llama_module", lambda: SimpleNamespace(Llama=FakeLlama))
    monkeypatch.setattr(llamacpp, "_loaded", {})
    return llamacpp.LlamaCppLLM(str(weights))


def _hold_lock(llm: llamacpp.LlamaCppLLM, seconds: float) -> threading.Thread:
    """Another caller holding the shared model for ``seconds`` (as the other hybrid path does)."""
    _, lock = llm._model()
    taken = threading.Event()

    def hold() -> None:
        with lock:
            taken.set()
            time.sleep(seconds)

    thread = threading.Thread(target=hold)
    thread.start()
    taken.wait()
    return thread


def test_waiting_for_the_model_lock_does_not_count_against_the_timeout(llm) -> None:  # type: ignore[no-untyped-def]
    holder = _hold_lock(llm, 0.8)
    started = time.perf_counter()
    result = llm.complete(CHAT, timeout_s=0.5)  # own work: about 0.2 s
    waited = time.perf_counter() - started
    holder.join()
    assert result.text == "t0t1t2t3" and result.finish_reason == "stop"
    assert waited >= 0.8  # it did wait behind the other call, longer than its own limit


def test_the_timeout_still_stops_a_generation_that_runs_too_long(llm) -> None:  # type: ignore[no-untyped-def]
    FakeLlama.tokens = 20  # own work: about 1 s
    try:
        holder = _hold_lock(llm, 0.3)
        with pytest.raises(ProviderTimeout, match="ran past 0.4 s"):
            llm.complete(CHAT, timeout_s=0.4)
        holder.join()
    finally:
        FakeLlama.tokens = 4
