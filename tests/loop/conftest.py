"""A tiny tables + text workspace and a model double that answers by prompt kind."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

import pytest

from tablerag.llm.base import Message
from tablerag.llm.testing import Truncated
from tablerag.service import Workspace
from tablerag.settings import Settings

REVENUE_CSV = """segment,year,revenue
Cloud,2018,1200.5
Cloud,2019,1452.4
Devices,2018,800
Devices,2019,760.2
"""
REPORT_MD = """# Annual report

## Cloud

Cloud revenue grew strongly in 2019, driven by new enterprise customers in Europe.

## Devices

Devices revenue fell in 2019 because of weaker consumer demand and supply shortages.

## Outlook

The board expects the cloud segment to keep growing and plans two new data centres.
"""


@pytest.fixture(scope="session")
def loop_ws(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A workspace with one revenue table and one report, ingested with the hashing embedder."""
    root = tmp_path_factory.mktemp("loop")
    src = root / "src"
    src.mkdir()
    (src / "revenue.csv").write_text(REVENUE_CSV, encoding="utf-8")
    (src / "report.md").write_text(REPORT_MD, encoding="utf-8")
    with Workspace.open(root / "ws") as ws:
        reports = ws.ingest([src], settings=Settings(embedder="hashing"))
    assert all(r.status != "failed" for r in reports)
    return root / "ws"


Reply = str | Truncated | Callable[[str], str | Truncated]


def kind_of(messages: Sequence[Message]) -> str:
    """Which prompt a request is: decompose, sql, repair, passages, direct."""
    system = messages[0]["content"] if messages[0]["role"] == "system" else ""
    last = messages[-1]["content"]
    if "The query failed" in last:
        return "repair"
    if system.startswith("You answer a question about an organisation's tables"):
        return "decompose"
    if "SELECT query" in system:
        return "sql"
    if "numbered passages" in system:
        return "passages"
    return "other"


class ByKind:
    """``FunctionLLM`` body: a queue of replies per prompt kind (the last one repeats)."""

    def __init__(self, **replies: Sequence[Reply] | Reply) -> None:
        self.queues: dict[str, list[Reply]] = {
            k: list(v) if isinstance(v, list | tuple) else [v] for k, v in replies.items()
        }
        self.seen: list[str] = []

    def __call__(self, messages: Sequence[Message]) -> str | Truncated:
        kind = kind_of(messages)
        self.seen.append(kind)
        queue = self.queues.get(kind) or self.queues.get("sql" if kind == "repair" else "", [])
        if not queue:
            raise AssertionError(f"no scripted reply for a {kind!r} prompt")
        reply = queue.pop(0) if len(queue) > 1 else queue[0]
        return reply(messages[-1]["content"]) if callable(reply) else reply
