"""A table continued over PDF pages becomes one table, and the join is reported (issue 23)."""

from __future__ import annotations

from pathlib import Path

from reportlab.lib import colors
from reportlab.lib.pagesizes import A4
from reportlab.lib.styles import getSampleStyleSheet
from reportlab.platypus import Flowable, PageBreak, Paragraph, SimpleDocTemplate, Table, TableStyle

from tablerag.ingest.documents import load_document
from tablerag.service import Workspace
from tablerag.settings import Settings

GRID = TableStyle([("GRID", (0, 0), (-1, -1), 0.5, colors.black)])
STYLES = getSampleStyleSheet()
HEADER = ["Claim", "Product", "Filed", "Amount"]
CLAIMS = [
    [f"W{i:03d}", f"Model {i % 7}", f"2026-0{1 + i % 9}-1{i % 9}", f"{1000 + i * 13.37:.2f}"]
    for i in range(1, 81)
]


def _build(path: Path, story: list[Flowable]) -> None:
    SimpleDocTemplate(str(path), pagesize=A4, topMargin=200).build(story)


TOTAL = f"{sum(float(r[3]) for r in CLAIMS):.2f}"


def _warranty(path: Path, *, repeat_header: bool, total_row: bool = False) -> None:
    rows = [HEADER, *CLAIMS] + ([["Total", "", "", TOTAL]] if total_row else [])
    _build(
        path,
        [
            Paragraph("Warranty claims", STYLES["Heading1"]),
            Paragraph("All claims filed this year.", STYLES["Normal"]),
            Table(rows, style=GRID, repeatRows=1 if repeat_header else 0),
        ],
    )


def test_eighty_claims_over_three_pages_are_one_table(workspace: Workspace, tmp_path: Path) -> None:
    path = tmp_path / "warranty.pdf"
    _warranty(path, repeat_header=True)
    (report,) = workspace.ingest([path], settings=Settings(index_on_ingest=False))
    assert report.status == "added", report.error
    (table,) = report.tables
    count, total = workspace.con.execute(
        f'SELECT count(*), sum(amount) FROM data."{table}"'
    ).fetchone()  # type: ignore[misc]
    assert count == 80
    assert float(total) == round(sum(float(r[3]) for r in CLAIMS), 2)
    (joined,) = [p.line() for p in report.problems if "continues over" in p.line()]
    assert joined == (
        "pages 1-3: a table continues over 3 pages (the header repeated on pages 2, 3) "
        "(joined into one table of 80 rows)"
    )


def test_multi_page_table_with_a_total_row_counts_its_claims_once(
    workspace: Workspace, tmp_path: Path
) -> None:
    path = tmp_path / "warranty.pdf"
    _warranty(path, repeat_header=True, total_row=True)
    (report,) = workspace.ingest([path], settings=Settings(index_on_ingest=False))
    (table,) = report.tables
    count, total = workspace.con.execute(  # type: ignore[misc]
        f'SELECT count(*), sum(amount) FROM data."{table}"'
    ).fetchone()
    assert (count, f"{total:.2f}") == (80, TOTAL)
    assert any("a totals row: a 'Total' row" in p.line() for p in report.problems)


def test_headerless_continuation_is_joined(tmp_path: Path) -> None:
    path = tmp_path / "warranty.pdf"
    _warranty(path, repeat_header=False)
    doc = load_document(path)
    tables = [b for b in doc.blocks if b.kind == "table"]
    assert [len(t.rows) for t in tables] == [81]
    assert tables[0].rows[0] == tuple(HEADER) and tables[0].rows[-1] == tuple(CLAIMS[-1])
    assert any("no header on pages 2, 3" in p.what for p in doc.problems)


def test_different_tables_on_consecutive_pages_stay_apart(tmp_path: Path) -> None:
    path = tmp_path / "two.pdf"
    _build(
        path,
        [
            Table([["City", "Limit"], ["Beijing", "600"], ["Shanghai", "550"]], style=GRID),
            PageBreak(),
            Table([["Product", "Price"], ["phone", "3000"], ["laptop", "8000"]], style=GRID),
            PageBreak(),
            Table([["Region", "Target"], ["east", "10"]], style=GRID),
            Paragraph("Targets are set every year.", STYLES["Normal"]),
            PageBreak(),
            Table([["west", "20"]], style=GRID),
        ],
    )
    doc = load_document(path)
    tables = [b for b in doc.blocks if b.kind == "table"]
    # a header over numbers is a new table; a table followed by text does not continue
    assert [t.rows[0][0] for t in tables] == ["City", "Product", "Region", "west"]
    assert not any("continues over" in p.what for p in doc.problems)
