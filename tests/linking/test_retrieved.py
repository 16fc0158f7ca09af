"""Retrieved rows as linking evidence: a search's chunk → table map ranks look-alike tables."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from tablerag.linking.catalog import build_catalog
from tablerag.linking.linker import LinkOptions, link
from tablerag.llm.testing import ScriptedLLM
from tablerag.request import Request
from tablerag.service import QA, Workspace
from tablerag.settings import Settings
from tablerag.sources import FILES
from tablerag.types import ColumnInfo, TableInfo

SETTINGS = Settings(embedder="hashing")

QUESTION = "What was the revenue in 2019?"


def _report(name: str) -> TableInfo:
    columns = (
        ColumnInfo("item", "VARCHAR"),
        ColumnInfo("2019", "DOUBLE"),
        ColumnInfo("2018", "DOUBLE"),
    )
    return TableInfo(name, "", columns, 3)


CATALOG = build_catalog([_report(f"t_{c}") for c in "abcdef"], index_values=False)


def test_words_alone_cannot_tell_look_alike_tables_apart() -> None:
    linked = link(QUESTION, CATALOG)
    assert linked.table_names[0] == "t_a"  # a tie, broken by name
    assert len([t for t in linked.tables if t.is_seed]) == 6


def test_the_table_whose_rows_were_retrieved_ranks_first_and_says_why() -> None:
    linked = link(QUESTION, CATALOG, retrieved=["t_d", "elsewhere.t_x", "t_b"])
    assert linked.table_names[:2] == ("t_d", "t_b")
    first = linked.table("t_d")
    assert first is not None and "retrieved rows (#1)" in first.reasons
    second = linked.table("t_b")
    # the name outside the catalog is skipped, not counted: t_b is the second table found
    assert second is not None and "retrieved rows (#2)" in second.reasons
    assert round(first.score - second.score, 3) == 0.15  # 0.3 / 1 - 0.3 / 2


def test_a_weight_of_zero_links_by_words_alone() -> None:
    off = LinkOptions(retrieved_weight=0)
    with_rows = link(QUESTION, CATALOG, retrieved=["t_d"], options=off)
    assert with_rows.table_names == link(QUESTION, CATALOG, options=off).table_names
    assert with_rows.table_names[0] == "t_a"
    assert all("retrieved" not in " ".join(t.reasons) for t in with_rows.tables)


def test_a_documents_table_found_by_the_search_gains_nothing_unless_its_document_is_named() -> None:
    # a policy document's table repeats the region names of the data's dimension table: found
    # by the search, it must not become a second place the question's value is read from
    region = TableInfo("dim_region", "/c/dim_region.csv", (ColumnInfo("region", "VARCHAR"),), 4)
    policy = TableInfo(
        "policy_table_1",
        "/c/region_policy.md",
        (ColumnInfo("region", "VARCHAR"), ColumnInfo("quota", "DOUBLE")),
        4,
        origin="table 1",
    )
    catalog = build_catalog([region, policy], index_values=False)
    question = "How many regions are there?"
    linked = link(question, catalog, retrieved=["policy_table_1", "dim_region"])
    assert linked.table_names[0] == "dim_region"
    table = linked.table("dim_region")
    assert table is not None and "retrieved rows (#1)" in table.reasons
    assert all("retrieved" not in " ".join(t.reasons) for t in linked.tables[1:])
    named = link(
        "How many regions does the region policy list?",
        catalog,
        retrieved=["policy_table_1", "dim_region"],
    )
    found = named.table("policy_table_1")
    assert found is not None and "retrieved rows (#1)" in found.reasons


# -- the service: what ``ask`` links with ---------------------------------------------------

REPORTS = {
    "segment_report.csv": "item,2019,2018\nCloud services,120.5,98.0\nHardware,80.0,91.2\n",
    "staff_report.csv": "item,2019,2018\nEngineers,120,98\nSales staff,80,91\n",
}


def _workspace(tmp_path: Path) -> tuple[Path, Path]:
    files = tmp_path / "files"
    files.mkdir()
    for name, text in REPORTS.items():
        (files / name).write_text(text, "utf-8")
    db = tmp_path / "hr.db"
    with sqlite3.connect(db) as con:
        con.execute("CREATE TABLE staff_report (item TEXT, headcount INTEGER)")
        con.execute("INSERT INTO staff_report VALUES ('Engineers', 120)")
    root = tmp_path / "ws"
    with Workspace.open(root) as ws:
        reports = ws.ingest([files, f"sqlite:///{db}"], settings=SETTINGS)
    assert all(r.status != "failed" for r in reports), reports
    return root, db


def test_ask_links_the_workspace_tables_whose_rows_the_search_found(tmp_path: Path) -> None:
    root, _ = _workspace(tmp_path)
    question = "How much did cloud services bring in 2019?"
    with QA.open(root, llm=ScriptedLLM(), settings=SETTINGS) as qa:
        files = qa.sources.source(FILES)
        assert files is not None
        work = qa.work(Request.make(question, max_seconds=60))
        linked = work.linked(question, files, qa.sources.engine(files)).linked
        assert linked is not None and linked.table_names[0] == "segment_report"
        table = linked.table("segment_report")
        assert table is not None and "retrieved rows (#1)" in table.reasons
        # one search, traced apart from the documents' own retrieval
        assert [e.kind for e in work.rq.trace.events].count("link_retrieval") == 1
        assert work.retrieved_tables(question, files)[0] == "segment_report"
        database = next(s for s in qa.sources.sources if s.label != FILES)
        # a database asked in place has no chunks: its same-named table gains nothing
        assert work.retrieved_tables(question, database) == ()
    off = SETTINGS.model_copy(update={"link_retrieved_k": 0})
    with QA.open(root, llm=ScriptedLLM(), settings=off) as qa:
        files = qa.sources.source(FILES)
        assert files is not None
        work = qa.work(Request.make(question, max_seconds=60))
        assert work.retrieved_tables(question, files) == ()
        linked = work.linked(question, files, qa.sources.engine(files)).linked
        assert linked is not None
        assert all("retrieved" not in " ".join(t.reasons) for t in linked.tables)


def test_the_rows_found_never_push_a_word_seed_out() -> None:
    # a strong search evidence raises the best score far above the word seeds' share of it
    strong = LinkOptions(retrieved_weight=2.0)
    linked = link(QUESTION, CATALOG, retrieved=["t_d"], options=strong)
    seeds = [t.name for t in linked.tables if t.is_seed]
    assert seeds[0] == "t_d" and sorted(seeds) == [f"t_{c}" for c in "abcdef"]
