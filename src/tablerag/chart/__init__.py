"""Charts of result rows: the spec chosen from the rows' shape, and its SVG drawn offline."""

from __future__ import annotations

from tablerag.chart.render import render_svg
from tablerag.chart.spec import MAX_BARS, MAX_SERIES, Chart, ChartKind, ChartReason, chart_for

__all__ = ["MAX_BARS", "MAX_SERIES", "Chart", "ChartKind", "ChartReason", "chart_for", "render_svg"]
