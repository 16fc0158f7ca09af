"""tablerag's HTTP wire layer (llm/_http.py) against the official ``openai`` SDK, for the server
(issue 31): client overhead per call, concurrency, the total time limit, and cancellation.

A fake OpenAI-compatible server on loopback answers ``/v1/chat/completions`` after a fixed
latency, or, under ``/trickle/v1``, sends its body one byte every 0.5 s (a hung endpoint that
keeps a socket alive). Measured, for both clients:

* import time of the client module (a fresh interpreter);
* per-call overhead: 300 sequential calls with no latency, mean and P95 ms;
* 50 threads x 10 calls with 200 ms latency: wall time and calls per second;
* a 2 s limit against the trickling server: when the call gives up (``timeout_s=2`` for
  tablerag, ``timeout=2, max_retries=0`` for the SDK).

    python bench/llm_wire.py
"""

from __future__ import annotations

import asyncio
import json
import socket
import statistics
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx
import uvicorn
from fastapi import FastAPI, Request
from fastapi.responses import StreamingResponse

REPLY = {
    "id": "x",
    "model": "fake",
    "choices": [
        {"index": 0, "message": {"role": "assistant", "content": "ok"}, "finish_reason": "stop"}
    ],
    "usage": {"prompt_tokens": 10, "completion_tokens": 1},
}


def fake_server(port: int) -> uvicorn.Server:
    app = FastAPI()

    @app.post("/v1/chat/completions")
    async def complete(request: Request) -> dict[str, Any]:
        body = await request.json()
        await asyncio.sleep(float(body.get("metadata", {}).get("latency_s", 0) or 0))
        return REPLY

    @app.post("/slow/v1/chat/completions")
    async def slow(request: Request) -> dict[str, Any]:
        await asyncio.sleep(0.2)
        return REPLY

    @app.post("/trickle/v1/chat/completions")
    async def trickle(request: Request) -> StreamingResponse:
        async def body() -> Any:
            for ch in json.dumps(REPLY):
                yield ch.encode()
                await asyncio.sleep(0.5)

        return StreamingResponse(body(), media_type="application/json")

    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="error"))
    threading.Thread(target=server.run, daemon=True).start()
    while not server.started:
        time.sleep(0.02)
    return server


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def import_ms(module: str) -> float:
    code = f"import time; t = time.perf_counter(); import {module}; print(time.perf_counter() - t)"
    runs = [
        float(
            subprocess.run(
                [sys.executable, "-c", code], capture_output=True, text=True, check=True
            ).stdout
        )  # fmt: skip
        for _ in range(3)
    ]
    return round(min(runs) * 1000, 1)


def clients(base: str) -> dict[str, Any]:
    import openai

    from tablerag.llm.openai import OpenAILLM

    ours = OpenAILLM("fake", base_url=f"{base}/v1", api_key="x")
    sdk = openai.OpenAI(base_url=f"{base}/v1", api_key="x", max_retries=0, timeout=120)
    slow_ours = OpenAILLM("fake", base_url=f"{base}/slow/v1", api_key="x")
    slow_sdk = openai.OpenAI(base_url=f"{base}/slow/v1", api_key="x", max_retries=0)
    chat = [{"role": "user", "content": "hi"}]
    return {
        "tablerag _http": (
            lambda: ours.complete(chat, timeout_s=120),
            lambda: slow_ours.complete(chat, timeout_s=120),
            lambda: OpenAILLM("fake", base_url=f"{base}/trickle/v1", api_key="x").complete(
                chat, timeout_s=2
            ),
        ),
        "openai SDK": (
            lambda: sdk.chat.completions.create(model="fake", messages=chat),  # type: ignore[arg-type]
            lambda: slow_sdk.chat.completions.create(model="fake", messages=chat),  # type: ignore[arg-type]
            lambda: openai.OpenAI(
                base_url=f"{base}/trickle/v1", api_key="x", max_retries=0, timeout=2
            ).chat.completions.create(model="fake", messages=chat),  # type: ignore[arg-type]
        ),
    }


def measure(fast: Any, slow: Any, trickle: Any) -> dict[str, Any]:
    for _ in range(20):
        fast()
    times = []
    for _ in range(300):
        t = time.perf_counter()
        fast()
        times.append((time.perf_counter() - t) * 1000)
    t = time.perf_counter()
    with ThreadPoolExecutor(50) as pool:
        list(pool.map(lambda _: slow(), range(500)))
    wall = time.perf_counter() - t
    t = time.perf_counter()
    try:
        trickle()
        outcome = "answered"
    except Exception as exc:  # noqa: BLE001 - the outcome is what is measured
        outcome = type(exc).__name__
    return {
        "call_ms_mean": round(statistics.mean(times), 2),
        "call_ms_p95": round(sorted(times)[int(0.95 * len(times))], 2),
        "50_threads_500_calls_s": round(wall, 2),
        "calls_per_s": round(500 / wall, 1),
        "trickle_limit_2s_gave_up_after_s": round(time.perf_counter() - t, 1),
        "trickle_outcome": outcome,
    }


def main() -> None:
    port = free_port()
    server = fake_server(port)
    base = f"http://127.0.0.1:{port}"
    httpx.get(f"{base}/docs")
    report: dict[str, Any] = {
        "import_ms": {
            "tablerag.llm.openai": import_ms("tablerag.llm.openai"),
            "openai": import_ms("openai"),
        },  # fmt: skip
    }
    for name, (fast, slow, trickle) in clients(base).items():
        report[name] = measure(fast, slow, trickle)
    server.should_exit = True
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
