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


def _prompt_tokens_read(local: LLM) -> int:
    import llama_cpp

    from tablerag.llm.llamacpp import LlamaCppLLM

    assert isinstance(local, LlamaCppLLM)
    llama = local._model()[0]
    return int(llama_cpp.llama_perf_context(llama._ctx.ctx).n_p_eval)


def test_a_kept_prefix_is_not_read_again_and_answers_the_same(local: LLM) -> None:
    """Issue 31: the state of a prompt read earlier (not the previous one) is restored for a
    prompt sharing its long prefix, and what the model writes from it does not change."""
    schema = "\n".join(f"CREATE TABLE t{i} (id INT, amount_{i} DECIMAL, region_{i} TEXT);"
                       for i in range(20))  # fmt: skip
    system: Message = {"role": "system", "content": f"Write one SQL query.\n{schema}"}
    first: list[Message] = [system, {"role": "user", "content": "Total amount_3 of t3?"}]
    other: list[Message] = [{"role": "user", "content": "Say hello in French."}]
    again: list[Message] = [system, {"role": "user", "content": "How many rows in t7?"}]
    answer = local.complete(first, max_tokens=30).text
    local.complete(other, max_tokens=8)  # the previous prompt now shares nothing with `again`
    before = _prompt_tokens_read(local)
    local.complete(again, max_tokens=30)
    read = _prompt_tokens_read(local) - before
    assert 0 < read < 40, read  # the system prompt (some 400 tokens) came from the kept state
    local.complete(other, max_tokens=8)
    assert local.complete(first, max_tokens=30).text == answer
