"""What keeping the llama.cpp state of earlier prompts saves on the local model (issue 31).

One process, one loaded model, one warm runtime over a workspace: the questions are asked in
rounds (each round asks every question once, in order), first with the prefix cache off
(llama.cpp then reuses only the prefix shared with the previous prompt), then on
(:class:`tablerag.llm.prefix_cache.PrefixCache`). Per answer: the prompt tokens llama.cpp
evaluated and the seconds it spent on them (its own counters, ``llama_perf_context``), the
model calls and the wall time.

    python bench/llm_prefix_cache.py WORKSPACE --rounds 2
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path
from typing import Any

import llama_cpp

from tablerag.llm.llamacpp import LocalLLM
from tablerag.llm.prefix_cache import PrefixCache
from tablerag.runtime import Runtime

QUESTIONS = (
    "上月华东的毛利是多少？",
    "How many orders were paid in 2026-09?",
    "What is the refund policy for damaged goods?",
)


def counters(llama: Any) -> tuple[int, float]:
    """Prompt tokens evaluated and milliseconds spent on them so far."""
    perf = llama_cpp.llama_perf_context(llama._ctx.ctx)
    return int(perf.n_p_eval), float(perf.t_p_eval_ms)


def ask_rounds(rt: Runtime, llama: Any, rounds: int, mode: str) -> list[dict[str, Any]]:
    out = []
    for round_ in range(1, rounds + 1):
        for question in QUESTIONS:
            tokens, ms = counters(llama)
            started = time.perf_counter()
            answer = rt.ask(rt.request(question))
            tokens2, ms2 = counters(llama)
            out.append({
                "mode": mode, "round": round_, "question": question, "status": answer.status,
                "calls": answer.llm.calls if answer.llm else 0,
                "prompt_tokens_sent": answer.llm.prompt_tokens if answer.llm else 0,
                "prompt_tokens_evaluated": tokens2 - tokens,
                "prompt_eval_s": round((ms2 - ms) / 1000, 2),
                "wall_s": round(time.perf_counter() - started, 2),
            })  # fmt: skip
            print(json.dumps(out[-1], ensure_ascii=False), flush=True)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("workspace", type=Path)
    ap.add_argument("--rounds", type=int, default=2)
    args = ap.parse_args()
    llm = LocalLLM(prefix_cache_mb=0)
    llama = llm._model()[0]
    rows: list[dict[str, Any]] = []
    with Runtime.open(args.workspace, llm=llm, watch=False) as rt:
        rows += ask_rounds(rt, llama, args.rounds, "off")
        cache = PrefixCache(256 * 2**20)
        llama.set_cache(cache)
        rows += ask_rounds(rt, llama, args.rounds, "on")
        kept = {"entries": len(cache._states), "bytes": cache.size_bytes, "hits": cache.hits}
    summary = {}
    for mode in ("off", "on"):
        for round_ in range(1, args.rounds + 1):
            part = [r for r in rows if r["mode"] == mode and r["round"] == round_]
            summary[f"{mode} round {round_}"] = {
                "prompt_tokens_evaluated": sum(r["prompt_tokens_evaluated"] for r in part),
                "prompt_eval_s": round(sum(r["prompt_eval_s"] for r in part), 1),
                "wall_s_median": statistics.median(r["wall_s"] for r in part),
                "wall_s_total": round(sum(r["wall_s"] for r in part), 1),
                "calls": sum(r["calls"] for r in part),
            }
    print(json.dumps({"summary": summary, "cache": kept}, indent=2, ensure_ascii=False))


if __name__ == "__main__":
    main()
