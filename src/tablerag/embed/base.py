"""The embedder interface: one abstract ``embed_batch``; batching and checks live here."""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from typing import ClassVar, Literal

import numpy as np
import numpy.typing as npt

from tablerag.errors import ProviderError

Role = Literal["query", "passage"]
Matrix = npt.NDArray[np.float32]

# Per-model role prefixes (a profile table, not if-branches): models trained with asymmetric
# query/passage inputs retrieve much worse without them. First matching pattern wins.
ROLE_PREFIXES: tuple[tuple[str, str, str], ...] = (
    (r"bge-m3", "", ""),
    (r"(^|[/_.-])e5([/_.-]|$)", "query: ", "passage: "),
    (r"nomic-embed", "search_query: ", "search_document: "),
    (r"bge-.*(en|zh)", "Represent this sentence for searching relevant passages: ", ""),
)


def role_prefix(model: str, role: Role) -> str:
    """The text a model expects before a query or a passage (empty when it has no roles).

    Example:
        >>> role_prefix("intfloat/multilingual-e5-small", "query")
        'query: '
        >>> role_prefix("nomic-embed-text", "passage")
        'search_document: '
        >>> role_prefix("text-embedding-3-small", "query")
        ''
    """
    name = model.lower()
    for pattern, query, passage in ROLE_PREFIXES:
        if re.search(pattern, name):
            return query if role == "query" else passage
    return ""


class Embedder(ABC):
    """Turns texts into L2-normalised float32 vectors, so cosine similarity is a dot product.

    Subclasses implement :meth:`embed_batch` only. Use :meth:`embed_query` for a search query
    and :meth:`embed_passages` for indexed text: models trained with query/passage roles (e5)
    need to know which one they see.
    """

    backend: ClassVar[str] = ""
    #: The model distinguishes query and passage inputs (e5 prefixes, instructions); a backend
    #: serving many models may set it per instance from :data:`ROLE_PREFIXES`.
    supports_roles: bool = False
    #: Calls leave the machine (costs money or needs a server); indexing should batch hard.
    is_remote: ClassVar[bool] = False
    #: Texts sent per :meth:`embed_batch` call by :meth:`embed_passages`.
    batch_size: ClassVar[int] = 32

    def __init__(self, model: str = "") -> None:
        self.model = model
        self._dim: int | None = None

    @property
    def spec(self) -> str:
        """The ``backend:model`` spec that recreates this embedder; stored in index manifests."""
        return f"{self.backend}:{self.model}" if self.model else self.backend

    @property
    def dim(self) -> int:
        """Vector length; learnt from one probe call when the backend does not declare it."""
        if self._dim is None:
            self._dim = int(self.embed_batch(["dimension probe"], role="query").shape[1])
        return self._dim

    @abstractmethod
    def embed_batch(self, texts: Sequence[str], *, role: Role) -> Matrix:
        """Embed a batch of texts as ``role``; return an array of shape ``(len(texts), dim)``.

        Raises:
            ProviderError: the backend failed.
        """

    def embed_query(self, text: str) -> Matrix:
        """Embed one search query; returns a normalised vector of shape ``(dim,)``."""
        vector: Matrix = self._checked(self.embed_batch([text], role="query"), 1)[0]
        return vector

    def embed_passages(
        self, texts: Sequence[str], *, progress: Callable[[int], None] | None = None
    ) -> Matrix:
        """Embed passages in batches of :attr:`batch_size`; ``progress(n)`` after each batch.

        Returns:
            A normalised array of shape ``(len(texts), dim)``.
        """
        parts: list[Matrix] = []
        for start in range(0, len(texts), self.batch_size):
            batch = list(texts[start : start + self.batch_size])
            parts.append(self._checked(self.embed_batch(batch, role="passage"), len(batch)))
            if progress is not None:
                progress(len(batch))
        if not parts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return np.concatenate(parts)

    def _checked(self, raw: npt.ArrayLike, n: int) -> Matrix:
        vectors = np.asarray(raw, dtype=np.float32)
        if vectors.ndim != 2 or vectors.shape[0] != n or vectors.shape[1] == 0:
            raise ProviderError(
                f"Embedder {self.spec!r} returned shape {vectors.shape} for {n} texts; check the "
                "model name and the server it runs on.",
                provider=self.backend,
            )
        if self._dim is None:
            self._dim = int(vectors.shape[1])
        elif vectors.shape[1] != self._dim:
            raise ProviderError(
                f"Embedder {self.spec!r} changed dimension from {self._dim} to "
                f"{vectors.shape[1]}; a server is serving another model — fix its configuration.",
                provider=self.backend,
            )
        if not np.all(np.isfinite(vectors)):
            raise ProviderError(
                f"Embedder {self.spec!r} returned NaN or infinite values; check the model.",
                provider=self.backend,
            )
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        norms[norms == 0] = 1.0
        out: Matrix = (vectors / norms).astype(np.float32, copy=False)
        return out
