"""Smoke-measure an LLM backend: load time, one short chat completion, tokens per second.

Usage: ``python bench/llm_smoke.py [SPEC]`` (default ``TABLERAG_LLM`` or ``local``).
"""

from __future__ import annotations

import sys
import time

from tablerag.errors import TableragError
from tablerag.llm import load_llm
from tablerag.llm.base import Message
from tablerag.llm.llamacpp import LlamaCppLLM

PROMPTS: list[list[Message]] = [
    [
        {"role": "system", "content": "You write DuckDB SQL. Answer with SQL only."},
        {
            "role": "user",
            "content": "Table sales(region VARCHAR, month DATE, revenue DOUBLE, cost DOUBLE).\n"
            "上月华东的毛利是多少？",
        },
    ],
    [{"role": "user", "content": "In one sentence: what is a refund policy?"}],
]


def main(spec: str | None = None) -> int:
    """Print load time and per-prompt latency and speed; returns the exit code."""
    started = time.perf_counter()
    try:
        llm = load_llm(spec)
        if isinstance(llm, LlamaCppLLM):
            print(
                f"load: {llm.load():.2f} s (model file ready after "
                f"{time.perf_counter() - started:.2f} s)"
            )
        for chat in PROMPTS:
            result = llm.complete(chat, max_tokens=96)
            speed = result.completion_tokens / (result.latency_ms / 1000)
            print(
                f"{result.completion_tokens} tokens in {result.latency_ms / 1000:.2f} s "
                f"= {speed:.1f} tok/s (prompt {result.prompt_tokens}"
                f"{' est.' if result.tokens_estimated else ''}, {result.finish_reason}): "
                f"{result.text.strip()[:200]!r}"
            )
    except TableragError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    print(f"usage: {llm.usage.snapshot()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1] if len(sys.argv) > 1 else None))
