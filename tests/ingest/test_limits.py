"""The ingest caps as pure checks, symlinks out of an ingested folder, and the linear packing
of chunk text (issue 28)."""

from __future__ import annotations

import io
import random
import zipfile
from pathlib import Path

import pytest

from tablerag.errors import SourceError
from tablerag.ingest import limits
from tablerag.ingest.chunking import _pack, split_long
from tablerag.ingest.limits import IngestLimits
from tablerag.ingest.pipeline import discover
from tablerag.service import Workspace
from tablerag.settings import Settings
from tablerag.tokens import count_tokens
from tests.ingest import bombs

BASE = Settings(index_on_ingest=False)


def test_longest_line_across_blocks(tmp_path: Path) -> None:
    path = tmp_path / "t.txt"
    path.write_bytes(b"ab\n" + b"x" * (5 * 2**20) + b"\r\ncd")
    assert limits.longest_line(path) == 5 * 2**20
    path.write_bytes(b"no newline at all")
    assert limits.longest_line(path) == len(b"no newline at all")


def test_json_depth_ignores_brackets_in_strings() -> None:
    assert limits.json_depth(b'{"a": "[[[[", "b": [{"c": "\\"]"}]}') == 3
    assert limits.json_depth(b"[" * 500 + b"]" * 500) == 500


def test_xml_depth_streams() -> None:
    assert limits.xml_depth(io.BytesIO(b"<a>" * 300 + b"</a>" * 300)) == 300
    assert limits.xml_depth(io.BytesIO(b"<a>" * 300 + b"</a>" * 300), stop_after=10) > 10


def test_zip_directory_cap_refuses_before_unpacking(tmp_path: Path) -> None:
    path = bombs.xlsx_shared_string(tmp_path / "b.xlsx", 3_000_000)
    with limits.applied(IngestLimits(max_unzipped_mb=2)), pytest.raises(SourceError) as caught:
        limits.check_file(path)
    message = str(caught.value)
    assert "'b.xlsx'" in message and "limit of 2 MB" in message
    assert "ingest_max_unzipped_mb" in message
    with limits.applied(IngestLimits(max_zip_ratio=10**6)):
        limits.check_file(path)  # under both caps: passes


def test_an_ordinary_workbook_passes_the_zip_caps(tmp_path: Path) -> None:
    import openpyxl

    book = openpyxl.Workbook()
    sheet = book.active
    assert sheet is not None
    for i in range(2000):
        sheet.append([f"name {i}", i, i * 1.5])
    book.save(tmp_path / "ok.xlsx")
    limits.check_file(tmp_path / "ok.xlsx")
    with zipfile.ZipFile(tmp_path / "ok.xlsx") as zf:
        assert max(m.file_size / max(m.compress_size, 1) for m in zf.infolist()) < 50


def test_columns_cap_in_every_table_reader(tmp_path: Path) -> None:
    """CSV header, JSON keys and a document's table all meet ingest_max_columns."""
    (tmp_path / "w.csv").write_text(",".join(f"c{i}" for i in range(30)) + "\n" + "1," * 29 + "1\n")
    (tmp_path / "w.json").write_text('[{"' + '": 1, "'.join(f"k{i}" for i in range(30)) + '": 1}]')
    header = "|" + "|".join(f"h{i}" for i in range(30)) + "|\n"
    (tmp_path / "w.md").write_text(
        "# T\n\n" + header + "|" + "---|" * 30 + "\n|" + "1|" * 30 + "\n"
    )
    settings = BASE.model_copy(update={"ingest_max_columns": 20})
    with Workspace.open(tmp_path / "ws") as ws:
        reports = {Path(r.source).name: r for r in ws.ingest([tmp_path], settings=settings)}
    for name in ("w.csv", "w.json", "w.md"):
        assert reports[name].status == "failed", name
        error = reports[name].error or ""
        assert "30 columns" in error and "20 columns" in error and "ingest_max_columns" in error


def _outside_links(tmp_path: Path) -> tuple[Path, Path]:
    secret = tmp_path / "secret"
    secret.mkdir()
    (secret / "passwords.csv").write_text("user,password\nroot,hunter2\n", encoding="utf-8")
    (secret / "more").mkdir()
    (secret / "more" / "keys.csv").write_text("k,v\na,1\n", encoding="utf-8")
    folder = tmp_path / "shared"
    folder.mkdir()
    (folder / "ok.csv").write_text("a,b\n1,2\n", encoding="utf-8")
    (folder / "inside_link.csv").symlink_to(folder / "ok.csv")
    (folder / "leak.csv").symlink_to(secret / "passwords.csv")
    (folder / "leakdir").symlink_to(secret / "more", target_is_directory=True)
    (folder / "loop").symlink_to(folder, target_is_directory=True)
    return folder, secret


def test_symlinks_out_of_the_folder_are_not_followed(tmp_path: Path) -> None:
    folder, secret = _outside_links(tmp_path)
    with Workspace.open(tmp_path / "ws") as ws:
        reports = ws.ingest([folder], settings=BASE)
        stored = {t.name for t in ws.tables()}
        texts = " ".join(c.text for c in ws.chunks())
    by_name = {Path(r.source).name: r for r in reports}
    assert by_name["ok.csv"].status == "added"
    assert by_name["leak.csv"].status == "skipped"
    assert "ingest_follow_symlinks" in (by_name["leak.csv"].error or "")
    assert by_name["leakdir"].status == "skipped"
    assert stored == {"ok"}
    assert "hunter2" not in texts
    assert not any(str(secret) == str(Path(r.source).parent) for r in reports)


def test_symlinks_are_followed_when_the_setting_allows(tmp_path: Path) -> None:
    folder, _ = _outside_links(tmp_path)
    settings = BASE.model_copy(update={"ingest_follow_symlinks": True})
    found = {Path(t.location).name for t in discover([folder], follow_symlinks=True)}
    assert found == {"ok.csv", "passwords.csv", "keys.csv"}  # the loop walked once
    with Workspace.open(tmp_path / "ws") as ws:
        reports = ws.ingest([folder], settings=settings)
    assert {r.status for r in reports} == {"added"}, [r.error for r in reports]


def test_a_symlink_named_on_the_command_line_is_read(tmp_path: Path) -> None:
    folder, _ = _outside_links(tmp_path)
    (target,) = discover([folder / "leak.csv"])
    assert not target.skipped and target.path is not None
    assert target.path.name == "passwords.csv"


def _pack_reference(units: list[str], max_tokens: int) -> list[str]:
    """The packing as it was (each unit recounts the whole chunk): the behaviour to keep."""
    out: list[str] = []
    current = ""
    for unit in units:
        if current and count_tokens(current + unit) > max_tokens:
            out.append(current)
            current = unit
        else:
            current += unit
    if current:
        out.append(current)
    return out


def test_linear_packing_packs_as_before() -> None:
    rng = random.Random(28)
    alphabet = ["ab", "c", " ", "\n", "报", "销", "。", ".", "x1", "  ", "—", "ｱ", "\t"]
    for _ in range(400):
        units = ["".join(rng.choices(alphabet, k=rng.randint(1, 6))) for _ in range(30)]
        limit = rng.randint(1, 12)
        assert _pack(units, limit) == _pack_reference(units, limit), (units, limit)


def test_split_long_is_linear_on_one_huge_sentence() -> None:
    text = "lorem " * 200_000
    pieces = split_long(text, 400)
    assert all(count_tokens(p) <= 400 for p in pieces)
    assert " ".join(pieces).split() == text.split()
