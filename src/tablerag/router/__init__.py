"""The router: which path answers a question (documents, data, both, the loop, or neither)."""

from __future__ import annotations

from tablerag.router.router import INTENTS, Intent, Route, RouterContext, route

__all__ = ["INTENTS", "Intent", "Route", "RouterContext", "route"]
