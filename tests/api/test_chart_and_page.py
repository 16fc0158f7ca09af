"""The chart of an answer (the envelope's ``chart`` and ``GET /v1/answers/{id}/chart.svg``) and
the web page's files: served by the app itself, with a policy that loads nothing from elsewhere."""

from __future__ import annotations

from fastapi.testclient import TestClient

from tablerag.answer import Answer, ResultTable
from tablerag.api.charts import ChartStore
from tablerag.runtime import Runtime
from tests.api.conftest import client_for


def test_an_answer_carries_its_chart_and_the_server_draws_it(client: TestClient) -> None:
    answer = client.post("/v1/ask", json={"question": "How many refunds are there?"}).json()
    chart = answer["chart"]
    assert chart["kind"] == "number" and chart["reason"] == "single_number"
    assert chart["spec"]["data"]["values"] == [{"y": 152}]
    assert chart["svg"] == f"/v1/answers/{answer['id']}/chart.svg"
    r = client.get(chart["svg"])
    assert r.status_code == 200 and r.headers["content-type"] == "image/svg+xml"
    assert r.text.startswith("<svg") and "152" in r.text
    assert "default-src 'none'" in r.headers["content-security-policy"]


def test_a_document_answer_has_no_chart(client: TestClient) -> None:
    answer = client.post("/v1/ask", json={"question": "What is the refund policy?"}).json()
    assert answer["table"] is None
    assert answer["chart"] == {"kind": None, "reason": "empty", "spec": None, "svg": None}


def test_an_unknown_chart_is_a_404_in_the_error_shape(client: TestClient) -> None:
    r = client.get("/v1/answers/nope/chart.svg")
    assert r.status_code == 404
    body = r.json()
    assert (
        body["error"]["code"] == "not_found"
        and "ask the question again" in body["error"]["message"]
    )


def test_a_chart_is_only_shown_to_the_token_that_asked() -> None:
    store = ChartStore(keep=2)
    answer = Answer(
        question="q", answer="a", language="en", path="nl2sql",
        table=ResultTable(columns=["r", "n"], rows=[["a", 1], ["b", 2]], row_count=2),
    )  # fmt: skip
    assert store.chart("one", answer, "token-1")["kind"] == "bar"
    assert store.svg("one", "token-2") is None
    assert (store.svg("one", "token-1") or "").startswith("<svg")
    store.chart("two", answer, "token-1")
    store.chart("three", answer, "token-1")
    assert store.svg("one", "token-1") is None  # only the last two are kept


def test_a_table_cut_short_gets_no_chart() -> None:
    answer = Answer(
        question="q", answer="a", language="en", path="nl2sql",
        table=ResultTable(columns=["r", "n"], rows=[["a", 1], ["b", 2]], row_count=5),
    )  # fmt: skip
    chart = ChartStore().chart("x", answer, None)
    assert chart["kind"] is None and chart["reason"] == "partial_rows"


def test_the_page_and_its_files_are_served_without_a_token(runtime: Runtime) -> None:
    with client_for(runtime, require_token=True) as c:
        page = c.get("/")
        assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
        assert '<script type="module" src="static/app.js">' in page.text
        policy = page.headers["content-security-policy"]
        assert "default-src 'self'" in policy and "http" not in policy
        for name in ("app.js", "api.js", "render.js", "i18n.js", "style.css"):
            r = c.get(f"/static/{name}")
            assert r.status_code == 200, name
            assert "http://" not in r.text and "https://" not in r.text, name  # no CDN
        assert c.get("/v1/tables").status_code == 401  # the data still needs the token
        assert "/" not in c.get("/openapi.json").json()["paths"]
