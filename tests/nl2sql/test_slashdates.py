"""A question's 03/05/2026 read in the order its data's file wrote dates (issue 23, ud-30).

A user's ``payments.csv`` writes ``MM/DD/YYYY`` (one value has a day over 12, so ingest typed
``paid_on`` as DATE, month first). Asked "How much was paid on 03/05/2026?", the model wrote
``paid_on = '2026-05-03'``, status ok, wrong. The file is ingested for real here, so the order
travels the way a user's does: ingest, catalog, linking, prompt, answer checks.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tablerag.linking.cache import workspace_catalog
from tablerag.llm.testing import ScriptedLLM
from tablerag.nl2sql.path import NL2SQLOptions, answer_with_sql
from tablerag.nl2sql.schema_context import schema_context
from tablerag.service import Workspace
from tablerag.settings import Settings
from tablerag.sql.engines import open_engine
from tests.nl2sql.test_checks import Parts, _ask, _ok, _unsure

PAYMENTS = """payment_id,payer,paid_on,amount
1,Acme,03/05/2026,120.50
2,Birch,03/05/2026,80.00
3,Cole,05/03/2026,999.00
4,Dale,05/13/2026,45.25
"""
QUESTION = "How much was paid on 03/05/2026?"


@pytest.fixture(scope="module")
def payments(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Parts]:
    """A workspace holding the user's payments.csv, ingested."""
    folder = tmp_path_factory.mktemp("slashdates")
    (folder / "payments.csv").write_text(PAYMENTS, encoding="utf-8")
    with Workspace.open(folder / "ws") as ws:
        (report,) = ws.ingest([folder / "payments.csv"], settings=Settings(index_on_ingest=False))
        assert report.status == "added", report.error
        tables = ws.tables()
        catalog = workspace_catalog(ws)
    with open_engine(folder / "ws", catalog=tables) as engine:
        yield engine, catalog


def _prompt(question: str, parts: Parts) -> str:
    engine, catalog = parts
    schema = schema_context(question, catalog, engine=engine)
    llm = ScriptedLLM(replies=["```sql\nSELECT SUM(amount) FROM payments\n```"])
    options = NL2SQLOptions(explain=False, max_repairs=0)
    answer_with_sql(question, llm=llm, engine=engine, schema=schema, language="en", options=options)
    return str(llm.history[0].messages[-1]["content"])


def test_the_prompt_says_the_order_the_file_wrote(payments: Parts) -> None:
    # the schema's column comment; the note that restated the question's date in that order
    # (``slash_dates``) was removed in issue 29: it changed no answer on six sets
    assert "written MM/DD/YYYY in the file" in _prompt(QUESTION, payments)


def test_the_other_reading_of_the_date_is_doubted(payments: Parts) -> None:
    wrong = _ask(
        QUESTION, "SELECT SUM(amount) FROM payments WHERE paid_on = '2026-05-03'", payments
    )
    _unsure(wrong, "03/05/2026", "2026-03-05", "MM/DD/YYYY", "2026-05-03")
    assert wrong.table is not None and wrong.table.rows == [[999.0]]
    right = _ask(
        QUESTION, "SELECT SUM(amount) FROM payments WHERE paid_on = '2026-03-05'", payments
    )
    _ok(right)
    assert right.table is not None and right.table.rows == [[200.5]]


def test_the_doubt_is_said_in_chinese(payments: Parts) -> None:
    wrong = _ask(
        "03/05/2026 付款总额是多少？",
        "SELECT SUM(amount) FROM payments WHERE paid_on = DATE '2026-05-03'",
        payments,
    )
    _unsure(wrong, "问题里的 03/05/2026 在这份数据里是 2026-03-05")


def test_the_other_reading_is_final_and_unsure_without_a_repair_round(payments: Parts) -> None:
    engine, catalog = payments
    schema = schema_context(QUESTION, catalog, engine=engine)
    wrong = "```sql\nSELECT SUM(amount) FROM payments WHERE paid_on = '2026-05-03'\n```"
    llm = ScriptedLLM(replies=[wrong])
    options = NL2SQLOptions(explain=False, max_repairs=1)
    answer = answer_with_sql(
        QUESTION, llm=llm, engine=engine, schema=schema, language="en", options=options
    )
    assert len(llm.history) == 1 and len(answer.sql_attempts) == 1
    _unsure(answer, "03/05/2026", "2026-03-05", "MM/DD/YYYY")
