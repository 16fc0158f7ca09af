"""Answering agents: the router that picks a path for each question."""

from __future__ import annotations

from tablerag.agent.router import INTENTS, Intent, Route, RouterContext, route

__all__ = ["INTENTS", "Intent", "Route", "RouterContext", "route"]
