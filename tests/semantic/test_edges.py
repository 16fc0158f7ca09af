"""The model's relationships reach the linker's join graph (CSV tables declare no keys)."""

from __future__ import annotations

from pathlib import Path

from tablerag.llm.testing import ScriptedLLM
from tablerag.semantic.library import import_document
from tablerag.semantic.ossie import loads
from tablerag.service import QA
from tablerag.service import Workspace as ServiceWorkspace
from tablerag.settings import Settings

CSV = {
    "orders.csv": "id,status\n1,PAID\n2,UNPAID\n",
    "item.csv": "order_id,qty\n1,2\n1,3\n2,1\n",
}
MODEL = """
version: 0.2.0.dev0
semantic_model:
- name: shop
  datasets:
  - {name: orders, source: orders, primary_key: [id]}
  - {name: item, source: item}
  relationships:
  - {name: item_order, from: item, to: orders, from_columns: [order_id], to_columns: [id]}
"""


def test_a_relationship_joins_for_the_linker(tmp_path: Path) -> None:
    for name, text in CSV.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    root = tmp_path / "ws"
    settings = Settings(embedder="hashing")
    with ServiceWorkspace.open(root) as ws:
        ws.ingest([tmp_path / "orders.csv", tmp_path / "item.csv"], settings=settings)
        assert not ws.table("item").foreign_keys  # a CSV declares none
        import_document(ws.con, loads(MODEL), ws.tables(), origin="shop.yaml")
    with QA.open(root, llm=ScriptedLLM(), settings=settings) as qa:
        assert qa.catalog is not None
        item = qa.catalog.tables["item"]
        assert [(fk.columns, fk.ref_table) for fk in item.foreign_keys] == [
            (("order_id",), "orders")
        ]
        declared = {(e.table, e.ref_table) for e in qa.catalog.edges if e.declared}
        assert ("item", "orders") in declared
