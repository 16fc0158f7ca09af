"""``check`` names what is wrong, and an import with any problem stores nothing."""

from __future__ import annotations

from pathlib import Path

import pytest

from tablerag.semantic.check import check_model
from tablerag.semantic.library import import_document, stored_document
from tablerag.semantic.ossie import KnowledgeInvalid, loads
from tablerag.store.workspace import Workspace
from tablerag.types import ColumnInfo, TableInfo
from tests.semantic.conftest import MODEL


def _catalog(item_order_type: str = "INTEGER") -> list[TableInfo]:
    def t(name: str, *cols: tuple[str, str]) -> TableInfo:
        return TableInfo(name, "shop.db", tuple(ColumnInfo(c, ty) for c, ty in cols), 1)

    return [
        t("category", ("id", "INTEGER"), ("name", "VARCHAR")),
        t("product", ("id", "INTEGER"), ("category_id", "INTEGER"), ("name", "VARCHAR")),
        t("orders", ("id", "INTEGER"), ("status", "VARCHAR"), ("paid_on", "DATE"),
          ("pay_amt", "INTEGER")),
        t("item", ("order_id", item_order_type), ("line", "INTEGER"), ("product_id", "INTEGER"),
          ("qty", "INTEGER"), ("price_fen", "INTEGER"), ("cost_fen", "INTEGER")),
    ]  # fmt: skip


def test_a_good_model_has_no_findings() -> None:
    assert check_model(loads(MODEL), _catalog()) == []


@pytest.mark.parametrize(
    ("edit", "catalog_type", "found"),
    [
        (("expression: SUM(item.qty)", "expression: SUM(item.qty"), "INTEGER", "does not parse"),
        (("qty * cost_fen", "qty * cost_cents"), "INTEGER", "Unknown column 'cost_cents'"),
        (("source: product", "source: products"), "INTEGER", "no source of the workspace has"),
        (("", ""), "VARCHAR", "different types never match"),
        (("- name: units_sold", "- name: order_count"), "INTEGER", "defined 2 times"),
        (("[销量, units sold]", "[销量, 毛利]"), "INTEGER", "synonym '毛利' is also claimed"),
        (("SUM(item.sales) - SUM(item.cost)}", "SUM(item.sales) - SUM(orders.pay_amt)}"),
         "INTEGER", None),
    ],
)  # fmt: skip
def test_check_names_each_problem(
    edit: tuple[str, str], catalog_type: str, found: str | None
) -> None:
    text = MODEL.replace(*edit) if edit[0] else MODEL
    findings = [str(f) for f in check_model(loads(text), _catalog(catalog_type))]
    if found is None:  # both in 元: no unit problem
        assert findings == []
    else:
        assert any(found in f for f in findings), findings


def test_amounts_in_different_units_are_not_added() -> None:
    text = MODEL.replace("pay_amt / 100.0}]}", "pay_amt}]}").replace(
        'data: \'{"unit":"元","source_unit":"分"}\'', 'data: \'{"unit":"分"}\''
    )
    text = text.replace(
        "SUM(item.sales) - SUM(item.cost)}", "SUM(item.sales) - SUM(orders.pay_amt)}"
    )
    findings = [str(f) for f in check_model(loads(text), _catalog())]
    assert any("in '分' from one in '元'" in f for f in findings), findings


def test_an_import_with_a_problem_stores_nothing(tmp_path: Path) -> None:
    with Workspace.open(tmp_path / "ws") as ws:
        import_document(ws.con, loads(MODEL), _catalog(), origin="shop.yaml")
        before = stored_document(ws.con)
        bad = loads(MODEL.replace("qty * cost_fen", "qty * cost_cents"))
        with pytest.raises(KnowledgeInvalid, match="cost_cents"):
            import_document(ws.con, bad, _catalog(), origin="bad.yaml")
        assert stored_document(ws.con) == before
