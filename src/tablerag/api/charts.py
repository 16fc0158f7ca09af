"""The charts of recent answers, held in memory for ``GET /v1/answers/{id}/chart.svg``.

The query log keeps no result rows, so a chart can only be drawn while the server still holds
the answer's spec: the last :data:`KEEP` answers with a chart. The SVG is drawn on the first
request for it (vl-convert, in the thread pool) and kept with the spec.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

from tablerag.answer import Answer
from tablerag.chart import Chart, chart_for, render_svg

KEEP = 256


@dataclass
class _Held:
    spec: dict[str, Any]
    token_id: str | None
    svg: str | None = None


class ChartStore:
    """Specs of the last :data:`KEEP` answers with a chart, by answer id (thread-safe)."""

    def __init__(self, keep: int = KEEP) -> None:
        self._keep = keep
        self._held: OrderedDict[str, _Held] = OrderedDict()
        self._lock = threading.Lock()

    def chart(self, answer_id: str, answer: Answer, token_id: str | None) -> dict[str, Any]:
        """The envelope's ``chart`` for ``answer``; a chart's spec is kept for its SVG."""
        found: Chart = Chart(None, "empty")
        if answer.table is not None:
            t = answer.table
            found = chart_for(t.columns, t.rows, truncated=t.truncated or t.row_count > len(t.rows))
        if found.spec is not None:
            with self._lock:
                self._held[answer_id] = _Held(found.spec, token_id)
                while len(self._held) > self._keep:
                    self._held.popitem(last=False)
        return {
            "kind": found.kind,
            "reason": found.reason,
            "spec": found.spec,
            "svg": f"/v1/answers/{answer_id}/chart.svg" if found.spec is not None else None,
        }

    def svg(self, answer_id: str, token_id: str | None) -> str | None:
        """The SVG of the answer's chart, or None when it is not held (or another token's)."""
        with self._lock:
            held = self._held.get(answer_id)
        if held is None or held.token_id != token_id:
            return None
        if held.svg is None:
            held.svg = render_svg(held.spec)
        return held.svg


__all__ = ["KEEP", "ChartStore"]
