"""Local model assembly from part packages: success, reuse, missing parts, wrong hash, no extra."""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path

import pytest

from tablerag.errors import ConfigError
from tablerag.llm import load_llm
from tablerag.llm import models as local_models
from tablerag.llm.models import LocalModel, ensure_local_model, find_parts

CHUNKS = [b"GGUF" + bytes(range(256)) * 3, b"middle-part" * 50, b"tail"]


def fake_parts(root: Path, monkeypatch: pytest.MonkeyPatch, tag: str) -> LocalModel:
    """Write importable packages ``fakepart_<tag>_<n>/data/partNN.bin``; describe the model."""
    names = []
    for number, chunk in enumerate(CHUNKS, start=1):
        package = root / f"fakepart_{tag}_{number}"
        (package / "data").mkdir(parents=True)
        (package / "__init__.py").write_text("")
        (package / "data" / f"part{number:02d}.bin").write_bytes(chunk)
        names.append(package.name)
    monkeypatch.syspath_prepend(str(root))
    whole = b"".join(CHUNKS)
    return LocalModel("fake.gguf", tuple(names), len(whole), hashlib.sha256(whole).hexdigest())


def assert_the_one_message(error: ConfigError) -> None:
    message = str(error)
    assert 'CMAKE_ARGS="-DGGML_NATIVE=OFF" pip install --no-cache-dir "tablerag[local]"' in message
    assert "TABLERAG_LLM=openai:MODEL" in message and "TABLERAG_OPENAI_BASE_URL" in message


def test_parts_are_assembled_verified_and_reused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    model = fake_parts(tmp_path / "site", monkeypatch, "ok")
    cache = tmp_path / "models"
    path = ensure_local_model(model, cache)
    assert path == cache / "fake.gguf" and path.read_bytes() == b"".join(CHUNKS)
    assert sorted(p.name for p in cache.iterdir()) == ["fake.gguf", "fake.gguf.verified"]
    # Once verified, the parts are no longer needed.
    for part in find_parts(model):
        part.unlink()
    assert ensure_local_model(model, cache) == path


def test_a_corrupted_model_file_is_rebuilt(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    model = fake_parts(tmp_path / "site", monkeypatch, "rebuild")
    path = ensure_local_model(model, tmp_path / "models")
    path.write_bytes(b"truncated")
    assert ensure_local_model(model, tmp_path / "models").read_bytes() == b"".join(CHUNKS)


def test_missing_parts_give_the_one_message(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    model = fake_parts(tmp_path / "site", monkeypatch, "missing")
    incomplete = LocalModel(
        model.filename, (*model.parts, "fakepart_missing_99"), model.size, model.sha256
    )
    with pytest.raises(ConfigError, match="1 of 4 weight packages are missing") as info:
        ensure_local_model(incomplete, tmp_path / "models")
    assert_the_one_message(info.value)
    assert not (tmp_path / "models").exists()


def test_wrong_hash_gives_the_one_message_and_leaves_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    model = fake_parts(tmp_path / "site", monkeypatch, "hash")
    tampered = LocalModel(model.filename, model.parts, model.size, "0" * 64)
    with pytest.raises(ConfigError, match="expected .* bytes and 000000000000") as info:
        ensure_local_model(tampered, tmp_path / "models")
    assert_the_one_message(info.value)
    assert list((tmp_path / "models").iterdir()) == []  # no model, no half-written temp file


def test_local_without_llama_cpp_gives_the_one_message(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "llama_cpp", None)  # find_spec() now reports it missing
    with pytest.raises(ConfigError, match="llama-cpp-python is not installed") as info:
        load_llm("local")
    assert_the_one_message(info.value)


def test_local_without_weights_gives_the_one_message(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Get past the "is llama-cpp-python installed" check whether or not it is installed here.
    monkeypatch.setattr("tablerag.llm.llamacpp._llama_module", lambda: object())
    absent = LocalModel("absent.gguf", ("fakepart_absent_1",), 10, "0" * 64)
    monkeypatch.setattr("tablerag.llm.llamacpp.QWEN_CODER_1_5B", absent)
    monkeypatch.setenv("TABLERAG_MODEL_DIR", str(tmp_path))
    with pytest.raises(ConfigError, match="weight packages are missing") as info:
        load_llm("local")
    assert_the_one_message(info.value)


def test_model_dir_follows_the_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TABLERAG_MODEL_DIR", str(tmp_path))
    assert local_models.model_dir() == tmp_path
    monkeypatch.delenv("TABLERAG_MODEL_DIR")
    assert local_models.model_dir().parts[-3:] == (".cache", "tablerag", "models")
