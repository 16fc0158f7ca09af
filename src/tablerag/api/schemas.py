"""The bodies the API reads and writes (pydantic models; /docs shows them)."""

from __future__ import annotations

import datetime as dt
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from tablerag.answer import Answer

API_VERSION = "v1"


class _In(BaseModel):
    model_config = ConfigDict(extra="forbid")


class AskIn(_In):
    """``POST /v1/ask``."""

    question: str = Field(description="The question, Chinese or English.")
    session: str | None = Field(
        default=None,
        max_length=200,
        pattern=r"^[\w.:@-]+$",
        description="The conversation it belongs to: a follow-up is understood from its "
        "earlier turns; an unknown id starts a new conversation (letters, digits, _ . : @ -).",
    )
    today: dt.date | None = Field(
        default=None, description="The date 'last month' refers to; default the server's."
    )


class ChartOut(BaseModel):
    """The chart chosen from the result's shape (tablerag.chart), or why there is none."""

    kind: Literal["line", "bar", "number"] | None = Field(description="None: no chart.")
    reason: str = Field(
        description="Why this chart (time_series, category_measure, single_number) or why none "
        "(empty, partial_rows, no_measure, too_few_points, repeated_values, "
        "too_many_categories, too_many_series, no_shape)."
    )
    spec: dict[str, Any] | None = Field(description="The Vega-Lite v5 spec, data inline.")
    svg: str | None = Field(description="Where the server draws it as SVG.")


class AskOut(Answer):
    """The answer envelope ``tablerag ask --json`` prints, plus its id (for feedback) and the
    chart of its rows."""

    id: str = Field(description="The answer's id in the query log; POST /v1/feedback names it.")
    chart: ChartOut | None = None


class SqlIn(_In):
    """``POST /v1/sql``: one read-only query through the gate and the engines."""

    sql: str = Field(min_length=1, max_length=100_000, description="One SELECT statement.")


class SqlOut(BaseModel):
    """The rows of a query (capped by max_returned_rows, masked)."""

    source: str
    columns: list[str]
    rows: list[list[Any]]
    truncated: bool
    elapsed_ms: float
    sql: str = Field(description="The SQL the engine ran (the gate's rewrite).")
    masked_columns: list[str] = Field(default_factory=list)


class HitOut(BaseModel):
    """One passage found by ``GET /v1/search``."""

    chunk_id: str
    source: str
    heading_path: list[str]
    page: int | None
    table: str | None
    score: float
    text: str


class ColumnOut(BaseModel):
    """One column of a table; a hidden column shows no values."""

    name: str
    type: str
    unit: str | None = None
    description: str = ""
    samples: list[str] = Field(default_factory=list)
    values: list[str] = Field(
        default_factory=list, description="The values a few-valued column takes (enum)."
    )
    hidden: bool = False


class TableOut(BaseModel):
    """One table the questions are answered from."""

    name: str
    source: str = Field(description="Where SQL over it runs: `files` or a database's label.")
    rows: int
    description: str = ""
    columns: list[ColumnOut] | None = Field(
        default=None, description="Only in GET /v1/tables/{name}."
    )
    primary_key: list[str] = Field(default_factory=list)
    foreign_keys: list[str] = Field(
        default_factory=list, description="``(columns) -> table(columns)``; with the columns."
    )


class SourceOut(BaseModel):
    """One ingested source."""

    location: str
    kind: str
    format: str
    ingested_at: str
    tables: list[str]
    chunks: int


class FeedbackIn(_In):
    """``POST /v1/feedback``."""

    answer_id: str = Field(min_length=1, max_length=64)
    rating: Literal["right", "wrong", "not_in_data"]
    comment: str = Field(default="", max_length=4000)


class FeedbackOut(BaseModel):
    """Feedback stored."""

    answer_id: str
    rating: str


class HistoryItem(BaseModel):
    """One logged answer."""

    id: str
    asked_at: str
    question: str
    status: str
    session: str | None
    path: str | None
    answer: str
    feedback: list[dict[str, Any]]


class Health(BaseModel):
    """``GET /healthz``."""

    status: Literal["ok"]
    version: str
    generation: int
    model: str
    active: int
    waiting: int
