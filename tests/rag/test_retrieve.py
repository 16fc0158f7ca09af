"""search(): modes, hits carrying source/heading/page/table, and every bad input."""

from __future__ import annotations

import pytest

from tablerag.embed.hashing import HashingEmbedder
from tablerag.errors import ConfigError, RetrievalError
from tablerag.rag.rerank import Reranker
from tablerag.rag.retrieve import search
from tablerag.store.workspace import Workspace
from tablerag.types import Hit


@pytest.mark.parametrize("mode", ["bm25", "dense", "hybrid"])
def test_chinese_question_finds_the_exchange_rule(corpus_ws: Workspace, mode: str) -> None:
    hits = search(corpus_ws, "退货后多久可以换货", k=3, mode=mode)
    assert hits[0].chunk_id == "zh-2"
    top = hits[0]
    assert top.source == "docs/退货政策.md"
    assert top.heading_path == ("退货政策", "换货")
    assert top.page == 2 and top.table is None
    assert [h.rank for h in hits] == list(range(1, len(hits) + 1))
    assert all(a.score >= b.score for a, b in zip(hits, hits[1:], strict=False))


@pytest.mark.parametrize("mode", ["bm25", "dense", "hybrid"])
def test_english_question_finds_the_refund_timing(corpus_ws: Workspace, mode: str) -> None:
    hits = search(corpus_ws, "How many business days until my refund is issued?", k=2, mode=mode)
    assert hits[0].chunk_id == "en-1"
    assert hits[0].heading_path == ("Refund policy", "Timing")


def test_table_chunk_carries_its_table(corpus_ws: Workspace) -> None:
    hits = search(corpus_ws, "华东 revenue 2024-01", k=3)
    table_hits = [h for h in hits if h.chunk_id == "tb-1"]
    assert table_hits and table_hits[0].table == "fact_sales"
    assert table_hits[0].to_dict()["table"] == "fact_sales"
    assert table_hits[0].chunk.table == "fact_sales"


def test_hybrid_records_both_lists_and_fuses_them(corpus_ws: Workspace) -> None:
    hits = search(corpus_ws, "gift cards cannot be exchanged", k=3, mode="hybrid")
    top = hits[0]
    assert top.chunk_id == "en-2"
    assert top.bm25 is not None and top.dense is not None
    assert top.bm25_rank == 1 and top.dense_rank == 1
    assert top.score == pytest.approx(2 / 61, abs=1e-6)  # RRF, k = 60, rank 1 in both lists


def test_bm25_returns_only_chunks_sharing_a_word(corpus_ws: Workspace) -> None:
    hits = search(corpus_ws, "enterprise discounts", k=5, mode="bm25")
    assert [h.chunk_id for h in hits] == ["en-3"]
    assert hits[0].dense is None


def test_mixed_language_query(corpus_ws: Workspace) -> None:
    hits = search(corpus_ws, "refund 退款 原路返回", k=2, mode="bm25")
    assert {h.chunk_id for h in hits} == {"zh-1", "en-1"}


def test_k_limits_the_hits(corpus_ws: Workspace) -> None:
    assert len(search(corpus_ws, "客户 customers", k=1, mode="dense")) == 1
    assert len(search(corpus_ws, "客户 customers", k=50, mode="dense")) == 7


@pytest.mark.parametrize(
    ("query", "message"),
    [
        pytest.param("", "empty", id="empty"),
        pytest.param("   \n\t ", "empty", id="whitespace"),
        pytest.param("？？！…", "no letters or digits", id="punctuation"),
        pytest.param("Какой срок возврата товара?", "Cyrillic", id="cyrillic"),
        pytest.param("ما هي سياسة الاسترداد", "Arabic", id="arabic"),
        pytest.param("x" * 2001, "shorten", id="too-long"),
    ],
)
def test_bad_queries_get_a_clear_error(corpus_ws: Workspace, query: str, message: str) -> None:
    with pytest.raises(RetrievalError, match=message):
        search(corpus_ws, query)


def test_a_few_foreign_words_in_a_supported_query_are_fine(corpus_ws: Workspace) -> None:
    assert search(corpus_ws, "gift cards für Geschenk", k=1, mode="bm25")[0].chunk_id == "en-2"


def test_bad_mode_and_k(corpus_ws: Workspace) -> None:
    with pytest.raises(ConfigError, match="Did you mean 'hybrid'"):
        search(corpus_ws, "refund", mode="hybird")
    with pytest.raises(ConfigError, match="between 1 and 1000"):
        search(corpus_ws, "refund", k=0)


def test_embedder_of_another_dimension_is_refused(corpus_ws: Workspace) -> None:
    with pytest.raises(RetrievalError, match="512-d.*64-d.*re-index"):
        search(corpus_ws, "refund", embedder="hashing:64", mode="dense")


def test_embedder_with_the_same_dimension_but_another_model_is_refused(
    corpus_ws: Workspace,
) -> None:
    class Other(HashingEmbedder):
        backend = "other"

    with pytest.raises(RetrievalError, match="built with embedder 'hashing:512', not 'other:512'"):
        search(corpus_ws, "refund", embedder=Other("512"), mode="hybrid")


def test_bm25_mode_never_needs_the_embedder(corpus_ws: Workspace) -> None:
    hits = search(corpus_ws, "refund", embedder="hashing:64", mode="bm25")
    assert hits and hits[0].chunk_id == "en-1"


class _ReverseReranker(Reranker):
    backend = "reverse"

    def score(self, query: str, texts: list[str]) -> list[float]:  # type: ignore[override]
        return [float(i) for i in range(len(texts))]


def test_reranker_reorders_candidates(corpus_ws: Workspace) -> None:
    plain = search(corpus_ws, "refund policy", k=7, mode="bm25")
    reranked = search(corpus_ws, "refund policy", k=7, mode="bm25", reranker=_ReverseReranker())
    assert [h.chunk_id for h in reranked] == [h.chunk_id for h in reversed(plain)]
    assert [h.rank for h in reranked] == list(range(1, len(plain) + 1))


def test_hit_to_dict_is_json_ready(corpus_ws: Workspace) -> None:
    data = search(corpus_ws, "销售额", k=1)[0].to_dict()
    assert {"chunk_id", "source", "score", "text", "table", "heading_path", "page"} <= set(data)
    assert data["heading_path"] == ["指标口径", "销售额"]
    assert isinstance(Hit(**{**data, "heading_path": tuple(data["heading_path"])}), Hit)
