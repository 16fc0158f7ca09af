"""``tablerag knowledge``: import → export is identical; bad files are refused whole."""

from __future__ import annotations

import json
import shutil
from collections.abc import Sequence
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tablerag.cli import app
from tablerag.llm.base import Message
from tablerag.sample.documents import read_text

runner = CliRunner()


@pytest.fixture
def ws(sample_ws: Path, tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    shutil.copytree(sample_ws, root)
    return root


def _run(*args: str) -> tuple[int, str]:
    result = runner.invoke(app, ["knowledge", *args])
    return result.exit_code, result.output


@pytest.mark.parametrize("suffix", [".yaml", ".json"])
def test_import_then_export_gives_the_same_file(ws: Path, tmp_path: Path, suffix: str) -> None:
    source = tmp_path / "sample.yaml"
    source.write_text(read_text("semantic_model.yaml"), encoding="utf-8")
    code, out = _run("import", str(source), "-w", str(ws))
    assert code == 0, out
    first = tmp_path / f"first{suffix}"
    assert _run("export", str(first), "-w", str(ws))[0] == 0
    assert _run("import", str(first), "-w", str(ws))[0] == 0
    second = tmp_path / f"second{suffix}"
    assert _run("export", str(second), "-w", str(ws))[0] == 0
    assert first.read_bytes() == second.read_bytes()
    if suffix == ".yaml":
        assert first.read_text(encoding="utf-8") == source.read_text(encoding="utf-8")
    code, out = _run("check", "-w", str(ws))
    assert code == 0 and "Every entry compiles" in out
    code, out = _run("show", "gross_margin", "-w", str(ws))
    assert code == 0 and '"unit": "%"' in out
    code, out = _run("show", "客单价", "-w", str(ws))  # a metric by its synonym
    assert code == 0 and "avg_order_value" in out


def test_a_bad_file_is_refused_whole_and_check_names_it(ws: Path, tmp_path: Path) -> None:
    good = read_text("semantic_model.yaml")
    (tmp_path / "good.yaml").write_text(good, encoding="utf-8")
    assert _run("import", str(tmp_path / "good.yaml"), "-w", str(ws))[0] == 0
    before = _run("export", "-w", str(ws))[1]
    bad = good.replace("SUM(fact_refund.refund_amt)", "SUM(fact_refund.refund_total)").replace(
        "source: dim_channel", "source: dim_channels"
    )
    (tmp_path / "bad.yaml").write_text(bad, encoding="utf-8")
    code, out = _run("import", str(tmp_path / "bad.yaml"), "-w", str(ws))
    flat = " ".join(out.split())
    assert code == 2 and "nothing was imported" in flat
    assert "Unknown column 'refund_total'. Did you mean 'refund_amt'?" in flat
    assert "names table 'dim_channels', which no source of the workspace has" in flat
    assert _run("export", "-w", str(ws))[1] == before
    (tmp_path / "foreign.yaml").write_text(good.replace("0.2.0.dev0", "1.0"), encoding="utf-8")
    code, out = _run("import", str(tmp_path / "foreign.yaml"), "-w", str(ws))
    assert code == 2 and "tablerag reads 0.2.0.dev0 and 0.1.x" in " ".join(out.split())


def test_commands_on_a_workspace_without_a_model_say_what_to_do(ws: Path) -> None:
    code, out = _run("list", "-w", str(ws))
    assert code == 2 and "knowledge draft" in " ".join(out.split())


def test_draft_proposes_units_and_definitions(ws: Path, tmp_path: Path) -> None:
    out_file = tmp_path / "draft.yaml"
    code, out = _run("draft", "-w", str(ws), "-o", str(out_file))
    assert code == 0, out
    text = out_file.read_text(encoding="utf-8")
    assert "expression: cost_amt / 100.0" in text  # a 分 column is an amount in 元
    assert "name: 毛利" in text and "SUM(fact_sales.net_amt) - SUM(fact_sales.cost_amt)" in text
    assert "name: 指标口径_table_1" not in text  # a definitions table is knowledge, not data
    code, out = _run("draft", "-w", str(ws))
    assert code == 0 and "status: draft" in " ".join(out.split())
    code, out = _run("list", "--json", "-w", str(ws))
    assert '"status": "draft"' in out and '"status": "confirmed"' not in out


def test_a_model_may_translate_a_prose_definition_and_the_gate_checks_it(ws: Path) -> None:
    from tablerag.llm.testing import FunctionLLM
    from tablerag.semantic.draft import draft_workspace
    from tablerag.store.workspace import Workspace

    def translate(messages: Sequence[Message]) -> str:
        text = messages[-1]["content"].rpartition("Definition:")[2]
        if "退货率" in text:
            return (
                '{"expression": "COUNT(DISTINCT CASE WHEN fact_sales.status = \'REFUND\' THEN '
                "fact_sales.order_id END) / COUNT(DISTINCT CASE WHEN fact_sales.status IN "
                "('PAID', 'REFUND') THEN fact_sales.order_id END)\"}"
            )
        if "库存周转天数" in text:  # a column the data does not have: the gate refuses it
            return '{"expression": "AVG(fact_sales.inventory_days)"}'
        return '{"translatable": false}'

    llm = FunctionLLM(translate)
    with Workspace.open(ws) as opened:
        document = draft_workspace(opened, llm=llm)
    names = {m.name: m for m in document.semantic_model[0].metrics or []}
    assert "退货率" in names and names["退货率"].ext["translated_by"] == llm.spec
    assert "库存周转天数" not in names
    assert names["毛利"].ext.get("translated_by") is None  # the rules translated it, no call


def test_an_import_over_a_draft_takes_precedence_and_the_draft_gives_way(
    ws: Path, tmp_path: Path
) -> None:
    assert _run("draft", "-w", str(ws))[0] == 0
    source = tmp_path / "sample.yaml"
    source.write_text(read_text("semantic_model.yaml"), encoding="utf-8")
    code, out = _run("import", str(source), "-w", str(ws))
    assert code == 0, out
    code, out = _run("list", "--json", "-w", str(ws))
    rows = json.loads(out)
    names = [(r["kind"], r["name"]) for r in rows]
    assert len(names) == len(set(names))  # nothing defined twice
    fact_sales = [r for r in rows if r["kind"] == "dataset" and r["name"] == "fact_sales"]
    assert [r["model"] for r in fact_sales] == ["sales_mart"]
    assert ("dataset", "dim_date") in names  # the draft still covers what the import did not
    assert _run("check", "-w", str(ws))[0] == 0
    code, out = _run("draft", "-w", str(ws))  # drafting again never shadows the import
    assert code == 0 and _run("check", "-w", str(ws))[0] == 0


def test_a_filter_value_the_data_does_not_hold_is_refused_by_import_and_named_by_check(
    ws: Path, tmp_path: Path
) -> None:
    from tablerag.semantic.library import import_document
    from tablerag.semantic.ossie import loads
    from tablerag.store.workspace import Workspace

    good = read_text("semantic_model.yaml")
    bad = good.replace("expression: status = 'PAID'", "expression: status = 'PAYED'").replace(
        "fact_sales.status\n        IN (''PAID'', ''REFUND'')",
        "fact_sales.status\n        IN (''PAID'', ''REFUNDED'')",
    )
    assert bad.count("PAYED") == 1 and bad.count("REFUNDED") == 1
    (tmp_path / "bad.yaml").write_text(bad, encoding="utf-8")
    code, out = _run("import", str(tmp_path / "bad.yaml"), "-w", str(ws))
    flat = " ".join(out.split())
    assert code == 2 and "nothing was imported" in flat, out
    assert "field 'fact_sales.is_paid': filter value 'PAYED' not in fact_sales.status" in flat
    assert "'PAID'" in flat.partition("'PAYED'")[2]  # what the data holds
    assert (
        "metric 'gross_profit (含退款订单：已支付与已退款订单行)': filter value 'REFUNDED'" in flat
    )
    assert _run("list", "-w", str(ws))[0] == 2  # nothing stored
    with Workspace.open(ws) as opened:  # stored past the CLI, as an older version could
        import_document(opened.con, loads(bad), opened.tables(), origin="old")
    code, out = _run("check", "-w", str(ws))
    assert code == 1 and "filter value 'PAYED'" in " ".join(out.split())
