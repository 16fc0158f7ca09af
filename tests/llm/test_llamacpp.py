"""The real embedded model (slow: loads ~1 GB); skipped with the reason when it is not installed."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from pydantic import BaseModel

from tablerag.errors import ConfigError, ProviderTimeout
from tablerag.llm import load_llm
from tablerag.llm.base import LLM, Message

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def local() -> Iterator[LLM]:
    try:
        llm = load_llm("local")
    except ConfigError as exc:
        pytest.skip(f"local model not available: {exc}")
    yield llm
    llm.close()


class Total(BaseModel):
    total: int


def test_short_completion(local: LLM) -> None:
    chat: list[Message] = [{"role": "user", "content": "Write only the SQL: count rows of t."}]
    result = local.complete(chat, max_tokens=40)
    assert "count" in result.text.lower() and result.completion_tokens <= 40
    assert result.latency_ms > 0 and local.usage.calls >= 1


def test_max_tokens_is_enforced(local: LLM) -> None:
    chat: list[Message] = [{"role": "user", "content": "Count from 1 to 500, comma-separated."}]
    result = local.complete(chat, max_tokens=8)
    assert result.finish_reason == "length" and result.completion_tokens <= 8


def test_wall_clock_limit_stops_generation(local: LLM) -> None:
    chat: list[Message] = [{"role": "user", "content": "Count from 1 to 500, comma-separated."}]
    with pytest.raises(ProviderTimeout, match="ran past"):
        local.complete(chat, max_tokens=400, timeout_s=0.5)


def test_structured_output_with_json_mode(local: LLM) -> None:
    chat: list[Message] = [
        {"role": "user", "content": 'What is 17 + 25? Answer as JSON {"total": <int>}.'}
    ]
    assert local.complete_structured(chat, Total, max_tokens=30).total == 42
