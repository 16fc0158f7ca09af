"""The two indexes on their own: exact cosine search and BM25, with persistence."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tablerag.errors import RetrievalError
from tablerag.rag.bm25 import BM25Index
from tablerag.rag.vector import VectorIndex, top_k


def test_vector_search_is_exact_and_persists(tmp_path: Path) -> None:
    rng = np.random.default_rng(1)
    m = rng.standard_normal((500, 16)).astype(np.float32)
    m /= np.linalg.norm(m, axis=1, keepdims=True)
    index = VectorIndex(m)
    q = m[42] + 0.01 * rng.standard_normal(16).astype(np.float32)
    q /= np.linalg.norm(q)
    got = index.search(q, 5)
    expected = np.argsort(-(m @ q))[:5]
    assert [i for i, _ in got] == expected.tolist() and got[0][0] == 42
    index.save(tmp_path / "v.npy")
    assert VectorIndex.load(tmp_path / "v.npy").search(q, 5) == got
    with pytest.raises(RetrievalError, match="dimension 8.*16-d"):
        index.search(np.ones(8, dtype=np.float32), 3)


def test_top_k_edges() -> None:
    scores = np.array([0.5, 0.5, 0.9], dtype=np.float32)
    assert top_k(scores, 2) == [(2, 0.9), (0, 0.5)]  # ties: lower index first
    assert top_k(scores, 0) == [] and top_k(np.array([], dtype=np.float32), 3) == []


def test_bm25_ranks_rarer_terms_higher_and_persists(tmp_path: Path) -> None:
    docs = [["refund", "policy"], ["policy", "privacy"], ["policy"], ["gift", "card"]]
    index = BM25Index.build(docs)
    assert [i for i, _ in index.search(["refund", "policy"], 10)][0] == 0
    assert index.search(["unknown"], 5) == []
    assert {i for i, _ in index.search(["policy"], 10)} == {0, 1, 2}
    index.save(tmp_path / "b")
    assert BM25Index.load(tmp_path / "b").search(["gift"], 3) == index.search(["gift"], 3)


def test_bm25_all_empty_documents(tmp_path: Path) -> None:
    index = BM25Index.build([[], []])
    assert len(index) == 2 and index.search(["a"], 3) == []
    index.save(tmp_path / "e")
    assert len(BM25Index.load(tmp_path / "e")) == 2
