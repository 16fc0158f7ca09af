"""Document loaders: one file in, one ``Document`` of heading, paragraph and table blocks out.

``load_document`` picks the loader by file suffix (``DOCUMENT_SUFFIXES``). Every loader keeps
blocks in reading order, keeps tables as ``table`` blocks (header row first) so the pipeline can
store them as SQL tables, and reports what it had to fix or skip in ``Document.problems``.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tablerag.errors import SourceError
from tablerag.ingest.documents.docx import load_docx
from tablerag.ingest.documents.html import load_html, parse_html
from tablerag.ingest.documents.markdown import load_markdown, parse_markdown
from tablerag.ingest.documents.pdf import load_pdf
from tablerag.ingest.documents.text import load_text, parse_text
from tablerag.types import Document

__all__ = [
    "DOCUMENT_SUFFIXES",
    "load_document",
    "load_docx",
    "load_html",
    "load_markdown",
    "load_pdf",
    "load_text",
    "parse_html",
    "parse_markdown",
    "parse_text",
]

_LOADERS: dict[str, Callable[[Path], Document]] = {
    ".md": load_markdown,
    ".markdown": load_markdown,
    ".txt": load_text,
    ".html": load_html,
    ".htm": load_html,
    ".pdf": load_pdf,
    ".docx": load_docx,
}

DOCUMENT_SUFFIXES: frozenset[str] = frozenset(_LOADERS)
"""Lower-case file suffixes ``load_document`` reads."""


def load_document(path: Path) -> Document:
    """Read one document file with the loader for its suffix (case-insensitive).

    Args:
        path: A ``.md``, ``.markdown``, ``.txt``, ``.html``, ``.htm``, ``.pdf`` or ``.docx`` file.

    Returns:
        The document; ``source`` is ``str(path)``.

    Raises:
        SourceError: The suffix is not a document type, the file cannot be read, or its content
            is damaged, encrypted or of another format.
    """
    source = str(path)
    loader = _LOADERS.get(path.suffix.lower())
    if loader is None:
        known = ", ".join(sorted(DOCUMENT_SUFFIXES))
        raise SourceError(
            source,
            f"{source} has suffix {path.suffix!r}, which is not a document type; "
            f"use one of {known} (or convert the file, e.g. .doc to .docx).",
        )
    if not path.is_file():
        raise SourceError(source, f"Cannot read {source} (no such file); check the path.")
    try:
        return loader(path)
    except OSError as exc:
        raise SourceError(
            source, f"Cannot read {source} ({exc.strerror or exc}); check the path and permissions."
        ) from exc
