"""The chart chosen from a result's shape (tablerag.chart): which kind, or none and why, and
specs that vl-convert draws offline."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import Any

import pytest

from tablerag.chart import MAX_BARS, MAX_SERIES, chart_for, render_svg


@pytest.mark.parametrize(
    ("columns", "rows", "kind", "reason"),
    [
        pytest.param(["refunds"], [[152]], "number", "single_number", id="one-number"),
        pytest.param(["amt"], [[Decimal("12.50")]], "number", "single_number", id="decimal"),
        pytest.param(
            ["region", "sales"], [["EAST", 3.5], ["WEST", 1]], "bar", "category_measure",
            id="category-measure",
        ),
        pytest.param(
            ["stat_month", "net"], [["2026-01", 1], ["2026-02", 2], ["2026-03", 4]], "line",
            "time_series", id="months",
        ),
        pytest.param(
            ["day", "net"], [[dt.date(2026, 1, 1), 1], [dt.date(2026, 1, 2), 2]], "line",
            "time_series", id="dates",
        ),
        pytest.param(["year", "net"], [[2024, 1], [2025, 2]], "line", "time_series", id="years"),
        pytest.param(
            ["month", "region", "net"],
            [["2026-01", "E", 1], ["2026-01", "W", 2], ["2026-02", "E", 3], ["2026-02", "W", 4]],
            "line", "time_series", id="month-by-region",
        ),
        pytest.param(["name", "city"], [["a", "b"], ["c", "d"]], None, "no_measure", id="text"),
        pytest.param(["region_id", "name"], [[1, "a"], [2, "b"]], None, "no_measure", id="ids"),
        pytest.param(["region", "sales"], [["EAST", 1]], None, "no_shape", id="one-row-pair"),
        pytest.param(["a", "b"], [[1, 2], [3, 4]], None, "no_shape", id="measures-only"),
        pytest.param(
            ["region", "sales"], [["EAST", 1], ["EAST", 2]], None, "repeated_values",
            id="repeated",
        ),
        pytest.param(
            ["region", "sales"], [[f"r{i}", i] for i in range(MAX_BARS + 1)], None,
            "too_many_categories", id="many-bars",
        ),
        pytest.param(
            ["month", "region", "net"],
            [["2026-01", f"r{i}", i] for i in range(MAX_SERIES + 1)]
            + [["2026-02", f"r{i}", i] for i in range(MAX_SERIES + 1)],
            None, "too_many_series", id="many-lines",
        ),
        pytest.param(["stat_month", "net"], [["2026-01", 1]], None, "no_shape", id="one-month"),
        pytest.param(
            ["a", "b", "c", "n"], [["x", "y", "z", 1], ["x", "y", "w", 2]], None, "no_shape",
            id="three-dimensions",
        ),
        pytest.param(["n"], [], None, "empty", id="empty"),
        pytest.param(["flag", "n"], [[True, 1], [False, 2]], "bar", "category_measure", id="bool"),
    ],
)  # fmt: skip
def test_the_chart_follows_the_shape(
    columns: list[str], rows: list[list[Any]], kind: str | None, reason: str
) -> None:
    chart = chart_for(columns, rows)
    assert (chart.kind, chart.reason) == (kind, reason)
    assert (chart.spec is None) == (kind is None)


def test_a_cut_result_gets_no_chart() -> None:
    rows = [["2026-01", 1], ["2026-02", 2]]
    assert chart_for(["month", "n"], rows).kind == "line"
    assert chart_for(["month", "n"], rows, truncated=True).reason == "partial_rows"


def test_column_names_never_become_field_paths() -> None:
    spec = chart_for(["a.b[0]", "x'); alert(1)//"], [["p", 1], ["q", 2]]).spec
    assert spec is not None
    assert {spec["encoding"]["x"]["field"], spec["encoding"]["y"]["field"]} == {"x", "y"}
    assert spec["encoding"]["x"]["title"] == "a.b[0]"
    assert list(spec["data"]["values"][0]) == ["x", "y"]


def test_nan_and_null_measures_are_left_out() -> None:
    spec = chart_for(["r", "n"], [["a", 1.0], ["b", float("nan")], ["c", None], ["d", 2]]).spec
    assert spec is not None and [v["x"] for v in spec["data"]["values"]] == ["a", "d"]


@pytest.mark.parametrize(
    ("columns", "rows"),
    [
        (["refunds"], [[152]]),
        (["region", "sales"], [["<b>EAST</b>", Decimal("3.5")], ["西部", 1]]),
        (["stat_month", "region", "net"], [["2026-01", "E", 1], ["2026-02", "E", 2]]),
    ],
)
def test_vl_convert_draws_every_kind_offline(columns: list[str], rows: list[list[Any]]) -> None:
    spec = chart_for(columns, rows).spec
    assert spec is not None
    svg = render_svg(spec)
    assert svg.startswith("<svg") and columns[-1] in svg
    assert "<b>" not in svg  # a cell's markup is escaped text in the SVG


@pytest.mark.parametrize(
    ("value", "shown"), [(70660.27, "70,660.27"), (152, ">152<"), (Decimal("0.125"), "0.125")]
)
def test_the_big_number_is_the_number_not_a_rounding(value: Any, shown: str) -> None:
    spec = chart_for(["x"], [[value]]).spec
    assert spec is not None and shown in render_svg(spec)
