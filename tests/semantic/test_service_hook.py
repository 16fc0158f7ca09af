"""The hook in ``QA._sql``: the sample's model answers metric questions; the rest is free SQL
that says no definition was followed. Canaries never reach the model or the answer."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tablerag.llm.testing import ScriptedLLM
from tablerag.sample.documents import read_text
from tablerag.semantic.library import import_document
from tablerag.semantic.ossie import loads
from tablerag.service import QA
from tablerag.settings import Settings
from tablerag.store.workspace import Workspace

SETTINGS = Settings(today="2026-11-15", embedder="hashing")  # type: ignore[arg-type]


def _with_model(sample_ws: Path, tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    shutil.copytree(sample_ws, root)
    with Workspace.open(root) as ws:
        import_document(
            ws.con, loads(read_text("semantic_model.yaml")), ws.tables(), origin="sample"
        )
    return root


def test_a_metric_question_follows_the_sample_model(sample_ws: Path, tmp_path: Path) -> None:
    root = _with_model(sample_ws, tmp_path)
    request = {
        "metrics": ["gross_profit"],
        "filters": [{"field": "sales_area.area_name", "op": "=", "values": ["华东"]}],
        "time_range": {"period": "last_month"},
    }
    llm = ScriptedLLM(replies=[json.dumps(request, ensure_ascii=False)])
    with QA.open(root, llm=llm, settings=SETTINGS) as qa:
        answer = qa.ask("上月华东的毛利是多少？")
    assert answer.path == "nl2sql" and answer.status == "ok", answer.answer
    reading, number = answer.answer.splitlines()[:2]
    assert (
        reading
        == "毛利（默认口径：销售额−优惠−成本，仅已支付订单），筛选：大区 = 华东，2026-10，单位：元"
    )
    # truth: SUM(net_amt) − SUM(cost_amt)/100 over paid lines of East China's provinces whose
    # stat_month (either format) is 2026-10, computed by hand on the sample: 25269.20
    assert number == "25,269.20"
    assert "其他口径：毛利：含退款订单" in answer.answer
    assert [(k.kind, k.name, k.status) for k in answer.knowledge][0] == (
        "metric", "gross_profit", "confirmed",
    )  # fmt: skip
    assert answer.llm.calls == 1  # one request, no SQL written by the model
    prompt = llm.history[0].messages[-1]["content"]
    assert "华东" in prompt and "mobile" not in prompt


def test_other_data_questions_say_no_definition_was_followed(
    sample_ws: Path, tmp_path: Path
) -> None:
    root = _with_model(sample_ws, tmp_path)
    sql = "```sql\nSELECT count(*) AS staff FROM dim_employee\n```"
    with QA.open(root, llm=ScriptedLLM(replies=[sql]), settings=SETTINGS) as qa:
        answer = qa.ask("How many employees does the sales team have?")
    assert answer.path == "nl2sql"
    assert "no_definition" in answer.checks and not answer.knowledge
    assert "No agreed definition was followed" in answer.answer


def test_the_setting_switches_the_semantic_path_off(sample_ws: Path, tmp_path: Path) -> None:
    root = _with_model(sample_ws, tmp_path)
    sql = "```sql\nSELECT SUM(net_amt) AS gp FROM fact_sales\n```"
    off = SETTINGS.model_copy(update={"semantic_model": False})
    with QA.open(root, llm=ScriptedLLM(replies=[sql]), settings=off) as qa:
        answer = qa.ask("上月华东的毛利是多少？")
    assert not answer.knowledge and "no_definition" not in answer.checks


def test_a_view_through_another_model_shares_the_checked_model(
    sample_ws: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``QA.through`` (the evaluation's per-question meter, a server's requests): the semantic
    model is checked once for every question, not once per view."""
    import tablerag.answering as answering

    root = _with_model(sample_ws, tmp_path)
    checked = []
    real = answering.usable_knowledge
    monkeypatch.setattr(
        answering, "usable_knowledge", lambda *a, **k: checked.append(1) or real(*a, **k)
    )
    request = {"metrics": ["gross_profit"], "time_range": {"period": "last_month"}}
    with QA.open(root, llm=ScriptedLLM(replies=[]), settings=SETTINGS) as qa:
        for _ in range(2):
            llm = ScriptedLLM(replies=[json.dumps(request)])
            answer = qa.through(llm).ask("上月的毛利是多少？")
            assert answer.status == "ok" and llm.history, answer.answer
    assert checked == [1]
