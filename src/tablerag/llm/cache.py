"""A response cache keyed by the full request, so evaluation runs are repeatable and cheap.

The cache is one SQLite file in a folder the caller chooses. :class:`CachedLLM` wraps any
:class:`~tablerag.llm.base.LLM`; the caller decides whether to wrap (on for evaluation, off for
interactive use, where a repeated question should get a fresh answer).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import sqlite3
import threading
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from tablerag.errors import ConfigError
from tablerag.llm.base import DEFAULT_MAX_TOKENS, DEFAULT_TIMEOUT_S, LLM, Completion, Message

CACHE_FILE = "llm_cache.sqlite"


def request_key(
    spec: str,
    messages: Sequence[Message],
    *,
    max_tokens: int,
    temperature: float,
    stop: Sequence[str],
    json_schema: dict[str, Any] | None,
) -> str:
    """The cache key of a request: SHA-256 of its canonical JSON (timeouts are not part of it).

    Example:
        >>> chat = [{"role": "user", "content": "hi"}]
        >>> a = request_key("openai:m", chat, max_tokens=9, temperature=0, stop=(),
        ...                 json_schema=None)
        >>> b = request_key("openai:m", chat, max_tokens=9, temperature=0.5, stop=(),
        ...                 json_schema=None)
        >>> len(a), a == b
        (64, False)
    """
    request = {
        "spec": spec,
        "messages": [[m["role"], m["content"]] for m in messages],
        "max_tokens": max_tokens,
        "temperature": float(temperature),
        "stop": list(stop),
        "json_schema": json_schema,
    }
    canonical = json.dumps(request, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


class ResponseCache:
    """Completions stored by request key in ``<folder>/llm_cache.sqlite``.

    Raises:
        ConfigError: the folder cannot be created or the file is not a usable SQLite database.
    """

    def __init__(self, folder: str | Path) -> None:
        self.path = Path(folder) / CACHE_FILE
        self._lock = threading.Lock()
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(self.path, check_same_thread=False, timeout=30)
            with self._db:
                self._db.execute(
                    "CREATE TABLE IF NOT EXISTS responses (key TEXT PRIMARY KEY, spec TEXT, "
                    "completion TEXT NOT NULL, created REAL)"
                )
        except (OSError, sqlite3.Error) as exc:
            raise ConfigError(
                f"Cannot use the LLM cache {str(self.path)!r} ({exc}); delete the file or "
                "choose another cache folder."
            ) from exc

    def get(self, key: str) -> Completion | None:
        """The stored completion for ``key``, or None."""
        with self._lock:
            row = self._db.execute(
                "SELECT completion FROM responses WHERE key = ?", (key,)
            ).fetchone()
        if row is None:
            return None
        fields = json.loads(row[0])
        return Completion(**fields)

    def put(self, key: str, spec: str, completion: Completion) -> None:
        """Store (or replace) the completion of ``key``."""
        data = json.dumps(dataclasses.asdict(completion), ensure_ascii=False)
        with self._lock, self._db:
            self._db.execute(
                "INSERT OR REPLACE INTO responses VALUES (?, ?, ?, ?)",
                (key, spec, data, time.time()),
            )

    def __len__(self) -> int:
        with self._lock:
            return int(self._db.execute("SELECT count(*) FROM responses").fetchone()[0])

    def close(self) -> None:
        """Close the database file."""
        self._db.close()


class CachedLLM(LLM):
    """An LLM that answers repeated requests from a :class:`ResponseCache`.

    A hit returns the stored completion with ``cached=True`` and the lookup's latency; only
    successful completions are stored. Streaming is passed through uncached.

    Args:
        inner: The LLM that answers cache misses.
        cache: The cache, or a folder to open one in.
    """

    def __init__(self, inner: LLM, cache: ResponseCache | str | Path) -> None:
        super().__init__(inner.model)
        self.inner = inner
        self.cache = cache if isinstance(cache, ResponseCache) else ResponseCache(cache)
        self.backend = inner.backend  # type: ignore[misc]  # mirror the wrapped backend
        self.supports_json = inner.supports_json  # type: ignore[misc]
        self.supports_streaming = inner.supports_streaming  # type: ignore[misc]
        self.is_remote = inner.is_remote  # type: ignore[misc]

    @property
    def spec(self) -> str:
        """The wrapped LLM's spec (``local:<file name>``, not the path ``model`` holds)."""
        return self.inner.spec

    def close(self) -> None:
        """Close the wrapped LLM and the cache file."""
        self.inner.close()
        self.cache.close()

    def complete(
        self,
        messages: Sequence[Message],
        *,
        max_tokens: int = DEFAULT_MAX_TOKENS,
        temperature: float = 0.0,
        stop: Sequence[str] = (),
        json_schema: dict[str, Any] | None = None,
        timeout_s: float = DEFAULT_TIMEOUT_S,
    ) -> Completion:
        """Answer from the cache, else from the wrapped LLM (and store the answer)."""
        started = time.perf_counter()
        key = request_key(
            self.inner.spec,
            messages,
            max_tokens=max_tokens,
            temperature=temperature,
            stop=stop,
            json_schema=json_schema,
        )
        stored = self.cache.get(key)
        if stored is not None:
            hit = dataclasses.replace(
                stored, cached=True, latency_ms=(time.perf_counter() - started) * 1000.0
            )
            self.usage.add(hit)
            return hit
        fresh = self.inner.complete(
            messages,
            max_tokens=max_tokens,
            temperature=temperature,
            stop=stop,
            json_schema=json_schema,
            timeout_s=timeout_s,
        )
        self.cache.put(key, self.inner.spec, fresh)
        self.usage.add(fresh)
        return fresh

    def stream(
        self,
        messages: Sequence[Message],
        *,
        max_tokens: int = DEFAULT_MAX_TOKENS,
        temperature: float = 0.0,
        stop: Sequence[str] = (),
        timeout_s: float = DEFAULT_TIMEOUT_S,
    ) -> Iterator[str]:
        """Stream from the wrapped LLM (not cached); its usage is recorded here too."""
        before = self.inner.usage.calls
        yield from self.inner.stream(
            messages,
            max_tokens=max_tokens,
            temperature=temperature,
            stop=stop,
            timeout_s=timeout_s,
        )
        for record in self.inner.usage.since(before):
            self.usage.add(record)
