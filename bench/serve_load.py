"""Load on `tablerag serve`: clients on loopback against an endpoint model with a fixed latency,
and an ingest committing in the middle of the run (issue 31).

Three processes: a fake OpenAI-compatible server (every reply after exactly ``--latency-ms``),
`tablerag serve` on a fresh copy of the sample workspace with that server as its model, and this
script's clients (asyncio + httpx, ``--clients`` of them asking in a loop for ``--seconds``). At
a third of the run, ``tablerag ingest`` adds a table from another process; the run reports when
the server swapped it in and whether any request failed meanwhile.

tablerag's own overhead per request is the request's wall time on the client minus the model's
fixed latency times the model calls the answer made: routing, retrieval, schema linking, the
gate, the query, the envelope, HTTP both ways, the thread pool and the queue. It is split into
the answering core (the answer's own ``timings_ms.total`` minus the model's time) and serving
(wall time minus ``timings_ms.total``: HTTP, JSON, the thread pool, waiting for a slot).

    python bench/serve_load.py --clients 50 --seconds 60 --latency-ms 200
    python bench/serve_load.py --baseline-src /tmp/base/src    # before and after, one run
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
from fastapi import FastAPI, Request

QUESTIONS = (
    "How many refunds are there?",
    "What is the total refund amount by reason?",
    "How many orders were placed in each region?",
    "上月华东的毛利是多少？",
)
SQL = "SELECT count(*) AS n FROM fact_refund"


# -- the fake model ------------------------------------------------------------------------------


def fake_llm(port: int, latency_ms: float) -> None:
    """Serve ``POST /v1/chat/completions``: SQL for a SQL prompt, a cited line otherwise."""
    import uvicorn

    app = FastAPI()

    @app.post("/v1/chat/completions")
    async def complete(request: Request) -> dict[str, Any]:
        body = await request.json()
        system = body["messages"][0]["content"]
        await asyncio.sleep(latency_ms / 1000)
        if "SELECT" in system:
            text = f"```sql\n{SQL}\n```"
        elif "numbered passages" in system:
            text = "Refunds follow the policy [1]."
        else:
            text = "The count is in the table."
        return {
            "id": "x",
            "model": "fake",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": text},
                         "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 500, "completion_tokens": 12},
        }  # fmt: skip

    uvicorn.run(app, host="127.0.0.1", port=port, log_level="error", access_log=False)


# -- setting up ----------------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_http(url: str, timeout_s: float = 120) -> None:
    until = time.monotonic() + timeout_s
    while time.monotonic() < until:
        try:
            if httpx.get(url, timeout=2).status_code < 500:
                return
        except httpx.TransportError:
            pass
        time.sleep(0.2)
    raise SystemExit(f"{url} did not come up in {timeout_s} s")


def build_workspace(root: Path, env: dict[str, str]) -> Path:
    sample, ws = root / "sample", root / "ws"
    tablerag = [sys.executable, "-m", "tablerag"]
    subprocess.run([*tablerag, "sample", str(sample)], check=True, env=env, capture_output=True)
    subprocess.run([*tablerag, "ingest", str(sample), "-w", str(ws)], check=True, env=env,
                   capture_output=True)  # fmt: skip
    return ws


# -- the load ------------------------------------------------------------------------------------


async def client(
    http: httpx.AsyncClient,
    url: str,
    n: int,
    stop_at: float,
    out: list[dict[str, Any]],
    delay_s: float = 0.0,
) -> None:
    await asyncio.sleep(delay_s)
    i = n
    while time.monotonic() < stop_at:
        question = QUESTIONS[i % len(QUESTIONS)]
        i += 1
        started, started_at = time.perf_counter(), time.monotonic()
        try:
            r = await http.post(f"{url}/v1/ask", json={"question": question})
            body = r.json()
            ms = (time.perf_counter() - started) * 1000
            out.append({"t": time.monotonic(), "t0": started_at, "http": r.status_code, "ms": ms,
                        "calls": (body.get("llm") or {}).get("calls", 0),
                        "server_ms": (body.get("timings_ms") or {}).get("total", 0.0),
                        "status": body.get("status"),
                        "code": (body.get("error") or {}).get("code")
                        if isinstance(body.get("error"), dict) else None})  # fmt: skip
        except httpx.HTTPError as exc:
            out.append({"t": time.monotonic(), "t0": started_at, "http": 0, "ms": 0.0,
                        "calls": 0, "server_ms": 0, "status": None,
                        "code": type(exc).__name__})  # fmt: skip


async def watch_generation(url: str, stop_at: float, seen: dict[str, float]) -> None:
    async with httpx.AsyncClient(timeout=10) as http:
        while time.monotonic() < stop_at:
            gen = (await http.get(f"{url}/healthz")).json()["generation"]
            seen.setdefault(str(gen), time.monotonic())
            await asyncio.sleep(0.1)


async def load(
    url: str, clients: int, seconds: float, ws: Path, env: dict[str, str], ramp_s: float
) -> dict:
    out: list[dict[str, Any]] = []
    seen: dict[str, float] = {}
    start = time.monotonic()
    stop_at = start + seconds
    limits = httpx.Limits(max_connections=clients + 4, max_keepalive_connections=clients + 4)
    csv = ws.parent / "late_arrivals.csv"
    csv.write_text("id,amount\n" + "".join(f"{i},{i * 10}\n" for i in range(1, 101)), "utf-8")
    async with httpx.AsyncClient(timeout=120, limits=limits) as http:
        tasks = [
            asyncio.create_task(client(http, url, n, stop_at, out, ramp_s * n / clients))
            for n in range(clients)
        ]
        tasks.append(asyncio.create_task(watch_generation(url, stop_at, seen)))
        await asyncio.sleep(seconds / 3)
        ingest_started = time.monotonic()
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "tablerag", "ingest", str(csv), "-w", str(ws), env=env,
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
        )  # fmt: skip
        _, err = await proc.communicate()
        ingest_done = time.monotonic()
        await asyncio.gather(*tasks)
    return {
        "out": out,
        "start": start,
        "ingest": {
            "exit": proc.returncode,
            "stderr": err.decode()[-300:],
            "started_s": round(ingest_started - start, 1),
            "committed_s": round(ingest_done - start, 1),
            "swapped_in_s": swapped_in(seen, start),
        },
    }


def cpu_s(pid: int) -> float:
    """CPU seconds (user + system) of process ``pid`` and its living children (the SQL
    workers of a server)."""
    tick = os.sysconf("SC_CLK_TCK")

    def own(p: str) -> tuple[int, float]:
        fields = Path(f"/proc/{p}/stat").read_text().rsplit(")", 1)[1].split()
        return int(fields[1]), (int(fields[11]) + int(fields[12])) / tick

    total = own(str(pid))[1]
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and entry.name != str(pid):
            try:
                parent, seconds = own(entry.name)
            except (OSError, IndexError, ValueError):
                continue
            total += seconds if parent == pid else 0.0
    return total


def swapped_in(seen: dict[str, float], start: float) -> float | None:
    """Seconds into the run when a generation after the first was answered from (numbers may
    skip: an attempt while the ingest still held the workspace counts one)."""
    numbers = sorted(int(g) for g in seen)
    later = [seen[str(g)] for g in numbers[1:]]
    return round(min(later) - start, 1) if later else None


def pct(values: list[float], p: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--clients", type=int, default=50)
    ap.add_argument("--seconds", type=float, default=60)
    ap.add_argument("--latency-ms", type=float, default=200)
    ap.add_argument(
        "--ramp-s",
        type=float,
        default=0.0,
        help="start the clients one after another over this many seconds instead of all at "
        "once (all at once, every client waits on the model in step, so their requests keep "
        "arriving together); the summary gives the steady part apart either way",
    )
    ap.add_argument(
        "--baseline-src",
        help="also run the same load against a server started from this `src` folder (an "
        "older tablerag, e.g. `git archive REV src | tar -x -C DIR`), first, and report both "
        "with the ratios: the machine's load drifts less within one run than between two",
    )
    ap.add_argument("--fake-llm-port", type=int, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.fake_llm_port:
        fake_llm(args.fake_llm_port, args.latency_ms)
        return
    if not args.baseline_src:
        print(json.dumps(run(args, None), indent=2, ensure_ascii=False))
        return
    baseline = run(args, str(Path(args.baseline_src).resolve()))
    current = run(args, None)
    ratios = {
        k: round(baseline[k] / current[k], 2)
        for k in baseline
        if k.endswith(("_p50", "_p95", "_rps")) and baseline[k] and current[k]
    }
    out = {"baseline": baseline, "current": current, "baseline_over_current": ratios}
    print(json.dumps(out, indent=2, ensure_ascii=False))


def run(args: argparse.Namespace, src: str | None) -> dict[str, Any]:
    """One load run; the server (and the mid-run ingest) from ``src`` when given."""
    root = Path(tempfile.mkdtemp(prefix="serve-load-"))
    llm_port, api_port = free_port(), free_port()
    env = {
        **os.environ,
        "TABLERAG_EMBEDDER": "hashing",
        "TABLERAG_LLM": "openai:fake",
        "TABLERAG_OPENAI_BASE_URL": f"http://127.0.0.1:{llm_port}/v1",
        "TABLERAG_OPENAI_API_KEY": "not-a-key",
        "TABLERAG_SERVE_MAX_CONCURRENT": str(args.clients),
        "TABLERAG_SERVE_QUEUE_MAX": str(args.clients * 2),
        "TABLERAG_SERVE_RATE_LIMIT_PER_MINUTE": "100000",
    }
    if src is not None:
        env["PYTHONPATH"] = src
    procs: list[subprocess.Popen[bytes]] = []
    try:
        ws = build_workspace(root, env)
        fake = [sys.executable, __file__, "--fake-llm-port", str(llm_port)]
        procs.append(subprocess.Popen([*fake, "--latency-ms", str(args.latency_ms)]))
        serve = [sys.executable, "-m", "tablerag", "serve", "-w", str(ws), "--port", str(api_port)]
        procs.append(subprocess.Popen(serve, env=env))
        url = f"http://127.0.0.1:{api_port}"
        wait_http(f"http://127.0.0.1:{llm_port}/docs")
        wait_http(f"{url}/healthz")
        for question in QUESTIONS:  # warm-up
            httpx.post(f"{url}/v1/ask", json={"question": question}, timeout=60)
        before = [cpu_s(p.pid) for p in procs] + [time.process_time()]
        run = asyncio.run(load(url, args.clients, args.seconds, ws, env, args.ramp_s))
        after = [cpu_s(p.pid) for p in procs] + [time.process_time()]
        used = [round(b - a, 1) for a, b in zip(before, after, strict=True)]
        run["cpu_s"] = dict(zip(("model", "server", "clients"), used, strict=True))
    finally:
        for p in procs:
            p.terminate()
        for p in procs:
            p.wait(10)
        shutil.rmtree(root, ignore_errors=True)
    return summary(args, run, src)


def summary(args: argparse.Namespace, run: dict[str, Any], src: str | None) -> dict[str, Any]:
    """The figures of one run."""
    out = run["out"]
    ok = [r for r in out if r["http"] == 200]
    errors = [r for r in out if r["http"] != 200]
    overhead = [r["ms"] - r["calls"] * args.latency_ms for r in ok]
    # what the answering core spent besides the model, and what serving added around it
    core = [r["server_ms"] - r["calls"] * args.latency_ms for r in ok]
    serving = [r["ms"] - r["server_ms"] for r in ok]
    walls = [r["ms"] for r in ok]
    return {
        "src": src or "this tree",
        "clients": args.clients,
        "seconds": args.seconds,
        "model_latency_ms": args.latency_ms,
        "requests": len(out),
        "errors": len(errors),
        "error_codes": sorted({str(r["code"] or r["http"]) for r in errors}),
        "answer_status": {s: sum(r["status"] == s for r in ok) for s in {r["status"] for r in ok}},
        "throughput_rps": round(len(ok) / args.seconds, 1),
        "model_calls_per_answer": round(statistics.mean(r["calls"] for r in ok), 2) if ok else 0,
        "wall_ms_p50": round(pct(walls, 50), 1) if ok else None,
        "wall_ms_p95": round(pct(walls, 95), 1) if ok else None,
        "overhead_ms_p50": round(pct(overhead, 50), 1) if ok else None,
        "overhead_ms_p95": round(pct(overhead, 95), 1) if ok else None,
        "core_ms_p50": round(pct(core, 50), 1) if ok else None,
        "core_ms_p95": round(pct(core, 95), 1) if ok else None,
        "serving_ms_p50": round(pct(serving, 50), 1) if ok else None,
        "serving_ms_p95": round(pct(serving, 95), 1) if ok else None,
        **steady_part(args, run, ok),
        "cpu_s": run["cpu_s"],
        "server_cpu_ms_per_answer": round(run["cpu_s"]["server"] * 1000 / len(ok), 1)
        if ok
        else None,
        "ingest": run["ingest"],
        "errors_during_ingest": sum(
            1
            for r in errors
            if run["ingest"]["started_s"]
            <= r["t"] - run["start"]
            <= (run["ingest"]["swapped_in_s"] or 1e9) + 5
        ),  # fmt: skip
    }


def steady_part(args: argparse.Namespace, run: dict[str, Any], ok: list[dict]) -> dict[str, Any]:
    """Overhead percentiles of the requests sent after the clients' start (the ramp plus two
    model latencies) that did not overlap the ingest (from its start to two seconds after the
    new generation was answered from): the server's steady state, beside the whole run's."""
    start, ingest = run["start"], run["ingest"]
    settled = start + args.ramp_s + 2 * args.latency_ms / 1000
    lo = start + ingest["started_s"]
    hi = start + (ingest["swapped_in_s"] or ingest["committed_s"]) + 2
    steady = [r for r in ok if r["t0"] >= settled and (r["t"] < lo or r["t0"] > hi)]
    overhead = [r["ms"] - r["calls"] * args.latency_ms for r in steady]
    return {
        "steady_requests": len(steady),
        "steady_overhead_ms_p50": round(pct(overhead, 50), 1) if steady else None,
        "steady_overhead_ms_p95": round(pct(overhead, 95), 1) if steady else None,
    }


if __name__ == "__main__":
    main()
