"""Every docstring example in the package runs and holds.

The examples are the modules' documentation; one that is wrong misleads the reader, so each
module with examples is a case here (a module added later is picked up without a list).
"""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import tablerag

OPTIONAL = {"llama_cpp", "sentence_transformers", "torch"}
"""Packages of extras that the test environment does not install."""


def _modules() -> list[str]:
    found = pkgutil.walk_packages(tablerag.__path__, prefix="tablerag.")
    return sorted(m.name for m in found if not m.name.endswith("__main__"))


MODULES = _modules()


def test_the_walk_finds_the_package() -> None:
    assert len(MODULES) > 100 and "tablerag.loop.crosscheck" in MODULES


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples_hold(name: str) -> None:
    try:
        module = importlib.import_module(name)
    except ImportError as exc:
        if exc.name in OPTIONAL:
            pytest.skip(f"needs the optional package {exc.name}")
        raise
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0
