"""Latency of each MCP tool call: the SDK's own client against tablerag's MCP server on the
sample workspace (hashing embedder, a scripted model answering at once), in process and over
streamable HTTP at ``/mcp`` of ``tablerag serve``'s app on loopback (issue 35).

What it measures is tablerag's cost per call plus the SDK's framing: the gate, the engine, the
search, the answering core for ``ask`` with no model latency. Calls are made one after another.

    python bench/mcp_latency.py --calls 200 --append bench/RESULTS.md
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx2
import uvicorn
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from tablerag.api.access import Access
from tablerag.api.app import create_app
from tablerag.api.mcp import build
from tablerag.llm.base import Message
from tablerag.llm.testing import FunctionLLM
from tablerag.runtime import Runtime
from tablerag.sample import write_sample
from tablerag.service import Workspace
from tablerag.settings import Settings

SQL = "SELECT count(*) AS refunds FROM fact_refund"
CALLS: tuple[tuple[str, dict[str, Any]], ...] = (
    ("list_tables", {}),
    ("describe_table", {"table": "fact_refund"}),
    ("list_sources", {}),
    ("run_sql", {"sql": SQL}),
    ("run_sql (refused)", {"sql": "DELETE FROM fact_refund"}),
    ("search_documents", {"query": "damaged goods refund", "k": 5}),
    ("ask", {"question": "How many refunds were there?"}),
)


def reply(messages: Sequence[Message]) -> str:
    system = messages[0]["content"]
    if "SELECT" in system:
        return f"```sql\n{SQL}\n```"
    if "numbered passages" in system:
        return "Damaged goods are refunded in part or in full [1]."
    return "There are 152 refunds."


async def _time(client: Client, calls: int) -> dict[str, list[float]]:
    out: dict[str, list[float]] = {}
    for label, args in CALLS:
        name = label.split(" ")[0]
        await client.call_tool(name, args)  # warm
        times = out.setdefault(label, [])
        for _ in range(calls):
            start = time.perf_counter()
            result = await client.call_tool(name, args)
            times.append((time.perf_counter() - start) * 1000)
            if result.is_error != ("refused" in label):
                raise SystemExit(f"{label}: unexpected result {result}")
    return out


def in_process(runtime: Runtime, calls: int) -> dict[str, list[float]]:
    async def go() -> dict[str, list[float]]:
        async with Client(build(runtime)) as client:
            return await _time(client, calls)

    return asyncio.run(go())


def over_http(runtime: Runtime, calls: int) -> dict[str, list[float]]:
    access = Access(runtime.path, require_token=False, rate_per_minute=10**6)
    app = create_app(runtime, access=access)
    srv = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=0, log_level="error"))
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    while not srv.started:
        time.sleep(0.02)
    port = srv.servers[0].sockets[0].getsockname()[1]

    async def go() -> dict[str, list[float]]:
        async with (
            httpx2.AsyncClient() as http,
            Client(streamable_http_client(f"http://127.0.0.1:{port}/mcp", http_client=http)) as c,
        ):
            return await _time(c, calls)

    try:
        return asyncio.run(go())
    finally:
        srv.should_exit = True
        thread.join(10)


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=200, help="Calls per tool and transport.")
    parser.add_argument("--append", type=Path, help="Append the summary to this Markdown file.")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        sample, root = Path(tmp) / "sample", Path(tmp) / "ws"
        write_sample(sample)
        with Workspace.open(root) as ws:
            ws.ingest([sample], settings=Settings(index_on_ingest=True, embedder="hashing"))
        settings = Settings(embedder="hashing", serve_refresh_s=60)  # type: ignore[call-arg]
        rt = Runtime.open(root, settings=settings, llm=FunctionLLM(reply), watch=False)
        try:
            runs = {
                "in process": in_process(rt, args.calls),
                "HTTP /mcp": over_http(rt, args.calls),
            }
        finally:
            rt.close()
    lines = [
        "| tool | in process P50 / P95 ms | HTTP /mcp P50 / P95 ms |",
        "|---|---|---|",
    ]
    for label, _ in CALLS:
        cells = [
            f"{statistics.median(r[label]):.1f} / {pct(r[label], 0.95):.1f}" for r in runs.values()
        ]
        lines.append(f"| {label} | {' | '.join(cells)} |")
    table = "\n".join(lines)
    print(table)
    if args.append:
        stamp = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
        command = "python " + " ".join(["bench/mcp_latency.py", *sys.argv[1:]])
        text = (
            f"\n## MCP tool calls: latency per call (issue 35) — {stamp}\n\n`{command}` "
            f"({args.calls} calls per tool and transport, one after another; the SDK's client; "
            "sample workspace, hashing embedder, a scripted model that answers at once)\n\n"
            f"{table}\n"
        )
        with args.append.open("a", encoding="utf-8") as fh:
            fh.write(text)


if __name__ == "__main__":
    main()
