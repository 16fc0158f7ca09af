"""One question's context, forwarded through every layer that answers it.

A :class:`Request` carries what belongs to one question and to nothing else: the question, its
conversation (``session``), the date relative words refer to (``today``), the answer's language,
stage switches, the deadline, the model usage of this question alone, the trace of what was done
(events a server streams) and a cancel flag (the client went away). The long-lived parts - the
settings, the model, the catalog, the index - live in the runtime (:mod:`tablerag.runtime`) and
the :class:`tablerag.service.QA` it opens; nothing per question lives in module state, so many
questions can be answered at once (STYLE.md, "one request object, forwarded").

Example:
    >>> r = Request.make("上月华东的毛利是多少？", max_seconds=30)
    >>> r.trace.emit("route", intent="data")
    >>> [e.kind for e in r.trace.events], r.usage.calls, r.deadline.seconds
    (['route'], 0, 30)
"""

from __future__ import annotations

import datetime as dt
import threading
import time
import uuid
from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass, field
from typing import Any

from tablerag.deadline import Deadline
from tablerag.llm.base import Usage

Listener = Callable[["Event"], None]


@dataclass(frozen=True)
class Event:
    """One thing done while answering: its kind, when (ms since the request began), its data."""

    kind: str
    at_ms: float
    data: Mapping[str, Any]


@dataclass
class Trace:
    """The events of one request, in order (thread-safe); a listener sees each as it happens."""

    started: float = field(default_factory=time.perf_counter)
    events: list[Event] = field(default_factory=list)
    listener: Listener | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def emit(self, kind: str, **data: Any) -> None:
        """Record one event and hand it to the listener (a server's stream)."""
        event = Event(kind, round((time.perf_counter() - self.started) * 1000, 3), data)
        with self._lock:
            self.events.append(event)
        if self.listener is not None:
            self.listener(event)

    def elapsed_ms(self) -> float:
        """Milliseconds since the request began."""
        return (time.perf_counter() - self.started) * 1000


@dataclass
class Request:
    """One question and everything that belongs to it alone.

    Attributes:
        question: the question as asked.
        id: the answer's id (the query log's key; feedback names it).
        session: the conversation it belongs to, if any.
        today: the date "last month" refers to; None: the ``today`` setting, else today.
        language: the answer's language; None: the question's.
        stages: stage switches for this question on top of the ``stages`` setting
            (``{"spelling": False}``).
        deadline: the moment every model call, retry and query must end by.
        usage: the model calls of this question only.
        trace: what was done, in order.
        cancelled: set when nobody waits for the answer any more; no new model call starts.
        origin: who asked (``cli``, ``api``), for the log.
        queries: what each query sent to an engine returned, for this question only (an
            answer's lookups repeat; :mod:`tablerag.sql.engines.once`).
        context: what the SQL model reads before the question (a conversation's earlier
            questions and last SQL).
        asked: the question as the user worded it, when ``question`` is its rewrite in a
            conversation (the SQL model reads this wording after ``context``; a rewritten
            follow-up is never asked back).
        said: what the user said in the conversation up to this question, the earlier questions
            and this one as worded (the answer checks read it beside ``question``).
        follows: the path of the turn before it in its session (``nl2sql``, ``rag``, …): a
            question the router cannot place continues there.
        clarified: the question is a choice the user picked from an earlier answer's choices:
            it is answered as it stands, never asked back again.
    """

    question: str
    deadline: Deadline
    id: str = field(default_factory=lambda: uuid.uuid4().hex)
    session: str | None = None
    today: dt.date | None = None
    language: str | None = None
    stages: Mapping[str, bool] = field(default_factory=dict)
    usage: Usage = field(default_factory=Usage)
    trace: Trace = field(default_factory=Trace)
    cancelled: threading.Event = field(default_factory=threading.Event)
    origin: str = "library"
    queries: dict[Hashable, Any] = field(default_factory=dict, repr=False)
    context: str = ""
    asked: str = ""
    said: str = ""
    follows: str = ""
    clarified: bool = False

    @classmethod
    def make(
        cls,
        question: str,
        *,
        max_seconds: float,
        listener: Listener | None = None,
        **fields: Any,
    ) -> Request:
        """A request whose deadline is ``max_seconds`` from now."""
        return cls(
            question=question,
            deadline=Deadline.after(max_seconds),
            trace=Trace(listener=listener),
            **fields,
        )
