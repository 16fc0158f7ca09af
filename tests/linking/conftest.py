"""One ingested sample mart for the linking tests (ingesting takes seconds; share it)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tablerag.service import Workspace
from tablerag.settings import Settings


@pytest.fixture(scope="module")
def mart(sample_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Workspace]:
    """A workspace holding the ingested sample corpus."""
    with Workspace.open(tmp_path_factory.mktemp("mart") / "ws") as ws:
        ws.ingest([sample_dir], settings=Settings(index_on_ingest=False))
        yield ws
