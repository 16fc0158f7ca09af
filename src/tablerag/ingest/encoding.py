"""Turn the bytes of a text file into text, whatever encoding an office tool saved it in.

Order of evidence: a byte-order mark; the NUL pattern of BOM-less UTF-16; strict UTF-8; GB18030
(the superset of GBK and GB2312) when the text it yields is Chinese; Windows-1252 when it yields
accented Latin letters; then charset-normalizer.
Bytes that are none of these (images, zip files, executables renamed ``.csv``) raise
``SourceError`` instead of becoming a table of mojibake.
"""

from __future__ import annotations

import codecs
from pathlib import Path

import charset_normalizer

from tablerag.errors import SourceError

_BOMS: tuple[tuple[bytes, str], ...] = (
    (codecs.BOM_UTF32_LE, "utf-32"),  # before UTF-16 LE: it starts with the same two bytes
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF8, "utf-8-sig"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)
_CHUNK_BYTES = 1 << 20
_ALLOWED_CONTROLS = frozenset("\t\n\r\f\v\x1b")


def decode(data: bytes, source: str = "") -> tuple[str, str]:
    """Decode the bytes of a text file.

    Args:
        data: the whole file.
        source: the file name, used in the error message.

    Returns:
        The text (without any byte-order mark) and the Python name of the encoding used:
        ``utf-8``, ``utf-8-sig``, ``utf-16``, ``utf-16-le``, ``utf-16-be``, ``utf-32``,
        ``gb18030``, ``cp1252`` or the name charset-normalizer chose.

    Raises:
        SourceError: the bytes are not text in any encoding we can recognise.

    Example:
        >>> decode("名称,金额".encode("gbk"))
        ('名称,金额', 'gb18030')
        >>> decode(codecs.BOM_UTF8 + b"a,b")
        ('a,b', 'utf-8-sig')
        >>> decode("a\\tb".encode("utf-16-le"))
        ('a\\tb', 'utf-16-le')
    """
    encoding = detect_encoding(data, source)
    text = data.decode(encoding)
    if encoding in ("utf-16", "utf-32") and text.startswith("\ufeff"):
        text = text[1:]
    _reject_binary(text, source)
    return text, encoding


def detect_encoding(data: bytes, source: str = "") -> str:
    """Name the encoding of ``data`` (see ``decode``); the bytes decode strictly with it.

    Raises:
        SourceError: the bytes are not text in any encoding we can recognise.

    Example:
        >>> detect_encoding(b"plain ascii")
        'utf-8'
        >>> detect_encoding("x,y".encode("utf-16-be"))
        'utf-16-be'
    """
    for bom, name in _BOMS:
        if data.startswith(bom):
            return name
    utf16 = _bomless_utf16(data[:4096])
    if utf16 and _decodes(data, utf16):
        return utf16
    if b"\x00" in data:
        raise SourceError(source, _binary_message(source))
    if _decodes(data, "utf-8"):
        return "utf-8"
    if _decodes(data, "gb18030") and _mostly_chinese(data.decode("gb18030")):
        return "gb18030"
    if _decodes(data, "cp1252") and _mostly_latin(data.decode("cp1252")):
        return "cp1252"  # Windows "ANSI" in the West; charset-normalizer guesses poorly on it
    best = charset_normalizer.from_bytes(data).best()
    if best is None:
        raise SourceError(source, _binary_message(source))
    return str(best.encoding)


def is_plain_utf8_file(path: Path) -> bool:
    """Say whether a file is valid UTF-8 without a byte-order mark and without NUL bytes.

    Streams the file in 1 MiB chunks, so a large file is never held in memory.
    """
    decoder = codecs.getincrementaldecoder("utf-8")(errors="strict")
    with path.open("rb") as handle:
        first = True
        while chunk := handle.read(_CHUNK_BYTES):
            if first and chunk.startswith(codecs.BOM_UTF8):
                return False
            first = False
            if b"\x00" in chunk:
                return False
            try:
                decoder.decode(chunk)
            except UnicodeDecodeError:
                return False
        try:
            decoder.decode(b"", final=True)
        except UnicodeDecodeError:
            return False
    return True


def is_plain_utf8_head(path: Path, size: int = 256 * 1024) -> bool:
    """Say whether the first ``size`` bytes look like plain UTF-8 (no BOM, no NUL bytes).

    A character cut in two at the end of the head does not count against it. Readers that
    validate UTF-8 themselves (DuckDB's CSV reader) can then skip a pass over the whole file.
    """
    with path.open("rb") as handle:
        head = handle.read(size)
    if head.startswith(codecs.BOM_UTF8) or b"\x00" in head:
        return False
    decoder = codecs.getincrementaldecoder("utf-8")(errors="strict")
    try:
        decoder.decode(head, final=len(head) < size)
    except UnicodeDecodeError:
        return False
    return True


def utf8_path(path: Path, workdir: Path, *, head_only: bool = False) -> tuple[Path, str]:
    """Give a path to the same text as plain UTF-8 (no BOM), for readers such as DuckDB's.

    The file itself is returned when it already is plain UTF-8; otherwise the text is transcoded
    into ``workdir`` (which the caller owns and removes).

    Args:
        path: the text file.
        workdir: an existing folder for the transcoded copy.
        head_only: judge by the first 256 KiB only (the caller's reader validates the rest and
            calls again with ``head_only=False`` if it finds invalid bytes).

    Returns:
        The UTF-8 path and the encoding the file was written in.

    Raises:
        SourceError: the file is not text (see ``decode``).
    """
    if is_plain_utf8_head(path) if head_only else is_plain_utf8_file(path):
        return path, "utf-8"
    text, encoding = decode(path.read_bytes(), path.name)
    target = workdir / f"{path.stem}.utf8{path.suffix}"
    target.write_text(text, encoding="utf-8", newline="")
    return target, encoding


def _bomless_utf16(head: bytes) -> str | None:
    """Spot UTF-16 without a BOM by its NUL bytes: ASCII text puts them all on one side."""
    size = len(head) - len(head) % 2
    if size < 4:
        return None
    even = head[0:size:2].count(0)
    odd = head[1:size:2].count(0)
    pairs = size // 2
    if odd >= 0.3 * pairs and even <= 0.05 * pairs:
        return "utf-16-le"
    if even >= 0.3 * pairs and odd <= 0.05 * pairs:
        return "utf-16-be"
    return None


def _decodes(data: bytes, encoding: str) -> bool:
    try:
        data.decode(encoding)
    except UnicodeDecodeError:
        return False
    return True


def _mostly_chinese(text: str) -> bool:
    """True when most non-ASCII characters are CJK ideographs or CJK punctuation."""
    wide = [ch for ch in text if ord(ch) > 127]
    if not wide:
        return False
    cjk = sum(1 for ch in wide if "\u3000" <= ch <= "\u9fff" or "\uff00" <= ch <= "\uffef")
    return cjk >= 0.9 * len(wide)


def _mostly_latin(text: str) -> bool:
    """True when every non-ASCII character is an accented Latin letter or typographic sign."""
    wide = [ch for ch in text if ord(ch) > 127]
    return bool(wide) and all(
        "\u00c0" <= ch <= "\u017f" or ch in "€£¥°±²³µ·¼½¾«»‘’“”–—…•©®™§¶¿¡ßÆæŒœ" for ch in wide
    )


def _reject_binary(text: str, source: str) -> None:
    sample = text[:65536]
    if not sample:
        return
    controls = sum(1 for ch in sample if ch < " " and ch not in _ALLOWED_CONTROLS)
    if controls > 0.01 * len(sample) or "\x00" in sample:
        raise SourceError(source, _binary_message(source))


def _binary_message(source: str) -> str:
    name = repr(source) if source else "The file"
    return (
        f"{name} is not a text file in any encoding tablerag recognises (UTF-8, UTF-16, GBK/"
        "GB18030, ...); export it again as CSV or UTF-8 text."
    )
