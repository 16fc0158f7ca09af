"""The MCP server as an assistant meets it, through the SDK's own client: in process, as a
``tablerag mcp`` subprocess over stdio, and at ``/mcp`` of a real ``tablerag serve`` app on
loopback. Every tool on the sample workspace; bad arguments and unknown tools as tool errors
after which the next call is answered."""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

from tablerag.api.mcp import build
from tablerag.runtime import Runtime
from tablerag.store import querylog, tokens
from tests.api.conftest import REFUNDS_SQL, serving

TOOLS = {"ask", "run_sql", "search_documents", "list_tables", "describe_table", "list_sources"}
SRC = str(Path(__file__).resolve().parents[2] / "src")


def run(target: Any, work: Callable[[Client], Awaitable[Any]]) -> Any:
    """``work(client)`` on a client of ``target`` (a server, a URL, stdio parameters)."""

    async def go() -> Any:
        async with Client(target) as client:
            return await work(client)

    return asyncio.run(go())


def text(result: Any) -> str:
    return "\n".join(getattr(c, "text", "") for c in result.content)


async def _tour(client: Client) -> dict[str, Any]:
    """Every tool once, as an assistant would, plus the resource and the prompt."""
    out: dict[str, Any] = {"tools": await client.list_tools()}
    out["tables"] = await client.call_tool("list_tables", {})
    out["describe"] = await client.call_tool("describe_table", {"table": "fact_refund"})
    out["sql"] = await client.call_tool("run_sql", {"sql": REFUNDS_SQL})
    out["search"] = await client.call_tool("search_documents", {"query": "damaged goods", "k": 3})
    out["sources"] = await client.call_tool("list_sources", {})
    out["ask"] = await client.call_tool("ask", {"question": "How many refunds were there?"})
    out["resource"] = await client.read_resource("tablerag://tables/fact_refund/schema")
    out["templates"] = await client.list_resource_templates()
    out["prompt"] = await client.get_prompt("answer_with_sources", {"question": "GMV 2025?"})
    return out


def test_every_tool_is_read_only_with_schemas_and_answers(runtime: Runtime) -> None:
    got = run(build(runtime), _tour)
    tools = {t.name: t for t in got["tools"].tools}
    assert set(tools) == TOOLS
    for tool in tools.values():
        assert tool.annotations is not None and tool.annotations.read_only_hint is True
        assert tool.annotations.destructive_hint is False
        assert tool.output_schema is not None and tool.description
    names = [t["name"] for t in got["tables"].structured_content["tables"]]
    assert "fact_refund" in names and not got["tables"].is_error
    described = got["describe"].structured_content["table"]
    assert described["name"] == "fact_refund" and described["columns"]
    assert "fact_refund" in text(got["describe"])
    sql = got["sql"].structured_content
    assert sql["columns"] == ["refunds"] and sql["rows"] == [[152]]
    assert "152" in text(got["sql"]) and "(1 rows)" in text(got["sql"])
    hits = got["search"].structured_content["hits"]
    assert 1 <= len(hits) <= 3 and all(h["source"] for h in hits)
    assert got["sources"].structured_content["sources"]
    envelope = got["ask"].structured_content
    assert envelope["path"] and envelope["id"] and "fact_refund" in envelope["sql"]
    assert "152" in envelope["answer"] and text(got["ask"]).startswith("status: ")
    assert "fact_refund" in got["resource"].contents[0].text
    (template,) = got["templates"].resource_templates
    assert template.uri_template == "tablerag://tables/{table}/schema"
    assert "GMV 2025?" in got["prompt"].messages[0].content.text
    # the answer is in the query log like any other, marked as the assistant's
    (entry,) = querylog.entries(runtime.path, limit=5)
    assert entry.id == envelope["id"] and entry.question == "How many refunds were there?"


BAD_CALLS = (
    ("run_sql", {"sql": "DELETE FROM fact_refund"}, "refused"),
    ("run_sql", {"sql": "SELECT * FROM read_csv('/etc/passwd')"}, "refused"),
    ("run_sql", {"sql": "   "}, "empty"),
    ("run_sql", {}, "sql"),
    ("run_sql", {"sql": 42}, "sql"),
    ("describe_table", {"table": "no_such_table"}, "No table 'no_such_table'"),
    ("ask", {"question": ""}, "empty"),
    ("ask", {"question": "x" * 5000}, "limit"),
    ("search_documents", {"query": "refund", "k": 0}, "between 1 and 50"),
    ("no_such_tool", {}, "no_such_tool"),
)


def test_bad_calls_are_tool_errors_and_the_next_call_is_answered(runtime: Runtime) -> None:
    async def work(client: Client) -> list[tuple[Any, Any]]:
        out = []
        for name, args, _ in BAD_CALLS:
            bad = await client.call_tool(name, args)
            good = await client.call_tool("run_sql", {"sql": REFUNDS_SQL})
            out.append((bad, good))
        return out

    for (name, _, says), (bad, good) in zip(BAD_CALLS, run(build(runtime), work), strict=True):
        assert bad.is_error, (name, bad)
        assert says.lower() in text(bad).lower(), (name, text(bad))
        assert "Traceback" not in text(bad)
        assert not good.is_error and good.structured_content["rows"] == [[152]]


def test_a_missing_resource_says_so(runtime: Runtime) -> None:
    async def work(client: Client) -> str:
        try:
            await client.read_resource("tablerag://tables/nope/schema")
        except Exception as exc:  # noqa: BLE001 - the SDK raises the server's error
            return str(exc)
        return ""

    assert "No table 'nope'" in run(build(runtime), work)


def test_tablerag_mcp_over_stdio(ws: Path, tmp_path: Path) -> None:
    env = {**os.environ, "TABLERAG_EMBEDDER": "hashing", "TMPDIR": str(tmp_path)}
    env["PYTHONPATH"] = os.pathsep.join([SRC, env.get("PYTHONPATH", "")])
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "tablerag", "mcp", "-w", str(ws), "--llm", "scripted"],
        env=env,
    )

    async def work(client: Client) -> tuple[Any, ...]:
        tools = await client.list_tools()
        refused = await client.call_tool("run_sql", {"sql": "DROP TABLE fact_refund"})
        ran = await client.call_tool("run_sql", {"sql": REFUNDS_SQL})
        asked = await client.call_tool("ask", {"question": "How many refunds were there?"})
        return tools, refused, ran, asked

    tools, refused, ran, asked = run(params, work)
    assert {t.name for t in tools.tools} == TOOLS
    assert refused.is_error and "refused" in text(refused)
    assert ran.structured_content["rows"] == [[152]]
    # the scripted model has nothing queued: the answer says what failed, the server lives on
    assert not asked.is_error and asked.structured_content["status"] != "ok"
    assert not list(tmp_path.glob("tablerag-serve-*"))  # the runtime's copies went with it


def test_a_missing_workspace_is_one_clear_line(tmp_path: Path) -> None:
    import subprocess

    env = {**os.environ, "PYTHONPATH": os.pathsep.join([SRC, os.environ.get("PYTHONPATH", "")])}
    proc = subprocess.run(
        [sys.executable, "-m", "tablerag", "mcp", "-w", str(tmp_path / "nope")],
        env=env, capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert proc.returncode != 0
    assert "No workspace at" in proc.stderr and "Traceback" not in proc.stderr


@pytest.fixture
def served(runtime: Runtime) -> Iterator[tuple[str, Runtime]]:
    """``tablerag serve``'s app on loopback, tokens required (as off loopback)."""
    with serving(runtime, require_token=True) as url:
        yield f"{url}/mcp", runtime


def _over_http(url: str, token: str, work: Callable[[Client], Awaitable[Any]]) -> Any:
    """``work(client)`` on a client of the MCP server at ``url`` that sends ``token``."""

    async def go() -> Any:
        headers = {"Authorization": f"Bearer {token}"}
        async with (
            httpx2.AsyncClient(headers=headers) as http,
            Client(streamable_http_client(url, http_client=http)) as client,
        ):
            return await work(client)

    return asyncio.run(go())


def test_the_same_tools_at_slash_mcp_behind_the_tokens(served: tuple[str, Runtime]) -> None:
    url, runtime = served
    created, token = tokens.create(runtime.path, name="assistant")
    token_id = created.token_id
    got = _over_http(url, token, _tour)
    assert {t.name for t in got["tools"].tools} == TOOLS
    assert got["sql"].structured_content["rows"] == [[152]]
    assert "fact_refund" in got["ask"].structured_content["sql"]
    # the query log names the token the question came in with, as it does for /v1/ask
    (logged,) = querylog.entries(runtime.path, token_id=token_id)
    assert logged.question == "How many refunds were there?" and logged.origin == "mcp"
    # without a token, or with a wrong one: 401 in the API's error shape, no tool runs
    for bad in (None, "not-a-token"):
        headers = {"Authorization": f"Bearer {bad}"} if bad else {}
        with httpx2.Client() as http:
            r = http.post(
                url,
                headers={**headers, "Accept": "application/json, text/event-stream"},
                json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
            )
        assert r.status_code == 401 and r.json()["error"]["code"] == "unauthorized"


def test_a_question_past_its_time_limit_and_a_database_that_is_down_are_tool_errors(
    ws: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tablerag.errors import EngineError
    from tablerag.llm.testing import FunctionLLM
    from tests.api.conftest import settings
    from tests.api.test_errors import _sleepy

    rt = Runtime.open(
        ws, settings=settings(answer_max_seconds=1.0), llm=FunctionLLM(_sleepy), watch=False
    )

    def down(self: object, sql: str, policy: object = None) -> None:
        raise EngineError("The database closed the connection; check that it is running.")

    async def work(client: Client) -> tuple[Any, Any, Any]:
        slow = await client.call_tool("ask", {"question": "How many refunds are there?"})
        monkeypatch.setattr("tablerag.sql.engines.base.SQLEngine.execute", down)
        gone = await client.call_tool("run_sql", {"sql": REFUNDS_SQL})
        tables = await client.call_tool("list_tables", {})
        return slow, gone, tables

    try:
        slow, gone, tables = run(build(rt), work)
    finally:
        rt.close()
    assert slow.is_error and "time limit (1 s) ran out" in text(slow)
    assert slow.structured_content["budget_exhausted"] == "seconds"
    assert gone.is_error and "check that it is running" in text(gone)
    assert not tables.is_error  # the server lives on


def test_tool_descriptions_read_as_written(runtime: Runtime) -> None:
    tools = run(build(runtime), lambda c: c.list_tools()).tools
    for tool in tools:
        assert "\n    " not in tool.description, tool.description  # no docstring indentation
