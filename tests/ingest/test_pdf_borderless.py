"""Tables without ruling lines in PDFs, found by the alignment of their columns (issue 36)."""

from __future__ import annotations

from pathlib import Path

from reportlab.lib.pagesizes import A4
from reportlab.lib.styles import getSampleStyleSheet
from reportlab.platypus import Paragraph, SimpleDocTemplate, Spacer, Table

from tablerag.ingest.documents import load_document
from tablerag.service import Workspace
from tablerag.settings import Settings

ROWS = [
    ["Region", "Q1", "Q2", "Growth"],
    ["East", "1200", "1350", "12.5%"],
    ["West", "800", "760", "-5.0%"],
    ["North", "450", "520", "15.6%"],
]


def _pdf(path: Path, table: list[list[str]]) -> Path:
    styles = getSampleStyleSheet()
    story = [
        Paragraph("Sales by region", styles["Heading1"]),
        Paragraph("Staff travel must be approved in advance by a manager. " * 6, styles["Normal"]),
        Spacer(1, 12),
        Table(table),  # no TableStyle: no ruling lines at all
        Spacer(1, 12),
        Paragraph("Limits are reviewed every year. " * 8, styles["Normal"]),
    ]
    SimpleDocTemplate(str(path), pagesize=A4).build(story)
    return path


def test_borderless_table_is_found_and_reported(tmp_path: Path) -> None:
    doc = load_document(_pdf(tmp_path / "sales.pdf", ROWS))
    tables = [b for b in doc.blocks if b.kind == "table"]
    assert [list(map(list, t.rows)) for t in tables] == [ROWS]
    assert [p.line() for p in doc.problems] == [
        "table 1 (page 1): a table without ruling lines (found by the alignment of its columns; "
        "check its cells)"
    ]
    prose = " ".join(b.text for b in doc.blocks if b.kind == "paragraph")
    assert "1350" not in prose and prose.startswith("Staff travel")


def test_borderless_table_becomes_a_sql_table(tmp_path: Path) -> None:
    path = _pdf(tmp_path / "sales.pdf", ROWS)
    with Workspace.open(tmp_path / "ws") as ws:
        (report,) = ws.ingest([path], settings=Settings(index_on_ingest=False))
        assert report.status == "added", report.error
        total = ws.con.execute('SELECT sum("Q2") FROM data.sales_table_1').fetchone()
    assert total == (2630,)
    assert any("without ruling lines" in p.what for p in report.problems)


def test_aligned_words_without_numbers_stay_prose(tmp_path: Path) -> None:
    """Columns of words only (a glossary laid out in columns) are not taken for a table."""
    words = [["Term", "Meaning"], ["GMV", "gross sales"], ["SKU", "stock unit"], ["AOV", "average"]]
    doc = load_document(_pdf(tmp_path / "terms.pdf", words))
    assert not [b for b in doc.blocks if b.kind == "table"]
    assert doc.problems == ()
