"""Generators of hostile files that are small on disk and costly to read (issue 28).

Each writes one file and returns its path. Sizes are parameters, so tests build small bombs
against low limits and ``bench/ingest_bombs.py`` builds the full-size ones measured in issue 28
(a 1.5 GB shared string in a 1.5 MB .xlsx, 100k columns in a CSV, a 10 MB one-line Markdown).
"""

from __future__ import annotations

import zipfile
from pathlib import Path

_BLOCK = 1 << 20

_CONTENT_TYPES_XLSX = (
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
    '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
    '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.'
    'relationships+xml"/><Default Extension="xml" ContentType="application/xml"/>'
    '<Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-'
    'officedocument.spreadsheetml.sheet.main+xml"/>'
    '<Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.'
    'openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>'
    '<Override PartName="/xl/sharedStrings.xml" ContentType="application/vnd.openxmlformats-'
    'officedocument.spreadsheetml.sharedStrings+xml"/></Types>'
)
_RELS = (
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
    '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
    '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/'
    'relationships/officeDocument" Target="{target}"/></Relationships>'
)
_WORKBOOK = (
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
    '<workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" '
    'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships">'
    '<sheets><sheet name="Sheet1" sheetId="1" r:id="rId1"/></sheets></workbook>'
)
_WORKBOOK_RELS = (
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
    '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
    '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/'
    'relationships/worksheet" Target="worksheets/sheet1.xml"/>'
    '<Relationship Id="rId2" Type="http://schemas.openxmlformats.org/officeDocument/2006/'
    'relationships/sharedStrings" Target="sharedStrings.xml"/></Relationships>'
)
_SHEET = (
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
    '<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>'
    '<row r="1"><c r="A1" t="s"><v>0</v></c><c r="B1" t="inlineStr"><is><t>n</t></is></c></row>'
    '<row r="2"><c r="A2" t="s"><v>0</v></c><c r="B2"><v>1</v></c></row>'
    "</sheetData></worksheet>"
)
_DOCX_TYPES = (
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
    '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
    '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.'
    'relationships+xml"/><Default Extension="xml" ContentType="application/xml"/>'
    '<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-'
    'officedocument.wordprocessingml.document.main+xml"/></Types>'
)
_W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"


def _stream(zf: zipfile.ZipFile, name: str, head: str, fill: bytes, size: int, tail: str) -> None:
    """Write a member made of ``head``, ``fill`` repeated to about ``size`` bytes (whole copies
    only, so the XML stays well formed), and ``tail``."""
    with zf.open(name, "w", force_zip64=True) as out:
        out.write(head.encode())
        block = fill * max(1, _BLOCK // len(fill))
        left = max(len(fill), size // len(fill) * len(fill))
        while left > 0:
            piece = block[:left]
            out.write(piece)
            left -= len(piece)
        out.write(tail.encode())


def xlsx_shared_string(path: Path, size: int) -> Path:
    """An .xlsx whose one shared string is ``size`` bytes of ``a`` (two cells use it)."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as zf:
        zf.writestr("[Content_Types].xml", _CONTENT_TYPES_XLSX)
        zf.writestr("_rels/.rels", _RELS.format(target="xl/workbook.xml"))
        zf.writestr("xl/workbook.xml", _WORKBOOK)
        zf.writestr("xl/_rels/workbook.xml.rels", _WORKBOOK_RELS)
        zf.writestr("xl/worksheets/sheet1.xml", _SHEET)
        head = (
            '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
            '<sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" count="2" '
            'uniqueCount="1"><si><t>'
        )
        _stream(zf, "xl/sharedStrings.xml", head, b"a", size, "</t></si></sst>")
    return path


def _docx(path: Path, body_head: str, fill: bytes, size: int, body_tail: str) -> Path:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as zf:
        zf.writestr("[Content_Types].xml", _DOCX_TYPES)
        zf.writestr("_rels/.rels", _RELS.format(target="word/document.xml"))
        head = (
            '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
            f'<w:document xmlns:w="{_W}"><w:body>{body_head}'
        )
        _stream(zf, "word/document.xml", head, fill, size, f"{body_tail}</w:body></w:document>")
    return path


def docx_paragraphs(path: Path, size: int) -> Path:
    """A .docx whose document.xml is ``size`` bytes of short paragraphs (an XML tree of
    millions of elements: gigabytes once parsed)."""
    return _docx(path, "", b"<w:p><w:r><w:t>a</w:t></w:r></w:p>", size, "")


def docx_deep(path: Path, depth: int) -> Path:
    """A .docx whose body nests ``depth`` ``w:sdt``/``w:sdtContent`` pairs around one
    paragraph."""
    open_ = "<w:sdt><w:sdtContent>" * depth
    close = "</w:sdtContent></w:sdt>" * depth
    return _docx(path, open_ + "<w:p><w:r><w:t>deep</w:t></w:r></w:p>", b" ", 1, close)


def csv_wide(path: Path, columns: int, rows: int = 2) -> Path:
    """A CSV with ``columns`` columns (``c1``…) and ``rows`` rows of small numbers."""
    with path.open("w", encoding="utf-8") as out:
        out.write(",".join(f"c{i}" for i in range(1, columns + 1)) + "\n")
        for r in range(rows):
            out.write(",".join(str((r + i) % 10) for i in range(columns)) + "\n")
    return path


def csv_long_line(path: Path, size: int) -> Path:
    """A CSV whose second line is one field of ``size`` bytes."""
    with path.open("w", encoding="utf-8") as out:
        out.write("id,note\n1,")
        left = size
        block = "x" * _BLOCK
        while left > 0:
            out.write(block[:left])
            left -= _BLOCK
        out.write("\n")
    return path


def markdown_one_line(path: Path, size: int, *, word: str = "lorem ") -> Path:
    """A Markdown file of one line: ``word`` repeated to ``size`` bytes, no newline."""
    text = (word * (size // len(word) + 1))[:size]
    path.write_text(text, encoding="utf-8")
    return path


def json_deep(path: Path, depth: int) -> Path:
    """A JSON file of ``depth`` nested arrays inside one record."""
    path.write_text('[{"a": ' + "[" * depth + "1" + "]" * depth + "}]", encoding="utf-8")
    return path


def html_deep(path: Path, depth: int) -> Path:
    """An HTML file of ``depth`` nested ``div`` elements around one word."""
    path.write_text(
        "<html><body>" + "<div>" * depth + "deep" + "</div>" * depth + "</body></html>",
        encoding="utf-8",
    )
    return path
