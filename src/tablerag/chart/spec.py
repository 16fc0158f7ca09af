"""The chart an answer's rows call for, as a Vega-Lite spec built from the rows alone.

A chart is chosen from the result's shape, never written by a model: a time column with a
measure is a line (one line per category when a second column splits it), one text column with
a measure is bars, a single number is a big number, and anything else is no chart, with a
reason code the page words in the reader's language. A chart of some of the rows (a result cut
at ``max_returned_rows``), of repeated categories or of too many of them would mislead, so
there is none.

The spec names its fields ``x``, ``y`` and ``series`` (the columns' names are only titles), so
a column name never reaches a Vega expression or field path.
"""

from __future__ import annotations

import datetime as dt
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, Literal

ChartKind = Literal["line", "bar", "number"]
ChartReason = Literal[
    "time_series",
    "category_measure",
    "single_number",
    "empty",
    "partial_rows",
    "no_measure",
    "too_few_points",
    "repeated_values",
    "too_many_categories",
    "too_many_series",
    "no_shape",
]
"""Why this chart (the first three) or why none (the others)."""

VEGA_LITE_SCHEMA = "https://vega.github.io/schema/vega-lite/v5.json"
MAX_BARS = 30
"""More categories than this make bars nobody can read: no chart."""
MAX_SERIES = 8
"""More lines than this (colours) cannot be told apart: no chart."""
WIDTH, HEIGHT = 420, 240

_MONTH = re.compile(r"^\d{4}-\d{2}$")
_DAY = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_STAMP = re.compile(r"^\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}(:\d{2}(\.\d+)?)?$")
_YEAR_NAMES = frozenset({"year", "yr", "年", "年份", "年度"})
_ID_NAME = re.compile(r"(^|_)(id|code|no|key)$", re.IGNORECASE)
_TIME_UNITS = {"year": "utcyear", "month": "utcyearmonth", "day": "utcyearmonthdate"}

Grain = Literal["year", "month", "day", "stamp"]


@dataclass(frozen=True)
class Chart:
    """The chart chosen for a result: ``kind`` and ``spec`` are None when there is none."""

    kind: ChartKind | None
    reason: ChartReason
    spec: dict[str, Any] | None = None


def chart_for(
    columns: Sequence[str], rows: Sequence[Sequence[Any]], *, truncated: bool = False
) -> Chart:
    """The chart ``rows`` call for, or none with the reason.

    Args:
        columns: the result's column names.
        rows: its rows (Python values: numbers, ``Decimal``, dates, strings, None).
        truncated: True when the rows are only the first part of the result.

    Returns:
        A :class:`Chart`; its spec is a complete Vega-Lite v5 spec with the data inline.

    Example:
        >>> chart_for(["n"], [[152]]).kind
        'number'
        >>> c = chart_for(["region", "sales"], [["EAST", 10.5], ["WEST", 3]])
        >>> c.kind, c.spec["mark"]["type"], c.spec["data"]["values"][0]
        ('bar', 'bar', {'x': 'EAST', 'y': 10.5})
        >>> chart_for(["month", "sales"], [["2026-01", 1], ["2026-02", 2]]).kind
        'line'
        >>> chart_for(["name", "city"], [["a", "b"]]).reason
        'no_measure'
        >>> chart_for(["region", "sales"], [["EAST", 1], ["WEST", 2]], truncated=True).reason
        'partial_rows'
    """
    if not rows or not columns:
        return Chart(None, "empty")
    if truncated:
        return Chart(None, "partial_rows")
    grains = [_grain(c, [r[i] for r in rows]) for i, c in enumerate(columns)]
    measures = [
        i
        for i, c in enumerate(columns)
        if grains[i] is None and not _ID_NAME.search(c) and _numeric([r[i] for r in rows])
    ]
    if not measures:
        return Chart(None, "no_measure")
    dims = [i for i in range(len(columns)) if i not in measures]
    if len(rows) == 1:
        if len(measures) == 1 and not dims:
            return _number(columns[measures[0]], rows[0][measures[0]])
        return Chart(None, "no_shape")
    y = measures[0]
    times = [i for i in dims if grains[i] is not None]
    if len(times) == 1 and len(dims) <= 2:
        others = [i for i in dims if i != times[0]]
        return _line(columns, rows, times[0], grains[times[0]], y, others[0] if others else None)
    if len(dims) == 1:
        return _bars(columns, rows, dims[0], y)
    return Chart(None, "no_shape")


def _number(title: str, value: Any) -> Chart:
    spec = {
        "$schema": VEGA_LITE_SCHEMA,
        "title": {"text": title, "fontSize": 14},
        "width": 320,
        "height": 90,
        "data": {"values": [{"y": _plain(value)}]},
        "mark": {"type": "text", "fontSize": 48, "fontWeight": "bold"},
        "encoding": {"text": {"field": "y", "type": "quantitative", "format": ",.12~r"}},
        "config": {"view": {"stroke": None}},
    }
    return Chart("number", "single_number", spec)


def _bars(columns: Sequence[str], rows: Sequence[Sequence[Any]], x: int, y: int) -> Chart:
    values = [{"x": _label(r[x]), "y": _plain(r[y])} for r in rows if _plain(r[y]) is not None]
    keys = [v["x"] for v in values]
    if len(set(keys)) != len(keys):
        return Chart(None, "repeated_values")
    if len(keys) > MAX_BARS:
        return Chart(None, "too_many_categories")
    if len(keys) < 2:
        return Chart(None, "too_few_points")
    spec = _frame(columns[y])
    spec["data"] = {"values": values}
    spec["mark"] = {"type": "bar", "tooltip": True}
    spec["encoding"] = {
        # the rows' order is the query's (ORDER BY), so the bars keep it
        "x": {"field": "x", "type": "nominal", "title": columns[x], "sort": None,
              "axis": {"labelLimit": 120, "labelAngle": -40 if len(keys) > 6 else 0}},
        "y": {"field": "y", "type": "quantitative", "title": columns[y]},
    }  # fmt: skip
    return Chart("bar", "category_measure", spec)


def _line(
    columns: Sequence[str],
    rows: Sequence[Sequence[Any]],
    x: int,
    grain: Grain | None,
    y: int,
    series: int | None,
) -> Chart:
    values = []
    for r in rows:
        point: dict[str, Any] = {"x": _when(r[x]), "y": _plain(r[y])}
        if point["x"] is None or point["y"] is None:
            continue
        if series is not None:
            point["series"] = _label(r[series])
        values.append(point)
    keys = [(v["x"], v.get("series")) for v in values]
    if len(set(keys)) != len(keys):
        return Chart(None, "repeated_values")
    lines = {v.get("series") for v in values}
    if len(lines) > MAX_SERIES:
        return Chart(None, "too_many_series")
    if len({v["x"] for v in values}) < 2:
        return Chart(None, "too_few_points")
    spec = _frame(columns[y])
    spec["data"] = {"values": values}
    spec["mark"] = {"type": "line", "point": True, "tooltip": True}
    encoding: dict[str, Any] = {
        "x": {"field": "x", "type": "temporal", "title": columns[x]},
        "y": {"field": "y", "type": "quantitative", "title": columns[y]},
    }
    if grain in _TIME_UNITS:
        encoding["x"]["timeUnit"] = _TIME_UNITS[grain]
    if series is not None:
        encoding["color"] = {"field": "series", "type": "nominal", "title": columns[series]}
    spec["encoding"] = encoding
    return Chart("line", "time_series", spec)


def _frame(title: str) -> dict[str, Any]:
    return {
        "$schema": VEGA_LITE_SCHEMA,
        "title": {"text": title, "fontSize": 15},
        "width": WIDTH,
        "height": HEIGHT,
        "config": {
            "axis": {"labelFontSize": 12, "titleFontSize": 13},
            "legend": {"labelFontSize": 12},
        },
    }


def _grain(name: str, values: Sequence[Any]) -> Grain | None:
    """The time grain of a column whose every value is a date or an ISO date string (or a
    year column of integers), else None."""
    seen = [v for v in values if v is not None]
    if not seen:
        return None
    if all(isinstance(v, dt.datetime) for v in seen):
        return "stamp"
    if all(isinstance(v, dt.date) for v in seen):
        return "day"
    if all(isinstance(v, str) for v in seen):
        for grain, pattern in (("month", _MONTH), ("day", _DAY), ("stamp", _STAMP)):
            if all(pattern.match(v) for v in seen):
                return grain  # type: ignore[return-value]
        return None
    if name.strip().lower() in _YEAR_NAMES and all(
        isinstance(v, int) and not isinstance(v, bool) and 1000 <= v <= 3000 for v in seen
    ):
        return "year"
    return None


def _numeric(values: Sequence[Any]) -> bool:
    seen = [v for v in values if v is not None]
    return bool(seen) and all(
        isinstance(v, int | float | Decimal) and not isinstance(v, bool) for v in seen
    )


def _plain(value: Any) -> float | int | None:
    """A number as JSON carries it; NaN and infinities are no value."""
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, Decimal):
        value = float(value)
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value if isinstance(value, int | float) else None


def _when(value: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, dt.date | dt.datetime):
        return value.isoformat()
    return str(value)


def _label(value: Any) -> str:
    return "NULL" if value is None else str(value)


__all__ = ["MAX_BARS", "MAX_SERIES", "Chart", "ChartKind", "ChartReason", "chart_for"]
