"""The event stream of POST /v1/ask on a real uvicorn server on loopback: the events in order,
the envelope at the end, and a client that leaves mid-stream (its request is cancelled and
logged as such; the server keeps serving)."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import httpx
import pytest

from tablerag.llm.base import Message
from tablerag.llm.testing import FunctionLLM
from tablerag.runtime import Runtime
from tablerag.store import querylog
from tests.api.conftest import reply, serving, settings


@pytest.fixture
def release() -> threading.Event:
    return threading.Event()


@pytest.fixture
def server(ws: Path, release: threading.Event) -> Iterator[tuple[str, Runtime, FunctionLLM]]:
    """A server whose model waits for ``release`` when a question mentions 'slow'."""

    def model(messages: Sequence[Message]) -> str:
        if "slow" in messages[-1]["content"]:
            release.wait(10)
        return reply(messages)

    llm = FunctionLLM(model)
    rt = Runtime.open(ws, settings=settings(), llm=llm, watch=False)
    try:
        with serving(rt) as url:
            yield url, rt, llm
            release.set()
    finally:
        rt.close()


def _events(lines: Iterator[str]) -> Iterator[tuple[str, dict[str, Any]]]:
    kind = ""
    for line in lines:
        if line.startswith("event: "):
            kind = line.removeprefix("event: ")
        elif line.startswith("data: "):
            yield kind, json.loads(line.removeprefix("data: "))


def test_the_stream_shows_the_work_then_the_envelope(
    server: tuple[str, Runtime, FunctionLLM],
) -> None:
    url, _, _ = server
    with httpx.stream(
        "POST",
        f"{url}/v1/ask",
        json={"question": "How many refunds are there?"},
        headers={"Accept": "text/event-stream"},
        timeout=30,
    ) as r:
        assert r.status_code == 200
        assert r.headers["content-type"].startswith("text/event-stream")
        events = list(_events(r.iter_lines()))
    kinds = [k for k, _ in events]
    assert kinds[:2] == ["started", "route"]
    assert kinds.index("retrieval") < kinds.index("model") < kinds.index("sql")
    assert kinds[-1] == "answer" and kinds.count("answer") == 1
    times = [d["at_ms"] for k, d in events if k != "answer"]
    assert times == sorted(times)
    final = events[-1][1]
    assert final["status"] == "ok" and final["table"]["rows"] == [[152]] and final["id"]
    route = dict(events)["route"]
    assert route["intent"] == "data" and 0 < route["confidence"] <= 1
    sql = dict(events)["sql"]
    assert sql["sql"].startswith("SELECT COUNT(*)") and sql["error"] is None


def test_a_client_that_leaves_mid_stream_cancels_its_request(
    server: tuple[str, Runtime, FunctionLLM], release: threading.Event
) -> None:
    url, rt, llm = server
    with httpx.stream(
        "POST",
        f"{url}/v1/ask",
        json={"question": "How many refunds are there, slow please?"},
        headers={"Accept": "text/event-stream"},
        timeout=30,
    ) as r:
        first = next(_events(r.iter_lines()))
        assert first[0] == "started"
    # the client is gone while the model still works on its first call
    time.sleep(0.3)
    release.set()
    until = time.monotonic() + 10
    entries: list[querylog.Entry] = []
    while time.monotonic() < until:
        entries = querylog.entries(rt.path)
        if entries:
            break
        time.sleep(0.05)
    assert [e.status for e in entries] == ["cancelled"]
    assert entries[0].llm_calls <= 1  # no model call after the client left
    after = httpx.post(
        f"{url}/v1/ask", json={"question": "How many refunds are there?"}, timeout=30
    )
    assert after.status_code == 200 and after.json()["status"] == "ok"
    assert httpx.get(f"{url}/healthz", timeout=5).json()["active"] == 0
