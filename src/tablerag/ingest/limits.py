"""Resource bounds of ingest: caps checked before the expensive work, with a clear message each.

A file small on disk can be costly to read (issue 28): a 1.5 MB .xlsx holding a 1.5 GB shared
string, 100k columns in a 1 MB CSV, a 10 MB line, JSON or HTML nested 100k deep. Each cap is
checked from what is cheap to measure (a zip's central directory, a stream of the bytes, the
header) before a reader builds anything, and refuses the file with a
:class:`~tablerag.errors.SourceError` that names the file, the limit, the measured value and the
setting that raises it. What no cap foresees is bounded by the ingest worker
(:mod:`tablerag.ingest.worker`): memory and time.

The readers' signatures stay ``read_<format>(path, con)``: the limits in force are a context
variable set by :func:`applied` (the worker sets it per file; the default is the settings'
defaults).
"""

from __future__ import annotations

import re
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TYPE_CHECKING
from xml.parsers import expat

import numpy as np

from tablerag.errors import SourceError

if TYPE_CHECKING:
    from tablerag.settings import Settings

MB = 2**20
_BLOCK = 4 * MB
_RATIO_FLOOR = MB
"""Members smaller than this are never refused for their compression ratio (tiny XML parts of
a workbook compress 100:1 and cost nothing)."""
ZIP_SUFFIXES = frozenset({".xlsx", ".xlsm", ".docx", ".pptx"})
LINE_SUFFIXES = frozenset(
    {".csv", ".tsv", ".tab", ".txt", ".md", ".markdown", ".html", ".htm", ".jsonl", ".ndjson"}
)
_JSON_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"', re.S)


@dataclass(frozen=True)
class IngestLimits:
    """The bounds one file's ingest runs under (defaults: the settings' defaults)."""

    memory_limit_mb: int = 2048
    time_limit_s: float = 600.0
    max_unzipped_mb: int = 512
    max_zip_ratio: int = 200
    max_columns: int = 8_192
    max_line_mb: int = 16
    max_nesting_depth: int = 100

    @classmethod
    def from_settings(cls, settings: Settings) -> IngestLimits:
        """The limits the ``ingest_*`` settings give."""
        return cls(
            memory_limit_mb=settings.ingest_memory_limit_mb,
            time_limit_s=settings.ingest_time_limit_s,
            max_unzipped_mb=settings.ingest_max_unzipped_mb,
            max_zip_ratio=settings.ingest_max_zip_ratio,
            max_columns=settings.ingest_max_columns,
            max_line_mb=settings.ingest_max_line_mb,
            max_nesting_depth=settings.ingest_max_nesting_depth,
        )


_DEFAULT = IngestLimits()
_LIMITS: ContextVar[IngestLimits | None] = ContextVar("tablerag_ingest_limits", default=None)


@contextmanager
def applied(limits: IngestLimits) -> Iterator[None]:
    """Make ``limits`` the ones the readers check while the block runs."""
    token = _LIMITS.set(limits)
    try:
        yield
    finally:
        _LIMITS.reset(token)


def current() -> IngestLimits:
    """The limits in force."""
    return _LIMITS.get() or _DEFAULT


def refuse(source: str, what: str, limit: str, setting: str) -> SourceError:
    """The error of a file over a cap: what was measured, the limit, and the setting."""
    name = Path(source).name or source
    return SourceError(
        source,
        f"{name!r} was not ingested: {what}, over the limit of {limit} (setting {setting}); "
        "raise the setting if the file is genuine.",
    )


def check_file(path: Path) -> None:
    """The caps a file's bytes show before any reader opens it: unzipped sizes of a zip-based
    format (and the XML nesting of a .docx), the longest line of a text format.

    Raises:
        SourceError: a cap is passed; the message says which and how to raise it.
    """
    suffix = path.suffix.lower()
    if suffix in ZIP_SUFFIXES:
        check_zip(path)
        if suffix == ".docx":
            check_docx_depth(path)
    elif suffix in LINE_SUFFIXES:
        check_lines(path)


def check_zip(path: Path) -> None:
    """Refuse a zip whose members unzip to more than ``max_unzipped_mb`` in all, or one member
    past ``max_zip_ratio`` times its compressed size, read from the central directory alone.

    The directory's sizes bound what is read: Python's ``zipfile`` (under openpyxl and
    python-docx) stops a member at its declared size and fails its CRC check if the data says
    otherwise, so a lying directory yields an error, not a bigger member.
    """
    limits = current()
    source = str(path)
    try:
        with zipfile.ZipFile(path) as zf:
            members = zf.infolist()
    except (zipfile.BadZipFile, OSError):
        return  # not a zip: the reader reports it in its own words
    total = sum(m.file_size for m in members)
    if total > limits.max_unzipped_mb * MB:
        biggest = max(members, key=lambda m: m.file_size)
        raise refuse(
            source,
            f"its parts unzip to {total / MB:,.0f} MB ({biggest.filename!r} alone "
            f"{biggest.file_size / MB:,.0f} MB)",
            f"{limits.max_unzipped_mb} MB",
            "ingest_max_unzipped_mb",
        )
    for m in members:
        ratio = m.file_size / max(m.compress_size, 1)
        if m.file_size > _RATIO_FLOOR and ratio > limits.max_zip_ratio:
            raise refuse(
                source,
                f"its part {m.filename!r} unzips to {m.file_size / MB:,.1f} MB, {ratio:,.0f} "
                "times its compressed size",
                f"{limits.max_zip_ratio} times",
                "ingest_max_zip_ratio",
            )


def check_docx_depth(path: Path) -> None:
    """Refuse a .docx whose XML parts nest elements deeper than ``max_nesting_depth``
    (streamed through expat: no tree is built, memory stays flat)."""
    limit = current().max_nesting_depth
    try:
        with zipfile.ZipFile(path) as zf:
            for info in zf.infolist():
                if info.filename.startswith("word/") and info.filename.endswith(".xml"):
                    with zf.open(info) as member:
                        depth = xml_depth(member, stop_after=limit)
                    if depth > limit:
                        raise refuse(
                            str(path),
                            f"its part {info.filename!r} nests XML elements more than {limit} deep",
                            f"{limit} levels",
                            "ingest_max_nesting_depth",
                        )
    except (zipfile.BadZipFile, expat.ExpatError, OSError):
        return  # damaged: python-docx reports it in its own words


def xml_depth(stream: IO[bytes], *, stop_after: int | None = None) -> int:
    """The deepest element nesting of an XML stream (stops once past ``stop_after``).

    Example:
        >>> import io
        >>> xml_depth(io.BytesIO(b"<a><b><c/></b><b/></a>"))
        3
    """
    parser = expat.ParserCreate()
    depth = deepest = 0

    def start(_name: str, _attrs: object) -> None:
        nonlocal depth, deepest
        depth += 1
        deepest = max(deepest, depth)

    def end(_name: str) -> None:
        nonlocal depth
        depth -= 1

    parser.StartElementHandler = start
    parser.EndElementHandler = end
    while block := stream.read(_BLOCK // 4):
        parser.Parse(block, False)
        if stop_after is not None and deepest > stop_after:
            return deepest
    parser.Parse(b"", True)
    return deepest


def check_lines(path: Path) -> None:
    """Refuse a text file with a line longer than ``max_line_mb`` (one streamed pass)."""
    limit = current().max_line_mb
    longest = longest_line(path, stop_after=limit * MB)
    if longest > limit * MB:
        raise refuse(
            str(path),
            f"it has a line of more than {longest / MB:,.1f} MB",
            f"{limit} MB per line",
            "ingest_max_line_mb",
        )


def longest_line(path: Path, *, stop_after: int | None = None) -> int:
    """Bytes of the longest line of a file (``\\n`` or ``\\r`` ends a line), streamed in 4 MB
    blocks; stops once a line passes ``stop_after``."""
    longest = run = 0
    with path.open("rb", buffering=0) as handle:
        while block := handle.read(_BLOCK):
            data = np.frombuffer(block, dtype=np.uint8)
            ends = np.flatnonzero((data == 10) | (data == 13))
            if ends.size == 0:
                run += len(block)
            else:
                longest = max(longest, run + int(ends[0]))
                if ends.size > 1:
                    longest = max(longest, int(np.diff(ends).max()) - 1)
                run = len(block) - int(ends[-1]) - 1
            longest = max(longest, run)
            if stop_after is not None and longest > stop_after:
                break
    return longest


def json_depth(data: bytes) -> int:
    """The deepest nesting of ``[`` and ``{`` in JSON text, strings left out (linear, numpy).

    Example:
        >>> json_depth(b'[{"a": [1, "]]][[["]}, 2]'), json_depth(b'"x"')
        (3, 0)
    """
    bare = _JSON_STRING.sub(b'""', data)
    codes = np.frombuffer(bare, dtype=np.uint8)
    steps = np.zeros(codes.shape, dtype=np.int64)
    steps[(codes == ord("[")) | (codes == ord("{"))] = 1
    steps[(codes == ord("]")) | (codes == ord("}"))] = -1
    return int(np.cumsum(steps).max()) if steps.size else 0


def check_depth(source: str, depth: int, what: str) -> None:
    """Refuse ``source`` when ``depth`` (of ``what``: "JSON values", "HTML elements") is past
    ``max_nesting_depth``."""
    limit = current().max_nesting_depth
    if depth > limit:
        raise refuse(
            source,
            f"its {what} nest {depth:,} deep",
            f"{limit} levels",
            "ingest_max_nesting_depth",
        )


def check_columns(source: str, columns: int, where: str = "") -> None:
    """Refuse a table with more than ``max_columns`` columns (``where``: "sheet 'Q1'")."""
    limit = current().max_columns
    if columns > limit:
        raise refuse(
            source,
            f"{where or 'it'} has {columns:,} columns",
            f"{limit:,} columns",
            "ingest_max_columns",
        )


def too_deep(source: str) -> SourceError:
    """The error for a reader that still ran out of recursion (a nesting no pre-check
    measured): never a bare ``RecursionError``."""
    limit = current().max_nesting_depth
    return refuse(
        source,
        "it nests values too deeply to read",
        f"{limit} levels",
        "ingest_max_nesting_depth",
    )
