"""Conversations (issue 34): a follow-up resolved against its session before it is routed.

:func:`resolve` turns "那华南呢？" into "2026年10月华南区的毛利是多少？" with one small model
call, only when cheap cues say the question leans on earlier turns
(:mod:`tablerag.lang.followups`); :func:`turn_of` keeps what the next follow-up needs of an
answer. :class:`tablerag.service.QA` calls both around the answer of a request that names a
session; the turns live in :mod:`tablerag.store.sessions`.
"""

from __future__ import annotations

from tablerag.conversation.resolve import (
    Resolution,
    chosen,
    continued,
    no_such_choice,
    nothing_to_follow,
    resolve,
    said,
    sql_context,
)
from tablerag.conversation.turns import filter_values, turn_of

__all__ = [
    "Resolution",
    "chosen",
    "continued",
    "filter_values",
    "no_such_choice",
    "nothing_to_follow",
    "resolve",
    "said",
    "sql_context",
    "turn_of",
]
