"""Fixtures of the LLM tests: the loopback server and providers pointed at it."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

import pytest

from tablerag.llm._http import RetryPolicy
from tablerag.llm.anthropic import AnthropicLLM
from tablerag.llm.base import LLM
from tablerag.llm.openai import OpenAILLM
from tests.llm import server as srv

FAST_RETRY = RetryPolicy(max_retries=2, base_delay_s=0.01, max_delay_s=0.05)


@dataclass(frozen=True)
class Shape:
    """One HTTP API shape: how to build its provider and its replies."""

    name: str
    path: str
    build: Callable[[str, RetryPolicy], LLM]
    reply: Callable[[str], srv.Reply]
    stream: Callable[..., srv.Reply]
    usage: tuple[int, int]
    """(prompt, completion) tokens that ``reply`` reports."""


SHAPES = [
    Shape(
        "openai",
        "/v1/chat/completions",
        lambda url, retry: OpenAILLM("gpt-test", base_url=url + "/v1", retry=retry),
        lambda text: srv.openai_reply(text),
        srv.openai_stream,
        (11, 3),
    ),
    Shape(
        "anthropic",
        "/v1/messages",
        lambda url, retry: AnthropicLLM("claude-test", base_url=url, retry=retry),
        lambda text: srv.anthropic_reply(text),
        srv.anthropic_stream,
        (13, 5),
    ),
]


@pytest.fixture
def server() -> Iterator[srv.LoopbackServer]:
    """A fresh loopback server."""
    with srv.LoopbackServer() as running:
        yield running


@pytest.fixture(params=SHAPES, ids=[s.name for s in SHAPES])
def shape(request: pytest.FixtureRequest) -> Shape:
    """Each HTTP API shape in turn."""
    chosen: Shape = request.param
    return chosen


@pytest.fixture
def build(shape: Shape) -> Iterator[Callable[[str, RetryPolicy], LLM]]:
    """Build providers of the current shape; all are closed after the test."""
    made: list[LLM] = []

    def make(url: str, retry: RetryPolicy) -> LLM:
        made.append(shape.build(url, retry))
        return made[-1]

    yield make
    for llm in made:
        llm.close()


@pytest.fixture(autouse=True)
def _no_provider_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in (
        "TABLERAG_LLM",
        "TABLERAG_OPENAI_BASE_URL",
        "OPENAI_BASE_URL",
        "TABLERAG_OPENAI_API_KEY",
        "OPENAI_API_KEY",
        "ANTHROPIC_API_KEY",
        "TABLERAG_ANTHROPIC_API_KEY",
        "ANTHROPIC_BASE_URL",
        "TABLERAG_ANTHROPIC_BASE_URL",
    ):
        monkeypatch.delenv(name, raising=False)
