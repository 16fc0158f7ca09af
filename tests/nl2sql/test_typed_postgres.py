"""The type mends on a real PostgreSQL shop database queried in place (amounts INTEGER in 分 with
comments saying so, order times TIMESTAMP), through the product's answer path with the model's
own wrong SQL scripted: the figure is now the exact one, and with the mend switched off it is
the truncated one the model's SQL gives."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tablerag.llm.testing import ScriptedLLM
from tablerag.service import QA
from tablerag.service import Workspace as ServiceWorkspace
from tablerag.settings import Settings
from tests.plugins.postgres import PostgresServer

pytestmark = pytest.mark.postgres

DBNAME = "tablerag_typed_mends"
READER = "tr_typed_reader"
SETTINGS = Settings(embedder="hashing", today="2026-12-31", semantic_model=False)  # type: ignore[arg-type]
SCHEMA = [
    "CREATE TABLE stores (store_id INTEGER PRIMARY KEY, channel VARCHAR(10))",
    "CREATE TABLE orders (order_id INTEGER PRIMARY KEY, store_id INTEGER REFERENCES stores, "
    "order_time TIMESTAMP, pay_amt INTEGER)",
    "CREATE TABLE refunds (refund_id INTEGER PRIMARY KEY, order_id INTEGER REFERENCES orders, "
    "refund_amt INTEGER)",
    "COMMENT ON COLUMN orders.pay_amt IS '实付金额，单位：分'",
    "COMMENT ON COLUMN refunds.refund_amt IS '退款金额，单位：分'",
    "INSERT INTO stores VALUES (1, 'online'), (2, 'store')",
    "INSERT INTO orders VALUES (1, 1, '2026-03-01 10:00:00', 1999), "
    "(2, 2, '2026-12-31 18:30:00', 2550), (3, 1, '2026-06-15 09:00:00', 1001), "
    "(4, 2, '2025-12-31 23:00:00', 705)",
    "INSERT INTO refunds VALUES (1, 1, 1050), (2, 2, 999), (3, 3, 1)",
]
REFUNDED = (  # the model's query 1 of the issue, word for word
    "SELECT SUM(refund_amt / 100) AS total_refunded_amount FROM refunds "
    "JOIN orders ON refunds.order_id = orders.order_id"
)
IN_2026 = (
    "SELECT COUNT(*) AS n FROM orders AS o WHERE o.order_time BETWEEN '2026-01-01' AND '2026-12-31'"
)


@pytest.fixture(scope="module")
def shop(postgres_server: PostgresServer) -> Iterator[str]:
    with postgres_server.connect() as admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{DBNAME}"')
        admin.execute(f'CREATE DATABASE "{DBNAME}"')
        admin.execute(
            f"DO $$ BEGIN CREATE ROLE {READER} LOGIN; EXCEPTION WHEN duplicate_object "
            "THEN NULL; END $$"
        )
    with postgres_server.connect(DBNAME) as con:
        for sql in SCHEMA:
            con.execute(sql)
        con.execute(f"GRANT SELECT ON stores, orders, refunds TO {READER}")
    yield f"postgresql://{READER}@{postgres_server.host}:{postgres_server.port}/{DBNAME}"
    with postgres_server.connect() as admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{DBNAME}" WITH (FORCE)')


@pytest.fixture(scope="module")
def ws(shop: str, tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("typed") / "ws"
    with ServiceWorkspace.open(root) as opened:
        reports = opened.ingest([shop], settings=SETTINGS)
    assert [r.error for r in reports if r.status == "failed"] == []
    return root


def _ask(ws: Path, question: str, sql: str, **stages: bool):  # type: ignore[no-untyped-def]
    settings = SETTINGS.model_copy(update={"stages": stages})
    llm = ScriptedLLM(replies=[f"```sql\n{sql}\n```"])
    with QA.open(ws, llm=llm, settings=settings) as qa:
        return qa.ask(question)


def test_a_sum_of_fen_divided_by_100_keeps_every_rows_fraction(ws: Path) -> None:
    question = "What is the total refunded amount in yuan?"
    answer = _ask(ws, question, REFUNDED)
    assert answer.status == "ok" and answer.table is not None, answer.answer
    assert float(answer.table.rows[0][0]) == pytest.approx((1050 + 999 + 1) / 100)
    note = answer.sql_attempts[0].note or ""
    assert "kept the fraction of refund_amt / 100" in note and "converted" not in note
    truncated = _ask(ws, question, REFUNDED, fractions=False)
    assert truncated.table is not None and float(truncated.table.rows[0][0]) == 10 + 9 + 0


def test_a_year_asked_on_a_timestamp_counts_its_last_day(ws: Path) -> None:
    question = "How many orders were placed in 2026?"
    answer = _ask(ws, question, IN_2026)
    assert answer.status == "ok" and answer.table is not None, answer.answer
    assert answer.table.rows[0][0] == 3
    assert "'2026-12-31' as the whole day" in (answer.sql_attempts[0].note or "")
    cut = _ask(ws, question, IN_2026, whole_days=False)
    assert cut.table is not None and cut.table.rows[0][0] == 2
