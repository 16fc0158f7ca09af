"""Fixtures of the API tests: a copy of the sample workspace, a runtime on a scripted model, and
FastAPI's test client (the event-stream and disconnect tests start a real uvicorn on loopback)."""

from __future__ import annotations

import shutil
import socket
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

import pytest
import uvicorn
from fastapi.testclient import TestClient

from tablerag.api.access import Access
from tablerag.api.app import create_app
from tablerag.llm.base import Message
from tablerag.llm.testing import FunctionLLM
from tablerag.runtime import Runtime
from tablerag.settings import Settings
from tests.plugins.answering import build_sample_workspace

REFUNDS_SQL = "SELECT count(*) AS refunds FROM fact_refund"


def reply(messages: Sequence[Message]) -> str:
    """The scripted model: SQL for the data path, a cited sentence for the documents."""
    system = messages[0]["content"]
    if "SELECT" in system:
        return f"```sql\n{REFUNDS_SQL}\n```"
    if "numbered passages" in system:
        return "Damaged goods are refunded in part or in full [1]."
    return "There are 152 refunds."


@pytest.fixture(scope="session")
def sample_ws_master(sample_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_sample_workspace(sample_dir, tmp_path_factory.mktemp("api") / "ws")


@pytest.fixture
def ws(sample_ws_master: Path, tmp_path: Path) -> Path:
    """A fresh copy of the sample workspace (tests write its log and ingest into it)."""
    target = tmp_path / "ws"
    shutil.copytree(sample_ws_master, target, ignore=shutil.ignore_patterns("service.sqlite*"))
    return target


@pytest.fixture
def llm() -> FunctionLLM:
    return FunctionLLM(reply)


def settings(**fields: object) -> Settings:
    """The test settings: hashing embedder, a fast refresh."""
    return Settings(embedder="hashing", serve_refresh_s=0.05, **fields)  # type: ignore[arg-type]


@pytest.fixture
def runtime(ws: Path, llm: FunctionLLM) -> Iterator[Runtime]:
    rt = Runtime.open(ws, settings=settings(), llm=llm, watch=False)
    yield rt
    rt.close()


def client_for(runtime: Runtime, *, require_token: bool = False, rate: int = 60) -> TestClient:
    access = Access(runtime.path, require_token=require_token, rate_per_minute=rate)
    return TestClient(create_app(runtime, access=access), raise_server_exceptions=False)


@pytest.fixture
def client(runtime: Runtime) -> Iterator[TestClient]:
    with client_for(runtime) as c:
        yield c


def free_port() -> int:
    """A TCP port nothing listens on, on loopback."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def serving(rt: Runtime, *, require_token: bool = False) -> Iterator[str]:
    """``tablerag serve``'s app over ``rt`` on a free loopback port, in a thread (a real
    uvicorn server); yields its URL."""
    port = free_port()
    access = Access(rt.path, require_token=require_token, rate_per_minute=600)
    srv = uvicorn.Server(
        uvicorn.Config(create_app(rt, access=access), host="127.0.0.1", port=port,
                       log_level="error")
    )  # fmt: skip
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    until = time.monotonic() + 15
    while not srv.started and time.monotonic() < until:
        time.sleep(0.02)
    assert srv.started
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        srv.should_exit = True
        thread.join(10)
