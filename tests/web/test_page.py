"""The web page in a real headless chromium against a real server on loopback: ask a data
question, a document question and a mixed one; watch the steps; see the table, the chart and
the citations; open and copy the SQL; give feedback and find it in ``tablerag log``; switch the
language; ask through ``/?q=``; see markup in a cell and in a passage shown as text."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from typer.testing import CliRunner

from tablerag.cli import app as cli
from tablerag.runtime import Runtime
from tablerag.store import tokens
from tests.web.conftest import CANARY_CELL, MAX_QUESTION_CHARS

pytestmark = pytest.mark.browser

LAPTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}
REGION = "What were net sales by region?"
DOCUMENT = "What is the refund policy for damaged goods?"
MIXED = (
    "Give the total refund amount by category for Q2, then explain how a faulty phone is tested."
)


@pytest.fixture
def page(browser: Any, web_server: tuple[str, Runtime]) -> Any:
    context = browser.new_context(viewport=LAPTOP, locale="en-US")
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=web_server[0])
    p = context.new_page()
    dialogs: list[str] = []
    p.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    p.dialogs = dialogs
    yield p
    context.close()


def _open(page: Any, url: str) -> None:
    page.goto(url)
    page.wait_for_selector("body[data-ready=true]")


def _ask(page: Any, question: str) -> Any:
    """Type ``question``, press Enter, and return the newest answer once it is done."""
    before = page.locator("#answers article").count()
    page.fill("#q", question)
    page.press("#q", "Enter")
    return _newest(page, before + 1)


def _newest(page: Any, count: int) -> Any:
    page.wait_for_function(
        "n => document.querySelectorAll('#answers article').length >= n", arg=count
    )
    article = page.locator("#answers article").first
    article.locator(".status, .problem").first.wait_for(timeout=30_000)
    return article


def _shot(page: Any, artefacts: Path, name: str) -> None:
    page.screenshot(path=str(artefacts / f"{name}.png"), full_page=True)


def test_a_data_question_shows_steps_table_chart_and_sql(
    page: Any, web_server: tuple[str, Runtime], artefacts: Path
) -> None:
    _open(page, web_server[0])
    answer = _ask(page, REGION)
    steps = answer.locator(".steps-list li").all_text_contents()
    assert any(s.startswith("Route: data") for s in steps), steps
    assert any(s.startswith("Read the tables of") for s in steps), steps
    assert any(s.startswith("SQL ran") for s in steps), steps
    # collapsed once answered; opened by the reader, it stays open through redraws (a sort)
    assert answer.locator("details.steps").get_attribute("open") is None
    answer.locator("details.steps summary").click()
    assert answer.locator(".status .badge").inner_text() == "ok"
    assert answer.locator(".src-sql").first.inner_text() == "From the database"
    headers = answer.locator("thead th").all_inner_texts()
    assert [h.strip(" ▲▼") for h in headers] == ["region_code", "net_sales"]
    rows = answer.locator("tbody tr").count()
    assert rows >= 3 and answer.locator(".table-tools .rows").inner_text() == f"{rows} rows"
    # sorted by the query (net_sales descending); one click sorts ascending, one more descending
    values = lambda: [float(v) for v in answer.locator("tbody td.num").all_inner_texts()]  # noqa: E731
    assert values() == sorted(values(), reverse=True)
    answer.locator("th button.sort").nth(1).click()
    assert values() == sorted(values())
    assert answer.locator("th").nth(1).get_attribute("aria-sort") == "ascending"
    assert answer.locator("details.steps").get_attribute("open") is not None
    # the chart: bars, drawn by the server as SVG, shown as an image
    img = answer.locator("img.chart-img")
    assert img.get_attribute("data-kind") == "bar"
    page.wait_for_function("i => i.complete && i.naturalWidth > 0", arg=img.element_handle())
    assert "net_sales" in img.get_attribute("alt")
    # CSV of the rows
    with page.expect_download() as download:
        answer.locator("button.csv").click()
    csv = Path(download.value.path()).read_text(encoding="utf-8-sig").splitlines()
    assert csv[0] == "region_code,net_sales" and len(csv) == rows + 1
    # the SQL: collapsed, opens, copies
    sql = answer.locator("details.sql")
    assert sql.get_attribute("open") is None
    sql.locator("summary").click()
    code = sql.locator("pre code").inner_text()
    assert "sum(net_amt)" in code.lower()
    sql.locator("button.copy").click()
    sql.locator(".copy-status").filter(has_text="Copied").wait_for()
    assert page.evaluate("navigator.clipboard.readText()") == code
    _shot(page, artefacts, "page-data-laptop")
    page.set_viewport_size(PHONE)  # the same answer on a phone: nothing wider than the screen
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    _shot(page, artefacts, "page-data-phone")


def test_a_document_question_shows_its_citations(
    page: Any, web_server: tuple[str, Runtime], artefacts: Path
) -> None:
    _open(page, web_server[0])
    answer = _ask(page, DOCUMENT)
    assert answer.locator(".status .badge").inner_text() == "ok"
    assert answer.locator("table").count() == 0 and answer.locator("figure").count() == 0
    assert answer.locator("details.sql").count() == 0
    first = answer.locator("#" + answer.locator("details.cite-detail").first.get_attribute("id"))
    assert first.get_attribute("open") is None
    answer.locator(".answer-text button.cite").first.click()  # "[1]" in the answer's text
    assert first.get_attribute("open") is not None
    facts = first.locator("dl").inner_text()
    assert "File" in facts and "Section" in facts
    assert first.locator("blockquote").inner_text().strip()
    label = answer.locator(".src-document").first.inner_text()
    assert label.startswith("From ") and label.endswith((".md", ".pdf", ".docx"))
    _shot(page, artefacts, "page-document-laptop")


def test_a_mixed_question_says_which_fact_came_from_where(
    page: Any, web_server: tuple[str, Runtime], artefacts: Path
) -> None:
    _open(page, web_server[0])
    answer = _ask(page, MIXED)
    # the scripted SQL counts rows where an amount was asked: unsure, and the reason comes first
    assert answer.locator(".status .badge").inner_text() == "unsure"
    assert answer.locator(".status").inner_text().endswith("Unsure — read why first")
    assert "may be wrong" in answer.locator(".answer-text").inner_text().splitlines()[0]
    labels = answer.locator(".facts .src").all_inner_texts()
    assert "From the database" in labels
    assert any(x.startswith("From ") and x != "From the database" for x in labels), labels
    assert answer.locator("img.chart-img").get_attribute("data-kind") == "number"
    _shot(page, artefacts, "page-mixed-laptop")


def test_feedback_lands_in_the_query_log(page: Any, web_server: tuple[str, Runtime]) -> None:
    url, rt = web_server
    _open(page, url)
    answer = _ask(page, "How many refunds are there?")
    answer.locator(".feedback textarea").fill("the count should exclude cancelled refunds")
    answer.locator("button.fb-wrong").click()
    status = answer.locator(".fb-status")
    status.filter(has_text="recorded").wait_for()
    assert answer.locator("button.fb-wrong").get_attribute("aria-pressed") == "true"
    out = CliRunner().invoke(cli, ["log", "-w", str(rt.path), "--json"])
    assert out.exit_code == 0, out.output
    logged = [e for e in json.loads(out.output) if e["question"] == "How many refunds are there?"]
    assert logged[0]["feedback"][-1]["rating"] == "wrong"
    assert logged[0]["feedback"][-1]["comment"] == "the count should exclude cancelled refunds"


def test_the_language_follows_the_browser_and_switches(
    browser: Any, web_server: tuple[str, Runtime], artefacts: Path
) -> None:
    context = browser.new_context(viewport=PHONE, locale="zh-CN")
    page = context.new_page()
    try:
        _open(page, web_server[0])
        assert page.locator("#go").inner_text() == "提问"
        assert page.evaluate("document.documentElement.lang") == "zh-CN"
        answer = _ask(page, "退款有多少笔？")
        assert answer.locator(".feedback h3").inner_text() == "这个答案对吗？"
        _shot(page, artefacts, "page-zh-phone")
        page.click("#lang")
        assert page.locator("#go").inner_text() == "Ask"
        assert answer.locator(".feedback h3").inner_text() == "Was this answer right?"
        _open(page, web_server[0])  # (a reload would ask the ?q= question again)
        assert page.locator("#go").inner_text() == "Ask"  # the choice is remembered
    finally:
        context.close()


def test_a_question_in_the_address_is_asked_on_load(
    browser: Any, web_server: tuple[str, Runtime], artefacts: Path
) -> None:
    context = browser.new_context(viewport=PHONE, locale="en-GB")
    page = context.new_page()
    try:
        question = "How many refunds are there?"
        _open(page, f"{web_server[0]}/?q={quote(question)}")
        answer = _newest(page, 1)
        assert answer.locator("h2").inner_text() == question
        assert "152" in answer.locator(".answer-text").inner_text()
        img = answer.locator("img.chart-img")
        assert img.get_attribute("data-kind") == "number"
        page.wait_for_function("i => i.complete && i.naturalWidth > 0", arg=img.element_handle())
        assert page.locator("#earlier-list button").all_inner_texts()[0] == question
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= PHONE["width"], "the page is wider than a phone"
        _shot(page, artefacts, "page-number-phone")
    finally:
        context.close()


def test_markup_in_a_cell_and_a_passage_stays_text(
    page: Any, web_server: tuple[str, Runtime], artefacts: Path
) -> None:
    _open(page, web_server[0])
    cells = _ask(page, "List the markup region names")
    texts = cells.locator("tbody td").all_inner_texts()
    assert any(CANARY_CELL in t for t in texts), texts
    assert cells.locator("td img, td script").count() == 0
    page.wait_for_function(
        "i => i.complete && i.naturalWidth > 0",
        arg=cells.locator("img.chart-img").element_handle(),
    )
    passage = _ask(page, "What is the zebra escalation protocol?")
    passage.locator("details.cite-detail summary").first.click()
    quotes = " ".join(passage.locator("blockquote").all_inner_texts())
    assert "<script>" in quotes and "onerror" in quotes
    assert "<img src=x" in passage.locator(".answer-text").inner_text()
    assert page.locator("#answers blockquote img, #answers .answer-text img").count() == 0
    assert page.evaluate("window.__xss") is None and page.dialogs == []
    _shot(page, artefacts, "page-xss-laptop")


def test_failures_and_big_results_are_said_in_words(
    page: Any, web_server: tuple[str, Runtime], artefacts: Path
) -> None:
    _open(page, web_server[0])
    long_question = "How many refunds? " * (MAX_QUESTION_CHARS // 10)
    failed = _ask(page, long_question)
    assert "(too_large)" in failed.locator(".problem").inner_text()
    big = _ask(page, "Show every order line with its remark")
    caption = big.locator(".table-tools .rows").inner_text()
    assert caption.endswith("the first 100 shown"), caption
    assert big.locator("tbody tr").count() == 100
    assert "limit" in big.locator(".result > p.why").inner_text()
    assert big.locator(".no-chart").inner_text().startswith("No chart: the result was cut")
    longest = max(len(t) for t in big.locator("tbody td").all_inner_texts())
    assert longest <= 240
    # the answer's text quotes the long cells: cut, with a button that shows it all
    text = big.locator(".answer-text")
    short = len(text.inner_text())
    text.locator("button.more").click()
    assert len(text.inner_text()) > short + 1000
    assert text.locator("button.more").get_attribute("aria-expanded") == "true"
    # still usable: the next question is answered
    assert _ask(page, REGION).locator(".status .badge").inner_text() == "ok"
    _shot(page, artefacts, "page-errors-laptop")


def test_the_page_works_from_the_keyboard(page: Any, web_server: tuple[str, Runtime]) -> None:
    _open(page, web_server[0])
    for _ in range(3):  # skip link, language switch, question box
        page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.id") == "q"
    page.keyboard.type("How many refunds are there?")
    page.keyboard.press("Enter")
    answer = _newest(page, 1)
    assert answer.locator(".status .badge").inner_text() == "ok"
    summary = answer.locator("details.sql summary")
    summary.focus()
    page.keyboard.press("Enter")
    assert answer.locator("details.sql").get_attribute("open") is not None
    answer.locator("button.fb-right").focus()
    page.keyboard.press("Enter")
    answer.locator(".fb-status").filter(has_text="recorded").wait_for()


def test_a_stream_cut_short_or_no_server_is_said_in_words(
    page: Any, web_server: tuple[str, Runtime]
) -> None:
    _open(page, web_server[0])
    cut = 'event: started\ndata: {"at_ms": 1, "generation": 1}\n\n'
    page.route(
        "**/v1/ask",
        lambda route: route.fulfill(status=200, content_type="text/event-stream", body=cut),
    )
    lost = _ask(page, "How many refunds are there?")
    assert lost.locator(".problem").inner_text().startswith("The connection was lost")
    assert lost.locator(".steps-list li").all_text_contents() == [
        "Started on workspace generation 1"
    ]
    page.unroute("**/v1/ask")
    page.route("**/v1/ask", lambda route: route.abort())
    down = _ask(page, "How many refunds are there?")
    assert down.locator(".problem").inner_text().startswith("The server could not be reached")
    page.unroute("**/v1/ask")
    down.locator("button.again").click()  # and it recovers once the server answers
    assert _newest(page, 3).locator(".status .badge").inner_text() == "ok"


def test_a_server_that_needs_a_token_asks_for_one(
    browser: Any, web_server: tuple[str, Runtime], token_server: str
) -> None:
    _, secret = tokens.create(web_server[1].path, "page")
    context = browser.new_context(viewport=LAPTOP, locale="en-US")
    page = context.new_page()
    try:
        _open(page, token_server)
        refused = _ask(page, "How many refunds are there?")
        assert "(unauthorized)" in refused.locator(".problem").inner_text()
        assert page.locator("#token-box").is_visible()
        page.fill("#token", secret)
        page.click("#token-save")
        assert not page.locator("#token-box").is_visible()
        refused.locator("button.again").click()
        answer = _newest(page, 2)
        assert answer.locator(".status .badge").inner_text() == "ok"
        img = answer.locator("img.chart-img")  # fetched with the token too
        page.wait_for_function("i => i.complete && i.naturalWidth > 0", arg=img.element_handle())
    finally:
        context.close()
