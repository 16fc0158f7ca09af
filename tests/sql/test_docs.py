"""The examples in the docstrings of the SQL modules run and hold."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = [
    "tablerag.sql.exposed",
    "tablerag.sql.functions",
    "tablerag.sql.mask",
    "tablerag.sql.policy",
    "tablerag.sql.result",
    "tablerag.sql.rewrite",
    "tablerag.sql.sensitive",
    "tablerag.sql.validate",
    "tablerag.sql.engines.duckdb",
]


@pytest.mark.parametrize("name", MODULES)
def test_doctests(name: str) -> None:
    result = doctest.testmod(importlib.import_module(name))
    assert result.attempted > 0 and result.failed == 0
