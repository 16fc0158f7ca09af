"""A reader (``ask``, ``sql``, ``search``) of a workspace an older tablerag wrote upgrades it with
one short write, as it did when readers opened the file read-write (issue 22)."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

from tablerag.errors import WorkspaceError
from tablerag.layout import DB_FILE
from tablerag.store.workspace import SCHEMA_VERSION, Workspace


def _older(root: Path) -> None:
    """The workspace as tablerag wrote it before its last migration (7: no examples table)."""
    with Workspace.open(root) as ws:
        ws.con.execute("CREATE TABLE data.t AS SELECT 1 AS x")
    con = duckdb.connect(str(root / DB_FILE))
    con.execute("DROP TABLE tablerag.examples")
    con.execute(
        "UPDATE tablerag.meta SET value = ? WHERE key = 'schema_version'", [str(SCHEMA_VERSION - 1)]
    )
    con.close()


def test_a_reader_upgrades_an_older_workspace(tmp_path: Path) -> None:
    _older(tmp_path / "ws")
    with Workspace.open(tmp_path / "ws", read_only=True) as ws:
        assert ws.read_only and ws.schema_version() == SCHEMA_VERSION
        assert ws.con.execute("SELECT x FROM data.t").fetchone() == (1,)
        assert ws.con.execute("SELECT count(*) FROM tablerag.examples").fetchone() == (0,)


def test_a_reader_that_cannot_write_says_how_to_upgrade(tmp_path: Path) -> None:
    _older(tmp_path / "ws")
    with Workspace.open(tmp_path / "ws", read_only=True, wait_s=0) as ws:
        assert ws.schema_version() == SCHEMA_VERSION  # upgraded once ...
    _older(tmp_path / "other")
    holder = duckdb.connect(str(tmp_path / "other" / DB_FILE), read_only=True)
    try:  # ... but not while this connection (as another process would) keeps it read-only
        with pytest.raises(WorkspaceError, match="needs an upgrade"):
            Workspace.open(tmp_path / "other", read_only=True, wait_s=0)
    finally:
        holder.close()
