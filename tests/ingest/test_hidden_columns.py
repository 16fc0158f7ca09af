"""Table chunks never contain hidden columns.

Canaries in sensitive columns never reach the text index, `tablerag chunks` or `tablerag search`,
whichever order the data and its descriptions file are ingested in.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tablerag.cli import app
from tablerag.service import Workspace
from tablerag.settings import load_settings
from tablerag.store.annotations import FORMAT

runner = CliRunner()

CANARIES = {
    "password": ["pwCanaryAlpha1", "pwCanaryBravo2"],
    "id_card": ["110101199003071234", "11010119850512987X"],
    "phone": ["13812345671", "13912345672"],
    "email": ["canary.one@example.org", "canary.two@example.org"],
    "backup": ["canary.three@example.net", "canary.four@example.net"],  # by content only
    "nickname": ["zzNickCanaryOne", "zzNickCanaryTwo"],  # flagged by the descriptions file
}
HIDDEN_NAMES = tuple(CANARIES)
ORDINARY = {"name": ["Alice Wang", "Bob Li"], "city": ["Hangzhou", "Chengdu"]}


def _write_people(folder: Path) -> Path:
    cols = {**ORDINARY, **CANARIES}
    lines = [",".join(cols)] + [",".join(v[i] for v in cols.values()) for i in range(2)]
    path = folder / "people.csv"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _write_descriptions(folder: Path, tables: dict[str, str]) -> Path:
    doc = {
        "format": FORMAT,
        "tables": {
            t: {"description": "described", "columns": {c: {"sensitive": True}}}
            for t, c in tables.items()
        },
    }
    path = folder / "descriptions.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


def _canaries() -> list[str]:
    return [v for values in CANARIES.values() for v in values]


def _assert_clean(text: str) -> None:
    for canary in _canaries():
        assert canary not in text
    lowered = text.lower()
    for name in HIDDEN_NAMES:
        assert name not in lowered


def _ingest(ws: Workspace, paths: list[Path]) -> None:
    for path in paths:  # one call per file: the order is the test's
        reports = ws.ingest([path], settings=load_settings(embedder="hashing"))
        assert all(r.status != "failed" for r in reports), reports


@pytest.mark.parametrize("descriptions_first", [False, True], ids=["data-first", "desc-first"])
def test_no_canary_in_chunks_search_or_cli(tmp_path: Path, descriptions_first: bool) -> None:
    data = _write_people(tmp_path)
    desc = _write_descriptions(tmp_path, {"people": "nickname"})
    ws = Workspace.open(tmp_path / "ws")
    try:
        _ingest(ws, [desc, data] if descriptions_first else [data, desc])
        texts = [c.text for c in ws.chunks() if c.table == "people"]
        assert len(texts) >= 2  # the card and the rows
        for text in texts:
            _assert_clean(text)
        joined = "\n".join(texts)
        for values in ORDINARY.values():
            assert all(v in joined for v in values)
        assert "Columns: name, city (6 columns hidden)" in texts[0]
        for mode in ("bm25", "hybrid"):
            for query in [*_canaries(), "password id_card phone email nickname", "Alice"]:
                for hit in ws.search(query, k=10, mode=mode):
                    _assert_clean(hit.text)
        assert {c.name for c in ws.table("people").columns} >= set(HIDDEN_NAMES)  # SQL keeps them
    finally:
        ws.close()
    path = str(tmp_path / "ws")
    res = runner.invoke(app, ["chunks", "-w", path, "--json"])
    assert res.exit_code == 0, res.output
    assert "Alice Wang" in res.stdout
    _assert_clean(res.stdout)
    for query in ["zzNickCanaryOne", "pwCanaryAlpha1 110101199003071234", "Alice"]:
        res = runner.invoke(app, ["search", query, "--json", "-w", path, "--mode", "bm25"])
        assert res.exit_code == 0, res.output
        _assert_clean(res.stdout)


def test_flagging_a_document_table_later_rebuilds_only_its_chunks(tmp_path: Path) -> None:
    doc = tmp_path / "staff.md"
    doc.write_text(
        "# Staff\n\nThe team list below is updated monthly.\n\n"
        "| name | badge | id_card |\n| --- | --- | --- |\n"
        "| Alice Wang | zzBadgeCanary1 | 110101199003071234 |\n\n"
        "# Notes\n\nBadges are collected at the front desk.\n",
        encoding="utf-8",
    )
    ws = Workspace.open(tmp_path / "ws")
    try:
        _ingest(ws, [doc])
        before = list(ws.chunks())
        table = next(c for c in before if c.table is not None)
        assert "zzBadgeCanary1" in table.text and "110101199003071234" not in table.text
        assert "(1 column hidden)" in table.text
        _ingest(ws, [_write_descriptions(tmp_path, {table.table or "": "badge"})])
        after = list(ws.chunks())
        joined = "\n".join(c.text for c in after)
        assert "zzBadgeCanary1" not in joined and "badge |" not in joined
        assert "Alice Wang" in joined and "(2 columns hidden)" in joined
        assert [c.text for c in after if c.table is None] == [
            c.text for c in before if c.table is None
        ]
        assert [c.ordinal for c in after] == list(range(len(after)))
        assert all("zzBadgeCanary1" not in h.text for h in ws.search("zzBadgeCanary1", k=5))
    finally:
        ws.close()


def test_reflected_database_card_hides_sensitive_column_names(tmp_path: Path) -> None:
    db = tmp_path / "shop.sqlite"
    con = sqlite3.connect(db)
    con.execute("CREATE TABLE users (name TEXT, password TEXT, nickname TEXT)")
    con.execute("INSERT INTO users VALUES ('Alice', 'pwCanaryAlpha1', 'zzNickCanaryOne')")
    con.commit()
    con.close()
    ws = Workspace.open(tmp_path / "ws")
    try:
        reports = ws.ingest([f"sqlite:///{db}"], settings=load_settings(embedder="hashing"))
        assert reports[0].status == "added", reports
        card = next(c.text for c in ws.chunks() if c.table == "users")
        assert "Columns: name, nickname (1 column hidden)" in card and "password" not in card
        _ingest(ws, [_write_descriptions(tmp_path, {"users": "nickname"})])
        card = next(c.text for c in ws.chunks() if c.table == "users")
        assert "Columns: name (2 columns hidden)" in card and "nickname" not in card
    finally:
        ws.close()
