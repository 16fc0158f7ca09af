"""The structured request a question is read into, and the JSON schema built from the model.

The model never writes SQL on this path: it fills a :class:`Request` (metrics, dimensions,
filters with values, a time range, order, limit) whose names come from enums of the workspace's
semantic model, and tablerag compiles the SQL (:mod:`tablerag.semantic.compile`). Relative time
words are resolved here, by code, against ``today``.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, create_model

from tablerag.semantic.knowledge import Knowledge

Op = Literal["=", "!=", "in", "not in", ">", ">=", "<", "<="]
Period = Literal[
    "this_month", "last_month", "this_quarter", "last_quarter", "this_year", "last_year",
    "last_7_days", "last_30_days", "month", "year", "range",
]  # fmt: skip
Grain = Literal["day", "month", "year"]
MAX_LIMIT = 1000


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class FilterSpec(_Frozen):
    """``field op values``; a named filter (a boolean field) takes no op and no values."""

    field: str
    op: Op | None = None
    values: list[str | int | float | bool] = Field(default_factory=list)


class TimeRange(_Frozen):
    """A period relative to today, one calendar month or year, or dates ``[start, end)``."""

    period: Period
    year: int | None = None
    month: int | None = Field(default=None, ge=1, le=12)
    start: dt.date | None = None
    end: dt.date | None = None


Comparison = Literal["=", "!=", ">", ">=", "<", "<="]


class HavingSpec(_Frozen):
    """A condition on a metric's value per group (``HAVING 退货率 > 10%``): the metric must be
    one of the request's metrics; a rate in % is compared as a fraction (10 % → 0.1)."""

    metric: str
    op: Comparison
    value: float


class OrderSpec(_Frozen):
    by: str
    desc: bool = True


class Request(_Frozen):
    """What a question asks of the semantic model."""

    expressible: bool = True
    """False when the question asks for something the model cannot express (free SQL then)."""
    metrics: list[str] = Field(default_factory=list)
    calibers: dict[str, str] = Field(default_factory=dict)
    """Metric → caliber name, only when the question asks for a non-default caliber."""
    dimensions: list[str] = Field(default_factory=list)
    time_grain: Grain | None = None
    filters: list[FilterSpec] = Field(default_factory=list)
    time_range: TimeRange | None = None
    having: list[HavingSpec] = Field(default_factory=list)
    """Conditions on metric values per group ("品类中退货率超过 10% 的")."""
    order_by: list[OrderSpec] = Field(default_factory=list)
    limit: int | None = Field(default=None, ge=1, le=MAX_LIMIT)

    @classmethod
    def model_json_schema(cls, *args: Any, **kwargs: Any) -> dict[str, Any]:
        """The JSON schema, a one-name choice written as ``enum`` like the others (grammar
        converters and endpoints handle ``enum`` alike; ``const`` less so)."""
        schema: dict[str, Any] = _const_as_enum(super().model_json_schema(*args, **kwargs))
        return schema


def _const_as_enum(value: Any) -> Any:
    if isinstance(value, list):
        return [_const_as_enum(v) for v in value]
    if not isinstance(value, dict):
        return value
    out = {k: _const_as_enum(v) for k, v in value.items() if k != "const"}
    if "const" in value:
        out["enum"] = [value["const"]]
    return out


def request_model(knowledge: Knowledge, metrics: Sequence[str] | None = None) -> type[Request]:
    """A :class:`Request` whose names are enums of ``knowledge`` (its JSON schema constrains a
    grammar-backed model to names that exist).

    Example:
        >>> from tablerag.semantic.ossie import loads
        >>> k = Knowledge(loads('''version: 0.2.0.dev0
        ... semantic_model:
        ... - name: m
        ...   datasets: [{name: t, source: t, fields: [{name: c, expression: {dialects:
        ...     [{dialect: ANSI_SQL, expression: c}]}}]}]
        ...   metrics: [{name: n, expression: {dialects: [{dialect: ANSI_SQL,
        ...     expression: COUNT(*)}]}}]'''))
        >>> schema = request_model(k).model_json_schema()
        >>> schema["properties"]["metrics"]["items"]["enum"]
        ['n']
    """
    names = [v.name for v in knowledge.metrics.values()] if metrics is None else list(metrics)
    metric_names = tuple(names) or ("none",)
    dims = tuple(knowledge.dimensions()) or ("none",)
    fields = tuple([*knowledge.dimensions(), *knowledge.named_filters()]) or ("none",)
    filter_model = create_model(
        "Filter",
        __base__=FilterSpec,
        field=(Literal[fields], ...),  # type: ignore[arg-type]
    )
    order_model = create_model(
        "Order",
        __base__=OrderSpec,
        by=(Literal[(*metric_names, *dims)], ...),  # type: ignore[arg-type]
    )
    having_model = create_model(
        "Having",
        __base__=HavingSpec,
        metric=(Literal[metric_names], ...),  # type: ignore[arg-type]
    )
    return create_model(
        "SemanticRequest",
        __base__=Request,
        metrics=(list[Literal[metric_names]], Field(default_factory=list)),  # type: ignore[valid-type]
        dimensions=(list[Literal[dims]], Field(default_factory=list)),  # type: ignore[valid-type]
        filters=(list[filter_model], Field(default_factory=list)),  # type: ignore[valid-type]
        having=(list[having_model], Field(default_factory=list)),  # type: ignore[valid-type]
        order_by=(list[order_model], Field(default_factory=list)),  # type: ignore[valid-type]
    )


def resolve_period(span: TimeRange, today: dt.date) -> tuple[dt.date, dt.date]:
    """The dates ``[start, end)`` of ``span``, relative periods counted from ``today``.

    Example:
        >>> t = dt.date(2026, 11, 15)
        >>> resolve_period(TimeRange(period="last_month"), t)
        (datetime.date(2026, 10, 1), datetime.date(2026, 11, 1))
        >>> resolve_period(TimeRange(period="last_quarter"), t)
        (datetime.date(2026, 7, 1), datetime.date(2026, 10, 1))
        >>> resolve_period(TimeRange(period="month", year=2026, month=12), t)
        (datetime.date(2026, 12, 1), datetime.date(2027, 1, 1))
        >>> resolve_period(TimeRange(period="year", year=2025), t)
        (datetime.date(2025, 1, 1), datetime.date(2026, 1, 1))

    Raises:
        ValueError: a ``month``/``year`` period without its year, or a ``range`` without dates.
    """
    month_start = today.replace(day=1)
    quarter_start = month_start.replace(month=(today.month - 1) // 3 * 3 + 1)
    year_start = today.replace(month=1, day=1)
    match span.period:
        case "this_month":
            return month_start, _add_months(month_start, 1)
        case "last_month":
            return _add_months(month_start, -1), month_start
        case "this_quarter":
            return quarter_start, _add_months(quarter_start, 3)
        case "last_quarter":
            return _add_months(quarter_start, -3), quarter_start
        case "this_year":
            return year_start, year_start.replace(year=today.year + 1)
        case "last_year":
            return year_start.replace(year=today.year - 1), year_start
        case "last_7_days" | "last_30_days":
            days = 7 if span.period == "last_7_days" else 30
            return today - dt.timedelta(days=days), today
        case "month" | "year":
            if span.year is None:
                raise ValueError(f"a {span.period!r} time range needs its year")
            if span.period == "year" or span.month is None:
                return dt.date(span.year, 1, 1), dt.date(span.year + 1, 1, 1)
            first = dt.date(span.year, span.month, 1)
            return first, _add_months(first, 1)
    if span.start is None or span.end is None:
        raise ValueError("a 'range' time range needs start and end dates")
    return span.start, span.end


def describe_period(start: dt.date, end: dt.date) -> str:
    """``2026-10`` for one calendar month, ``2026`` for a year, else ``start–end`` (inclusive).

    Example:
        >>> describe_period(dt.date(2026, 10, 1), dt.date(2026, 11, 1))
        '2026-10'
        >>> describe_period(dt.date(2026, 1, 1), dt.date(2027, 1, 1))
        '2026'
        >>> describe_period(dt.date(2026, 1, 1), dt.date(2026, 3, 1))
        '2026-01-01–2026-02-28'
    """
    if start.day == 1 and _add_months(start, 1) == end:
        return f"{start:%Y-%m}"
    if (start.month, start.day) == (1, 1) and end == start.replace(year=start.year + 1):
        return f"{start:%Y}"
    return f"{start.isoformat()}–{(end - dt.timedelta(days=1)).isoformat()}"


def _add_months(day: dt.date, months: int) -> dt.date:
    index = day.year * 12 + day.month - 1 + months
    return dt.date(index // 12, index % 12 + 1, 1)


def schema_of(knowledge: Knowledge) -> dict[str, Any]:
    """The JSON schema of the request for ``knowledge`` (what an endpoint is constrained to)."""
    return request_model(knowledge).model_json_schema()
