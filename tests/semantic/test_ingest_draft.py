"""Drafting at the end of ingest (``draft_on_ingest``): an ingest that adds or replaces a source
proposes the drafted model, every entry marked draft; it never replaces what a person
confirmed or imported; the setting turns it off; a model drafted alone adds no "no agreed
definition" note to free-SQL answers."""

from __future__ import annotations

from pathlib import Path

import duckdb

from tablerag.llm.testing import ScriptedLLM
from tablerag.semantic.draft import confirmed_part
from tablerag.semantic.knowledge import DRAFT_MODEL
from tablerag.semantic.library import import_document, stored_document
from tablerag.semantic.ossie import OssieDocument, loads
from tablerag.service import QA, ingest
from tablerag.settings import Settings
from tablerag.store.workspace import Workspace

SETTINGS = Settings(embedder="hashing", index_on_ingest=False)


def _shop(path: Path, rows: int = 3) -> str:
    con = duckdb.connect(str(path))
    con.execute("DROP TABLE IF EXISTS orders; DROP TABLE IF EXISTS customers")
    con.execute("CREATE TABLE customers (customer_id INTEGER PRIMARY KEY, city TEXT)")
    con.execute(
        "CREATE TABLE orders (order_id INTEGER PRIMARY KEY, customer_id INTEGER "
        "REFERENCES customers (customer_id), pay_amt BIGINT, order_date DATE)"
    )
    con.execute("COMMENT ON COLUMN orders.pay_amt IS '实付金额，单位：分'")
    con.execute("INSERT INTO customers VALUES (1, '上海'), (2, '北京')")
    for i in range(rows):
        con.execute(
            "INSERT INTO orders VALUES (?, ?, ?, ?)",
            [i + 1, 1 + i % 2, 1000 * (i + 1), f"2026-01-0{1 + i % 9}"],
        )
    con.close()
    return f"duckdb:///{path}"


def _entries(root: Path) -> dict[tuple[str, str], str]:
    with Workspace.open(root, create=False) as ws:
        document = stored_document(ws.con)
    assert document is not None
    return {(kind, name): entry.status for kind, name, entry in document.entities()}


def test_ingest_drafts_the_model_marked_draft(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    with Workspace.open(root) as ws:
        ingest(ws, [_shop(tmp_path / "shop.duckdb")], settings=SETTINGS)
    entries = _entries(root)
    assert ("dataset", "orders") in entries and ("metric", "total_pay_amt") in entries
    assert ("relationship", "orders_customer_id") in entries  # from the foreign key
    tops = {k: v for k, v in entries.items() if k[0] in ("dataset", "relationship", "metric")}
    assert set(tops.values()) == {"draft"}


def test_the_setting_turns_it_off(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    with Workspace.open(root) as ws:
        settings = SETTINGS.model_copy(update={"draft_on_ingest": False})
        ingest(ws, [_shop(tmp_path / "shop.duckdb")], settings=settings)
        assert stored_document(ws.con) is None


def test_a_new_ingest_keeps_confirmed_and_imported_entries(tmp_path: Path) -> None:
    root, db = tmp_path / "ws", tmp_path / "shop.duckdb"
    with Workspace.open(root) as ws:
        ingest(ws, [_shop(db)], settings=SETTINGS)
        drafted = stored_document(ws.con)
        assert drafted is not None and confirmed_part(drafted) is None
        # a person confirms the drafted orders count in place (drops its status mark) and
        # imports a model of their own defining customers
        model = drafted.semantic_model[0].model_copy(deep=True)
        for m in model.metrics or []:
            if m.name == "orders_count":
                m.set_ext({k: v for k, v in m.ext.items() if k != "status"})
                m.description = "Orders, as a person confirmed them"
        from tablerag.semantic.ossie import to_data
        from tablerag.store.knowledge import replace_models

        with ws.transaction() as con:
            replace_models(
                con,
                [
                    to_data(OssieDocument(version=drafted.version, semantic_model=[model]))[
                        "semantic_model"
                    ][0]
                ],
                version=drafted.version,
                origin="draft",
            )
        theirs = loads(
            "version: 0.2.0.dev0\nsemantic_model:\n- name: people\n  datasets:\n"
            "  - {name: customers, source: customers, fields: [{name: city, expression: "
            "{dialects: [{dialect: ANSI_SQL, expression: city}]}}]}\n"
        )
        import_document(ws.con, theirs, ws.tables(), origin="people")
    with Workspace.open(root) as ws:
        reports = ingest(ws, [_shop(db, rows=5)], settings=SETTINGS)  # the data changed
        assert [r.status for r in reports] == ["replaced"]
        document = stored_document(ws.con)
    assert document is not None
    drafted_model = next(m for m in document.semantic_model if m.name == DRAFT_MODEL)
    kept = drafted_model.metric("orders_count")
    assert kept is not None and kept.status == "confirmed"
    assert kept.description == "Orders, as a person confirmed them"
    assert drafted_model.dataset("customers") is None  # theirs defines it
    people = next(m for m in document.semantic_model if m.name == "people")
    assert people.dataset("customers") is not None
    assert drafted_model.metric("total_pay_amt") is not None
    assert drafted_model.metric("total_pay_amt").status == "draft"  # type: ignore[union-attr]


def test_a_drafted_model_alone_adds_no_note_to_free_sql(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    with Workspace.open(root) as ws:
        ingest(ws, [_shop(tmp_path / "shop.duckdb")], settings=SETTINGS)
    llm = ScriptedLLM(replies=["```sql\nSELECT city FROM customers ORDER BY city\n```"] * 3)
    with QA.open(root, llm=llm, settings=SETTINGS) as qa:
        answer = qa.ask("Which cities do customers live in?")
    assert answer.table is not None and answer.table.rows
    assert "no_definition" not in answer.checks
    assert "No agreed definition" not in answer.answer
