"""Document loaders on files each test writes itself: Markdown, text, HTML, PDF, Word."""

from __future__ import annotations

from pathlib import Path

import docx
import pytest
from docx.enum.style import WD_STYLE_TYPE
from reportlab.lib import colors, pdfencrypt
from reportlab.lib.pagesizes import A4
from reportlab.lib.styles import ParagraphStyle, getSampleStyleSheet
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.cidfonts import UnicodeCIDFont
from reportlab.pdfgen import canvas
from reportlab.platypus import PageBreak, Paragraph, SimpleDocTemplate, Spacer, Table, TableStyle

from tablerag.errors import SourceError
from tablerag.ingest.chunking import chunk_document
from tablerag.ingest.documents import DOCUMENT_SUFFIXES, load_document
from tablerag.types import Document


def _kinds(doc: Document) -> list[tuple[str, object]]:
    return [(b.kind, b.rows if b.kind == "table" else b.text) for b in doc.blocks]


def _paragraphs(doc: Document) -> list[str]:
    return [b.text for b in doc.blocks if b.kind == "paragraph"]


# --- Markdown ---------------------------------------------------------------------------------

MARKDOWN = """---
title: 差旅管理办法 Travel policy
---
差旅管理办法
============

本办法适用于全体员工，
包括外派人员。

## 第一章 总则

第一条 为规范差旅费管理，
制定本办法。
第二条 出差须事先审批。
（一）交通费；
（二）住宿费。

### 3 Limits

1. Flights are **economy** class.
2. Hotels are paid up to the
   [city limit](http://example.com).
- Receipts are required.
3.2 Taxis after 22:00 are allowed.

表1 住宿标准

| 城市 | 标准（元/晚） | 备注 |
|:-----|------:|------|
| 北京 | 600 | 一线 \\| 含税 |
| 上海 | 550 |

```sql
SELECT * FROM limits;
```

Setext two
----------
Last paragraph.
"""


def test_markdown_structure(tmp_path: Path) -> None:
    path = tmp_path / "policy.md"
    path.write_text(MARKDOWN, encoding="utf-8")
    doc = load_document(path)
    assert doc.source == str(path)
    assert doc.title == "差旅管理办法 Travel policy"
    assert _kinds(doc) == [
        ("heading", "差旅管理办法"),
        ("paragraph", "本办法适用于全体员工，包括外派人员。"),
        ("heading", "第一章 总则"),
        ("paragraph", "第一条 为规范差旅费管理，制定本办法。"),
        ("paragraph", "第二条 出差须事先审批。"),
        ("paragraph", "（一）交通费；"),
        ("paragraph", "（二）住宿费。"),
        ("heading", "3 Limits"),
        ("paragraph", "1. Flights are economy class."),
        ("paragraph", "2. Hotels are paid up to the city limit."),
        ("paragraph", "Receipts are required."),
        ("paragraph", "3.2 Taxis after 22:00 are allowed."),
        (
            "table",
            (
                ("城市", "标准（元/晚）", "备注"),
                ("北京", "600", "一线 | 含税"),
                ("上海", "550", ""),
            ),
        ),
        ("paragraph", "SELECT * FROM limits;"),
        ("heading", "Setext two"),
        ("paragraph", "Last paragraph."),
    ]
    levels = [b.level for b in doc.blocks if b.kind == "heading"]
    assert levels == [1, 2, 3, 2]
    table = next(b for b in doc.blocks if b.kind == "table")
    assert table.text == "表1 住宿标准"
    assert [p.line() for p in doc.problems] == [
        "table 1: 1 row has fewer cells than the header (padded with empty cells)"
    ]


@pytest.mark.parametrize("encoding", ["gb18030", "utf-16", "utf-8-sig"])
def test_markdown_encodings(tmp_path: Path, encoding: str) -> None:
    path = tmp_path / "zh.markdown"
    path.write_bytes("# 报销制度\n\n第一条 住宿费按标准报销。\n".encode(encoding))
    doc = load_document(path)
    assert _kinds(doc) == [("heading", "报销制度"), ("paragraph", "第一条 住宿费按标准报销。")]


def test_empty_markdown_is_a_problem_not_a_crash(tmp_path: Path) -> None:
    path = tmp_path / "empty.md"
    path.write_text("\n\n   \n", encoding="utf-8")
    doc = load_document(path)
    assert doc.blocks == ()
    assert [p.what for p in doc.problems] == ["the document has no text"]
    assert doc.title == "empty"


# --- Text -------------------------------------------------------------------------------------

TEXT = """关于差旅费报销的通知

第一章 总则
第一条 为规范差旅费管理，
制定本办法。
第二条 本办法适用于全体员工。

一、报销范围
（一）交通费；
（二）住宿费。

CHAPTER 2 LIMITS

Hotels are paid up to the city
limit of 600 yuan per night.
1. Economy flights only.
2. Taxis after 22:00.
"""


def test_text_headings_and_clauses(tmp_path: Path) -> None:
    path = tmp_path / "notice.txt"
    path.write_bytes(TEXT.encode("gb18030"))
    doc = load_document(path)
    assert doc.title == "关于差旅费报销的通知"
    assert [(b.kind, b.level, b.text) for b in doc.blocks] == [
        ("heading", 1, "关于差旅费报销的通知"),
        ("heading", 2, "第一章 总则"),
        ("paragraph", 0, "第一条 为规范差旅费管理，制定本办法。"),
        ("paragraph", 0, "第二条 本办法适用于全体员工。"),
        ("heading", 3, "一、报销范围"),
        ("paragraph", 0, "（一）交通费；"),
        ("paragraph", 0, "（二）住宿费。"),
        ("heading", 2, "CHAPTER 2 LIMITS"),
        ("paragraph", 0, "Hotels are paid up to the city limit of 600 yuan per night."),
        ("paragraph", 0, "1. Economy flights only."),
        ("paragraph", 0, "2. Taxis after 22:00."),
    ]
    chunks = chunk_document(doc, table_names={})
    assert chunks[-1].heading_path == ("关于差旅费报销的通知", "CHAPTER 2 LIMITS")


def test_text_one_paragraph_per_line_is_not_joined(tmp_path: Path) -> None:
    path = tmp_path / "lines.txt"
    long_line = "近几年企业级大模型应用绕不开的场景，就是既要能聊文档又要能查数据。" * 3
    path.write_text(f"正文\n{long_line}\n短句一。\n{long_line}\n", encoding="utf-8")
    doc = load_document(path)
    assert _paragraphs(doc) == ["正文", long_line, "短句一。", long_line]


def test_binary_renamed_txt_is_a_source_error(tmp_path: Path) -> None:
    path = tmp_path / "image.txt"
    path.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)) * 4)
    with pytest.raises(SourceError) as info:
        load_document(path)
    assert info.value.source == str(path)


# --- HTML -------------------------------------------------------------------------------------

HTML = """<!DOCTYPE html><html><head><meta charset="gbk"><title>差旅制度</title>
<style>p { color: red }</style><script>var secret = "x";</script></head>
<body><nav><a href="/">首页</a> | <a href="/about">About</a></nav>
<h1>差旅制度</h1>
<p>第一条 为规范差旅，
制定本办法。</p>
<h2>Limits</h2>
<ul><li>Economy <b>flights</b><ul><li>nested rule</li></ul></li><li>Hotels</li></ul>
<pre>limit = 600
  per night</pre>
<table><caption>表1 住宿标准</caption>
<thead><tr><th>城市</th><th colspan="2">标准</th></tr></thead>
<tbody><tr><td rowspan="2">北京</td><td>600</td><td>一线</td></tr>
<tr><td>650</td><td>旺季</td></tr><tr><td>上海</td><td>550</td></tr></tbody></table>
<script>document.write("tracking")</script><noscript>enable js</noscript>
<div>Closing <span>text</span><br>second line</div>
</body></html>"""


def test_html_structure_and_drops(tmp_path: Path) -> None:
    path = tmp_path / "policy.htm"
    path.write_bytes(HTML.encode("gbk"))
    doc = load_document(path)
    assert doc.title == "差旅制度"
    assert _kinds(doc) == [
        ("heading", "差旅制度"),
        ("paragraph", "第一条 为规范差旅，制定本办法。"),
        ("heading", "Limits"),
        ("paragraph", "Economy flights"),
        ("paragraph", "nested rule"),
        ("paragraph", "Hotels"),
        ("paragraph", "limit = 600\n  per night"),
        (
            "table",
            (
                ("城市", "标准", "标准"),
                ("北京", "600", "一线"),
                ("北京", "650", "旺季"),
                ("上海", "550", ""),
            ),
        ),
        ("paragraph", "Closing text second line"),
    ]
    assert next(b for b in doc.blocks if b.kind == "table").text == "表1 住宿标准"
    all_text = " ".join(b.text for b in doc.blocks)
    for dropped in ("secret", "tracking", "首页", "color", "enable js"):
        assert dropped not in all_text
    assert [p.what for p in doc.problems] == ["1 row has fewer cells than the header"]


# --- PDF --------------------------------------------------------------------------------------


def _register_cjk_font() -> str:
    pdfmetrics.registerFont(UnicodeCIDFont("STSong-Light"))
    return "STSong-Light"


def _page_number(c: canvas.Canvas, _doc: object) -> None:
    c.setFont("Helvetica", 9)
    c.drawCentredString(A4[0] / 2, 30, str(c.getPageNumber()))


def _make_pdf(path: Path) -> None:
    styles = getSampleStyleSheet()
    zh = ParagraphStyle("zh", parent=styles["Normal"], fontName=_register_cjk_font())
    grid = TableStyle([("GRID", (0, 0), (-1, -1), 0.5, colors.black)])
    story = [
        Paragraph("Travel Policy", styles["Heading1"]),
        Paragraph("Staff travel must be approved in advance by a manager. " * 6, styles["Normal"]),
        Spacer(1, 12),
        Paragraph("Hotels are paid up to the city limit shown below. " * 3, styles["Normal"]),
        Spacer(1, 12),
        Paragraph("第一条 差旅费按标准报销。", zh),
        Paragraph("Hotel limits", styles["Heading2"]),
        Table([["City", "Limit"], ["Beijing", "600"], ["Shanghai", "550"]], style=grid),
        Spacer(1, 12),
        Paragraph("Limits are reviewed every year.", styles["Normal"]),
        PageBreak(),
        Paragraph("Meals are paid as a daily allowance of 100 yuan. " * 5, styles["Normal"]),
    ]
    SimpleDocTemplate(str(path), pagesize=A4).build(
        story, onFirstPage=_page_number, onLaterPages=_page_number
    )


def test_pdf_headings_pages_tables_and_chinese(tmp_path: Path) -> None:
    path = tmp_path / "policy.pdf"
    _make_pdf(path)
    doc = load_document(path)
    assert doc.title == "Travel Policy"
    assert doc.problems == ()
    kinds = [(b.kind, b.level, b.page) for b in doc.blocks]
    assert kinds == [
        ("heading", 1, 1),
        ("paragraph", 0, 1),
        ("paragraph", 0, 1),
        ("paragraph", 0, 1),
        ("heading", 2, 1),
        ("table", 0, 1),
        ("paragraph", 0, 1),
        ("paragraph", 0, 2),
    ]
    texts = [b.text for b in doc.blocks]
    assert texts[1].startswith("Staff travel must be approved") and texts[1].count("Staff") == 6
    assert texts[3] == "第一条 差旅费按标准报销。"  # STSong-Light text reads back from the PDF
    assert texts[4] == "Hotel limits"
    assert doc.blocks[5].rows == (("City", "Limit"), ("Beijing", "600"), ("Shanghai", "550"))
    prose = " ".join(_paragraphs(doc))
    assert "Beijing" not in prose and "Shanghai" not in prose  # table text not duplicated
    assert texts[6] == "Limits are reviewed every year."
    assert texts[7].startswith("Meals are paid")
    assert not any(t.strip().isdigit() for t in texts)  # page numbers dropped


def test_pdf_chunks_keep_pages_and_table_name(tmp_path: Path) -> None:
    path = tmp_path / "policy.pdf"
    _make_pdf(path)
    doc = load_document(path)
    table_index = next(i for i, b in enumerate(doc.blocks) if b.kind == "table")
    chunks = chunk_document(doc, table_names={table_index: "policy_table_1"}, max_tokens=60)
    table = [c for c in chunks if c.table == "policy_table_1"]
    assert len(table) == 1 and "| Beijing | 600 |" in table[0].text
    assert table[0].heading_path == ("Travel Policy", "Hotel limits")
    assert chunks[-1].page == 2 and chunks[0].page == 1


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        (b"this is not a pdf", "not a readable PDF"),
        (b"%PDF-1.4\n1 0 obj\n<< /Type /Catalog", "not a readable PDF"),
    ],
)
def test_corrupt_pdf_is_a_source_error(tmp_path: Path, content: bytes, reason: str) -> None:
    path = tmp_path / "bad.pdf"
    path.write_bytes(content)
    with pytest.raises(SourceError, match=reason) as info:
        load_document(path)
    assert info.value.source == str(path)


def test_truncated_pdf_is_a_source_error(tmp_path: Path) -> None:
    good = tmp_path / "good.pdf"
    _make_pdf(good)
    bad = tmp_path / "cut.pdf"
    bad.write_bytes(good.read_bytes()[: good.stat().st_size // 2])
    with pytest.raises(SourceError, match="not a readable PDF"):
        load_document(bad)


def test_encrypted_pdf_is_a_source_error(tmp_path: Path) -> None:
    path = tmp_path / "locked.pdf"
    c = canvas.Canvas(str(path), encrypt=pdfencrypt.StandardEncryption("secret"))
    c.drawString(100, 700, "Confidential salaries")
    c.save()
    with pytest.raises(SourceError, match="password"):
        load_document(path)


def test_scanned_pdf_reports_missing_text_layer(tmp_path: Path) -> None:
    path = tmp_path / "scan.pdf"
    c = canvas.Canvas(str(path))
    c.rect(100, 100, 300, 400, fill=1)  # a page with only graphics, like a scan
    c.showPage()
    c.save()
    doc = load_document(path)
    assert doc.blocks == ()
    (problem,) = doc.problems
    assert "no text layer" in problem.what and "OCR" in problem.action


def test_pdf_page_without_text_among_text_pages(tmp_path: Path) -> None:
    path = tmp_path / "mixed.pdf"
    c = canvas.Canvas(str(path))
    c.drawString(100, 700, "Page one has text.")
    c.showPage()
    c.rect(100, 100, 300, 400, fill=1)
    c.showPage()
    c.save()
    doc = load_document(path)
    assert _paragraphs(doc) == ["Page one has text."]
    assert [(p.where, "no text layer" in p.what) for p in doc.problems] == [("page 2", True)]


# --- Word -------------------------------------------------------------------------------------


def _make_docx(path: Path) -> None:
    d = docx.Document()
    d.core_properties.title = ""
    d.add_heading("Travel Policy", 0)
    d.add_heading("第一章 总则", 1)
    d.add_paragraph("第一条 为规范差旅费管理，制定本办法。")
    d.add_paragraph("Economy flights only", style="List Bullet")
    d.add_paragraph("Hotels under the city limit", style="List Number")
    zh_heading = d.styles.add_style("标题 2", WD_STYLE_TYPE.PARAGRAPH)
    d.add_paragraph("住宿标准", style=zh_heading)
    d.add_paragraph("表1 住宿标准")
    t = d.add_table(rows=4, cols=3)
    for i, row in enumerate(
        [["城市", "级别", "标准"], ["北京", "A", "600"], ["", "B", "500"], ["上海", "A", "550"]]
    ):
        for j, value in enumerate(row):
            t.cell(i, j).text = value
    t.cell(1, 0).merge(t.cell(2, 0)).text = "北京"  # vertical merge
    t.cell(0, 1).merge(t.cell(0, 2)).text = "级别/标准"  # horizontal merge
    d.add_paragraph("")
    d.add_paragraph("第二条 超标部分自理。")
    d.save(str(path))


def test_docx_headings_lists_and_merged_table_in_body_order(tmp_path: Path) -> None:
    path = tmp_path / "policy.docx"
    _make_docx(path)
    doc = load_document(path)
    assert doc.title == "Travel Policy"
    assert [(b.kind, b.level, b.text) for b in doc.blocks] == [
        ("heading", 1, "Travel Policy"),
        ("heading", 2, "第一章 总则"),
        ("paragraph", 0, "第一条 为规范差旅费管理，制定本办法。"),
        ("paragraph", 0, "Economy flights only"),
        ("paragraph", 0, "Hotels under the city limit"),
        ("heading", 3, "住宿标准"),
        ("table", 0, "表1 住宿标准"),
        ("paragraph", 0, "第二条 超标部分自理。"),
    ]
    table = doc.blocks[6]
    assert table.rows == (
        ("城市", "级别/标准", "级别/标准"),
        ("北京", "A", "600"),
        ("北京", "B", "500"),
        ("上海", "A", "550"),
    )
    assert doc.problems == ()


@pytest.mark.parametrize(
    "content",
    [b"PK\x03\x04 not really a zip", b"plain text pretending", b""],
)
def test_corrupt_docx_is_a_source_error(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "broken.docx"
    path.write_bytes(content)
    with pytest.raises(SourceError, match="save it again as .docx") as info:
        load_document(path)
    assert info.value.source == str(path)


def test_spreadsheet_renamed_docx_is_a_source_error(tmp_path: Path) -> None:
    import openpyxl

    path = tmp_path / "sheet.docx"
    openpyxl.Workbook().save(str(path))
    with pytest.raises(SourceError, match="not a readable Word"):
        load_document(path)


# --- Dispatch ---------------------------------------------------------------------------------


def test_dispatch_is_case_insensitive_and_covers_all_suffixes(tmp_path: Path) -> None:
    expected = [".docx", ".htm", ".html", ".markdown", ".md", ".pdf", ".txt"]
    assert sorted(DOCUMENT_SUFFIXES) == expected
    path = tmp_path / "README.MD"
    path.write_text("# Title\n\nBody.", encoding="utf-8")
    assert _kinds(load_document(path)) == [("heading", "Title"), ("paragraph", "Body.")]


def test_unknown_suffix_and_missing_file_are_source_errors(tmp_path: Path) -> None:
    odd = tmp_path / "slides.pptx"
    odd.write_bytes(b"x")
    with pytest.raises(SourceError, match="not a document type"):
        load_document(odd)
    for missing in ("missing.md", "missing.docx", "missing.pdf"):
        with pytest.raises(SourceError, match="Cannot read"):
            load_document(tmp_path / missing)
