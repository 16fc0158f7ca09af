"""The glossary of a descriptions file: stored with its source, read into the linking catalog."""

from __future__ import annotations

import json
from pathlib import Path

from tablerag.linking.cache import workspace_catalog
from tablerag.linking.linker import link
from tablerag.service import Workspace
from tablerag.settings import Settings
from tablerag.store.glossary import read_glossary

SETTINGS = Settings(index_on_ingest=False, embedder="hashing")


def _files(folder: Path, glossary: object) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "sales.csv").write_text(
        "region,net_amt,cost_amt\nEast,100,60\nWest,80,50\n", encoding="utf-8"
    )
    doc = {
        "format": "tablerag-table-descriptions/1",
        "tables": {"sales": {"description": "Sales"}},
        "glossary": glossary,
    }
    (folder / "d.json").write_text(json.dumps(doc, ensure_ascii=False), encoding="utf-8")
    return [folder / "sales.csv", folder / "d.json"]


def test_the_terms_are_stored_replaced_with_their_file_and_seed_linking(tmp_path: Path) -> None:
    files = _files(tmp_path / "in", {"毛利": ["net_amt", "cost_amt"]})
    with Workspace.open(tmp_path / "ws") as ws:
        reports = ws.ingest(files, settings=SETTINGS)
        assert [r.status for r in reports] == ["added", "added"]
        assert any("1 glossary terms" in p.what for p in reports[1].problems)
        assert read_glossary(ws.con) == {"毛利": ("net_amt", "cost_amt")}
        catalog = workspace_catalog(ws)
        assert catalog.glossary == {"毛利": ("net_amt", "cost_amt")}
        assert link("各区域的毛利是多少？", catalog).glossary_terms == ("毛利",)
        _files(tmp_path / "in", {"利润": ["net_amt"]})
        ws.ingest(files, settings=SETTINGS)
        assert read_glossary(ws.con) == {"利润": ("net_amt",)}


def test_a_malformed_glossary_fails_its_file_and_keeps_the_old_terms(tmp_path: Path) -> None:
    files = _files(tmp_path / "in", {"毛利": ["net_amt"]})
    with Workspace.open(tmp_path / "ws") as ws:
        ws.ingest(files, settings=SETTINGS)
        _files(tmp_path / "in", {"毛利": "net_amt"})
        (report,) = ws.ingest(files[1:], settings=SETTINGS)
        assert report.status == "failed" and "list of words" in (report.error or "")
        assert read_glossary(ws.con) == {"毛利": ("net_amt",)}


def test_without_a_glossary_no_term_is_known(tmp_path: Path) -> None:
    files = _files(tmp_path / "in", {})
    with Workspace.open(tmp_path / "ws") as ws:
        ws.ingest(files, settings=SETTINGS)
        assert link("各区域的毛利是多少？", workspace_catalog(ws)).glossary_terms == ()


def test_the_sample_corpus_ships_its_business_terms(sample_ws: Path) -> None:
    with Workspace.open(sample_ws, create=False) as ws:
        terms = read_glossary(ws.con)
    assert {"毛利", "客单价", "退货率", "gross profit"} <= set(terms)
