"""A private copy of the sample workspace per test (the tests write verified queries)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest


@pytest.fixture
def ws(sample_ws: Path, tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    shutil.copytree(sample_ws, root, ignore=shutil.ignore_patterns("service.sqlite*"))
    return root
