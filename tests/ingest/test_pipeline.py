"""The ingest pipeline end to end: every file kind, idempotence, atomic replace, bad input."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from tablerag.errors import ConfigError
from tablerag.service import Workspace
from tablerag.settings import Settings

SETTINGS = Settings(index_on_ingest=False)


def _write_corpus(root: Path) -> None:
    (root / "sales.csv").write_text(
        'region,amount,share\n华东,"1,200.50",12.5%\n华南,300,7%\n华北,"2,000",80.5%\n',
        encoding="utf-8",
    )
    (root / "gbk.csv").write_bytes("城市,人口\n上海,2487\n北京,2189\n".encode("gbk"))
    (root / "policy.md").write_text(
        "# 退货政策\n\n## 第一章 总则\n\n第一条 自签收之日起7日内可无理由退货。\n\n"
        "第二条 商品损坏的，可申请换货。\n\n## Rates\n\n| category | rate |\n|---|---|\n"
        "| phone | 3% |\n| laptop | 5% |\n",
        encoding="utf-8",
    )
    (root / "notes.txt").write_text("Plain notes.\n\nSecond paragraph.\n", encoding="utf-8")
    (root / "data.jsonl").write_text('{"a": 1, "b": "x"}\n{"a": 2, "b": "y"}\n', encoding="utf-8")


def _status(reports: list, name: str) -> str:  # type: ignore[type-arg]
    return next(r.status for r in reports if r.source.endswith(name))


def test_folder_ingest_stores_tables_chunks_and_reports(
    workspace: Workspace, tmp_path: Path
) -> None:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    _write_corpus(corpus)
    reports = workspace.ingest([corpus], settings=SETTINGS)
    assert {r.status for r in reports} == {"added"}, [r.error for r in reports]
    tables = {t.name: t for t in workspace.tables()}
    assert tables["sales"].row_count == 3
    amount = next(c for c in tables["sales"].columns if c.name == "amount")
    assert amount.type.upper() in {"DOUBLE", "DECIMAL(18,3)"} or amount.type.startswith("DEC")
    total = workspace.con.execute("SELECT sum(amount) FROM data.sales").fetchone()
    assert total is not None and float(total[0]) == pytest.approx(3500.5)
    assert workspace.con.execute("SELECT 人口 FROM data.gbk WHERE 城市 = '上海'").fetchone() == (
        2487,
    )
    # the table inside the Markdown document is a SQL table and chunks point to it
    doc_table = next(t for t in tables.values() if t.name.startswith("policy_table"))
    assert doc_table.row_count == 2
    chunks = list(workspace.chunks("policy.md"))
    assert any(c.table == doc_table.name for c in chunks)
    clause = next(c for c in chunks if "第一条" in c.text)
    assert clause.heading_path[-1] == "第一章 总则"
    assert clause.table is None
    # every stored table also has chunks (a table card at least)
    assert any(c.table == "sales" for c in workspace.chunks("sales.csv"))
    for r in reports:
        assert r.rows_read == r.rows_stored


def test_reingest_unchanged_does_nothing_and_changed_replaces(
    workspace: Workspace, tmp_path: Path
) -> None:
    f = tmp_path / "t.csv"
    f.write_text("a,b\n1,x\n2,y\n", encoding="utf-8")
    assert workspace.ingest([f], settings=SETTINGS)[0].status == "added"
    first = workspace.sources()[0]
    assert workspace.ingest([f], settings=SETTINGS)[0].status == "unchanged"
    assert workspace.sources()[0].ingested_at == first.ingested_at
    f.write_text("a,b\n1,x\n2,y\n3,z\n", encoding="utf-8")
    assert workspace.ingest([f], settings=SETTINGS)[0].status == "replaced"
    assert [t.row_count for t in workspace.tables()] == [3]
    assert len(workspace.sources()) == 1


def test_bad_file_is_reported_and_keeps_previous_version(
    workspace: Workspace, tmp_path: Path
) -> None:
    good = tmp_path / "good.csv"
    good.write_text("a\n1\n", encoding="utf-8")
    doc = tmp_path / "report.pdf"
    doc.write_bytes(b"%PDF-1.4 this is not really a pdf")
    reports = workspace.ingest([good, doc], settings=SETTINGS)
    assert _status(reports, "good.csv") == "added"
    failed = next(r for r in reports if r.source.endswith("report.pdf"))
    assert failed.status == "failed" and failed.error
    assert "nothing was stored" in failed.error
    # a previously good version survives a broken update
    good.write_bytes(b"\x00\x01\x02\xff\xfe binary garbage \x00" * 50)
    again = workspace.ingest([good], settings=SETTINGS)
    assert again[0].status == "failed"
    assert "the previous version is kept" in (again[0].error or "")
    assert workspace.con.execute("SELECT a FROM data.good").fetchall() == [(1,)]
    assert [s.location.endswith("good.csv") for s in workspace.sources()] == [True]


def test_unsupported_files_skipped_in_folders_failed_when_named(
    workspace: Workspace, tmp_path: Path
) -> None:
    (tmp_path / "img.png").write_bytes(b"\x89PNG")
    (tmp_path / ".hidden.csv").write_text("a\n1\n")
    (tmp_path / "ok.csv").write_text("a\n1\n")
    reports = workspace.ingest([tmp_path], settings=SETTINGS)
    assert {Path(r.source).name: r.status for r in reports} == {
        "img.png": "skipped",
        "ok.csv": "added",
    }
    named = workspace.ingest([tmp_path / "img.png"], settings=SETTINGS)
    assert named[0].status == "failed" and "Unsupported file type" in (named[0].error or "")


def test_missing_path_is_a_config_error(workspace: Workspace, tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="neither an existing file"):
        workspace.ingest([tmp_path / "nope.csv"], settings=SETTINGS)


def test_ragged_rows_kept_and_reported(workspace: Workspace, tmp_path: Path) -> None:
    f = tmp_path / "ragged.csv"
    f.write_text("a,b,c\n1,2,3\n4,5\n6,7,8\n", encoding="utf-8")
    report = workspace.ingest([f], settings=SETTINGS)[0]
    assert report.status == "added"
    assert report.rows_read == report.rows_stored == 3
    assert report.problems, "a short row must be reported"
    stored = json.loads(
        workspace.con.execute("SELECT problems FROM tablerag.sources").fetchone()[0]  # type: ignore[index]
    )
    assert any(p["where"] == "line 3" for p in stored)


def test_same_stem_in_two_folders_gets_two_tables(workspace: Workspace, tmp_path: Path) -> None:
    for sub in ("a", "b"):
        (tmp_path / sub).mkdir()
        (tmp_path / sub / "orders.csv").write_text("x\n1\n")
    workspace.ingest([tmp_path], settings=SETTINGS)
    assert sorted(t.name for t in workspace.tables()) == ["orders", "orders_2"]


def test_sample_corpus_ingests_whole_with_descriptions(
    workspace: Workspace, sample_dir: Path
) -> None:
    reports = workspace.ingest([sample_dir], settings=SETTINGS)
    # the sample's semantic model is knowledge: skipped, with the command that imports it
    assert [(Path(r.source).name, r.status) for r in reports if r.status != "added"] == [
        ("semantic_model.yaml", "skipped")
    ]
    assert "tablerag knowledge import" in str([r.error for r in reports if r.status != "added"])
    names = {t.name for t in workspace.tables()}
    mart = {
        "fact_sales",
        "fact_refund",
        "dim_date",
        "dim_product",
        "dim_category",
        "dim_region",
        "dim_channel",
        "dim_employee",
        "dim_refund_reason",
    }
    assert mart <= names
    # every table of the PDF and the Word file became a SQL table
    assert any(n.startswith("sales_handbook_table") for n in names)
    assert any(n.startswith("区域销售制度_table") for n in names)
    sales = workspace.table("fact_sales")
    with (sample_dir / "fact_sales.csv").open(encoding="utf-8", newline="") as fh:
        assert sales.row_count == sum(1 for _ in csv.reader(fh)) - 1
    assert sales.primary_key == ("order_id", "line_no")
    assert {fk.ref_table for fk in sales.foreign_keys} >= {"dim_product", "dim_region"}
    cost = next(c for c in sales.columns if c.name == "cost_amt")
    assert cost.unit and "分" in cost.unit
    status = next(c for c in sales.columns if c.name == "status")
    assert set(status.samples) == {"PAID", "REFUND", "UNPAID"}
    assert "PAID=" in status.description
    mobile = next(c for c in workspace.table("dim_employee").columns if c.name == "mobile")
    assert mobile.sensitive
    # nothing is read twice
    again = workspace.ingest([sample_dir], settings=SETTINGS)
    assert {r.status for r in again if not r.source.endswith(".yaml")} == {"unchanged"}
