"""Clarification as a turn (issue 34): the readings of a data question that give different
numbers, found from the semantic model, the value index and the linker, with no model call
(:func:`find_readings`); :class:`tablerag.answering.Work` asks back with them as choices."""

from __future__ import annotations

from tablerag.clarify.readings import Choice, Readings, find_readings, names_period

__all__ = ["Choice", "Readings", "find_readings", "names_period"]
