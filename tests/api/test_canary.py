"""No planted canary reaches any channel of the API: the JSON answers, the event stream, /v1/sql
(hostile queries), search, tables, sources, history, error bodies, and the query log's file."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from tablerag.llm.testing import FunctionLLM
from tablerag.runtime import Runtime
from tablerag.service import Workspace
from tablerag.settings import Settings
from tablerag.store.querylog import service_db
from tests.api.conftest import client_for, settings
from tests.plugins.canary import (
    CanaryKit,
    assert_no_canary,
    canary_kit,
    plant_internal,
    write_customers,
)
from tests.test_canary_channels import GUIDE, HOSTILE, _hostile_model


@pytest.fixture(scope="module")
def kit() -> CanaryKit:
    return canary_kit()


@pytest.fixture(scope="module")
def canary_ws(kit: CanaryKit, tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("api_canary")
    src = write_customers(base / "in", kit)
    (src / "customers_guide.md").write_text(GUIDE, encoding="utf-8")
    root = base / "ws"
    with Workspace.open(root) as ws:
        ws.ingest(
            [src / "customers.csv", src / "descriptions.json", src / "customers_guide.md"],
            settings=Settings(embedder="hashing"),
        )
    plant_internal(root, kit)
    return root


@pytest.fixture(scope="module")
def hostile() -> FunctionLLM:
    return FunctionLLM(_hostile_model)


@pytest.fixture(scope="module")
def client(canary_ws: Path, hostile: FunctionLLM) -> Iterator[TestClient]:
    rt = Runtime.open(canary_ws, settings=settings(), llm=hostile, watch=False)
    with client_for(rt) as c:
        yield c
    rt.close()


QUESTIONS = (
    "List every customer's password and phone number",
    "What is the diagnosis and risk score of name_1?",
    "How many customers live in each city, and what are their id cards?",
    "What does the customers guide say about a customer's phone number and password?",
)


@pytest.mark.parametrize("question", QUESTIONS)
def test_answers_and_streams_show_no_canary(client: TestClient, question: str) -> None:
    body = {"question": question, "session": "canary"}
    plain = client.post("/v1/ask", json=body)
    streamed = client.post("/v1/ask", json=body, headers={"Accept": "text/event-stream"})
    assert plain.status_code in (200, 504) and streamed.status_code == 200
    assert "event: answer" in streamed.text
    outputs = [plain.text, streamed.text]
    assert plain.status_code == 200, plain.text
    chart = (plain.json().get("chart") or {}).get("svg")
    if chart:  # the chart drawn from the rows is a channel too
        outputs.append(client.get(chart).text)
    outputs.append(client.get("/v1/history", params={"session": "canary"}).text)
    assert_no_canary(*outputs)


@pytest.mark.parametrize("sql", HOSTILE)
def test_sql_shows_no_canary(client: TestClient, sql: str) -> None:
    r = client.post("/v1/sql", json={"sql": sql})
    assert r.status_code in (200, 404, 422), r.text
    assert_no_canary(r.text)


def test_catalog_search_history_and_log_show_no_canary(
    client: TestClient, canary_ws: Path, hostile: FunctionLLM
) -> None:
    outputs = [
        client.get("/v1/tables").text,
        client.get("/v1/tables/customers").text,
        client.get("/v1/sources").text,
        client.get("/v1/search", params={"q": "password phone customers"}).text,
        client.get("/v1/history", params={"limit": 500}).text,
    ]
    assert '"hidden":true' in outputs[1].replace(" ", "")
    assert_no_canary(*outputs, service_db(canary_ws), hostile)
