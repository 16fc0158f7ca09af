"""The rows a source owns: recorded by ingestion, found by location, forgotten all together."""

from __future__ import annotations

from pathlib import Path

import pytest

from tablerag.store.annotations import Annotation, record_annotations
from tablerag.store.catalog import record_table
from tablerag.store.chunks import add_chunks, chunk_fingerprint, chunks_by_id
from tablerag.store.documents import record_document
from tablerag.store.glossary import record_glossary
from tablerag.store.profiles import CachedProfile, cached_profiles, save_profile
from tablerag.store.sources import OWNED_TABLES, find_source, forget_source, record_source
from tablerag.store.workspace import Workspace
from tablerag.types import Chunk, ColumnInfo, Problem, SourceReport, TableInfo

LOCATION = "/corpus/sales.csv"


def _ingest(ws: Workspace, source_id: str = "s1", location: str = LOCATION) -> None:
    """Write every kind of row a source owns, as the ingest pipeline does."""
    ws.con.execute("CREATE TABLE data.sales AS SELECT 1 AS amount")
    info = TableInfo("sales", location, (ColumnInfo("amount", "INTEGER"),), 1)
    record_table(ws.con, info, source_id, stored=True, rows_read=1)
    record_document(ws.con, source_id, title="Sales", blocks=3, pages=None)
    add_chunks(ws.con, [Chunk("c1", location, 0, "Table sales")], source_id=source_id)
    record_annotations(ws.con, source_id, [Annotation("sales", "amount", "Net amount")])
    record_glossary(ws.con, source_id, {"revenue": ("amount",)})
    save_profile(ws.con, "sales", location, CachedProfile("fp", "[]", "{}"))
    report = SourceReport(
        location, "file", "added", ("sales",), 1, 1, 1, (Problem("B2", "odd", "kept"),)
    )
    record_source(
        ws.con,
        source_id,
        location,
        kind="file",
        format="csv",
        content_hash="abc",
        size_bytes=10,
        report=report,
    )


def _count(ws: Workspace, table: str) -> int:
    row = ws.con.execute(f"SELECT count(*) FROM tablerag.{table}").fetchone()
    assert row is not None
    return int(row[0])


def test_a_recorded_source_is_found_by_location_and_listed(workspace: Workspace) -> None:
    _ingest(workspace)
    found = find_source(workspace.con, LOCATION)
    assert found is not None and (found.source_id, found.content_hash) == ("s1", "abc")
    assert find_source(workspace.con, "/corpus/other.csv") is None
    (listed,) = workspace.sources()
    assert (listed.format, listed.rows_stored, listed.tables) == ("csv", 1, ("sales",))
    assert listed.problems == (Problem("B2", "odd", "kept"),)
    assert workspace.table("sales").columns[0].description == "Net amount"  # annotation merged


def test_forgetting_a_source_removes_everything_it_owns(workspace: Workspace) -> None:
    _ingest(workspace)
    add_chunks(workspace.con, [Chunk("other", "/b.md", 0, "kept")], source_id="s2")
    with workspace.transaction() as con:
        forget_source(con, "s1")
    assert {t: _count(workspace, t) for t in (*OWNED_TABLES, "profiles")} == {
        "chunks": 1,
        "columns": 0,
        "tables": 0,
        "glossary": 0,
        "documents": 0,
        "annotations": 0,
        "sources": 0,
        "profiles": 0,
    }
    stored = workspace.con.execute(
        "SELECT count(*) FROM duckdb_tables() WHERE schema_name = 'data'"
    ).fetchone()
    assert stored == (0,)
    assert list(chunks_by_id(workspace.con)) == ["other"]


def test_a_failed_replace_keeps_the_old_version(workspace: Workspace) -> None:
    _ingest(workspace)
    with pytest.raises(RuntimeError), workspace.transaction() as con:
        forget_source(con, "s1")
        raise RuntimeError("the new version could not be read")
    assert find_source(workspace.con, LOCATION) is not None
    assert cached_profiles(workspace.con)[("sales", LOCATION)].fingerprint == "fp"
    assert workspace.con.execute("SELECT amount FROM data.sales").fetchone() == (1,)


def test_chunks_without_a_source_are_filed_under_their_location(tmp_path: Path) -> None:
    with Workspace.open(tmp_path) as ws:
        empty = chunk_fingerprint(ws.con)
        add_chunks(ws.con, [Chunk("p1", "policy-7", 0, "Refunds.", ("Returns",))], source_id=None)
        owner = ws.con.execute("SELECT source_id, content_hash FROM tablerag.chunks").fetchone()
        assert owner is not None and owner[0] == "policy-7" and len(owner[1]) == 64
        assert chunks_by_id(ws.con)["p1"].heading_path == ("Returns",)
        assert empty == (0, "0-0000000000000000") and chunk_fingerprint(ws.con)[0] == 1
