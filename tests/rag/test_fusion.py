"""Reciprocal rank fusion."""

from __future__ import annotations

import pytest

from tablerag.rag.fusion import reciprocal_rank_fusion


def test_documents_in_both_lists_rise() -> None:
    fused = reciprocal_rank_fusion([["a", "b", "c", "d"], ["d", "c", "x"]])
    # d is 4th and 1st, c is 3rd and 2nd: both beat a, first in only one list
    assert [d for d, _ in fused][:3] == ["d", "c", "a"]
    assert dict(fused)["d"] == pytest.approx(1 / 64 + 1 / 61)


def test_single_list_keeps_its_order_and_k_flattens() -> None:
    assert [d for d, _ in reciprocal_rank_fusion([["x", "y", "z"]])] == ["x", "y", "z"]
    steep = dict(reciprocal_rank_fusion([["a", "b"]], k=0))
    flat = dict(reciprocal_rank_fusion([["a", "b"]], k=1000))
    assert steep["a"] / steep["b"] > flat["a"] / flat["b"]


def test_empty_lists_and_bad_arguments() -> None:
    assert reciprocal_rank_fusion([[], []]) == []
    with pytest.raises(ValueError, match="k must be"):
        reciprocal_rank_fusion([["a"]], k=-1)
    with pytest.raises(ValueError, match="2 weights given for 1"):
        reciprocal_rank_fusion([["a"]], weights=[1.0, 2.0])
