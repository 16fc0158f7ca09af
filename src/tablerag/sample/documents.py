"""The sample documents: Markdown policies copied as written, a PDF handbook and a Word file.

The texts live in ``texts/*.md`` (package data). The PDF and the Word file are rendered from
their Markdown sources with reportlab and python-docx; the regional targets table of the Word
file is computed from the generated mart so that documents and data agree. Every writer is
deterministic: the same inputs give the same bytes.
"""

from __future__ import annotations

import io
import re
import zipfile
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from importlib import resources
from pathlib import Path
from xml.sax.saxutils import escape

import docx
from docx.oxml.ns import qn
from docx.shared import Pt
from reportlab.lib import colors
from reportlab.lib.pagesizes import A4
from reportlab.lib.styles import getSampleStyleSheet
from reportlab.lib.units import mm
from reportlab.pdfgen.canvas import Canvas
from reportlab.platypus import Flowable, Paragraph, SimpleDocTemplate, Spacer, Table, TableStyle

from tablerag.sample.mart import MONTHS, REGIONS, Mart
from tablerag.types import Block

MARKDOWN_FILES: dict[str, str] = {
    "退货政策.md": "return_policy_zh.md",
    "refund_policy.md": "refund_policy_en.md",
    "指标口径.md": "metric_definitions_zh.md",
}
"""Output file name -> package text copied verbatim."""

PDF_NAME, PDF_SOURCE = "sales_handbook.pdf", "sales_handbook_en.md"
DOCX_NAME, DOCX_SOURCE = "区域销售制度.docx", "regional_sales_rules_zh.md"
TARGETS_PLACEHOLDER = "{{regional_targets}}"

# Target = quarter's paid net sales x factor, so completion rates differ by area and quarter.
# Q4 has only October in the calendar: its base is October x 3.
TARGET_FACTORS: dict[str, tuple[float, float, float, float]] = {
    "EAST": (1.05, 0.94, 1.08, 1.10),
    "NORTH": (0.92, 1.06, 1.12, 1.05),
    "SOUTH": (1.12, 0.90, 0.97, 1.08),
    "WEST": (0.88, 1.02, 1.15, 1.00),
}
FIXED_TIME = datetime(2026, 11, 15, tzinfo=UTC)
_CLAUSE = re.compile(r"^(第[一二三四五六七八九十百]+条|\d+(\.\d+)+\s|\d+\.\s|\d+、|- )")


def read_text(name: str) -> str:
    """Return the packaged sample text ``texts/<name>``."""
    return resources.files("tablerag.sample").joinpath("texts", name).read_text("utf-8")


def parse_markdown(text: str) -> list[Block]:
    """Split the small Markdown dialect of the sample texts into headings, paragraphs and tables.

    A paragraph ends at a blank line or where the next line starts a clause (``第三条``,
    ``3.1``, ``- ``); wrapped lines are joined with a space.

    Example:
        >>> blocks = parse_markdown("# T\\n第一条 a\\n1.1 b\\nc\\n\\n| x |\\n| --- |\\n| 1 |")
        >>> [(b.kind, b.text or b.rows) for b in blocks]  # doctest: +NORMALIZE_WHITESPACE
        [('heading', 'T'), ('paragraph', '第一条 a'), ('paragraph', '1.1 b c'),
         ('table', (('x',), ('1',)))]
    """
    blocks: list[Block] = []
    lines: list[str] = []
    rows: list[tuple[str, ...]] = []

    def flush() -> None:
        if lines:
            blocks.append(Block("paragraph", " ".join(lines)))
            lines.clear()
        if rows:
            blocks.append(Block("table", rows=tuple(rows)))
            rows.clear()

    for raw in text.splitlines():
        line = raw.strip()
        if line.startswith("|"):
            if lines:
                flush()
            cells = tuple(cell.strip() for cell in line.strip("|").split("|"))
            if not all(set(cell) <= set("-: ") for cell in cells):
                rows.append(cells)
        elif line.startswith("#"):
            flush()
            marks, _, title = line.partition(" ")
            blocks.append(Block("heading", title.strip(), level=len(marks)))
        elif not line or _CLAUSE.match(line) or line == TARGETS_PLACEHOLDER or rows:
            flush()
            if line:
                lines.append(line)
        else:
            lines.append(line)
    flush()
    return blocks


def regional_targets(mart: Mart) -> tuple[tuple[str, ...], ...]:
    """Build the 区域销售目标 table (万元 per area and quarter) from the mart's paid net sales.

    Returns:
        Rows of text, header first: 大区, Q1..Q4, 全年.
    """
    header = ("大区", "第一季度", "第二季度", "第三季度", "第四季度", "全年合计")
    rows: list[tuple[str, ...]] = [header]
    for code, name, parent, _weight in REGIONS:
        if parent is not None:
            continue
        monthly = [mart.paid_net_fen.get((code, month), 0) for month in MONTHS]
        bases = [sum(monthly[0:3]), sum(monthly[3:6]), sum(monthly[6:9]), monthly[9] * 3]
        targets = [
            round(base * factor / 1_000_000, 1)
            for base, factor in zip(bases, TARGET_FACTORS[code], strict=True)
        ]
        rows.append((name, *(f"{t:.1f}" for t in targets), f"{sum(targets):.1f}"))
    return tuple(rows)


def write_documents(directory: Path, mart: Mart) -> list[Path]:
    """Write the Markdown policies, the PDF handbook and the Word rules into ``directory``.

    Returns:
        The paths written, in a fixed order.
    """
    paths = []
    for out_name, source in MARKDOWN_FILES.items():
        path = directory / out_name
        path.write_bytes(read_text(source).encode("utf-8"))
        paths.append(path)
    paths.append(write_pdf(parse_markdown(read_text(PDF_SOURCE)), directory / PDF_NAME))
    tables = {TARGETS_PLACEHOLDER: regional_targets(mart)}
    paths.append(
        write_docx(parse_markdown(read_text(DOCX_SOURCE)), directory / DOCX_NAME, tables=tables)
    )
    return paths


def write_pdf(blocks: Sequence[Block], path: Path) -> Path:
    """Render ``blocks`` as an A4 PDF (Latin text only: reportlab's base fonts have no CJK).

    Tables get a full grid so that PDF table extractors find their cells. Each page carries a
    footer with the document title and page number.

    Returns:
        ``path``.
    """
    styles = getSampleStyleSheet()
    heading_style = {1: styles["Title"], 2: styles["Heading1"], 3: styles["Heading2"]}
    title = next((b.text for b in blocks if b.kind == "heading"), path.stem)
    story: list[Flowable] = []
    for block in blocks:
        if block.kind == "heading":
            story.append(Paragraph(escape(block.text), heading_style[min(block.level, 3)]))
        elif block.kind == "paragraph":
            story.append(Paragraph(escape(block.text), styles["BodyText"]))
        else:
            story += [Spacer(1, 2 * mm), _pdf_table(block.rows), Spacer(1, 3 * mm)]

    def footer(canvas: Canvas, doc: SimpleDocTemplate) -> None:
        canvas.setFont("Helvetica", 8)
        canvas.drawString(20 * mm, 10 * mm, f"{title} - page {doc.page}")

    template = SimpleDocTemplate(
        str(path),
        pagesize=A4,
        invariant=True,
        title=title,
        author="Sales Management Department",
        leftMargin=20 * mm,
        rightMargin=20 * mm,
        topMargin=20 * mm,
        bottomMargin=20 * mm,
    )
    template.build(story, onFirstPage=footer, onLaterPages=footer)
    return path


def _pdf_table(rows: tuple[tuple[str, ...], ...]) -> Table:
    table = Table([list(row) for row in rows], repeatRows=1, hAlign="LEFT")
    table.setStyle(
        TableStyle(
            [
                ("GRID", (0, 0), (-1, -1), 0.5, colors.black),
                ("BACKGROUND", (0, 0), (-1, 0), colors.lightgrey),
                ("FONTNAME", (0, 0), (-1, 0), "Helvetica-Bold"),
                ("FONTSIZE", (0, 0), (-1, -1), 9),
                ("VALIGN", (0, 0), (-1, -1), "MIDDLE"),
            ]
        )
    )
    return table


def write_docx(
    blocks: Sequence[Block],
    path: Path,
    *,
    tables: Mapping[str, tuple[tuple[str, ...], ...]] | None = None,
) -> Path:
    """Render ``blocks`` as a Word file with built-in Heading styles and grid tables.

    A paragraph whose whole text is a key of ``tables`` is replaced by that table. Core
    properties and zip timestamps are fixed, so the bytes are reproducible.

    Returns:
        ``path``.
    """
    document = docx.Document()
    normal = document.styles["Normal"]
    normal.font.size = Pt(10.5)
    normal.element.get_or_add_rPr().get_or_add_rFonts().set(qn("w:eastAsia"), "宋体")
    for block in blocks:
        if block.kind == "heading":
            document.add_heading(block.text, level=0 if block.level == 1 else block.level - 1)
        elif block.kind == "table" or (tables and block.text in tables):
            rows = block.rows if block.kind == "table" else (tables or {})[block.text]
            table = document.add_table(rows=len(rows), cols=len(rows[0]), style="Table Grid")
            for cells, values in zip(table.rows, rows, strict=True):
                for cell, value in zip(cells.cells, values, strict=True):
                    cell.text = value
        else:
            document.add_paragraph(block.text)
    props = document.core_properties
    props.title = next((b.text for b in blocks if b.kind == "heading"), path.stem)
    props.author = props.last_modified_by = "销售管理部"
    props.created = props.modified = FIXED_TIME.replace(tzinfo=None)
    props.revision = 1
    buffer = io.BytesIO()
    document.save(buffer)
    path.write_bytes(_fixed_zip(buffer.getvalue()))
    return path


def _fixed_zip(data: bytes) -> bytes:
    """Rewrite a zip archive with constant member timestamps (python-docx stamps the clock)."""
    out = io.BytesIO()
    with (
        zipfile.ZipFile(io.BytesIO(data)) as source,
        zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as target,
    ):
        for info in source.infolist():
            fixed = zipfile.ZipInfo(info.filename, date_time=FIXED_TIME.timetuple()[:6])
            fixed.compress_type = zipfile.ZIP_DEFLATED
            target.writestr(fixed, source.read(info.filename))
    return out.getvalue()
