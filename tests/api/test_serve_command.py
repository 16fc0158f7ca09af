"""`tablerag serve` as an operator runs it: a real process on loopback, ready at /healthz,
answering /v1, and gone cleanly (its workspace copies deleted) on SIGTERM."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx

from tests.api.conftest import free_port as _free_port


async def _mcp_tools(url: str) -> set[str]:
    from mcp import Client

    async with Client(url) as client:
        return {t.name for t in (await client.list_tools()).tools}


def test_serve_starts_answers_and_stops(ws: Path, tmp_path: Path) -> None:
    port = _free_port()
    env = {**os.environ, "TABLERAG_EMBEDDER": "hashing", "TMPDIR": str(tmp_path)}
    env["PYTHONPATH"] = os.pathsep.join([str(Path(__file__).resolve().parents[2] / "src"),
                                         env.get("PYTHONPATH", "")])  # fmt: skip
    proc = subprocess.Popen(
        [sys.executable, "-m", "tablerag", "serve", "-w", str(ws), "--port", str(port),
         "--llm", "scripted"],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    url = f"http://127.0.0.1:{port}"
    try:
        health = None
        until = time.monotonic() + 90
        while time.monotonic() < until and proc.poll() is None:
            try:
                health = httpx.get(f"{url}/healthz", timeout=2)
                break
            except httpx.TransportError:
                time.sleep(0.2)
        assert health is not None and health.status_code == 200, proc.stderr
        assert health.json()["model"].startswith("scripted") and health.json()["generation"] == 1
        tables = httpx.get(f"{url}/v1/tables", timeout=10)
        assert tables.status_code == 200 and len(tables.json()) >= 10
        # the MCP tools of the same process, through the SDK's client
        tools = asyncio.run(_mcp_tools(f"{url}/mcp"))
        assert {"ask", "run_sql", "describe_table"} <= tools
        copies = [p for p in Path(tmp_path).glob("tablerag-serve-*")]
        assert len(copies) == 1 and (copies[0] / "gen-1" / "workspace.duckdb").exists()
    finally:
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=30)
    assert "Traceback" not in err, err
    assert f"http://127.0.0.1:{port}" in err
    assert not list(Path(tmp_path).glob("tablerag-serve-*"))  # the copies went with it
