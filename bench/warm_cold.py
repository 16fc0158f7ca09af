"""A warm `tablerag serve` against a cold `tablerag ask`, question by question, on the local
model (issue 31).

Cold: ``tablerag ask QUESTION -w WORKSPACE --json`` in a new process per question (imports,
settings, catalog, index, loading the model, answering). Warm: one ``tablerag serve`` on the
same workspace, started (optionally asked ``--warm-up`` first), then ``POST /v1/ask`` per
question, ``--repeat`` times (a question asked again finds its prompts' states kept). Wall
time on the caller's side, the answer's status, model calls and prompt tokens.

    python bench/warm_cold.py WORKSPACE "question 1" "question 2" --warm-up "other" --repeat 1
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def row(kind: str, question: str, seconds: float, body: dict[str, Any]) -> dict[str, Any]:
    usage = body.get("llm") or {}
    return {
        "kind": kind,
        "question": question,
        "wall_s": round(seconds, 1),
        "status": body.get("status"),
        "calls": usage.get("calls"),
        "prompt_tokens": usage.get("prompt_tokens"),
        "answer_total_s": round((body.get("timings_ms") or {}).get("total", 0) / 1000, 1),
    }


def cold(workspace: Path, question: str) -> dict[str, Any]:
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "tablerag", "ask", question, "-w", str(workspace), "--json"],
        capture_output=True,
        text=True,
        check=False,
    )
    seconds = time.perf_counter() - started
    try:
        body = json.loads(done.stdout)
    except json.JSONDecodeError:
        body = {"status": f"exit {done.returncode}: {done.stderr[-200:]}"}
    return row("cold CLI", question, seconds, body)


def warm(
    workspace: Path, questions: list[str], warm_up: str | None, repeat: int
) -> list[dict[str, Any]]:
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    started = time.perf_counter()
    server = subprocess.Popen(
        [sys.executable, "-m", "tablerag", "serve", "-w", str(workspace), "--port", str(port)]
    )
    out = []
    try:
        with httpx.Client(timeout=3600) as http:
            while True:
                try:
                    if http.get(f"{url}/healthz").status_code == 200:
                        break
                except httpx.TransportError:
                    pass
                time.sleep(0.5)
            print(f"server ready after {time.perf_counter() - started:.1f} s", flush=True)
            asks = [("warm-up", warm_up)] if warm_up else []
            asks += [(f"server, ask {n}", q) for n in range(1, repeat + 1) for q in questions]
            for kind, question in asks:
                t = time.perf_counter()
                body = http.post(f"{url}/v1/ask", json={"question": question}).json()
                out.append(row(kind, question, time.perf_counter() - t, body))
                print(json.dumps(out[-1], ensure_ascii=False), flush=True)
    finally:
        server.terminate()
        server.wait(30)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("workspace", type=Path)
    ap.add_argument("questions", nargs="+")
    ap.add_argument("--warm-up", help="a question the server answers first (not counted)")
    ap.add_argument("--repeat", type=int, default=1, help="times the server is asked each")
    ap.add_argument("--no-cold", action="store_true", help="only the server")
    args = ap.parse_args()
    os.environ.setdefault("TABLERAG_LLM", "local")
    rows = []
    for question in [] if args.no_cold else args.questions:
        rows.append(cold(args.workspace, question))
        print(json.dumps(rows[-1], ensure_ascii=False), flush=True)
    rows += warm(args.workspace, args.questions, args.warm_up, args.repeat)
    print(json.dumps(rows, indent=2, ensure_ascii=False))


if __name__ == "__main__":
    main()
