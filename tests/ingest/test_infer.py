"""Type inference: every value converts or the column stays text; Python and SQL agree."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import duckdb
import pytest

from tablerag.ingest import infer


@pytest.mark.parametrize(
    ("values", "sql_type", "unit"),
    [
        pytest.param(["1", "-20", "300"], "BIGINT", None, id="integers"),
        pytest.param(["1,234", "56", "(1,000)"], "BIGINT", None, id="thousands-and-parens"),
        pytest.param(["1，234", "5"], "BIGINT", None, id="chinese-comma"),
        pytest.param(["1,234.5", "0.25"], "DECIMAL(18,2)", None, id="decimals"),
        pytest.param([".305", ".298"], "DECIMAL(18,3)", None, id="batting-average"),
        pytest.param(["12.5%", "7%"], "DECIMAL(18,1)", "%", id="percent"),
        pytest.param(["¥1,200", "￥5.5"], "DECIMAL(18,1)", "¥", id="yuan-symbols"),
        pytest.param(["$3.50", "-$1"], "DECIMAL(18,2)", "$", id="dollars"),
        pytest.param(["USD 12", "USD 7"], "BIGINT", "USD", id="currency-code"),
        pytest.param(["$(5,637)", "$ (0.66)", "$1,200"], "DECIMAL(18,2)", "$", id="dollar-parens"),
        pytest.param(["(12)%", "5%", "(3.5%)"], "DECIMAL(18,1)", "%", id="percent-parens"),
        pytest.param(["$(5)", "(5)"], "VARCHAR", None, id="parens-unit-on-some-values"),
        pytest.param(["1200元", "35元"], "BIGINT", "元", id="yuan-suffix"),
        pytest.param(["3.5万元", "12万元"], "DECIMAL(18,1)", "万元", id="wan-yuan"),
        pytest.param(["2026-09-01", "2026-9-2"], "DATE", None, id="iso-dates"),
        pytest.param(["2026/9/1", "2026年10月1日"], "DATE", None, id="chinese-dates"),
        pytest.param(
            ["Sep 1, 2026", "September 2, 2026", "1 Oct 2026"], "DATE", None, id="english-dates"
        ),
        pytest.param(
            ["2026-09-01 12:30", "2026-09-01T08:00:05.5"], "TIMESTAMP", None, id="timestamps"
        ),
        pytest.param(["2026-09-01", "2026-09-02 10:00"], "TIMESTAMP", None, id="date+timestamp"),
        pytest.param(["true", "False"], "BOOLEAN", None, id="booleans"),
        pytest.param(["1", "N/A", "-", "—", " "], "BIGINT", None, id="null-tokens"),
        pytest.param(["1" * 25], "DECIMAL(38,0)", None, id="25-digits"),
        pytest.param(["00123", "456"], "VARCHAR", None, id="leading-zeros"),
        pytest.param(["2026-09", "202609"], "VARCHAR", None, id="mixed-month-formats"),
        pytest.param(["5%", "5"], "VARCHAR", None, id="unit-on-some-values"),
        pytest.param(["¥5", "$5"], "VARCHAR", None, id="two-currencies"),
        pytest.param(["2026-02-30"], "VARCHAR", None, id="impossible-date"),
        pytest.param(["1" * 40], "VARCHAR", None, id="40-digits"),
        pytest.param(["1,2", "3"], "VARCHAR", None, id="bad-grouping"),
        pytest.param(["N/A", None], "VARCHAR", None, id="nothing-but-nulls"),
        pytest.param(["12", "abc"], "VARCHAR", None, id="text"),
    ],
)
def test_infer_column(values: list[str | None], sql_type: str, unit: str | None) -> None:
    column_type = infer.infer_column(values)
    assert (column_type.sql_type, column_type.unit) == (sql_type, unit)


def convert_in_duckdb(values: list[str | None]) -> tuple[str, list[object]]:
    """Infer in Python, then convert the same values with the column's SQL in DuckDB."""
    column_type = infer.infer_column(values)
    con = duckdb.connect()
    con.execute("CREATE TABLE t (i INT, v VARCHAR)")
    con.executemany("INSERT INTO t VALUES (?, ?)", list(enumerate(values)))
    rows = con.execute(f"SELECT {column_type.sql('v')} FROM t ORDER BY i").fetchall()
    return column_type.sql_type, [r[0] for r in rows]


def test_conversion_keeps_every_value() -> None:
    sql_type, out = convert_in_duckdb(["1,234.5", "(56)", "N/A", None, " 7 ", "-0.25"])
    assert sql_type == "DECIMAL(18,2)"
    assert out == [Decimal("1234.5"), Decimal("-56"), None, None, Decimal("7"), Decimal("-0.25")]


def test_percent_and_currency_keep_the_written_number() -> None:
    assert convert_in_duckdb(["12.5%", "-3%", "(4%)"])[1] == [Decimal("12.5"), -3, -4]
    assert convert_in_duckdb(["US$1,200", "$-5", "-$6.5"])[1] == [1200, -5, Decimal("-6.5")]
    assert convert_in_duckdb(["1,200元", "3元"])[1] == [1200, 3]


def test_accounting_negatives_with_a_unit_outside_the_parentheses() -> None:
    # US financial statements write "$(5,637)" and "(12)%": negatives, not text
    sql_type, out = convert_in_duckdb(["$(5,637)", "$ (0.66)", "$1,200", "($7)", "$ 3", None])
    assert sql_type == "DECIMAL(18,2)"
    assert out == [-5637, Decimal("-0.66"), 1200, -7, 3, None]
    assert convert_in_duckdb(["(12)%", "5%", "(3.5) %"])[1] == [-12, 5, Decimal("-3.5")]


def test_dates_convert_in_every_form() -> None:
    sql_type, out = convert_in_duckdb(
        [
            "2026-09-01",
            "2026/9/2",
            "2026年9月3日",
            "Sep 4, 2026",
            "5 September 2026",
            "6-Sep-2026",
            "—",
        ]
    )
    assert sql_type == "DATE"
    assert out == [dt.date(2026, 9, d) for d in range(1, 7)] + [None]


def test_timestamps_convert() -> None:
    sql_type, out = convert_in_duckdb(["2026-09-01 12:30", "2026/9/1 08:00:05.250"])
    assert sql_type == "TIMESTAMP"
    assert out == [dt.datetime(2026, 9, 1, 12, 30), dt.datetime(2026, 9, 1, 8, 0, 5, 250000)]


BATTERY = [
    "0",
    "7",
    "-7",
    "+7",
    "007",
    "1,234",
    "1,23",
    "12,345,678",
    "1，234",
    "1.5",
    "1.55",
    "1.555",
    ".5",
    "0.5",
    "00.5",
    "(5)",
    "(1,000.25)",
    "$(5,637)",
    "$ (0.66)",
    "($5)",
    "(12)%",
    "(12) %",
    "$(5",
    "5%",
    "5 %",
    "5％",
    "-5%",
    "¥5",
    "￥5",
    "$ 5",
    "$-5",
    "-$5",
    "5元",
    "5 元",
    "5万元",
    "USD 5",
    "5 USD",
    "US$5",
    "true",
    "FALSE",
    "yes",
    "2026-09-01",
    "2026-9-1",
    "2026-13-01",
    "2026-02-29",
    "2028-02-29",
    "2026/9/1",
    "2026.9.1",
    "2026年9月1日",
    "Sep 1, 2026",
    "sept 1, 2026",
    "1 September 2026",
    "01-Sep-2026",
    "2026-09-01 12:30",
    "2026-09-01T12:30:45",
    "2026-09-01 12:30:45.123456",
    "2026-09",
    "202609",
    "N/A",
    "-",
    "",
    "  ",
    " 12 ",
    "\u00a012",
    "12\u3000",
    "abc",
    "=SUM(A1)",
    "1" * 18,
    "1" * 19,
    "9" * 30 + ".5",
]


@pytest.mark.parametrize("proposer", [v for v in BATTERY if infer.widen(None, v) is not None])
def test_python_and_sql_checks_agree(proposer: str) -> None:
    """For a column shaped like ``proposer``, Python's ``fits`` and DuckDB's check agree."""
    shape = infer.widen(None, proposer)
    assert shape is not None
    column_type = infer.column_type(shape)
    assert column_type.check
    con = duckdb.connect()
    con.execute("CREATE TABLE t (i INT, v VARCHAR)")
    con.executemany("INSERT INTO t VALUES (?, ?)", list(enumerate(BATTERY)))
    check = (
        f"coalesce({column_type.check_sql('v')} AND ({column_type.cast_sql('v')} IS NOT "
        f"NULL OR {infer.null_tokens_sql('v')}), false)"
    )
    in_sql = [r[0] for r in con.execute(f"SELECT {check} FROM t ORDER BY i").fetchall()]
    in_python = [infer.fits(shape, value) for value in BATTERY]
    assert in_sql == in_python, [
        v for v, a, b in zip(BATTERY, in_sql, in_python, strict=True) if a != b
    ]


@pytest.mark.parametrize("value", [v for v in BATTERY if infer.shape_of(v) is not None])
def test_a_value_fits_its_own_shape(value: str) -> None:
    shape = infer.shape_of(value)
    assert shape is not None
    assert infer.fits(shape, value)


def test_widen_records_null_tokens_and_padding() -> None:
    shape = infer.widen(infer.widen(None, "12"), " N/A ")
    assert shape is not None and shape.nulls and shape.padded
    assert infer.fits(shape, " N/A ") and infer.fits(shape, "12")


def test_null_tokens_counted() -> None:
    assert infer.infer_column(["1", "N/A", "n/a", "2", "-"]).null_tokens == 3


def _numbers() -> list[str]:
    """Numbers of 1 to 20 digits written many ways: grouped by three, badly grouped, bare,
    signed, with one or two decimals, with trailing zeros."""
    out = []
    for n in range(1, 21):
        digits = "".join(str((7 * i + 3) % 10) for i in range(n)).lstrip("0") or "0"
        groups = f"{int(digits):,}"
        out += [digits, groups, "-" + groups, "+" + groups, groups + ".5", groups + ".50"]
        out += [digits + ".50", digits + ".5", digits + ".0", "-" + digits + ".10"]
        if len(digits) > 3:
            out += [digits[:-3] + "," + digits[-3:] + ".5", digits[:2] + "," + digits[2:]]
            out += [digits[:-2] + "," + digits[-2:], "," + groups, groups + ",", groups[1:]]
            out += [groups.replace(",", ",,", 1), groups.replace(",", "", 1)]
        if len(digits) > 6:  # the last comma right, an earlier one a digit off
            out += [digits[:1] + "," + digits[1:-3] + "," + digits[-3:]]
    return out


FAST_VALUES = [
    *BATTERY,
    *_numbers(),
    "0.50",
    "-0.5",
    "0.5",
    "1.10",
    "12.",
    "1.",
    "TRUE",
    "USD5",
    "5USD",
]
FAST_PROPOSERS = [
    *(v for v in BATTERY if infer.widen(None, v) is not None),
    "1,234.50",
    "-1,234,567",
    "12.30",
    "1.125",
    "(1,234.5)",
    "1" * 19 + ".5",
]


def _spelled(column_type: infer.ColumnType, column: str) -> str:
    """SQL: true where ``column`` is DuckDB's spelling of its converted value (the fast path)."""
    x = f"({column_type.cast_sql(column)})"
    canonical = column_type.canonical.replace("{x}", x).replace("{col}", column)
    return f"coalesce({canonical} = {column}, false)"


@pytest.mark.parametrize("proposer", FAST_PROPOSERS)
def test_the_canonical_spelling_never_accepts_what_the_check_refuses(proposer: str) -> None:
    """A value equal to DuckDB's spelling of its converted value skips the regular expression
    while typing; it must be one the check and Python's ``fits`` accept."""
    shape = infer.widen(None, proposer)
    assert shape is not None
    column_type = infer.column_type(shape)
    if not column_type.canonical:
        return
    con = duckdb.connect()
    con.execute("CREATE TABLE t (i INT, v VARCHAR)")
    con.executemany("INSERT INTO t VALUES (?, ?)", list(enumerate(FAST_VALUES)))
    rows = con.execute(
        f"SELECT v, {_spelled(column_type, 'v')}, {column_type.check_sql('v')} FROM t ORDER BY i"
    ).fetchall()
    spelled = [v for v, fast, _ in rows if fast]
    assert spelled, "the fast path passes nothing (it would only cost time)"
    assert [v for v, fast, check in rows if fast and not check] == []
    assert [v for v in spelled if not infer.fits(shape, v)] == []


@pytest.mark.parametrize(
    ("proposer", "value"),
    [
        ("12", "-12345678901234567"),
        ("12.30", "12.30"),
        ("5.5%", "-12.0%"),
        ("¥5", "¥1200"),
        ("2026-09-01", "2026-12-31"),
        ("true", "false"),
    ],
)
def test_the_canonical_spelling_skips_the_check(proposer: str, value: str) -> None:
    shape = infer.shape_of(proposer)
    assert shape is not None
    column_type = infer.column_type(shape)
    sql = f"SELECT {_spelled(column_type, 'v')} FROM (SELECT ? AS v)"
    assert duckdb.connect().execute(sql, [value]).fetchone() == (True,)
