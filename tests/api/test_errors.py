"""Every error status the API gives, in its one JSON shape, with no traceback (datasette's
``test_error_shape``); the service keeps serving after each."""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from httpx import Response

from tablerag.errors import EngineError, QueryTimeout
from tablerag.llm.base import Message
from tablerag.llm.testing import FunctionLLM
from tablerag.request import Request
from tablerag.runtime import Runtime
from tablerag.service import Workspace
from tablerag.settings import Settings
from tablerag.sources import SourceSet
from tests.api.conftest import client_for, settings


def shape(r: Response, status: int, code: str) -> dict[str, Any]:
    """Check the one error shape; returns the ``error`` object."""
    assert r.status_code == status, r.text
    body = r.json()
    assert set(body) == {"error", "request_id"}
    error = body["error"]
    assert set(error) == {"status", "code", "message", "detail"}
    assert (error["status"], error["code"]) == (status, code)
    assert len(error["message"]) > 20
    assert "Traceback" not in r.text and 'File "' not in r.text
    return dict(error)


def still_serving(client: TestClient) -> None:
    assert client.get("/healthz").status_code == 200
    assert (
        client.post("/v1/ask", json={"question": "How many refunds are there?"}).json()["status"]
        == "ok"
    )


def test_invalid_json_is_400(client: TestClient) -> None:
    r = client.post(
        "/v1/ask", content=b'{"question": ', headers={"content-type": "application/json"}
    )
    shape(r, 400, "invalid_json")
    still_serving(client)


@pytest.mark.parametrize(
    ("path", "method"),
    [("/v1/nothing", "get"), ("/v2/ask", "post"), ("/v1/tables/no_such_table", "get")],
)
def test_unknown_things_are_404(client: TestClient, path: str, method: str) -> None:
    shape(getattr(client, method)(path), 404, "not_found")


def test_unknown_table_suggests_the_closest(client: TestClient) -> None:
    error = shape(client.get("/v1/tables/fact_refnd"), 404, "not_found")
    assert "Did you mean 'fact_refund'?" in error["message"]


def test_feedback_on_an_unknown_answer_is_404(client: TestClient) -> None:
    shape(
        client.post("/v1/feedback", json={"answer_id": "nope", "rating": "right"}), 404, "not_found"
    )


def test_search_without_an_index_is_409(tmp_path: Path, llm: FunctionLLM) -> None:
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "t.csv").write_text("a,b\n1,2\n", encoding="utf-8")
    with Workspace.open(tmp_path / "ws") as ws:
        ws.ingest([tmp_path / "in" / "t.csv"], settings=Settings(index_on_ingest=False))
    rt = Runtime.open(tmp_path / "ws", settings=settings(), llm=llm, watch=False)
    try:
        with client_for(rt) as client:
            shape(client.get("/v1/search", params={"q": "anything"}), 409, "index_unavailable")
            assert client.get("/v1/tables").status_code == 200
    finally:
        rt.close()


def test_a_200_kb_question_is_413_before_any_work(client: TestClient, llm: FunctionLLM) -> None:
    error = shape(client.post("/v1/ask", json={"question": "x" * 200_000}), 413, "too_large")
    assert "4000" in error["message"] and llm.history == []


def test_a_body_over_a_megabyte_is_413(client: TestClient) -> None:
    r = client.post(
        "/v1/sql",
        content=b"{" + b" " * (1 << 20) + b"}",
        headers={"content-type": "application/json"},
    )
    shape(r, 413, "too_large")


@pytest.mark.parametrize(
    "body",
    [{}, {"question": 3}, {"question": "q", "today": "yesterday"}, {"question": "q", "extra": 1}],
)
def test_wrong_fields_are_422(client: TestClient, body: dict[str, Any]) -> None:
    error = shape(client.post("/v1/ask", json=body), 422, "invalid_request")
    assert error["detail"]["fields"]


def test_an_empty_question_is_422(client: TestClient, llm: FunctionLLM) -> None:
    shape(client.post("/v1/ask", json={"question": "  \n "}), 422, "empty_question")
    assert llm.history == []


@pytest.mark.parametrize(
    "sql",
    [
        "DELETE FROM fact_refund",
        "INSERT INTO fact_refund SELECT * FROM fact_refund",
        "SELECT * FROM read_csv('/etc/passwd')",
        "COPY fact_refund TO '/tmp/out.csv'",
        "ATTACH '/tmp/x.db' AS x",
        "SELECT 1; DROP TABLE fact_refund",
    ],
)
def test_sql_that_writes_or_reads_files_is_422(client: TestClient, sql: str) -> None:
    error = shape(client.post("/v1/sql", json={"sql": sql}), 422, "sql_rejected")
    assert error["detail"]["issues"] and error["detail"]["issues"][0]["code"]
    assert client.post("/v1/sql", json={"sql": "SELECT count(*) FROM fact_refund"}).json()[
        "rows"
    ] == [[152]]


def test_sql_the_engine_refuses_is_422(client: TestClient) -> None:
    r = client.post("/v1/sql", json={"sql": "SELECT CAST('abc' AS INTEGER) AS n"})
    shape(r, 422, "query_failed")


def test_a_query_past_its_time_limit_is_504(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    def slow(self: object, sql: str, policy: object = None) -> None:
        raise QueryTimeout(
            "The query ran past its 10000 ms limit; aggregate or filter it.", time_limit_ms=10_000
        )

    monkeypatch.setattr("tablerag.sql.engines.base.SQLEngine.execute", slow)
    error = shape(client.post("/v1/sql", json={"sql": "SELECT 1"}), 504, "timeout")
    assert error["detail"] == {"time_limit_ms": 10_000}


def test_a_database_that_is_down_is_503(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    def down(self: object, sql: str, policy: object = None) -> None:
        raise EngineError("The database closed the connection; check that it is running.")

    monkeypatch.setattr("tablerag.sql.engines.base.SQLEngine.execute", down)
    shape(client.post("/v1/sql", json={"sql": "SELECT 1"}), 503, "database_unavailable")


def test_a_database_that_cannot_be_reached_is_503(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tablerag.errors import ConfigError

    def unreachable(self: SourceSet, source: object) -> None:
        raise ConfigError("Cannot reach the database at 127.0.0.1:1; is it running?")

    monkeypatch.setattr(SourceSet, "engine", unreachable)
    shape(
        client.post("/v1/sql", json={"sql": "SELECT 1 FROM fact_refund"}),
        503,
        "database_unavailable",
    )


def test_a_full_queue_is_503_with_retry_after(client: TestClient, runtime: Runtime) -> None:
    runtime.admission.queue_max = 0
    with runtime.admission.enter(Request.make("holding the only slot", max_seconds=5)):
        for headers in ({}, {"Accept": "text/event-stream"}):
            r = client.post("/v1/ask", json={"question": "How many refunds?"}, headers=headers)
            error = shape(r, 503, "busy")
            assert r.headers["retry-after"] == "5" and error["detail"]["retry_after_s"] == 5
    still_serving(client)


def _sleepy(messages: Sequence[Message]) -> str:
    time.sleep(1.5)
    return "```sql\nSELECT 1\n```"


def test_a_model_past_the_question_deadline_is_504(ws: Path) -> None:
    rt = Runtime.open(
        ws, settings=settings(answer_max_seconds=1.0), llm=FunctionLLM(_sleepy), watch=False
    )
    try:
        with client_for(rt) as client:
            error = shape(
                client.post("/v1/ask", json={"question": "How many refunds are there?"}),
                504,
                "timeout",
            )
            assert error["detail"]["answer"]["budget_exhausted"] == "seconds"
            assert error["detail"]["answer"]["id"]
    finally:
        rt.close()


def test_a_model_that_returns_garbage_gives_an_envelope_that_says_so(ws: Path) -> None:
    """No SQL in any reply: the data path fails, says why, and the service keeps serving."""
    garbage = FunctionLLM(lambda m: "\x00\x01 ]]} no sql here")
    rt = Runtime.open(ws, settings=settings(), llm=garbage, watch=False)
    try:
        with client_for(rt) as client:
            r = client.post("/v1/ask", json={"question": "How many refunds are there?"})
            assert r.status_code == 200
            body = r.json()
            assert body["sql_attempts"] and all(a["error"] for a in body["sql_attempts"])
            assert body["fallback"]["from_status"] == "error"
            assert client.get("/healthz").status_code == 200
    finally:
        rt.close()


def test_an_internal_error_is_500_without_its_text(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("secret-internal-detail")

    monkeypatch.setattr("tablerag.service.QA.search", broken)
    r = client.get("/v1/search", params={"q": "refund"})
    error = shape(r, 500, "internal")
    assert "secret-internal-detail" not in r.text and error["detail"]["reference"]
    monkeypatch.undo()
    still_serving(client)
