"""refresh_index / load_index: incremental embedding, cache, persistence, stale detection."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tablerag.errors import RetrievalError
from tablerag.rag.index import index_dir, load_index, read_manifest, refresh_index
from tablerag.rag.retrieve import search
from tablerag.store.workspace import Workspace
from tablerag.types import Chunk

from .conftest import CORPUS, CountingEmbedder, put_chunks


@pytest.fixture
def ws(tmp_path: Path) -> Workspace:
    ws = Workspace.open(tmp_path / "ws")
    put_chunks(ws, CORPUS)
    return ws


def test_first_build_embeds_every_chunk_and_writes_a_manifest(
    ws: Workspace, counting: type[CountingEmbedder]
) -> None:
    stats = refresh_index(ws, embedder_spec="counting:128")
    assert (stats.chunks, stats.embedded, stats.cached, stats.dim) == (len(CORPUS), 7, 0, 128)
    assert stats.rebuilt
    assert len(counting.seen) == len(CORPUS)
    # the heading path is part of the embedded passage
    assert any(p.startswith("退货政策 > 换货\n") for p in counting.seen)
    manifest = read_manifest(ws)
    assert manifest is not None
    assert (manifest.embedder, manifest.dim, manifest.chunks) == ("counting:128", 128, 7)
    cached = ws.con.execute("SELECT count(*), min(dim) FROM tablerag.embeddings").fetchone()
    assert cached == (7, 128)


def test_unchanged_chunks_cost_nothing(ws: Workspace, counting: type[CountingEmbedder]) -> None:
    refresh_index(ws, embedder_spec="counting:128")
    counting.seen.clear()
    stats = refresh_index(ws)  # the embedder of the existing index is kept
    assert not stats.rebuilt
    assert stats.embedder == "counting:128"
    assert counting.seen == []


def test_new_and_changed_chunks_are_the_only_ones_embedded(
    ws: Workspace, counting: type[CountingEmbedder]
) -> None:
    refresh_index(ws, embedder_spec="counting:128")
    counting.seen.clear()
    put_chunks(
        ws,
        [
            Chunk("en-4", "docs/faq.md", 0, "Exchanges are free of charge within 30 days."),
            Chunk(
                "en-1",
                "docs/refund_policy.md",
                0,
                "Refunds take up to 21 business days now.",
                ("Refund policy", "Timing"),
            ),
        ],
    )
    stats = refresh_index(ws)
    assert (stats.chunks, stats.embedded, stats.cached) == (8, 2, 6)
    assert sorted(counting.seen) == sorted(
        [
            "Exchanges are free of charge within 30 days.",
            "Refund policy > Timing\nRefunds take up to 21 business days now.",
        ]
    )
    hits = search(ws, "how many business days does a refund take", k=1, mode="bm25")
    assert hits[0].chunk_id == "en-1" and "21 business days" in hits[0].text


def test_removed_chunks_leave_the_index(ws: Workspace) -> None:
    refresh_index(ws, embedder_spec="hashing:128")
    assert search(ws, "gift cards", k=1, mode="bm25")[0].chunk_id == "en-2"
    ws.con.execute("DELETE FROM tablerag.chunks WHERE chunk_id = 'en-2'")
    refresh_index(ws)
    assert all(h.chunk_id != "en-2" for h in search(ws, "gift cards", k=10, mode="hybrid"))
    assert load_index(ws).manifest.chunks == 6


def test_deleted_index_is_rebuilt_from_the_vector_cache(
    ws: Workspace, counting: type[CountingEmbedder]
) -> None:
    refresh_index(ws, embedder_spec="counting:128")
    shutil.rmtree(index_dir(ws))
    counting.seen.clear()
    stats = refresh_index(ws, embedder_spec="counting:128")
    assert stats.rebuilt and stats.embedded == 0 and stats.cached == 7
    assert counting.seen == []


def test_switching_embedder_reembeds_and_search_follows_the_manifest(ws: Workspace) -> None:
    refresh_index(ws, embedder_spec="hashing:128")
    stats = refresh_index(ws, embedder_spec="hashing:64")
    assert stats.embedded == 7 and stats.dim == 64
    assert search(ws, "销售额怎么计算", k=1, mode="dense")[0].chunk_id == "zh-3"


def test_missing_index_says_how_to_build_it(ws: Workspace) -> None:
    with pytest.raises(RetrievalError, match="No text index.*tablerag ingest"):
        search(ws, "refund", k=3)


def test_stale_index_is_detected_not_silently_used(ws: Workspace) -> None:
    refresh_index(ws, embedder_spec="hashing:128")
    search(ws, "refund", k=1)  # loads and caches the index
    put_chunks(ws, [Chunk("en-9", "docs/new.md", 0, "A brand new refund rule.")])
    # a fresh process (or a rewritten manifest) re-checks the chunk set
    from tablerag.rag import index as index_module

    index_module._LOADED.clear()
    with pytest.raises(RetrievalError, match="out of date.*tablerag ingest"):
        search(ws, "refund", k=1)
    refresh_index(ws)
    assert search(ws, "brand new refund rule", k=1, mode="bm25")[0].chunk_id == "en-9"


def test_corrupt_manifest_and_damaged_files_are_reported(ws: Workspace) -> None:
    refresh_index(ws, embedder_spec="hashing:128")
    from tablerag.rag import index as index_module

    (index_dir(ws) / "vectors.npy").write_bytes(b"not numpy")
    index_module._LOADED.clear()
    with pytest.raises(RetrievalError, match="damaged.*rebuild"):
        search(ws, "refund", k=1)
    (index_dir(ws) / "manifest.json").write_text("{nope", encoding="utf-8")
    with pytest.raises(RetrievalError, match="corrupt.*rebuild"):
        search(ws, "refund", k=1)
    stats = refresh_index(ws, embedder_spec="hashing:128")  # a refresh repairs it
    assert stats.rebuilt and stats.embedded == 0
    assert search(ws, "gift cards", k=1)[0].chunk_id == "en-2"


def test_index_files_survive_a_new_process(ws: Workspace, tmp_path: Path) -> None:
    refresh_index(ws, embedder_spec="hashing:128")
    ws.close()
    from tablerag.rag import index as index_module

    index_module._LOADED.clear()
    with Workspace.open(tmp_path / "ws", read_only=True) as again:
        hits = search(again, "换货", k=2, mode="bm25")
    assert hits[0].chunk_id == "zh-2"
    ids = json.loads((tmp_path / "ws" / "index" / "chunk_ids.json").read_text())["chunk_ids"]
    assert sorted(ids) == sorted(c.chunk_id for c in CORPUS)


def test_empty_workspace_gives_an_empty_index(tmp_path: Path) -> None:
    with Workspace.open(tmp_path / "empty") as ws:
        stats = refresh_index(ws, embedder_spec="hashing:32")
        assert stats.chunks == 0 and stats.rebuilt
        assert search(ws, "refund", k=5) == []


def test_progress_reports_embedded_passages(ws: Workspace) -> None:
    seen: list[tuple[int, int]] = []
    refresh_index(ws, embedder_spec="hashing:32", progress=lambda d, t: seen.append((d, t)))
    assert seen and seen[-1] == (7, 7)
