"""Query rewriting from curated document terms: the pure rewrite and its use by search()."""

from __future__ import annotations

import pytest

from tablerag.errors import RetrievalError
from tablerag.rag.retrieve import search
from tablerag.rag.rewrite import rewrite_query, unchanged
from tablerag.store.workspace import Workspace

PAIRS = [
    ("退钱", "退款"),
    ("退钱多久到账", "退款到账时间"),
    ("money back", "refund"),
    ("sku", "SKU编码"),
]


def test_the_longest_words_win_and_a_span_is_rewritten_once() -> None:
    r = rewrite_query("我的退钱多久到账？", PAIRS)
    assert r.text == "我的退款到账时间？"
    assert r.replaced == (("退钱多久到账", "退款到账时间"),)


def test_latin_words_match_whole_and_in_any_case_or_spacing() -> None:
    assert rewrite_query("When do I get my MONEY   back?", PAIRS).text == "When do I get my refund?"
    assert not rewrite_query("moneyback skus", PAIRS).changed  # not whole words
    assert rewrite_query("the sku of 货号", PAIRS).text == "the SKU编码 of 货号"


def test_expand_adds_each_term_once_after_the_question() -> None:
    r = rewrite_query("退钱了吗，money back?", PAIRS, mode="expand")
    assert r.text == "退钱了吗，money back? 退款 refund"
    assert [w for w, _ in r.replaced] == ["退钱", "money back"]


def test_nothing_changes_when_off_without_terms_or_when_the_term_is_there() -> None:
    assert rewrite_query("退钱多久到账", PAIRS, mode="off") == unchanged("退钱多久到账")
    assert rewrite_query("退钱多久到账", []) == unchanged("退钱多久到账")
    assert not rewrite_query("退款和退钱", [("退钱", "退款")]).changed


@pytest.mark.parametrize("mode", ["bm25", "hybrid"])
def test_search_reads_the_rewritten_query_for_its_lists(corpus_ws: Workspace, mode: str) -> None:
    question = "When do I get my money back?"
    before = search(corpus_ws, question, k=3, mode="bm25")
    assert "en-1" not in [h.chunk_id for h in before]  # no word in common with the refund rule
    rewrite = rewrite_query(question, PAIRS)
    hits = search(corpus_ws, question, k=3, mode=mode, rewrite=rewrite)
    assert hits[0].chunk_id == "en-1"


def test_a_rewrite_to_nothing_searchable_is_refused(corpus_ws: Workspace) -> None:
    rewrite = rewrite_query("money back", [("money back", "？？")])
    with pytest.raises(RetrievalError, match="no letters or digits"):
        search(corpus_ws, "money back", k=3, mode="bm25", rewrite=rewrite)
