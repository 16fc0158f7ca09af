"""Ingest for the service: store the sources, profile the new tables, update the text index.

:func:`ingest` is what ``tablerag ingest``, :meth:`tablerag.service.Workspace.ingest` and the
evaluations call (re-exported by :mod:`tablerag.service`).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path

from tablerag.errors import EngineError
from tablerag.ingest.database import is_database_url, redact_url
from tablerag.ingest.pipeline import Target, ingest_sources
from tablerag.linking.cache import workspace_samples
from tablerag.rag.index import refresh_index
from tablerag.settings import Settings, load_settings
from tablerag.sql.credentials import has_inline_password
from tablerag.sql.engines.reach import password_hint
from tablerag.store import workspace as store
from tablerag.types import Problem, SourceReport

log = logging.getLogger(__name__)


def ingest(
    ws: store.Workspace,
    targets: Sequence[str | Path | Target],
    *,
    settings: Settings | None = None,
    progress: Callable[[str], None] | None = None,
    embed_progress: Callable[[int, int], None] | None = None,
) -> list[SourceReport]:
    """Ingest every target into ``ws``, profile the new tables, update the text index.

    One bad source never spoils the others or the workspace: its transaction is rolled back and
    its report says why (``status == "failed"``). New and changed tables are profiled now, so
    later reads (often read-only) find the profiles cached; then the text index is brought up
    to date (only new or changed chunks are embedded; ``embed_progress(done, total)`` reports
    it).
    """
    settings = settings or load_settings(ws.path)
    reports = _with_password_notes(
        targets, ingest_sources(ws, targets, settings=settings, progress=progress)
    )
    if any(r.status in ("added", "replaced") for r in reports):
        try:
            workspace_samples(ws)
        except EngineError as exc:  # the data is stored; profiles are rebuilt on the next read
            log.warning("column profiling failed: %s", exc)
    if settings.index_on_ingest:
        # Always: it returns at once when nothing changed, and it repairs a stale index or
        # applies a changed embedder setting.
        refresh_index(ws, embedder_spec=settings.embedder, progress=embed_progress)
    return reports


def _with_password_notes(
    targets: Sequence[str | Path | Target], reports: Sequence[SourceReport]
) -> list[SourceReport]:
    """Reports of databases ingested from a URL with an inline password say it was not stored
    and how to give it for asking (:mod:`tablerag.sql.credentials`)."""
    inline: dict[str, str] = {}
    for target in targets:
        url = target.url if isinstance(target, Target) else str(target)
        if url and is_database_url(url) and has_inline_password(url):
            inline[redact_url(url)] = url.split(":", 1)[0].split("+", 1)[0].lower()
    out = []
    for r in reports:
        scheme = inline.get(r.source)
        if scheme is not None and r.status != "failed":
            backend = "postgresql" if scheme == "postgres" else scheme
            note = Problem(
                "password",
                "the password in the URL is not stored in the workspace",
                f"to ask questions, {password_hint(backend)}",
            )
            r = replace(r, problems=(*r.problems, note))
        out.append(r)
    return out
