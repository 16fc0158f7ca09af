"""Decoding text files whatever encoding an office tool saved them in."""

from __future__ import annotations

import codecs
from pathlib import Path

import pytest

from tablerag.errors import SourceError
from tablerag.ingest.encoding import decode, is_plain_utf8_file, utf8_path

TEXT = "名称,金额,备注\n华东,1200,含税\nNorth,3.5,café\n"


@pytest.mark.parametrize(
    ("data", "encoding"),
    [
        pytest.param(TEXT.encode("utf-8"), "utf-8", id="utf8"),
        pytest.param(codecs.BOM_UTF8 + TEXT.encode("utf-8"), "utf-8-sig", id="utf8-bom"),
        pytest.param(TEXT.encode("utf-16"), "utf-16", id="utf16-bom"),
        pytest.param(codecs.BOM_UTF16_BE + TEXT.encode("utf-16-be"), "utf-16", id="utf16be-bom"),
        pytest.param(TEXT.encode("utf-16-le"), "utf-16-le", id="utf16le-bomless"),
        pytest.param(TEXT.encode("utf-16-be"), "utf-16-be", id="utf16be-bomless"),
        pytest.param(TEXT.replace("café", "cafe").encode("gbk"), "gb18030", id="gbk"),
    ],
)
def test_decode_recovers_the_text(data: bytes, encoding: str) -> None:
    text, found = decode(data)
    assert found == encoding
    assert text == (TEXT if encoding != "gb18030" else TEXT.replace("café", "cafe"))


def test_decode_gb18030_only_characters() -> None:
    text = "姓名,地址\n张三,广东省\n" + "㐀\n"  # 㐀 is in GB18030 but not GBK
    assert decode(text.encode("gb18030")) == (text, "gb18030")


def test_decode_falls_back_to_charset_normalizer_for_western_text() -> None:
    text = "name,city\nJosé,São Paulo\nFrançois,Besançon\n" * 5
    decoded, encoding = decode(text.encode("cp1252"))
    assert decoded == text
    assert encoding == "cp1252"


@pytest.mark.parametrize(
    "data",
    [
        pytest.param(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)) * 4, id="png"),
        pytest.param(b"PK\x03\x04\x14\x00\x00\x00\x08\x00" + bytes(range(256)) * 8, id="zip"),
    ],
)
def test_decode_rejects_binary_garbage(data: bytes) -> None:
    with pytest.raises(SourceError, match="not a text file"):
        decode(data, "photo.csv")


def test_utf8_path_keeps_a_plain_utf8_file(tmp_path: Path) -> None:
    path = tmp_path / "a.csv"
    path.write_text(TEXT, encoding="utf-8")
    assert is_plain_utf8_file(path)
    assert utf8_path(path, tmp_path) == (path, "utf-8")


@pytest.mark.parametrize("encoding", ["gbk", "utf-16", "utf-8-sig"])
def test_utf8_path_transcodes_other_encodings(tmp_path: Path, encoding: str) -> None:
    path = tmp_path / "a.csv"
    text = TEXT.replace("café", "cafe")
    path.write_bytes(text.encode(encoding))
    work = tmp_path / "work"
    work.mkdir()
    target, found = utf8_path(path, work)
    assert target != path and target.parent == work
    assert target.read_bytes() == text.encode("utf-8")
    assert found != "utf-8"


def test_utf8_path_head_only_trusts_a_clean_head(tmp_path: Path) -> None:
    path = tmp_path / "late.csv"
    path.write_bytes(b"a,b\n" + b"x,1\n" * 100_000 + "é,2\n".encode("latin-1"))
    assert utf8_path(path, tmp_path, head_only=True) == (path, "utf-8")
    target, found = utf8_path(path, tmp_path)
    assert target != path and found != "utf-8"
    assert target.read_text(encoding="utf-8").endswith("é,2\n")
