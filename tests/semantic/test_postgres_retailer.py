"""The issue's retailer on PostgreSQL, queried in place through a read-only role with column
grants: amounts in 分 with comments saying so, foreign keys. The draft reads the units and the
keys; with the curated model the answers that went wrong on free SQL (毛利 in 分 labelled 元,
客单价 over every status) come out right, through the same gate and engine."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from tablerag.llm.testing import ScriptedLLM
from tablerag.semantic.draft import draft_workspace
from tablerag.semantic.library import import_document
from tablerag.semantic.ossie import loads
from tablerag.service import QA
from tablerag.service import Workspace as ServiceWorkspace
from tablerag.settings import Settings
from tablerag.store.workspace import Workspace
from tests.plugins.postgres import PostgresServer
from tests.semantic.conftest import DDL, MODEL, seed_statements
from tests.semantic.test_compile import GP_OCT

pytestmark = pytest.mark.postgres

DBNAME = "tablerag_retailer"
READER = "tr_retail_reader"
SETTINGS = Settings(embedder="hashing", today="2026-11-15")  # type: ignore[arg-type]
COMMENTS = [
    "COMMENT ON COLUMN orders.pay_amt IS '实付金额，单位：分'",
    "COMMENT ON COLUMN item.price_fen IS '成交单价，单位：分'",
    "COMMENT ON COLUMN item.cost_fen IS '成本价，单位：分'",
    "ALTER TABLE product ADD FOREIGN KEY (category_id) REFERENCES category (id)",
    "ALTER TABLE item ADD FOREIGN KEY (order_id) REFERENCES orders (id)",
    "ALTER TABLE item ADD FOREIGN KEY (product_id) REFERENCES product (id)",
    "CREATE TABLE customer (id INTEGER PRIMARY KEY, name TEXT, phone TEXT)",
    "INSERT INTO customer VALUES (1, 'Ann', '13900000000')",
]


@pytest.fixture(scope="module")
def retailer(postgres_server: PostgresServer) -> Iterator[str]:
    with postgres_server.connect() as admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{DBNAME}"')
        admin.execute(f'CREATE DATABASE "{DBNAME}"')
        admin.execute(
            f"DO $$ BEGIN CREATE ROLE {READER} LOGIN; EXCEPTION WHEN duplicate_object "
            "THEN NULL; END $$"
        )
    with postgres_server.connect(DBNAME) as con:
        for sql in [*DDL, *seed_statements(), *COMMENTS]:
            con.execute(sql)
        con.execute(f"GRANT SELECT ON category, product, orders, item TO {READER}")
        con.execute(f"GRANT SELECT (id, name) ON customer TO {READER}")  # never the phone
    yield f"postgresql://{READER}@{postgres_server.host}:{postgres_server.port}/{DBNAME}"
    with postgres_server.connect() as admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{DBNAME}" WITH (FORCE)')


@pytest.fixture(scope="module")
def ws(retailer: str, tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("retailer") / "ws"
    with ServiceWorkspace.open(root) as opened:
        reports = opened.ingest([retailer], settings=SETTINGS)
    assert [r.error for r in reports if r.status == "failed"] == []
    return root


def test_the_draft_reads_units_from_comments_and_joins_from_foreign_keys(ws: Path) -> None:
    with Workspace.open(ws) as opened:
        document = draft_workspace(opened)
    model = document.semantic_model[0]
    fields = {f"{d.name}.{f.name}": f for d in model.datasets for f in d.fields or []}
    pay = next(v for k, v in fields.items() if k.endswith("orders.pay_amt"))
    assert pay.expression.dialects[0].expression == "pay_amt / 100.0"
    assert pay.ext["unit"] == "元" and pay.ext["source_unit"] == "分"
    assert not [k for k in fields if k.endswith(".phone")]
    pairs = {
        (r.from_.rpartition(".")[2], r.to.rpartition(".")[2]) for r in model.relationships or []
    }
    assert {("item", "orders"), ("item", "product"), ("product", "category")} <= pairs


@pytest.mark.parametrize(
    ("question", "request_", "truth"),
    [
        (
            "2026年10月各品类的毛利是多少元？",
            {"metrics": ["gross_profit"], "dimensions": ["category.category_name"],
             "time_range": {"period": "month", "year": 2026, "month": 10}},
            sorted([["零食", GP_OCT["零食"]], ["饮料", GP_OCT["饮料"]]]),
        ),
        (
            "我们的客单价是多少元？",
            {"metrics": ["avg_order_value"]},
            [[(10.00 + 7.01 + 3.00) / 3]],
        ),
        (
            "上月的销量是多少件？",
            {"metrics": ["units_sold"], "time_range": {"period": "last_month"}},
            [[4]],
        ),
    ],
)  # fmt: skip
def test_the_curated_model_answers_in_yuan_on_postgres(
    ws: Path, question: str, request_: dict[str, object], truth: list[list[object]]
) -> None:
    with Workspace.open(ws) as opened:
        import_document(opened.con, loads(MODEL), opened.tables(), origin="retailer.yaml")
    llm = ScriptedLLM(replies=[json.dumps(request_, ensure_ascii=False)])
    with QA.open(ws, llm=llm, settings=SETTINGS) as qa:
        answer = qa.ask(question)
    assert answer.status == "ok" and answer.table is not None, answer.answer
    assert answer.knowledge and answer.knowledge[0].kind == "metric"
    rows = sorted(answer.table.rows, key=str)
    assert [r[:-1] for r in rows] == [t[:-1] for t in truth]
    assert [float(r[-1]) for r in rows] == pytest.approx([float(t[-1]) for t in truth])
    assert "单位：元" in answer.answer.splitlines()[0] or "单位" not in answer.answer


@pytest.mark.parametrize(
    ("question", "sql", "truth"),
    [
        (  # the first wrong answer: 分 labelled 元
            "2026年10月已支付订单的实付总额是多少元？",
            "SELECT SUM(pay_amt) AS paid FROM orders WHERE status = 'PAID' "
            "AND paid_on >= '2026-10-01' AND paid_on < '2026-11-01'",
            (1000 + 701) / 100,
        ),
        (  # a figure in 元 compared with a column in 分
            "实付超过5元的订单有几笔？",
            "SELECT COUNT(*) AS n FROM orders WHERE pay_amt > 5",
            2,
        ),
    ],
)
def test_free_sql_over_columns_commented_in_fen_answers_in_yuan(
    ws: Path, question: str, sql: str, truth: float
) -> None:
    """No semantic model: the units come from the columns' comments alone."""
    off = SETTINGS.model_copy(update={"semantic_model": False})
    llm = ScriptedLLM(replies=[f"```sql\n{sql}\n```"])
    with QA.open(ws, llm=llm, settings=off) as qa:
        answer = qa.ask(question)
    assert answer.status == "ok" and answer.table is not None, answer.answer
    assert float(answer.table.rows[0][0]) == pytest.approx(truth)
    assert "tablerag converted" in (answer.sql_attempts[0].note or "")
