"""The sample mart's model: given the request a reader means, the number is the one the
definitions document gives, computed here independently with hand-written SQL (months by
``stat_month`` in both of its formats, amounts in 元, orders counted once)."""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

import duckdb
import pytest

from tablerag.sample.documents import read_text
from tablerag.semantic.check import check_model
from tablerag.semantic.compile import compile_request
from tablerag.semantic.knowledge import Knowledge
from tablerag.semantic.ossie import loads
from tablerag.semantic.request import Request
from tablerag.sql.engines.duckdb import DuckDBEngine
from tablerag.store.workspace import Workspace

TODAY = dt.date(2026, 11, 15)
OCT = "replace(s.stat_month, '-', '') = '202610'"
Y2026 = "left(replace(s.stat_month, '-', ''), 4) = '2026'"
CASES: list[tuple[str, dict[str, Any], str]] = [
    (
        "2026年10月各品类的毛利是多少元？",
        {"metrics": ["gross_profit"], "dimensions": ["dim_category.category_name"],
         "time_range": {"period": "month", "year": 2026, "month": 10}},
        f"SELECT c.category_name, SUM(s.net_amt) - SUM(s.cost_amt) / 100.0 FROM fact_sales s "
        f"JOIN dim_product p USING (product_code) JOIN dim_category c USING (category_code) "
        f"WHERE s.status = 'PAID' AND {OCT} GROUP BY 1",
    ),
    (
        "2026年各渠道的客单价是多少元？",
        {"metrics": ["avg_order_value"], "dimensions": ["dim_channel.channel_name"],
         "time_range": {"period": "this_year"}},
        f"SELECT ch.channel_name, SUM(s.net_amt) / COUNT(DISTINCT s.order_id) FROM fact_sales s "
        f"JOIN dim_channel ch USING (channel_code) WHERE s.status = 'PAID' AND {Y2026} GROUP BY 1",
    ),
    (
        "上月各品类卖了多少件？",
        {"metrics": ["units_sold"], "dimensions": ["dim_category.category_name"],
         "time_range": {"period": "last_month"}},
        f"SELECT c.category_name, SUM(s.qty) FROM fact_sales s JOIN dim_product p "
        f"USING (product_code) JOIN dim_category c USING (category_code) "
        f"WHERE s.status = 'PAID' AND {OCT} GROUP BY 1",
    ),
    (
        "各大区的退货率",
        {"metrics": ["return_rate"], "dimensions": ["sales_area.area_name"]},
        "SELECT a.region_name, COUNT(DISTINCT CASE WHEN s.status = 'REFUND' THEN s.order_id END)"
        " * 1.0 / COUNT(DISTINCT CASE WHEN s.status IN ('PAID', 'REFUND') THEN s.order_id END) "
        "FROM fact_sales s JOIN dim_region r USING (region_code) "
        "JOIN dim_region a ON r.parent_code = a.region_code GROUP BY 1",
    ),
    (
        "2026年10月各品类的退款金额",
        {"metrics": ["refund_amount"], "dimensions": ["dim_category.category_name"],
         "time_range": {"period": "month", "year": 2026, "month": 10}},
        "SELECT c.category_name, SUM(f.refund_amt) FROM fact_refund f "
        "JOIN fact_sales s USING (order_id, line_no) JOIN dim_product p USING (product_code) "
        "JOIN dim_category c USING (category_code) "
        "WHERE f.refund_date >= '2026-10-01' AND f.refund_date < '2026-11-01' GROUP BY 1",
    ),
    (
        "What was the gross margin of online channels last month?",
        {"metrics": ["gross_margin"], "filters": [{"field": "dim_channel.is_online"}],
         "time_range": {"period": "last_month"}},
        f"SELECT (SUM(s.net_amt) - SUM(s.cost_amt) / 100.0) / SUM(s.net_amt) FROM fact_sales s "
        f"JOIN dim_channel ch USING (channel_code) "
        f"WHERE s.status = 'PAID' AND ch.channel_type = '线上' AND {OCT}",
    ),
    (
        "促销销售占比是多少？",
        {"metrics": ["promo_share"]},
        "SELECT SUM(CASE WHEN s.is_promo = 1 THEN s.net_amt ELSE 0 END) / SUM(s.net_amt) "
        "FROM fact_sales s WHERE s.status = 'PAID'",
    ),
]  # fmt: skip


@pytest.fixture(scope="module")
def sample_model() -> Knowledge:
    return Knowledge(loads(read_text("semantic_model.yaml")))


def test_the_sample_model_passes_its_check(sample_ws: Path, sample_model: Knowledge) -> None:
    with Workspace.open(sample_ws, read_only=True) as ws:
        tables = ws.tables()
    assert check_model(sample_model.document, tables) == []


@pytest.mark.parametrize(("question", "request_", "truth"), CASES, ids=[c[0] for c in CASES])
def test_the_compiled_answer_is_the_documented_number(
    sample_ws: Path, sample_model: Knowledge, question: str, request_: dict[str, Any], truth: str
) -> None:
    db = next(sample_ws.glob("*.duckdb"))
    con = duckdb.connect(str(db), read_only=True)
    try:
        con.execute("SET schema = 'data'")
        want = sorted((tuple(r) for r in con.execute(truth).fetchall()), key=str)
    finally:
        con.close()
    compiled = compile_request(Request(**request_), sample_model, dialect="duckdb", today=TODAY)
    with DuckDBEngine(db) as engine:
        got = sorted((tuple(r) for r in engine.execute(compiled.sql).rows), key=str)
    assert len(got) == len(want) and want, question
    for g, w in zip(got, want, strict=True):
        assert g[:-1] == w[:-1], question
        assert float(g[-1]) == pytest.approx(float(w[-1]), rel=1e-9), question
