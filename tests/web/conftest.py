"""Fixtures of the web page's tests: the sample workspace plus a note holding markup, a real
uvicorn server on loopback with a scripted model, and Debian's headless chromium driven by
Playwright (no browser is downloaded).

Without chromium (``/usr/bin/chromium``, or ``TABLERAG_CHROMIUM``) or the ``playwright`` package
the tests are skipped, unless ``TABLERAG_REQUIRE_BROWSER=1`` (CI) makes that a failure.
Screenshots go to ``TABLERAG_ARTEFACTS`` when set, else to the test session's temp folder.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from tablerag.llm.base import Message
from tablerag.llm.testing import FunctionLLM
from tablerag.runtime import Runtime
from tablerag.sample import write_sample
from tablerag.service import Workspace
from tablerag.settings import Settings
from tests.api.conftest import serving

CANARY_CELL = '<img src=x onerror="window.__xss=1"><script>window.__xss=2</script>'
CANARY_PASSAGE = '<img src=x onerror="window.__xss=3"> <b>bold?</b> <script>window.__xss=4</script>'
NOTE = f"""# Zebra escalation protocol

The zebra escalation protocol says: {CANARY_PASSAGE} Escalate a zebra ticket within one day.
"""
MAX_QUESTION_CHARS = 300

#: The scripted model's SQL, by a phrase of the question.
SQL = {
    "net sales by region": "SELECT region_code, sum(net_amt) AS net_sales FROM fact_sales "
    "GROUP BY region_code ORDER BY net_sales DESC",
    "net sales by month": "SELECT stat_month, sum(net_amt) AS net_sales FROM fact_sales "
    "GROUP BY stat_month ORDER BY stat_month",
    "markup region": "SELECT region_name || '" + CANARY_CELL.replace("'", "''") + "' AS region, "
    "count(*) AS n FROM dim_region GROUP BY 1 ORDER BY 1",
    "every order line": "SELECT order_id, line_no, repeat('long remark ', 180) AS remark, "
    "net_amt FROM fact_sales",
}
REFUNDS_SQL = "SELECT count(*) AS refunds FROM fact_refund"


def _question(messages: Sequence[Message]) -> str:
    return " ".join(m["content"] for m in messages[1:]).lower()


def reply(messages: Sequence[Message]) -> str:
    """SQL chosen by the question's phrase, a cited sentence for passages (with markup when
    the question is about the zebra protocol), a plain sentence otherwise."""
    system, asked = messages[0]["content"], _question(messages)
    if "SELECT" in system:
        sql = next((s for phrase, s in SQL.items() if phrase in asked), REFUNDS_SQL)
        return f"```sql\n{sql}\n```"
    if "numbered passages" in system:
        if "zebra" in asked:
            return f"Escalate within one day [1]. {CANARY_PASSAGE}"
        return "A faulty phone is tested before it is refunded [1]."
    return "There are 152 refunds."


@pytest.fixture(scope="session")
def web_ws_master(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sample corpus plus a note holding markup, ingested once."""
    base = tmp_path_factory.mktemp("web")
    sample = base / "sample"
    write_sample(sample)
    (sample / "zebra_protocol.md").write_text(NOTE, encoding="utf-8")
    root = base / "ws"
    with Workspace.open(root) as ws:
        reports = ws.ingest([sample], settings=Settings(index_on_ingest=True, embedder="hashing"))
    assert not [r for r in reports if r.status == "failed"]
    return root


@pytest.fixture(scope="module")
def web_server(
    web_ws_master: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[str, Runtime]]:
    """``tablerag serve``'s app on a free loopback port, over a copy of the workspace."""
    ws = tmp_path_factory.mktemp("web_ws") / "ws"
    shutil.copytree(web_ws_master, ws, ignore=shutil.ignore_patterns("service.sqlite*"))
    settings = Settings(
        embedder="hashing", serve_refresh_s=0.05, serve_max_question_chars=MAX_QUESTION_CHARS
    )
    rt = Runtime.open(ws, settings=settings, llm=FunctionLLM(reply), watch=False)
    try:
        with serving(rt, require_token=False) as url:
            yield url, rt
    finally:
        rt.close()


@pytest.fixture(scope="module")
def token_server(web_server: tuple[str, Runtime]) -> Iterator[str]:
    """The same runtime served as on a non-loopback address: every /v1 call needs a token."""
    with serving(web_server[1], require_token=True) as url:
        yield url


def chromium_path() -> str | None:
    """Debian's chromium, or ``TABLERAG_CHROMIUM``; None when neither is there."""
    for candidate in (os.environ.get("TABLERAG_CHROMIUM"), "/usr/bin/chromium"):
        if candidate and Path(candidate).is_file():
            return candidate
    return shutil.which("chromium")


def _unavailable(reason: str) -> None:
    if os.environ.get("TABLERAG_REQUIRE_BROWSER", "") == "1":
        pytest.fail(f"{reason} (TABLERAG_REQUIRE_BROWSER=1 makes this a failure)", pytrace=False)
    pytest.skip(reason)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """A headless chromium (Debian's package) under Playwright."""
    path = chromium_path()
    if path is None:
        _unavailable(
            "chromium is not installed: `apt-get install --no-install-recommends chromium` "
            "(or set TABLERAG_CHROMIUM to a chromium binary)"
        )
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _unavailable('playwright is not installed: pip install -e ".[dev]"')
    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=path, headless=True)
        yield b
        b.close()


@pytest.fixture(scope="session")
def artefacts(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Where screenshots go."""
    folder = os.environ.get("TABLERAG_ARTEFACTS")
    path = Path(folder) if folder else tmp_path_factory.mktemp("screenshots")
    path.mkdir(parents=True, exist_ok=True)
    return path
