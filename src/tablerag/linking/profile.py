"""Column profiles: what a model needs to know about a column before writing SQL over it.

Distinct count, null ratio, diverse samples, enum values, value formats (with a warning when one
column mixes them, e.g. ``'2026-09'`` next to ``'202609'``), unit and time grain. Everything is
computed from a bounded sample of rows (see :mod:`tablerag.linking.rows`), so profiling a big
table takes bounded time; counts are exact when the sample is the whole table, and otherwise
labelled as the sample's wherever they are shown (:attr:`ColumnProfile.distinct_label`,
``null_label``, ``sample_note``).

Enum values come from three places, named by ``ColumnProfile.enum_origin``: a CHECK constraint
(``"check"``: ``status IN ('PAID', 'REFUND')``, read by :func:`column_checks`), a small lookup
table the column references (``"lookup:<table>"``, with code → label pairs; set by the catalog)
or few distinct values in the sample (``"sample"``). CHECK constraints that are not a value list
become a range (``qty > 0`` → ``> 0``) or are kept as their SQL text.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

import sqlglot
from sqlglot import exp
from sqlglot.errors import SqlglotError

from tablerag.sqltypes import is_number_type
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
    """Distinct non-null values in the sample (exact when ``sampled_rows == row_count``; else
    a lower bound: show it with :attr:`distinct_label`, which says so)."""
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
    enum_origin: str = ""
    """Where ``enum_values`` come from: ``"check"``, ``"lookup:<table>"`` or ``"sample"``."""
    enum_labels: tuple[tuple[str, str], ...] = ()
    """Code → label pairs of a lookup table, e.g. ``(("R02", "商品破损"),)``."""
    check_range: str = ""
    """The range a CHECK constraint allows, e.g. ``"[0, 100]"`` or ``"> 0"``."""
    checks: tuple[str, ...] = ()
    """CHECK constraints on this column that are neither a value list nor a range (SQL text)."""

    @property
    def exact(self) -> bool:
        """True when the counts come from the whole table, not a sample."""
        return self.sampled_rows >= self.row_count

    @property
    def sample_note(self) -> str:
        """``""`` when the figures are exact, else ``"sample of 20,000 rows"`` (of how many).

        Example:
            >>> ColumnProfile("t", "c", "INT", row_count=50_000, sampled_rows=20_000).sample_note
            'sample of 20,000 of 50,000 rows'
        """
        if self.exact:
            return ""
        return f"sample of {self.sampled_rows:,} of {self.row_count:,} rows"

    @property
    def distinct_label(self) -> str:
        """The distinct count as it may be shown: exact, or marked as a sample's estimate.

        A sample's count is a lower bound of the table's, so it is shown with ``≥``.

        Example:
            >>> ColumnProfile("t", "c", "INT", row_count=9, sampled_rows=9,
            ...               distinct_count=7).distinct_label
            '7'
            >>> ColumnProfile("t", "c", "INT", row_count=50_000, sampled_rows=20_000,
            ...               distinct_count=1234).distinct_label
            '≥1,234 (sample of 20,000 of 50,000 rows)'
        """
        if self.exact:
            return f"{self.distinct_count:,}"
        return f"≥{self.distinct_count:,} ({self.sample_note})"

    @property
    def null_label(self) -> str:
        """The share of nulls as it may be shown (``≈`` for a sample's share).

        Example:
            >>> ColumnProfile("t", "c", "INT", row_count=50_000, sampled_rows=20_000,
            ...               null_ratio=0.125).null_label
            '≈12%'
        """
        return ("" if self.exact else "≈") + f"{self.null_ratio:.0%}"


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


@dataclass(frozen=True)
class ColumnCheck:
    """What the CHECK constraints of a table say about one column."""

    values: tuple[str, ...] = ()
    """The only values allowed (``col IN (...)``, ``col = 'a' OR col = 'b'``)."""
    range: str = ""
    """Allowed range in interval notation (``"[0, 100]"``, ``"(0, 1]"``) or ``"> 0"``."""
    raw: tuple[str, ...] = field(default=())
    """Other constraints that mention the column, as SQL text."""


def column_checks(
    checks: Sequence[str], columns: Sequence[str], dialect: str = "postgres"
) -> dict[str, ColumnCheck]:
    """Read CHECK constraint expressions into value lists, ranges and raw text per column.

    Value lists come from ``col IN (...)``, ``col = 'a' OR col = 'b'`` and PostgreSQL's
    ``col = ANY (ARRAY[...])``; ranges from ``BETWEEN`` and comparisons with a literal. Every
    other constraint (or one sqlglot cannot parse) is kept as text on the columns it names.
    Column names match case-insensitively.

    Args:
        checks: constraint expressions, with or without the ``CHECK`` keyword.
        columns: the table's column names.
        dialect: sqlglot dialect to read the expressions in (PostgreSQL syntax also reads
            DuckDB's and SQLite's constraint text).

    Returns:
        Column name → what its constraints allow (columns without constraints are left out).

    Example:
        >>> got = column_checks(
        ...     ["CHECK (status IN ('PAID', 'REFUND'))", "qty > 0 AND qty <= 99",
        ...      "(kind = 'a' OR kind = 'b')", "length(code) = 3"],
        ...     ["status", "qty", "kind", "code"])
        >>> got["status"].values, got["kind"].values, got["qty"].range, got["code"].raw
        (('PAID', 'REFUND'), ('a', 'b'), '(0, 99]', ('LENGTH(code) = 3',))
    """
    names = {c.lower(): c for c in columns}
    values: dict[str, list[str]] = {}
    lower: dict[str, tuple[str, bool]] = {}
    upper: dict[str, tuple[str, bool]] = {}
    raw: dict[str, list[str]] = {}
    for text in checks:
        body = _CHECK_KEYWORD.sub("", text.strip(), count=1)
        body = _NOT_VALID.sub("", body)
        try:
            tree = sqlglot.parse_one(body, read=dialect)
            if not isinstance(tree, exp.Expression):
                raise SqlglotError(f"not an expression: {body}")
        except SqlglotError:
            for col in _named_in(body, names):
                raw.setdefault(col, []).append(" ".join(body.split()))
            continue
        for part in _conjuncts(tree):
            found = _value_list(part, names) or _bound(part, names)
            if found is None:
                sql = _unwrap(part).sql(dialect=dialect)
                cols = {names.get(c.name.lower(), "") for c in part.find_all(exp.Column)}
                for col in sorted(cols - {""}):
                    raw.setdefault(col, []).append(sql)
                continue
            col, kind, payload = found
            if kind == "in":
                assert isinstance(payload, list)
                values[col] = payload
            else:
                assert isinstance(payload, tuple)
                for side, (lit, inclusive) in zip(("lo", "hi"), payload, strict=True):
                    if lit is not None:
                        (lower if side == "lo" else upper)[col] = (lit, inclusive)
    out: dict[str, ColumnCheck] = {}
    for col in dict.fromkeys([*values, *lower, *upper, *raw]):
        out[col] = ColumnCheck(
            values=tuple(dict.fromkeys(values.get(col, ()))),
            range=_interval(lower.get(col), upper.get(col)),
            raw=tuple(dict.fromkeys(raw.get(col, ()))),
        )
    return out


_CHECK_KEYWORD = re.compile(r"^CHECK\s*", re.IGNORECASE)
_NOT_VALID = re.compile(r"\s+NOT\s+VALID\s*$", re.IGNORECASE)
_Bound = tuple[str | None, bool]
_FLIP: dict[type[exp.Binary], type[exp.Binary]] = {
    exp.GT: exp.LT,
    exp.GTE: exp.LTE,
    exp.LT: exp.GT,
    exp.LTE: exp.GTE,
}


def _unwrap(node: exp.Expression) -> exp.Expression:
    """Drop parentheses and casts around a column or literal (PostgreSQL adds both)."""
    while isinstance(node, exp.Paren | exp.Cast):
        node = node.this
    return node


def _conjuncts(node: exp.Expression) -> list[exp.Expression]:
    node = _unwrap(node)
    if isinstance(node, exp.And):
        return _conjuncts(node.this) + _conjuncts(node.expression)
    return [node]


def _disjuncts(node: exp.Expression) -> list[exp.Expression]:
    node = _unwrap(node)
    if isinstance(node, exp.Or):
        return _disjuncts(node.this) + _disjuncts(node.expression)
    return [node]


def _column(node: exp.Expression, names: dict[str, str]) -> str | None:
    node = _unwrap(node)
    if isinstance(node, exp.Column) and not node.table:
        return names.get(node.name.lower())
    return None


def _literal(node: exp.Expression) -> str | None:
    node = _unwrap(node)
    if isinstance(node, exp.Neg):
        inner = _literal(node.this)
        return None if inner is None else "-" + inner
    if isinstance(node, exp.Literal):
        return str(node.this)
    return None


def _value_list(node: exp.Expression, names: dict[str, str]) -> tuple[str, str, list[str]] | None:
    """``col IN (...)``, ``col = lit OR ...``, ``col = ANY (ARRAY[...])`` → (col, "in", values)."""
    col: str | None = None
    found: list[str] = []
    for part in _disjuncts(node):
        if isinstance(part, exp.Is) and isinstance(_unwrap(part.expression), exp.Null):
            this, lits = _column(part.this, names), []  # "OR col IS NULL" allows no value
        elif isinstance(part, exp.In) and not part.args.get("query"):
            this, lits = _column(part.this, names), [_literal(e) for e in part.expressions]
        elif isinstance(part, exp.EQ) and isinstance(_unwrap(part.expression), exp.Any):
            array = _unwrap(_unwrap(part.expression).this)
            if not isinstance(array, exp.Array):
                return None
            this, lits = _column(part.this, names), [_literal(e) for e in array.expressions]
        elif isinstance(part, exp.EQ):
            left, right = _column(part.this, names), _column(part.expression, names)
            this = left or right
            lits = [_literal(part.expression if left else part.this)]
        else:
            return None
        if this is None or (col is not None and this != col) or None in lits:
            return None
        col = this
        found += [v for v in lits if v is not None]
    if col is None or not found:
        return None
    return col, "in", found


def _bound(
    node: exp.Expression, names: dict[str, str]
) -> tuple[str, str, tuple[_Bound, _Bound]] | None:
    """``col BETWEEN a AND b`` or ``col > lit`` (either side) → (col, "range", (lower, upper))."""
    node = _unwrap(node)
    if isinstance(node, exp.Between):
        col = _column(node.this, names)
        lo, hi = _literal_sql(node.args["low"]), _literal_sql(node.args["high"])
        if col is None or lo is None or hi is None:
            return None
        return col, "range", ((lo, True), (hi, True))
    if not isinstance(node, exp.GT | exp.GTE | exp.LT | exp.LTE):
        return None
    kind: type[exp.Binary] = type(node)
    col, lit = _column(node.this, names), _literal_sql(node.expression)
    if col is None:
        col, lit, kind = _column(node.expression, names), _literal_sql(node.this), _FLIP[kind]
    if col is None or lit is None:
        return None
    inclusive = kind in (exp.GTE, exp.LTE)
    if kind in (exp.GT, exp.GTE):
        return col, "range", ((lit, inclusive), (None, False))
    return col, "range", ((None, False), (lit, inclusive))


def _literal_sql(node: exp.Expression) -> str | None:
    """A literal as it reads in SQL: numbers bare, strings (dates) quoted."""
    text = _literal(node)
    if text is None:
        return None
    inner = _unwrap(node)
    quoted = isinstance(inner, exp.Literal) and inner.is_string
    return "'" + text.replace("'", "''") + "'" if quoted else text


def _interval(lo: tuple[str, bool] | None, hi: tuple[str, bool] | None) -> str:
    """Interval notation for the bounds found.

    Example:
        >>> _interval(("0", True), ("100", False)), _interval(("0", False), None)
        ('[0, 100)', '> 0')
    """
    if lo and hi:
        return f"{'[' if lo[1] else '('}{lo[0]}, {hi[0]}{']' if hi[1] else ')'}"
    if lo:
        return f"{'>=' if lo[1] else '>'} {lo[0]}"
    if hi:
        return f"{'<=' if hi[1] else '<'} {hi[0]}"
    return ""


def _named_in(text: str, names: dict[str, str]) -> list[str]:
    words = {w.lower() for w in re.findall(r"\w+", text)}
    return [real for low, real in names.items() if low in words]


def profile_column(
    table: str,
    column: ColumnInfo,
    values: Sequence[object],
    row_count: int,
    *,
    check: ColumnCheck | None = None,
) -> ColumnProfile:
    """Profile one column from sampled values (``None`` is NULL).

    Args:
        table: table name.
        column: the column as the catalog knows it.
        values: the column's values in the sampled rows.
        row_count: rows in the whole table.
        check: what the table's CHECK constraints say about the column; its value list
            becomes the enum (origin ``"check"``), else few distinct sampled text values do
            (origin ``"sample"``).

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
    is_text = not is_numeric_type(column.type)
    check = check or ColumnCheck()
    enum, origin = check.values, "check" if check.values else ""
    if not enum and is_text and 0 < len(counts) <= ENUM_MAX_VALUES and len(texts) > len(counts):
        enum, origin = tuple(sorted(counts)), "sample"
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
        enum_origin=origin,
        check_range=check.range,
        checks=check.raw,
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


def is_numeric_type(sql_type: str) -> bool:
    """Whether a SQL type holds numbers (booleans count: they sum)."""
    return is_number_type(sql_type, booleans=True)
