"""A metric glossary in the workspace's documents defines what a connected database's query
computes: quoted to the SQL prompt of the database and checked against its query."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from tablerag.llm.testing import FunctionLLM
from tablerag.service import QA
from tests.sources.conftest import SETTINGS, Model, ingest, url

GLOSSARY_MD = """# 经营指标定义

| 指标 | 英文名 | 计算公式 | 口径 |
| --- | --- | --- | --- |
| GMV | GMV | Σ(pay_amt) | 状态为 PAID 或 REFUND 的订单（不含 CANCELLED）；单位：元 |
| 销售额 | Net sales | Σ(pay_amt) | 仅 PAID 订单；单位：元 |
"""
ORDERS = [(1, "PAID", 100.0), (2, "REFUND", 40.0), (3, "CANCELLED", 70.0), (4, "PAID", 10.0)]


@pytest.fixture(scope="module")
def shop(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("glossary")
    con = sqlite3.connect(root / "shop.db")
    con.execute("CREATE TABLE orders (order_id INTEGER PRIMARY KEY, status TEXT, pay_amt REAL)")
    con.executemany("INSERT INTO orders VALUES (?, ?, ?)", ORDERS)
    con.commit()
    con.close()
    files = root / "files"
    files.mkdir()
    (files / "指标定义.md").write_text(GLOSSARY_MD, encoding="utf-8")
    ingest(root / "ws", [url("sqlite", root / "shop.db"), files])
    return root / "ws"


@pytest.mark.parametrize(
    ("sql", "status", "total"),
    [
        ("SELECT SUM(pay_amt) AS gmv FROM orders", "unsure", 220.0),
        ("SELECT SUM(pay_amt) AS gmv FROM orders WHERE status IN ('PAID', 'REFUND')", "ok", 150.0),
        ("SELECT SUM(pay_amt) AS gmv FROM orders WHERE status <> 'CANCELLED'", "ok", 150.0),
        ("SELECT SUM(pay_amt) AS gmv FROM orders WHERE status = 'PAID'", "unsure", 110.0),
    ],
)
def test_a_glossary_in_the_documents_defines_the_databases_metric(
    shop: Path, sql: str, status: str, total: float
) -> None:
    model = Model({"GMV": sql}, passages="NOT_FOUND")  # the glossary gives no figure
    with QA.open(shop, llm=FunctionLLM(model), settings=SETTINGS) as qa:
        answer = qa.ask("GMV是多少元？")  # "GMV" inside Chinese text names the glossary's row
    assert answer.table is not None and answer.table.rows == [[total]]
    assert answer.status == status, answer.answer
    prompt = model.sql_prompts[0]
    assert "指标定义.md" in prompt and "状态为 PAID 或 REFUND" in prompt
    assert "orders" in prompt  # the database's table, in its own prompt
    if status == "ok":
        assert "指标定义.md" in answer.answer  # the definition followed is cited
    else:
        assert "指标定义.md" in answer.answer.splitlines()[0]  # the doubt names it
