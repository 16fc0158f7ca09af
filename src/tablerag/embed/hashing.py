"""A deterministic, dependency-free embedder (feature hashing) for tests and tiny setups."""

from __future__ import annotations

import re
import zlib
from collections.abc import Sequence

import numpy as np

from tablerag.embed.base import Embedder, Matrix, Role
from tablerag.errors import ConfigError

_CJK = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_TERM = re.compile(f"[{_CJK}]+|[^\\W{_CJK}]+")


def features(text: str) -> list[str]:
    """The hashed features of a text: lower-cased words, CJK characters and CJK bigrams.

    Example:
        >>> features("Refund 退货")
        ['refund', '退', '货', '退货']
    """
    out: list[str] = []
    for term in _TERM.findall(text.lower()):
        if "\u3400" <= term[0] <= "\ufaff":
            out.extend(term)
            out.extend(term[i : i + 2] for i in range(len(term) - 1))
        else:
            out.append(term)
    return out


class HashingEmbedder(Embedder):
    """Bag of hashed features (signed, CRC32), so similar wording gives similar vectors.

    The spec is ``hashing`` or ``hashing:<dim>`` (default 256). It knows no meaning, only
    words; it exists so tests and demos run with no model at all.
    """

    backend = "hashing"

    def __init__(self, model: str = "") -> None:
        super().__init__(model)
        if model and not model.isdigit():
            raise ConfigError(
                f"Hashing embedder size {model!r} is not a number; use 'hashing:256'."
            )
        self._dim = int(model) if model else 256
        if self._dim < 2:
            raise ConfigError("Hashing embedder size must be at least 2; use 'hashing:256'.")

    def embed_batch(self, texts: Sequence[str], *, role: Role) -> Matrix:
        """Embed texts by hashing their features; the role makes no difference."""
        dim = self.dim
        out = np.zeros((len(texts), dim), dtype=np.float32)
        for row, text in enumerate(texts):
            for feat in features(text):
                h = zlib.crc32(feat.encode("utf-8"))
                out[row, h % dim] += 1.0 if (h >> 31) & 1 else -1.0
            if not out[row].any():
                out[row, 0] = 1.0  # an empty text still gets a valid unit vector
        return out
