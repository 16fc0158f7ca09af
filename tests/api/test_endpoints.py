"""Every endpoint of the API answers with the shape /docs promises (FastAPI's test client)."""

from __future__ import annotations

import re
from pathlib import Path

from fastapi.testclient import TestClient

from tablerag.answer import Answer
from tablerag.runtime import Runtime
from tablerag.store import querylog


def test_healthz_says_ready_with_the_generation_and_model(client: TestClient) -> None:
    r = client.get("/healthz")
    assert r.status_code == 200
    assert r.json() | {"version": "x"} == {
        "status": "ok",
        "version": "x",
        "generation": 1,
        "model": "function:function",
        "active": 0,
        "waiting": 0,
    }


def test_ask_returns_the_cli_envelope_with_an_id(client: TestClient) -> None:
    r = client.post("/v1/ask", json={"question": "How many refunds are there?"})
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["status"] == "ok" and body["path"] == "nl2sql"
    assert body["table"]["rows"] == [[152]]
    assert len(body["id"]) == 32 and body["llm"]["calls"] == 1
    # the CLI's --json envelope, plus its id and the chart of its rows
    assert set(body) == set(Answer.model_fields) | {"id", "chart"}
    assert r.headers["x-request-id"]


def test_ask_takes_session_and_today_and_logs_them(client: TestClient, ws: Path) -> None:
    r = client.post(
        "/v1/ask",
        json={"question": "How many refunds are there?", "session": "s1", "today": "2026-11-15"},
    )
    assert r.status_code == 200
    entry = querylog.get(ws, r.json()["id"])
    assert entry is not None
    assert (entry.session, entry.origin, entry.status, entry.path) == ("s1", "api", "ok", "nl2sql")
    assert entry.tables == ["fact_refund"] and entry.row_count == 1
    assert entry.sql_attempts[0]["sql"].startswith("SELECT COUNT(*)")
    assert entry.intent == "data" and entry.confidence is not None
    assert entry.llm_calls == 1 and entry.prompt_tokens > 0
    assert {"routing", "total"} <= set(entry.timings_ms)


def test_sql_runs_through_the_gate(client: TestClient) -> None:
    r = client.post("/v1/sql", json={"sql": "SELECT count(*) AS n FROM fact_refund"})
    assert r.status_code == 200
    body = r.json()
    assert body["rows"] == [[152]] and body["columns"] == ["n"] and body["source"] == "files"
    assert "LIMIT" in body["sql"]


def test_search_returns_passages(client: TestClient) -> None:
    r = client.get("/v1/search", params={"q": "refund policy damaged goods", "k": 3})
    assert r.status_code == 200
    hits = r.json()
    assert 1 <= len(hits) <= 3
    assert {"chunk_id", "source", "heading_path", "page", "table", "score", "text"} == set(hits[0])


def test_tables_and_one_table(client: TestClient) -> None:
    listed = client.get("/v1/tables").json()
    names = {t["name"] for t in listed}
    assert {"fact_refund", "fact_sales", "dim_region"} <= names
    assert all(t["columns"] is None for t in listed)
    one = client.get("/v1/tables/FACT_REFUND")
    assert one.status_code == 200
    assert one.json()["name"] == "fact_refund" and one.json()["columns"]


def test_sources(client: TestClient) -> None:
    r = client.get("/v1/sources")
    assert r.status_code == 200
    formats = {s["format"] for s in r.json()}
    assert "csv" in formats and len(r.json()) >= 10


def test_feedback_is_stored_with_the_answer(client: TestClient, ws: Path) -> None:
    answer_id = client.post("/v1/ask", json={"question": "How many refunds are there?"}).json()[
        "id"
    ]
    r = client.post(
        "/v1/feedback",
        json={"answer_id": answer_id, "rating": "not_in_data", "comment": "no such metric"},
    )
    assert r.status_code == 201 and r.json() == {"answer_id": answer_id, "rating": "not_in_data"}
    entry = querylog.get(ws, answer_id)
    assert entry is not None
    assert [(f["rating"], f["comment"]) for f in entry.feedback] == [
        ("not_in_data", "no such metric")
    ]


def test_history_newest_first_and_by_session(client: TestClient) -> None:
    for n, session in enumerate(("a", "b", "a")):
        client.post(
            "/v1/ask", json={"question": f"How many refunds are there? {n}", "session": session}
        )
    history = client.get("/v1/history").json()
    assert [h["question"][-1] for h in history] == ["2", "1", "0"]
    only_a = client.get("/v1/history", params={"session": "a"}).json()
    assert [h["session"] for h in only_a] == ["a", "a"]


def test_openapi_documents_every_endpoint(client: TestClient) -> None:
    assert client.get("/docs").status_code == 200
    paths = set(client.get("/openapi.json").json()["paths"])
    assert paths == {
        "/healthz",
        "/v1/ask",
        "/v1/sql",
        "/v1/search",
        "/v1/tables",
        "/v1/tables/{name}",
        "/v1/sources",
        "/v1/feedback",
        "/v1/history",
        "/v1/answers/{answer_id}/chart.svg",
    }


def test_requests_get_their_own_usage(runtime: Runtime) -> None:
    """Two requests on one model: each answer counts its own calls, not the other's."""
    from concurrent.futures import ThreadPoolExecutor

    runtime.admission.slots = 2
    with ThreadPoolExecutor(2) as pool:
        answers = list(
            pool.map(
                lambda q: runtime.ask(runtime.request(q)),
                ["How many refunds are there?", "How many refunds are there in total?"],
            )
        )
    assert [a.llm.calls for a in answers] == [1, 1]
    assert runtime.llm.usage.calls == 2


def test_the_api_reference_loads_nothing_from_elsewhere(client: TestClient) -> None:
    for page in ("/docs", "/redoc"):
        html = client.get(page)
        assert html.status_code == 200
        assets = re.findall(r"""(?:src|href)=['"]([^'"]+)['"]""", html.text)
        assert assets and all(a.startswith("/") for a in assets), assets
        for asset in assets:
            assert client.get(asset).status_code == 200, asset
