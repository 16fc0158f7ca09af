"""The examples in the docstrings of the linking and evaluation modules run and hold."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = [
    "tablerag.linking.cache",
    "tablerag.linking.fkgraph",
    "tablerag.linking.lexicon",
    "tablerag.linking.linker",
    "tablerag.linking.profile",
    "tablerag.linking.render",
    "tablerag.linking.text",
    "tablerag.linking.values",
    "tablerag.evals.gold",
    "tablerag.evals.linking",
    "tablerag.evals.datasets.spider",
]


@pytest.mark.parametrize("name", MODULES)
def test_doctests(name: str) -> None:
    result = doctest.testmod(importlib.import_module(name))
    assert result.attempted > 0 and result.failed == 0
