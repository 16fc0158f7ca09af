"""prune_index: a removed source's rows leave the text index without any embedding (issue 22)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tablerag.errors import RetrievalError
from tablerag.rag.index import index_dir, index_is_current, load_index, prune_index, refresh_index
from tablerag.rag.retrieve import search
from tablerag.store.workspace import Workspace

from .conftest import CORPUS, CountingEmbedder, put_chunks


@pytest.fixture
def ws(tmp_path: Path, counting: type[CountingEmbedder]) -> Workspace:
    ws = Workspace.open(tmp_path / "ws")
    put_chunks(ws, CORPUS)
    refresh_index(ws, embedder_spec="counting:64")
    counting.seen.clear()
    return ws


def _delete(ws: Workspace, source: str) -> None:
    ws.con.execute("DELETE FROM tablerag.chunks WHERE source = ?", [source])


def test_pruned_rows_are_never_returned_and_nothing_is_embedded(
    ws: Workspace, counting: type[CountingEmbedder]
) -> None:
    query = "Refunds original payment method"
    ids = json.loads((index_dir(ws) / "chunk_ids.json").read_text(encoding="utf-8"))["chunk_ids"]
    assert {"en-1", "en-2"} <= set(ids)
    assert index_is_current(ws)
    _delete(ws, "docs/refund_policy.md")
    assert not index_is_current(ws)
    with pytest.raises(RetrievalError, match="out of date"):
        load_index(ws)  # a stale index is refused, never searched

    assert prune_index(ws) == 2
    assert index_is_current(ws)
    assert counting.seen == []
    loaded = load_index(ws)
    assert len(loaded.chunks) == len(CORPUS) - 2
    ids = json.loads((index_dir(ws) / "chunk_ids.json").read_text(encoding="utf-8"))["chunk_ids"]
    assert not {"en-1", "en-2"} & set(ids)
    for mode in ("bm25", "dense", "hybrid"):
        hits = search(ws, query, k=10, mode=mode)
        assert all(h.source != "docs/refund_policy.md" for h in hits)
        assert hits or mode == "bm25"  # no remaining passage shares a word with the query
    assert prune_index(ws) == 0  # nothing more to drop
    assert not refresh_index(ws).rebuilt  # already in line with the chunks


def test_pruning_every_row_leaves_an_empty_working_index(ws: Workspace) -> None:
    ws.con.execute("DELETE FROM tablerag.chunks")
    assert prune_index(ws) == len(CORPUS)
    assert load_index(ws).chunks == ()
    assert search(ws, "refund", k=3, mode="hybrid") == []


def test_an_index_that_did_not_match_is_left_for_the_next_ingest(ws: Workspace) -> None:
    put_chunks(ws, [CORPUS[0].__class__("new-1", "docs/new.md", 0, "A brand new passage.")])
    _delete(ws, "docs/handbook.pdf")
    assert prune_index(ws) == -1  # it lacks new-1: keeping the other rows would not make it current
    with pytest.raises(RetrievalError, match="out of date"):
        load_index(ws)
