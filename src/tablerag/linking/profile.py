"""Column profiles: what a model needs to know about a column before writing SQL over it.

Distinct count, null ratio, diverse samples, enum values, value formats (with a warning when one
column mixes them, e.g. ``'2026-09'`` next to ``'202609'``), unit and time grain. Everything is
computed from a bounded sample of rows (see :mod:`tablerag.linking.rows`), so profiling a big
table takes bounded time; counts are exact when the sample is the whole table.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from tablerag.types import ColumnInfo

ENUM_MAX_VALUES = 12
"""A text column with at most this many distinct values (and repeats) is an enum."""

SAMPLES = 3
MAX_SAMPLE_CHARS = 40

# Ordered: the first pattern that matches names the format.
_FORMATS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("YYYY-MM-DD HH:MM:SS", re.compile(r"\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}(:\d{2}(\.\d+)?)?")),
    ("YYYY-MM-DD", re.compile(r"\d{4}-\d{1,2}-\d{1,2}")),
    ("YYYY/MM/DD", re.compile(r"\d{4}/\d{1,2}/\d{1,2}")),
    ("YYYY年MM月DD日", re.compile(r"\d{4}年\d{1,2}月\d{1,2}日")),
    ("YYYY年MM月", re.compile(r"\d{4}年\d{1,2}月")),
    ("YYYY-MM", re.compile(r"(19|20)\d{2}-\d{2}")),
    ("YYYY/MM", re.compile(r"(19|20)\d{2}/\d{2}")),
    ("YYYYMMDD", re.compile(r"(19|20)\d{2}(0[1-9]|1[0-2])(0[1-9]|[12]\d|3[01])")),
    ("YYYYMM", re.compile(r"(19|20)\d{2}(0[1-9]|1[0-2])")),
    ("HH:MM:SS", re.compile(r"\d{1,2}:\d{2}(:\d{2})?")),
    ("number", re.compile(r"[-+]?\d+(\.\d+)?")),
    ("number with separators", re.compile(r"[-+]?\d{1,3}(,\d{3})+(\.\d+)?")),
    ("percent", re.compile(r"[-+]?\d+(\.\d+)?\s?%")),
)
_DATE_FORMATS = frozenset(f for f, _ in _FORMATS[:9])
_NUMBER_FORMATS = frozenset({"number", "number with separators", "percent"})
_GRAIN_OF_FORMAT = {
    "YYYY-MM-DD HH:MM:SS": "timestamp",
    "YYYY-MM-DD": "day",
    "YYYY/MM/DD": "day",
    "YYYY年MM月DD日": "day",
    "YYYYMMDD": "day",
    "YYYY年MM月": "month",
    "YYYY-MM": "month",
    "YYYY/MM": "month",
    "YYYYMM": "month",
}
_UNIT_SUFFIXES: tuple[tuple[tuple[str, ...], str], ...] = (
    (("_fen", "_cents", "_cent"), "cents (1/100 of the currency unit)"),
    (("_pct", "_percent", "_ratio", "_rate"), "percent or ratio"),
    (("_kg",), "kg"),
    (("_km",), "km"),
    (("_ms",), "milliseconds"),
    (("_sec", "_secs", "_seconds"), "seconds"),
    (("_amt", "_amount", "_price", "_cost", "金额", "价格", "价"), "money (currency not stated)"),
    (("_qty", "_count", "_cnt", "数量"), "count"),
)
_UNIT_IN_TEXT: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"单位[为是：:]\s*分|以分(为单位|存储|计)|\bin fen\b|\bcents?\b"), "分 (1/100 元)"),
    (re.compile(r"单位[为是：:]\s*元|\bin yuan\b|人民币元"), "元 (CNY)"),
    (re.compile(r"单位[为是：:]\s*万元"), "万元"),
    (re.compile(r"\bin (usd|us dollars|dollars)\b", re.I), "USD"),
    (re.compile(r"\bpercent(age)?\b|百分比"), "percent"),
)
_GRAIN_NAMES: tuple[tuple[tuple[str, ...], str], ...] = (
    (("month", "月份", "月"), "month"),
    (("quarter", "季度"), "quarter"),
    (("year", "年份", "年度"), "year"),
    (("week", "周"), "week"),
    (("date", "day", "日期"), "day"),
    (("time", "_at", "时间"), "timestamp"),
)


@dataclass(frozen=True)
class ColumnProfile:
    """What the profiler learnt about one column."""

    table: str
    column: str
    type: str
    description: str = ""
    row_count: int = 0
    sampled_rows: int = 0
    distinct_count: int = 0
    """Distinct non-null values in the sample (exact when ``sampled_rows == row_count``)."""
    null_ratio: float = 0.0
    samples: tuple[str, ...] = ()
    enum_values: tuple[str, ...] = ()
    formats: tuple[tuple[str, float], ...] = ()
    """Value formats and the share of non-null sampled values in each, most common first."""
    format_warning: str | None = None
    unit: str | None = None
    time_grain: str | None = None
    is_unique: bool = False
    """Every sampled non-null value differs (and there are some): a key candidate."""

    @property
    def exact(self) -> bool:
        """True when the counts come from the whole table, not a sample."""
        return self.sampled_rows >= self.row_count


def value_format(value: str) -> str | None:
    """Name the format of one value (dates, months, numbers), or None for free text.

    Example:
        >>> [value_format(v) for v in ["2026-09", "202609", "2026-09-30", "1,234.5", "华东"]]
        ['YYYY-MM', 'YYYYMM', 'YYYY-MM-DD', 'number with separators', None]
    """
    text = value.strip()
    for name, pattern in _FORMATS:
        if pattern.fullmatch(text):
            return name
    return None


def format_mix(values: Sequence[str]) -> tuple[tuple[tuple[str, float], ...], str | None]:
    """Share of each value format, and a warning when dates (or numbers) come in several formats.

    Example:
        >>> shares, warning = format_mix(["2026-09", "2026-10", "202609"])
        >>> shares
        (('YYYY-MM', 0.667), ('YYYYMM', 0.333))
        >>> warning
        "mixed formats: 'YYYY-MM' 67%, 'YYYYMM' 33%; normalise before comparing or grouping"
        >>> format_mix(["1", "2"])
        ((('number', 1.0),), None)
    """
    counts = Counter(f for f in (value_format(v) for v in values) if f is not None)
    total = len(values)
    if not total or not counts:
        return (), None
    shares = tuple((f, round(n / total, 3)) for f, n in counts.most_common())
    dates = [f for f, _ in shares if f in _DATE_FORMATS]
    numbers = [f for f, _ in shares if f in _NUMBER_FORMATS]
    families = [fam for fam in (dates, numbers) if len(fam) > 1]
    if not families:
        return shares, None
    mixed = ", ".join(f"{f!r} {round(100 * s)}%" for f, s in shares)
    return shares, f"mixed formats: {mixed}; normalise before comparing or grouping"


def unit_of(name: str, description: str = "", declared: str | None = None) -> str | None:
    """The unit of a column: declared, else stated in its description, else from its name.

    Example:
        >>> unit_of("cost_amt", "成本金额，单位为分")
        '分 (1/100 元)'
        >>> unit_of("net_amt")
        'money (currency not stated)'
        >>> unit_of("qty", declared="件"), unit_of("region_name")
        ('件', None)
    """
    if declared:
        return declared
    for pattern, unit in _UNIT_IN_TEXT:
        if pattern.search(description):
            return unit
    low = name.lower()
    for suffixes, unit in _UNIT_SUFFIXES:
        if low.endswith(suffixes):
            return unit
    return None


def time_grain(name: str, sql_type: str, formats: Sequence[tuple[str, float]] = ()) -> str | None:
    """The time grain of a column: from its value formats, its SQL type, or its name.

    Example:
        >>> time_grain("stat_month", "VARCHAR", [("YYYY-MM", 0.9), ("YYYYMM", 0.1)])
        'month'
        >>> time_grain("order_date", "DATE"), time_grain("年份", "number"), time_grain("qty", "INT")
        ('day', 'year', None)
    """
    if formats and formats[0][0] in _GRAIN_OF_FORMAT:
        return _GRAIN_OF_FORMAT[formats[0][0]]
    t = sql_type.upper()
    if t.startswith("TIMESTAMP") or t == "DATETIME":
        return "timestamp"
    if t == "DATE":
        return "day"
    low = name.lower()
    for hints, grain in _GRAIN_NAMES:
        if any(h in low for h in hints):
            return grain
    return None


def profile_column(
    table: str,
    column: ColumnInfo,
    values: Sequence[object],
    row_count: int,
    *,
    check_values: Sequence[str] = (),
) -> ColumnProfile:
    """Profile one column from sampled values (``None`` is NULL).

    Args:
        table: table name.
        column: the column as the catalog knows it.
        values: the column's values in the sampled rows.
        row_count: rows in the whole table.
        check_values: values allowed by a CHECK constraint (become the enum when given).

    Returns:
        The profile.

    Example:
        >>> p = profile_column("t", ColumnInfo("m", "VARCHAR"),
        ...                    ["2026-09", "2026-09", "202609", None], row_count=4)
        >>> p.distinct_count, p.null_ratio, p.time_grain, p.enum_values
        (2, 0.25, 'month', ('2026-09', '202609'))
        >>> p.format_warning is not None
        True
    """
    texts = [_text(v) for v in values if v is not None and _text(v).strip() != ""]
    counts = Counter(texts)
    sampled = len(values)
    null_ratio = round((sampled - len(texts)) / sampled, 3) if sampled else 0.0
    shares, warning = format_mix(texts)
    is_text = not _is_numeric_type(column.type)
    enum: tuple[str, ...] = tuple(check_values)
    if not enum and is_text and 0 < len(counts) <= ENUM_MAX_VALUES and len(texts) > len(counts):
        enum = tuple(sorted(counts))
    return ColumnProfile(
        table=table,
        column=column.name,
        type=column.type,
        description=column.description,
        row_count=row_count,
        sampled_rows=sampled,
        distinct_count=len(counts),
        null_ratio=null_ratio,
        samples=diverse(counts),
        enum_values=enum,
        formats=shares,
        format_warning=warning,
        unit=unit_of(column.name, column.description, column.unit),
        time_grain=time_grain(column.name, column.type, shares),
        is_unique=bool(texts) and len(counts) == len(texts),
    )


def diverse(counts: Counter[str], k: int = SAMPLES) -> tuple[str, ...]:
    """Up to ``k`` sample values: the most common, then spread over the sorted distinct values.

    Example:
        >>> diverse(Counter({"a": 5, "b": 1, "c": 1, "d": 1, "e": 1}))
        ('a', 'b', 'e')
    """
    if not counts:
        return ()
    top = counts.most_common(1)[0][0]
    rest = sorted(v for v in counts if v != top)
    picked = [top]
    if rest and k > 1:
        step = max(1, (len(rest) - 1) // max(1, k - 2)) if k > 2 else len(rest)
        picked += [rest[i] for i in range(0, len(rest), step)][: k - 2]
        if rest[-1] not in picked and len(picked) < k:
            picked.append(rest[-1])
    return tuple(_clip(v) for v in picked[:k])


def _clip(value: str) -> str:
    return value if len(value) <= MAX_SAMPLE_CHARS else value[: MAX_SAMPLE_CHARS - 1] + "…"


def _text(value: object) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _is_numeric_type(sql_type: str) -> bool:
    t = sql_type.upper()
    return t.startswith(
        (
            "INT",
            "BIGINT",
            "SMALLINT",
            "TINYINT",
            "HUGEINT",
            "DOUBLE",
            "FLOAT",
            "DECIMAL",
            "REAL",
            "NUMBER",
            "NUMERIC",
            "UBIGINT",
            "UINTEGER",
            "BOOL",
        )
    )
