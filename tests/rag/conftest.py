"""Fixtures for the retrieval tests: a small bilingual corpus written straight into chunks."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest

from tablerag import registry
from tablerag.embed.base import Matrix, Role
from tablerag.embed.hashing import HashingEmbedder
from tablerag.store.workspace import Workspace
from tablerag.types import Chunk

CORPUS: tuple[Chunk, ...] = (
    Chunk(
        "zh-1",
        "docs/退货政策.md",
        0,
        "客户在收到商品后七天内可以申请无理由退货，退款在五个工作日内原路返回。",
        ("退货政策", "退货期限"),
    ),
    Chunk(
        "zh-2",
        "docs/退货政策.md",
        1,
        "退货完成后，客户可以在十五天内申请换货，换货商品需保持完好。",
        ("退货政策", "换货"),
        page=2,
    ),
    Chunk(
        "zh-3",
        "docs/指标口径.md",
        0,
        "销售额按订单实付金额计算，不含运费和优惠券。",
        ("指标口径", "销售额"),
    ),
    Chunk(
        "en-1",
        "docs/refund_policy.md",
        0,
        "Refunds are issued to the original payment method within 14 business days.",
        ("Refund policy", "Timing"),
    ),
    Chunk(
        "en-2",
        "docs/refund_policy.md",
        1,
        "Opened software and gift cards cannot be returned or exchanged.",
        ("Refund policy", "Exceptions"),
    ),
    Chunk(
        "en-3",
        "docs/handbook.pdf",
        0,
        "Regional managers approve discounts above 20 percent for enterprise customers.",
        ("Sales handbook", "Discounts"),
        page=7,
    ),
    Chunk(
        "tb-1",
        "data/fact_sales.csv",
        0,
        "Table fact_sales: region | month | revenue\n华东 | 2024-01 | 1,200,000\n"
        "华北 | 2024-01 | 980,000",
        ("fact_sales",),
        table="fact_sales",
    ),
)


def put_chunks(ws: Workspace, chunks: Sequence[Chunk]) -> None:
    """Write chunks into ``tablerag.chunks`` as the ingest pipeline would."""
    for c in chunks:
        digest = hashlib.sha256(c.text.encode()).hexdigest()
        ws.con.execute(
            "INSERT OR REPLACE INTO tablerag.chunks VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [
                c.chunk_id,
                c.source,
                c.source,
                c.ordinal,
                c.text,
                list(c.heading_path),
                c.page,
                c.table,
                digest,
            ],
        )


class CountingEmbedder(HashingEmbedder):
    """A hashing embedder that records every passage it embeds."""

    backend = "counting"
    seen: list[str] = []

    def embed_batch(self, texts: Sequence[str], *, role: Role) -> Matrix:
        if role == "passage":
            CountingEmbedder.seen.extend(texts)
        return super().embed_batch(texts, role=role)


@pytest.fixture
def counting() -> Iterator[type[CountingEmbedder]]:
    """Register the ``counting`` embedder (spec ``counting`` or ``counting:<dim>``)."""
    CountingEmbedder.seen = []
    registry.register("embedder", "counting", CountingEmbedder)
    from tablerag.rag import index

    index._EMBEDDERS.clear()
    yield CountingEmbedder
    registry.unregister("embedder", "counting")
    index._EMBEDDERS.clear()


@pytest.fixture
def corpus_ws(tmp_path: Path) -> Iterator[Workspace]:
    """A workspace holding :data:`CORPUS`, indexed with ``hashing:512``."""
    from tablerag.rag.index import refresh_index

    with Workspace.open(tmp_path / "ws") as ws:
        put_chunks(ws, CORPUS)
        refresh_index(ws, embedder_spec="hashing:512")
        yield ws
