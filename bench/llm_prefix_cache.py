"""What keeping the llama.cpp state of earlier prompts saves on the local model (issue 31).

The prompts are the real ones: the questions are answered through a warm runtime over a
workspace with a scripted model standing in (it replies as ``bench/serve_load.py``'s endpoint
does), which records every prompt in the order a server would send them: question 1, question
2, then question 1 again (a question asked twice). The prompts are then read by the local
model in that order, once with the prefix cache off (llama.cpp reuses only the prefix a prompt
shares with the previous one) and once on (:class:`tablerag.llm.prefix_cache.PrefixCache`),
each time with ``max_tokens=1`` so that only reading the prompt is timed (generation is the
same either way). Per prompt: the tokens llama.cpp evaluated and its seconds on them (its own
counters, ``llama_perf_context``).

    python bench/llm_prefix_cache.py WORKSPACE
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import llama_cpp

from tablerag.llm.base import Message
from tablerag.llm.llamacpp import LocalLLM
from tablerag.llm.prefix_cache import PrefixCache
from tablerag.llm.testing import FunctionLLM
from tablerag.runtime import Runtime

sys.path.insert(0, str(Path(__file__).parent))
from serve_load import SQL  # noqa: E402  (the same scripted replies)

QUESTIONS = (
    "上月华东的毛利是多少？",
    "How many orders were paid in 2026-09?",
    "上月华东的毛利是多少？",
)


def reply(messages: Sequence[Message]) -> str:
    system = messages[0]["content"]
    if "SELECT" in system:
        return f"```sql\n{SQL}\n```"
    if "numbered passages" in system:
        return "Refunds follow the policy [1]."
    return "The count is in the table."


def prompts(workspace: Path) -> list[tuple[str, list[Message]]]:
    """(question, messages) of every model call, in order."""
    scripted = FunctionLLM(reply)
    with Runtime.open(workspace, llm=scripted, watch=False) as rt:
        out: list[tuple[str, list[Message]]] = []
        for question in QUESTIONS:
            before = len(scripted.history)
            rt.ask(rt.request(question))
            out += [(question, list(c.messages)) for c in scripted.history[before:]]
    return out


def read_all(
    llm: LocalLLM, calls: list[tuple[str, list[Message]]], mode: str
) -> list[dict[str, Any]]:
    llama = llm._model()[0]
    out = []
    for n, (question, messages) in enumerate(calls, start=1):
        perf = llama_cpp.llama_perf_context(llama._ctx.ctx)
        tokens, ms = int(perf.n_p_eval), float(perf.t_p_eval_ms)
        started = time.perf_counter()
        llm.complete(messages, max_tokens=1, timeout_s=3600)
        perf = llama_cpp.llama_perf_context(llama._ctx.ctx)
        out.append({
            "mode": mode, "call": n, "question": question,
            "prompt": messages[0]["content"][:40],
            "tokens_evaluated": int(perf.n_p_eval) - tokens,
            "eval_s": round((float(perf.t_p_eval_ms) - ms) / 1000, 2),
            "wall_s": round(time.perf_counter() - started, 2),
        })  # fmt: skip
        print(json.dumps(out[-1], ensure_ascii=False), flush=True)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("workspace", type=Path)
    args = ap.parse_args()
    calls = prompts(args.workspace)
    llm = LocalLLM(prefix_cache_mb=0)
    llama = llm._model()[0]
    rows: list[dict[str, Any]] = read_all(llm, calls, "off")
    cache = PrefixCache(256 * 2**20)
    llama.set_cache(cache)
    llm.complete([{"role": "user", "content": "Say OK."}], max_tokens=1)  # nothing shared
    rows += read_all(llm, calls, "on")
    summary = {
        mode: {
            "tokens_evaluated": sum(r["tokens_evaluated"] for r in rows if r["mode"] == mode),
            "eval_s": round(sum(r["eval_s"] for r in rows if r["mode"] == mode), 1),
            "wall_s": round(sum(r["wall_s"] for r in rows if r["mode"] == mode), 1),
        }
        for mode in ("off", "on")
    }
    kept = {"entries": len(cache._states), "bytes": cache.size_bytes, "hits": cache.hits}
    print(json.dumps({"calls": len(calls), "summary": summary, "cache": kept}, indent=2))


if __name__ == "__main__":
    main()
