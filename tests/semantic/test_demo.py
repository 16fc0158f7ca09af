"""`tablerag demo`: its data questions follow the sample's semantic model, say what they
followed, and a metric with two calibers offers the other; a model plays the LLM's part (it
fills the request, never writes SQL for these)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tablerag.cli import app
from tablerag.cli.demo import DEMO_QUESTIONS
from tablerag.llm.base import Message
from tablerag.llm.testing import FunctionLLM
from tablerag.service import QA
from tablerag.settings import load_settings
from tablerag.sql.engines import open_engine
from tablerag.store.workspace import Workspace

REQUESTS = {
    "上月华东的毛利是多少？": {
        "metrics": ["gross_profit"],
        "filters": [{"field": "sales_area.area_name", "op": "=", "values": ["华东"]}],
        "time_range": {"period": "last_month"},
    },
    "How many orders were paid in 2026-09?": {
        "metrics": ["order_count"],
        "time_range": {"period": "month", "year": 2026, "month": 9},
    },
    "上月各品类的毛利是多少元？": {
        "metrics": ["gross_profit"],
        "dimensions": ["dim_category.category_name"],
        "time_range": {"period": "last_month"},
    },
}
PAID_OCT = "s.status = 'PAID' AND s.order_date >= '2026-10-01' AND s.order_date < '2026-11-01'"


def _reply(messages: Sequence[Message]) -> str:
    last = messages[-1]["content"]
    if "never write SQL" in messages[0]["content"] + last:  # the semantic request
        question = last.rpartition("Question: ")[2].strip()
        return json.dumps(REQUESTS.get(question, {"expressible": False}), ensure_ascii=False)
    if "SELECT" in messages[0]["content"]:
        return "```sql\nSELECT count(*) AS refunds FROM fact_refund\n```"
    return "See the sources."


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    llm = FunctionLLM(_reply)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr("tablerag.service.load_llm", lambda spec=None, **kw: llm)
        root = tmp_path_factory.mktemp("demo") / "ws"
        res = CliRunner().invoke(app, ["demo", "-w", str(root)])
    assert res.exit_code == 0, res.output
    return root, res.output


def _truth(root: Path, sql: str) -> list[tuple[object, ...]]:
    with Workspace.open(root, create=False) as ws:
        tables = ws.tables()
    with open_engine(root, catalog=tables) as engine:
        return [tuple(r) for r in engine.execute(sql).rows]


def test_the_demo_s_data_questions_follow_the_model(demo: tuple[Path, str]) -> None:
    root, shown = demo
    data = [q for kind, q in DEMO_QUESTIONS if kind == "data"]
    assert set(data) <= set(REQUESTS)
    flat = " ".join(shown.split())
    assert flat.count("compiled from the semantic model") == len(data)
    assert "followed: metric gross_profit (销售额−优惠−成本，仅已支付订单)" in flat
    assert "followed: metric order_count (按订单去重，仅已支付订单)" in flat
    assert "其他口径：毛利：含退款订单" in flat  # two calibers: the other is offered

    llm = FunctionLLM(_reply)
    with QA.open(root, llm=llm, settings=load_settings(root)) as qa:
        orders = qa.ask("How many orders were paid in 2026-09?")
    assert orders.status == "ok" and orders.table is not None
    assert [(k.kind, k.name, k.status) for k in orders.knowledge][0] == (
        "metric", "order_count", "confirmed",
    )  # fmt: skip
    assert orders.answer.splitlines()[0] == (
        "number of orders (default caliber: 按订单去重，仅已支付订单), 2026-09, unit: 单"
    )
    want = _truth(
        root,
        "SELECT COUNT(DISTINCT order_id) FROM fact_sales WHERE status = 'PAID' "
        "AND order_date >= '2026-09-01' AND order_date < '2026-10-01'",
    )
    assert orders.table.rows == [[want[0][0]]]


def test_by_category_the_reading_names_the_grouping_and_the_other_caliber(
    demo: tuple[Path, str],
) -> None:
    root, _ = demo
    with QA.open(root, llm=FunctionLLM(_reply), settings=load_settings(root)) as qa:
        answer = qa.ask("上月各品类的毛利是多少元？")
    lines = answer.answer.splitlines()
    assert lines[0] == "毛利（默认口径：销售额−优惠−成本，仅已支付订单），按品类，2026-10，单位：元"
    assert any(line.startswith("其他口径：毛利：含退款订单") for line in lines)
    assert answer.knowledge[0].caliber == "销售额−优惠−成本，仅已支付订单"
    truth = _truth(
        root,
        "SELECT c.category_name, SUM(s.net_amt) - SUM(s.cost_amt) / 100.0 FROM fact_sales s "
        "JOIN dim_product p ON s.product_code = p.product_code "
        f"JOIN dim_category c ON p.category_code = c.category_code WHERE {PAID_OCT} GROUP BY 1",
    )
    assert answer.table is not None
    got = {r[0]: float(r[1]) for r in answer.table.rows}
    assert got == pytest.approx({name: float(v) for name, v in truth})  # type: ignore[arg-type]


def test_a_request_that_drops_a_value_the_question_names_is_not_used(
    demo: tuple[Path, str],
) -> None:
    """The small model filled the request without the region the question names (as the local
    model did on the demo): the compiled answer fails the answer checks, so it is not used; the
    free-SQL path answers following the written definition and cites it (and says nothing that
    contradicts it, such as that no definition was followed)."""
    dropped = {"metrics": ["gross_profit"], "time_range": {"period": "last_month"}}
    free_sql = (
        "```sql\nSELECT SUM(s.net_amt) - SUM(s.cost_amt) / 100.0 AS gross_profit FROM fact_sales "
        f"s WHERE s.region_code IN ('EAST', 'JS', 'SH', 'ZJ') AND {PAID_OCT}\n```"
    )

    def reply(messages: Sequence[Message]) -> str:
        if "never write SQL" in messages[0]["content"] + messages[-1]["content"]:
            return json.dumps(dropped)
        if "SELECT" in messages[0]["content"]:
            return free_sql
        return _reply(messages)

    root, _ = demo
    with QA.open(root, llm=FunctionLLM(reply), settings=load_settings(root)) as qa:
        answer = qa.ask("上月华东的毛利是多少？")
        kept = qa.ask("上月的毛利是多少元？")  # nothing dropped: compiled, ok
    assert not answer.knowledge and "no_definition" in answer.checks, answer.answer
    assert "毛利按《指标口径.md》的口径计算" in answer.answer and "未按" not in answer.answer
    assert answer.sql is not None and "'EAST'" in answer.sql and answer.path == "nl2sql"
    assert kept.status == "ok" and kept.knowledge, kept.answer
