"""The semantic-query path with a scripted model: reading, calibers, entries used, declines."""

from __future__ import annotations

import json
from pathlib import Path

from tablerag.llm.testing import ScriptedLLM
from tablerag.semantic.knowledge import Knowledge
from tablerag.semantic.path import Declined, SemanticOptions, answer_with_model, no_definition
from tests.semantic.conftest import TODAY
from tests.semantic.test_compile import GP_OCT, _duckdb

OPTIONS = SemanticOptions(today=TODAY)


def test_a_metric_question_is_compiled_and_states_its_reading(
    shop: Knowledge, tmp_path: Path
) -> None:
    llm = ScriptedLLM(
        replies=[
            json.dumps(
                {
                    "metrics": ["gross_profit"],
                    "dimensions": ["category.category_name"],
                    "time_range": {"period": "last_month"},
                }
            )
        ]
    )
    with _duckdb(tmp_path / "shop.duckdb") as engine:
        answer = answer_with_model(
            "上月各品类的毛利是多少元？", llm=llm, engine=engine, knowledge=shop,
            language="zh", options=OPTIONS,
        )  # fmt: skip
    assert not isinstance(answer, Declined)
    first = answer.answer.splitlines()[0]
    assert first == "毛利（默认口径：销售额−成本，仅已支付订单），按品类，2026-10，单位：元"
    assert f"饮料: {GP_OCT['饮料']:,.2f}" in answer.answer
    assert "其他口径：毛利：含未支付" in answer.answer
    assert answer.status == "ok" and answer.table is not None
    assert answer.knowledge[0].model_dump() == {
        "kind": "metric", "name": "gross_profit",
        "caliber": "销售额−成本，仅已支付订单", "status": "confirmed",
    }  # fmt: skip
    # the request was constrained: only the named metric, only the model's fields
    schema = llm.history[0].json_schema
    assert schema is not None
    metrics = json.dumps(schema["properties"]["metrics"]["items"])
    assert "gross_profit" in metrics and "order_count" not in metrics


def test_what_the_model_cannot_express_declines(shop: Knowledge, tmp_path: Path) -> None:
    with _duckdb(tmp_path / "shop.duckdb") as engine:
        none = answer_with_model(
            "哪个客户下单最多？", llm=ScriptedLLM(), engine=engine, knowledge=shop,
            language="zh", options=OPTIONS,
        )  # fmt: skip
        said = answer_with_model(
            "毛利最高的那笔订单是谁下的？", llm=ScriptedLLM(replies=['{"expressible": false}']),
            engine=engine, knowledge=shop, language="zh", options=OPTIONS,
        )  # fmt: skip
    assert isinstance(none, Declined) and none.code == "no_metric"
    assert isinstance(said, Declined) and said.code == "not_expressible"


def test_a_free_sql_answer_says_no_definition_was_followed() -> None:
    from tablerag.answer import Answer

    free = Answer(question="q", answer="42", language="en", path="nl2sql")
    noted = no_definition(free, Declined("no_metric"))
    assert noted.answer.endswith("(No agreed definition was followed: the question names no "
                                 "metric of the semantic model.)")  # fmt: skip
    assert "no_definition" in noted.checks and noted.status == "ok"
    assert [(f.code, f.severity) for f in noted.findings] == [("no_definition", "caveat")]


def test_a_free_figure_for_a_defined_metric_is_unsure_unless_a_definition_was_followed() -> None:
    from tablerag.answer import Answer, Finding

    free = Answer(question="q", answer="42", language="en", path="nl2sql", confidence=0.85)
    doubted = no_definition(free, Declined("not_compiled"))
    assert doubted.status == "unsure" and doubted.confidence == 0.5
    assert "(This result may be wrong: the question names a metric with an agreed" in (
        doubted.answer
    )
    followed = Finding(code="definition_followed", severity="cite",
                       message="checks.definition_followed", stage="checks")  # fmt: skip
    cited = free.model_copy(update={"findings": [followed]})
    kept = no_definition(cited, Declined("doubted"))
    assert kept.status == "ok" and kept.answer == "42"  # it cites what it followed: no more said
    assert "no_definition" in kept.checks
    # an answer already not ok keeps its own status
    empty = free.model_copy(update={"status": "no_data"})
    assert no_definition(empty, Declined("not_expressible")).status == "no_data"


def test_a_filter_value_the_data_does_not_hold_is_named(shop: Knowledge, tmp_path: Path) -> None:
    request = {
        "metrics": ["units_sold"],
        "filters": [{"field": "category.category_name", "op": "=", "values": ["酒水"]}],
    }
    with _duckdb(tmp_path / "shop.duckdb") as engine:
        answer = answer_with_model(
            "酒水的销量是多少？", llm=ScriptedLLM(replies=[json.dumps(request)]), engine=engine,
            knowledge=shop, language="zh", options=OPTIONS,
        )  # fmt: skip
    assert not isinstance(answer, Declined)
    assert answer.status == "no_data"
    assert "数据中没有这些值：category.category_name = 酒水" in answer.answer


def test_a_question_counting_in_a_metric_s_own_unit_names_it() -> None:
    from tablerag.sample.documents import read_text
    from tablerag.semantic.ossie import loads

    sample = Knowledge(loads(read_text("semantic_model.yaml")))
    assert [v.name for v in sample.mentioned("上月各品类卖了多少件？")] == ["units_sold"]
    assert [v.name for v in sample.mentioned("上月毛利率和毛利")] == [
        "gross_margin",
        "gross_profit",
    ]
    assert sample.mentioned("上月卖了多少元？") == []  # 元: many metrics, none named
