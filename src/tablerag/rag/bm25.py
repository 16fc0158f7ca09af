"""Lexical index: BM25 (``bm25s``, Lucene variant) over :func:`~tablerag.lang.tokenize.tokenize`."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from pathlib import Path

import bm25s
import numpy as np

from tablerag.rag.vector import top_k

# bm25s sets its own logger to DEBUG at import; its progress chatter is not for our users.
logging.getLogger("bm25s").setLevel(logging.WARNING)


class BM25Index:
    """BM25 over pre-tokenised documents; document ``i`` is row ``i`` of the other indexes."""

    def __init__(self, model: bm25s.BM25 | None, size: int) -> None:
        self._model = model
        self._size = size

    @classmethod
    def build(cls, docs: Sequence[Sequence[str]]) -> BM25Index:
        """Index token lists (an empty list is a document no query matches)."""
        if not any(docs):
            return cls(None, len(docs))
        model = bm25s.BM25()
        model.index([list(d) for d in docs], show_progress=False)
        return cls(model, len(docs))

    def __len__(self) -> int:
        return self._size

    def search(self, tokens: Sequence[str], n: int) -> list[tuple[int, float]]:
        """The ``n`` best documents for query tokens; only documents sharing a token count."""
        if self._model is None or not tokens:
            return []
        known = [t for t in tokens if t in self._model.vocab_dict]
        if not known:
            return []
        scores = np.asarray(self._model.get_scores(known), dtype=np.float32)
        return top_k(scores, n, positive_only=True)

    def save(self, folder: Path) -> None:
        """Write the index into ``folder`` (bm25s format); an empty index writes a marker."""
        folder.mkdir(parents=True, exist_ok=True)
        if self._model is None:
            (folder / "empty").write_text(str(self._size), encoding="utf-8")
        else:
            self._model.save(str(folder))

    @classmethod
    def load(cls, folder: Path) -> BM25Index:
        """Read an index written by :meth:`save`."""
        marker = folder / "empty"
        if marker.exists():
            return cls(None, int(marker.read_text(encoding="utf-8")))
        model = bm25s.BM25.load(str(folder))
        return cls(model, int(model.scores["num_docs"]))
