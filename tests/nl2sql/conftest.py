"""Fixtures of the text-to-SQL tests: the sample workspace's engine and linking catalog."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tablerag.linking.cache import workspace_catalog
from tablerag.linking.catalog import SchemaCatalog
from tablerag.sql.engines import SQLEngine, open_engine
from tablerag.store.workspace import Workspace


@pytest.fixture(scope="module")
def parts(sample_ws: Path) -> Iterator[tuple[SQLEngine, SchemaCatalog]]:
    """The read-only engine on the sample workspace and its linking catalog (one per module)."""
    with Workspace.open(sample_ws, create=False) as ws:
        tables = ws.tables()
        catalog = workspace_catalog(ws)
    with open_engine(sample_ws, catalog=tables) as engine:
        yield engine, catalog
