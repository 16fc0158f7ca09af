from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

from tablerag.errors import ConfigError, WorkspaceError
from tablerag.layout import DB_FILE
from tablerag.store.workspace import SCHEMA_VERSION, Workspace


def test_open_creates_folder_with_schema_version(tmp_path: Path) -> None:
    with Workspace.open(tmp_path / "ws") as ws:
        assert ws.db_path == tmp_path / "ws" / DB_FILE
        assert ws.schema_version() == SCHEMA_VERSION
        schemas = {
            r[0]
            for r in ws.con.execute(
                "SELECT schema_name FROM duckdb_schemas() WHERE database_name = current_database()"
            ).fetchall()
        }
        assert {"data", "tablerag"} <= schemas
        assert ws.summary()["tables"] == 0


def test_reopen_keeps_contents(tmp_path: Path) -> None:
    with Workspace.open(tmp_path) as ws:
        ws.con.execute("CREATE TABLE data.t AS SELECT 1 AS x")
    with Workspace.open(tmp_path, read_only=True) as ws:
        assert ws.con.execute("SELECT x FROM data.t").fetchone() == (1,)


def test_a_staging_table_left_in_data_is_dropped_on_the_next_writable_open(tmp_path: Path) -> None:
    from tablerag.ingest.tables.rows import new_relation_name

    stage = new_relation_name()
    with Workspace.open(tmp_path) as ws:  # as a reader run in autocommit would leave it
        ws.con.execute(f'CREATE TABLE data."{stage}" AS SELECT 1 AS x')
        ws.con.execute("CREATE TABLE data.kept AS SELECT 2 AS y")

    def tables(ws: Workspace) -> set[str]:
        rows = ws.con.execute(
            "SELECT table_name FROM duckdb_tables() WHERE schema_name = 'data'"
        ).fetchall()
        return {r[0] for r in rows}

    with Workspace.open(tmp_path, read_only=True) as ws:
        assert tables(ws) == {stage, "kept"}  # a reader never writes
    with Workspace.open(tmp_path) as ws:
        assert tables(ws) == {"kept"}


def test_missing_workspace_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(WorkspaceError, match="tablerag ingest"):
        Workspace.open(tmp_path / "nope", create=False)
    with pytest.raises(WorkspaceError, match="No workspace"):
        Workspace.open(tmp_path / "nope", read_only=True)
    assert not (tmp_path / "nope").exists()


def test_file_instead_of_folder(tmp_path: Path) -> None:
    f = tmp_path / "file"
    f.write_text("x")
    with pytest.raises(ConfigError, match="is a file"):
        Workspace.open(f)


def test_newer_schema_refused(tmp_path: Path) -> None:
    with Workspace.open(tmp_path) as ws:
        ws.con.execute("UPDATE tablerag.meta SET value = '999' WHERE key = 'schema_version'")
    with pytest.raises(WorkspaceError, match="Upgrade tablerag"):
        Workspace.open(tmp_path)


def test_not_a_duckdb_file(tmp_path: Path) -> None:
    (tmp_path / DB_FILE).write_bytes(b"this is not a database" * 100)
    with pytest.raises(WorkspaceError, match="re-ingest|Cannot open"):
        Workspace.open(tmp_path)


def test_transaction_rolls_back(tmp_path: Path) -> None:
    with Workspace.open(tmp_path) as ws:
        with pytest.raises(duckdb.Error), ws.transaction() as con:
            con.execute("CREATE TABLE data.half AS SELECT 1 AS x")
            con.execute("SELECT * FROM no_such_table")
        assert ws.con.execute(
            "SELECT count(*) FROM duckdb_tables() WHERE table_name = 'half'"
        ).fetchone() == (0,)


def test_unknown_table_suggests(workspace: Workspace) -> None:
    with pytest.raises(ConfigError, match="No table 'nothing'"):
        workspace.table("nothing")
