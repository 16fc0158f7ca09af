"""A local sentence-transformers model directory (optional extra ``tablerag[st]``)."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from tablerag.embed.base import Embedder, Matrix, Role, role_prefix
from tablerag.errors import ConfigError


class SentenceTransformersEmbedder(Embedder):
    """A sentence-transformers model loaded from a local folder: spec ``st:/path/to/model``.

    Nothing is downloaded: the folder must hold the model (``HF_HUB_OFFLINE`` is forced on).
    Role prefixes for e5 / bge / nomic models come from the profile table in ``embed.base``.
    """

    backend = "st"
    batch_size = 32

    def __init__(self, model: str = "", *, device: str = "cpu") -> None:
        super().__init__(model)
        try:
            import sentence_transformers  # type: ignore[import-not-found, unused-ignore]
        except ImportError as exc:
            raise ConfigError(
                "The 'st' embedder needs sentence-transformers; install it with "
                '`pip install "tablerag[st]"`.'
            ) from exc
        if not model or not Path(model).expanduser().is_dir():
            raise ConfigError(
                f"The 'st' embedder needs a local model folder, not {model!r}; download the "
                "model once and write 'st:/path/to/model'."
            )
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        self._model: Any = sentence_transformers.SentenceTransformer(
            str(Path(model).expanduser()), device=device
        )
        self.supports_roles = bool(role_prefix(model, "query"))

    def embed_batch(self, texts: Sequence[str], *, role: Role) -> Matrix:
        """Encode texts with the local model (prefixed for its role when it has roles)."""
        prefix = role_prefix(self.model, role)
        out = self._model.encode([prefix + t for t in texts], convert_to_numpy=True)
        return np.asarray(out, dtype=np.float32).reshape(len(texts), -1)
