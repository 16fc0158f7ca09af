"""Shared fixtures. Network is blocked (loopback only); PostgreSQL is a real local server."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from tablerag.service import Workspace

pytest_plugins = [
    "tests.plugins.network",
    "tests.plugins.postgres",
    "tests.plugins.mariadb",
    "tests.plugins.answering",
    "tests.plugins.canary",
]

os.environ.setdefault("TABLERAG_EMBEDDER", "hashing")


@pytest.fixture
def workspace(tmp_path: Path) -> Iterator[Workspace]:
    """A fresh, empty workspace in a temp folder."""
    with Workspace.open(tmp_path / "ws") as ws:
        yield ws


@pytest.fixture(scope="session")
def sample_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The bundled sample corpus, written once per test session."""
    from tablerag.sample import write_sample

    folder = tmp_path_factory.mktemp("sample")
    write_sample(folder)
    return folder
