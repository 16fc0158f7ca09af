"""``tablerag sources``, ``remove`` and ``refresh`` end to end (issue 22): a removed source leaves
nothing behind (canary checked in every output and in the index files), a moved folder keeps its
tables, a database's drift is reported and named, bad input gets one sentence with the fix."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest
from typer.testing import CliRunner

from tablerag.cli import app
from tablerag.cli._common import console
from tablerag.layout import DB_FILE
from tablerag.store.sources import OWNED_TABLES

runner = CliRunner()
DOC_CANARY = "zqxcanarydoc"
ROW_CANARY = "zqxcanaryrow"
FRUIT_CSV = f"name,qty\napple,3\npear,5\n{ROW_CANARY},7\n"
GUIDE_MD = f"# Storage\n\nApples keep for weeks in a cold cellar, said {DOC_CANARY}.\n"


@pytest.fixture(autouse=True)
def _hashing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TABLERAG_EMBEDDER", "hashing")
    monkeypatch.setattr(console, "width", 400)  # no wrapped lines to match across


def run(*args: str) -> tuple[int, str]:
    """A real ``python -m tablerag`` process: exit code and stderr+stdout, for bad input."""
    done = subprocess.run(
        [sys.executable, "-m", "tablerag", *args],
        capture_output=True,
        text=True,
        env={**os.environ, "COLUMNS": "400"},
        timeout=120,
    )
    return done.returncode, done.stderr + done.stdout


def cli(*args: str) -> tuple[int, str]:
    res = runner.invoke(app, list(args))
    return res.exit_code, res.output


def ok_json(*args: str) -> object:
    code, out = cli(*args, "--json")
    assert code == 0, out
    return json.loads(out)


def files(root: Path) -> Path:
    (root / "sub").mkdir(parents=True)
    (root / "fruit.csv").write_text(FRUIT_CSV, encoding="utf-8")
    (root / "sub" / "guide.md").write_text(GUIDE_MD, encoding="utf-8")
    return root


def everything(ws: Path) -> str:
    """Every output a user can get about the workspace, plus the text index's files."""
    w = str(ws)
    parts = [cli(*c, "-w", w)[1] for c in (("sources",), ("tables",), ("chunks",))]
    parts += [cli(*c, "-w", w, "--json")[1] for c in (("sources",), ("tables",), ("chunks",))]
    for mode in ("hybrid", "bm25", "dense"):  # the JSON holds the hits only, not the query
        query = f"{DOC_CANARY} {ROW_CANARY} cellar"
        parts.append(cli("search", query, "-m", mode, "-k", "50", "-w", w, "--json")[1])
        parts.append(cli("search", "apples cellar storage", "-m", mode, "-k", "50", "-w", w)[1])
    parts += [p.read_text(encoding="utf-8") for p in (ws / "index").glob("*.json")]
    return "\n".join(parts).lower()


def rows_of(ws: Path, source_id: str) -> dict[str, int]:
    con = duckdb.connect(str(ws / DB_FILE), read_only=True)
    try:
        return {
            t: con.execute(
                f"SELECT count(*) FROM tablerag.{t} WHERE source_id = ?", [source_id]
            ).fetchone()[0]  # type: ignore[index]
            for t in OWNED_TABLES
        }
    finally:
        con.close()


def test_remove_leaves_nothing_of_the_source_and_search_never_returns_it(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    code, out = cli("ingest", str(files(tmp_path / "data")), "-w", str(ws))
    assert code == 0, out
    assert DOC_CANARY in everything(ws) and ROW_CANARY in everything(ws)  # the check can fail
    by_name = {Path(s["location"]).name: s for s in ok_json("sources", "-w", str(ws))}  # type: ignore[union-attr]

    code, out = cli("remove", "guide", "-w", str(ws))
    assert code == 0, out
    assert f"removed {tmp_path / 'data' / 'sub' / 'guide.md'}: 1 chunk" in out
    seen = everything(ws)
    assert DOC_CANARY not in seen and ROW_CANARY in seen
    assert "out of date" not in seen  # the index was pruned, not left stale
    hits = ok_json("search", "cold cellar", "-w", str(ws))
    assert all(h["source"].endswith("fruit.csv") for h in hits)  # type: ignore[union-attr,index]
    assert set(rows_of(ws, by_name["guide.md"]["source_id"]).values()) == {0}

    code, out = cli("remove", str(tmp_path / "data" / "fruit.csv"), "-w", str(ws), "--json")
    assert code == 0, out
    assert json.loads(out)["removed"]["tables"] == ["fruit"]
    assert ROW_CANARY not in everything(ws)
    assert set(rows_of(ws, by_name["fruit.csv"]["source_id"]).values()) == {0}
    con = duckdb.connect(str(ws / DB_FILE), read_only=True)
    assert con.execute(
        "SELECT count(*) FROM duckdb_tables() WHERE schema_name = 'data'"
    ).fetchone() == (0,)
    assert con.execute("SELECT count(*) FROM tablerag.profiles").fetchone() == (0,)
    con.close()
    assert ok_json("sources", "-w", str(ws)) == []


def test_remove_an_unknown_or_ambiguous_source_says_how_to_name_it(tmp_path: Path) -> None:
    data = files(tmp_path / "data")
    (data / "fruit_2024.csv").write_text("name,qty\nfig,1\n", encoding="utf-8")
    ws = str(tmp_path / "ws")
    assert cli("ingest", str(data), "-w", ws, "--no-index")[0] == 0
    code, out = run("remove", "frut.csv", "-w", ws)
    assert code == 2 and "Did you mean" in out and "fruit.csv" in out and "Traceback" not in out
    code, out = run("remove", "fruit", "-w", ws)
    assert code == 2 and "matches 2 sources" in out and "give more of the path" in out
    assert len(ok_json("sources", "-w", ws)) == 3  # type: ignore[arg-type]
    code, out = run("remove", "x.csv", "-w", str(tmp_path / "nowhere"))
    assert code == 1 and "No workspace" in out and "Traceback" not in out


def test_a_moved_folder_keeps_its_tables_and_a_copy_is_a_new_source(tmp_path: Path) -> None:
    ws = str(tmp_path / "ws")
    assert cli("ingest", str(files(tmp_path / "data")), "-w", ws)[0] == 0
    (tmp_path / "data").rename(tmp_path / "moved")
    gone = ok_json("sources", "-w", ws)
    assert [s["gone"] for s in gone] == [True, True]  # type: ignore[union-attr,index]
    code, out = cli("sources", "-w", ws)
    assert out.count("(file gone)") == 2 and "tablerag remove" in out

    reports = ok_json("ingest", str(tmp_path / "moved"), "-w", ws)["sources"]  # type: ignore[index]
    assert [r["status"] for r in reports] == ["replaced", "replaced"]
    assert all(r["problems"][0]["what"].startswith("moved from ") for r in reports)
    assert [t["name"] for t in ok_json("tables", "-w", ws)] == ["fruit"]  # type: ignore[union-attr,index]
    listed = ok_json("sources", "-w", ws)
    assert [s["gone"] for s in listed] == [False, False]  # type: ignore[union-attr,index]
    assert all("/moved/" in s["location"] for s in listed)  # type: ignore[union-attr,index]
    hits = ok_json("search", "cold cellar", "-w", ws)
    assert hits and all("/moved/" in h["source"] for h in hits)  # type: ignore[union-attr,index]

    shutil.copytree(tmp_path / "moved", tmp_path / "copy")  # the original stays: not a move
    assert cli("ingest", str(tmp_path / "copy"), "-w", ws)[0] == 0
    assert {t["name"] for t in ok_json("tables", "-w", ws)} == {"fruit", "fruit_2"}  # type: ignore[union-attr,index]


def _shop(path: Path, *statements: str) -> None:
    con = sqlite3.connect(path)
    for statement in statements:
        con.execute(statement)
    con.commit()
    con.close()


def test_refresh_reports_drift_and_a_dropped_table_names_the_fix(tmp_path: Path) -> None:
    db = tmp_path / "shop.db"
    _shop(
        db,
        "CREATE TABLE orders (id INTEGER PRIMARY KEY, amount REAL)",
        "CREATE TABLE notes (id INTEGER, body TEXT)",
        "INSERT INTO orders VALUES (1, 9.5)",
    )
    data = files(tmp_path / "data")
    ws = str(tmp_path / "ws")
    assert cli("ingest", f"sqlite:///{db}", str(data), "-w", ws)[0] == 0
    _shop(
        db,
        "DROP TABLE notes",
        "ALTER TABLE orders ADD COLUMN region TEXT",
        "CREATE TABLE customers (id INTEGER, name TEXT)",
    )
    code, out = cli("sql", "SELECT count(*) AS n FROM notes", "-w", ws)
    assert code == 1 and "tablerag refresh" in out and "Traceback" not in out
    assert "dropped or renamed in the database" in out

    (data / "fruit.csv").write_text("name,qty,colour\nfig,1,purple\n", encoding="utf-8")
    code, out = cli("refresh", "-w", ws, "--json")
    assert code == 0, out
    report = {Path(s["source"]).name: s for s in json.loads(out)["sources"]}
    changes = {c["table"]: c for c in report["shop.db"]["changes"]}
    assert report["shop.db"]["status"] == "replaced"
    assert changes["notes"]["change"] == "removed" and changes["customers"]["change"] == "added"
    assert changes["orders"]["columns_added"] == ["region"]
    assert report["fruit.csv"]["changes"][0]["columns_added"] == ["colour"]
    assert report["guide.md"]["status"] == "unchanged"
    assert {t["name"] for t in ok_json("tables", "-w", ws)} == {"customers", "fruit", "orders"}  # type: ignore[union-attr,index]

    code, out = cli("refresh", "shop", "-w", ws)  # nothing changed since: said so
    assert code == 0 and "shop.db: replaced (no table changed)" in out
    _shop(db, "ALTER TABLE customers RENAME TO clients")
    code, out = cli("refresh", f"sqlite:///{db}", "-w", ws)
    assert code == 0 and "customers: removed (dropped or renamed" in out and "clients: added" in out


def test_refresh_of_a_gone_file_or_an_unknown_source_names_the_fix(tmp_path: Path) -> None:
    data = files(tmp_path / "data")
    ws = str(tmp_path / "ws")
    assert cli("ingest", str(data), "-w", ws)[0] == 0
    (data / "fruit.csv").unlink()
    code, out = cli("refresh", "-w", ws)
    assert code == 1 and "fruit.csv: not refreshed: its file is gone" in out
    assert f"tablerag remove {data / 'fruit.csv'}" in out and "guide.md: unchanged" in out
    assert [t["name"] for t in ok_json("tables", "-w", ws)] == ["fruit"]  # type: ignore[union-attr,index]
    code, out = run("refresh", "gide.md", "-w", ws)
    assert code == 2 and "Did you mean" in out and "Traceback" not in out
