"""LLM providers behind one small interface, chosen by a ``backend:model`` spec.

``load_llm()`` reads the spec from its argument or ``TABLERAG_LLM`` (default ``local``) and builds
the backend through :mod:`tablerag.registry`: ``local``, ``llamacpp:/path/model.gguf``,
``openai:MODEL`` (any OpenAI-compatible server), ``anthropic:MODEL`` and ``scripted`` (tests).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from tablerag import registry
from tablerag.errors import ConfigError
from tablerag.llm.base import LLM, Completion, Message, Usage
from tablerag.llm.cache import CachedLLM, ResponseCache

DEFAULT_LLM = "local"

__all__ = [
    "DEFAULT_LLM",
    "LLM",
    "CachedLLM",
    "Completion",
    "Message",
    "ResponseCache",
    "Usage",
    "load_llm",
]


def load_llm(
    spec: str | LLM | None = None,
    *,
    cache_dir: str | Path | None = None,
    **options: Any,
) -> LLM:
    """Build the LLM a spec names, optionally behind a response cache.

    Args:
        spec: ``backend[:model]``, an LLM instance (returned as is, or wrapped in the cache), or
            None for ``TABLERAG_LLM`` and then ``local``.
        cache_dir: Folder of the response cache; None turns the cache off (interactive use).
        **options: Backend options, e.g. ``base_url=`` or ``n_ctx=``.

    Returns:
        The LLM, wrapped in :class:`CachedLLM` when ``cache_dir`` is given.

    Raises:
        UnknownBackendError: the backend is not known (the message suggests the closest name).
        ConfigError: the backend is misconfigured (missing key, model file, extra).
    """
    if isinstance(spec, LLM):
        llm = spec
    else:
        text = spec if spec is not None else os.environ.get("TABLERAG_LLM") or DEFAULT_LLM
        built = registry.create("llm", text, **options)
        if not isinstance(built, LLM):
            raise ConfigError(
                f"The llm backend of {text!r} built a {type(built).__name__}, not an LLM; fix "
                "the plugin's factory."
            )
        llm = built
    return CachedLLM(llm, cache_dir) if cache_dir is not None else llm
