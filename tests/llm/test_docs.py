"""The examples in the llm modules' docstrings run and hold."""

from __future__ import annotations

import doctest
from types import ModuleType

import pytest

from tablerag.llm import _http, _urls, anthropic, base, cache, models, structured


@pytest.mark.parametrize(
    "module", [_http, _urls, anthropic, base, cache, models, structured], ids=lambda m: m.__name__
)
def test_doctests(module: ModuleType) -> None:
    result = doctest.testmod(module)
    assert result.attempted > 0 and result.failed == 0
