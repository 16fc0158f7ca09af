"""Conversations over HTTP and MCP: ``session`` in ``POST /v1/ask`` and in the MCP ``ask`` tool
take the same path as ``tablerag ask --session`` (the runtime's ``QA.answer``); the turns live
in the workspace, not in the server's copy of it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from mcp import Client

from tablerag.api.mcp import build
from tablerag.llm.testing import FunctionLLM
from tablerag.runtime import Runtime
from tablerag.store import querylog, sessions
from tests.api.test_mcp import run
from tests.conversation.helpers import reply

FIRST, FOLLOW_UP = "How many refunds are there in total?", "and for reason R02?"
STANDALONE = "How many refunds are there for reason R02?"


@pytest.fixture
def llm() -> FunctionLLM:
    return FunctionLLM(reply)


def test_a_follow_up_over_http_is_resolved_and_kept_in_the_workspace(
    client: TestClient, runtime: Runtime, ws: Path
) -> None:
    one = client.post("/v1/ask", json={"question": FIRST, "session": "api-1"})
    two = client.post("/v1/ask", json={"question": FOLLOW_UP, "session": "api-1"})
    assert one.status_code == two.status_code == 200
    body = two.json()
    assert body["question"] == FOLLOW_UP and body["standalone_question"] == STANDALONE
    assert "reason_code = 'R02'" in body["sql"]
    with runtime.use() as gen:
        assert gen.folder != ws  # answered from a copy ...
    found = sessions.get(ws, "api-1")  # ... the conversation is in the workspace itself
    assert found is not None
    assert [t.answer_id for t in found.turns] == [one.json()["id"], body["id"]]
    entry = querylog.get(ws, body["id"])
    assert entry is not None and entry.session == "api-1" and entry.question == FOLLOW_UP


def test_another_session_does_not_see_the_first_ones_turns(client: TestClient) -> None:
    client.post("/v1/ask", json={"question": FIRST, "session": "api-1"})
    other = client.post("/v1/ask", json={"question": "那个呢", "session": "api-2"})
    assert other.status_code == 200
    assert other.json()["status"] == "clarify" and other.json()["standalone_question"] is None


def test_an_unusable_session_id_is_a_client_error_with_the_fix(client: TestClient) -> None:
    r = client.post("/v1/ask", json={"question": FIRST, "session": "two words"})
    assert r.status_code == 422 and r.json()["error"]["code"] == "invalid_request"
    assert "session" in r.text


def test_the_mcp_ask_tool_takes_the_same_session(runtime: Runtime, ws: Path) -> None:
    async def work(client: Client) -> tuple[Any, Any]:
        one = await client.call_tool("ask", {"question": FIRST, "session": "mcp-1"})
        two = await client.call_tool("ask", {"question": FOLLOW_UP, "session": "mcp-1"})
        return one, two

    one, two = run(build(runtime), work)
    assert not two.is_error
    assert two.structured_content["standalone_question"] == STANDALONE
    found = sessions.get(ws, "mcp-1")
    assert found is not None and found.origin == "mcp"
    assert [t.answer_id for t in found.turns] == [
        one.structured_content["id"],
        two.structured_content["id"],
    ]


def test_an_unusable_session_id_is_an_mcp_tool_error_and_the_next_call_is_answered(
    runtime: Runtime,
) -> None:
    async def work(client: Client) -> tuple[Any, Any]:
        bad = await client.call_tool("ask", {"question": FIRST, "session": "two words"})
        good = await client.call_tool("ask", {"question": FIRST, "session": "mcp-ok"})
        return bad, good

    bad, good = run(build(runtime), work)
    assert bad.is_error and "letters, digits" in bad.content[0].text
    assert not good.is_error
