"""A Vega-Lite spec drawn as SVG on the server, with no network and no browser: vl-convert
(Vega and Vega-Lite compiled into one native library, BSD-3-Clause)."""

from __future__ import annotations

import threading
from typing import Any

_lock = threading.Lock()


def render_svg(spec: dict[str, Any]) -> str:
    """The SVG of ``spec`` (a spec :func:`tablerag.chart.chart_for` built, never a caller's:
    a Vega spec can name URLs to load).

    Raises:
        ValueError: vl-convert could not compile or draw the spec.
    """
    import vl_convert

    with _lock:  # one converter runtime per process; draw one chart at a time
        svg: str = vl_convert.vegalite_to_svg(spec)
    return svg


__all__ = ["render_svg"]
