"""The document side: text index (BM25 + dense vectors), fusion, reranking and search."""

from __future__ import annotations
