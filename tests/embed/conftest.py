"""Fixtures of the embedder tests."""

from __future__ import annotations

from .loopback import loopback

__all__ = ["loopback"]
