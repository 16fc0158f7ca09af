"""Column type inference that never loses data, as Python functions and as the same rules in SQL.

A text column becomes typed only when EVERY non-null value converts. The recognised shapes:

* numbers: ``1234``, ``-5``, ``1,234.5``, ``1，234``, ``.305``, ``(1,234)`` (accounting negative);
  leading zeros (``00123``: IDs, zip codes) keep the column text, and so do more than 18 integer
  digits or more than 38 significant digits. Integers become BIGINT, decimals DECIMAL(18|38, s)
  with s the most decimals any value has (exact: no binary floating point).
* numbers with a unit, the same unit on every value: percents (``12.5%`` -> 12.5, unit ``%``),
  currency symbols and codes (``¥1,200``, ``￥5``, ``$3.50``, ``USD 12``, ``1200元``, ``3.5万元``);
  accounting negatives with a unit inside or outside the parentheses (``($5)``, ``$(5,637)``,
  ``$ (0.66)``, ``(12)%``).
  The value is stored as written (12.5 stays 12.5, not 0.125); the unit goes to the catalog.
* dates: ``2026-09-01``, ``2026/9/1``, ``2026.9.1``, ``2026年9月1日``, ``Sep 1, 2026``,
  ``September 1, 2026``, ``1 September 2026``, ``1-Sep-2026``; timestamps ``2026-09-01 12:30``,
  ``2026/9/1 12:30:45``, ``2026-09-01T12:30:45.123``. Month-only (``2026-09``) and all-digit
  (``20260901``) forms are not dates, so ``2026-09`` next to ``202609`` leaves the column text.
* all-number dates with the year last (``03/05/2026``, ``3-5-2026``, ``03.05.2026``): a column
  is typed only when its values decide the order (a first field over 12: day first; a second
  over 12: month first). When none does, the column stays text and ``ambiguous_dates`` reports
  it (the ``date_order`` setting, through ``date_order()``, decides then); values that need
  both orders leave it text. A typed column's unit says how its file wrote them
  (``MM/DD/YYYY``: ``written_dates``), which the stored dates no longer show.
* booleans: ``true`` / ``false`` in any letter case.

Values are trimmed of ``WHITESPACE`` before they are judged. Null tokens (``NULL``, ``N/A``,
``-``, ``—``... see ``NULL_TOKENS``) and blank values become NULL in a typed column (the store
reports how many); in a text column every value is kept exactly as it was.

The SQL side checks a whole column against one ``ColumnType`` with a single regular expression
per value (``ColumnType.check``), written in the subset of syntax RE2 and Python's ``re`` read
alike, so ``fits`` in Python and the check in DuckDB agree; the tests hold them to that. A type
is proposed from a sample, checked on every value, and widened by the values that do not fit.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, replace
from datetime import date, datetime
from functools import lru_cache
from typing import Literal

from tablerag.types import Problem

Kind = Literal["boolean", "number", "date", "timestamp"]

#: Trimmed away before a value is judged (space, tab, newlines, no-break and ideographic space).
WHITESPACE = " \t\r\n\u00a0\u3000"

#: Values that mean "no value" in a typed column (compared after trimming).
NULL_TOKENS: frozenset[str] = frozenset(
    {
        "NULL",
        "null",
        "Null",
        "N/A",
        "n/a",
        "NA",
        "#N/A",
        "None",
        "none",
        "NaN",
        "nan",
        "-",
        "--",
        "—",
        "——",
        "–",
    }
)

#: unit -> (prefix spellings, suffix spellings). Spellings are matched case-sensitively.
UNITS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "%": ((), ("%", "％")),
    "‰": ((), ("‰",)),
    "$": (("$", "＄", "US$"), ()),
    "HK$": (("HK$",), ()),
    "¥": (("¥", "￥"), ()),
    "€": (("€",), ("€",)),
    "£": (("£",), ()),
    **{code: ((code,), (code,)) for code in ("USD", "CNY", "RMB", "EUR", "GBP", "JPY", "HKD")},
    **{
        word: ((), (word,))
        for word in (
            "元",
            "千元",
            "万元",
            "亿元",
            "美元",
            "港元",
            "欧元",
            "日元",
            "英镑",
            "万",
            "亿",
        )
    },
}

_WS = "[ \t\r\n\u00a0\u3000]"
_BOOL = r"(?i:true|false)"
_ABBR = r"(?i:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)"
_FULL = (
    r"(?i:january|february|march|april|may|june|july|august|september|october|november"
    r"|december)"
)
_DATES: tuple[tuple[str, str, str], ...] = (
    ("ymd-", r"[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}", "%Y-%m-%d"),
    ("ymd/", r"[0-9]{4}/[0-9]{1,2}/[0-9]{1,2}", "%Y/%m/%d"),
    ("ymd.", r"[0-9]{4}\.[0-9]{1,2}\.[0-9]{1,2}", "%Y.%m.%d"),
    ("ymd-cn", r"[0-9]{4}年[0-9]{1,2}月[0-9]{1,2}日", "%Y年%m月%d日"),
    ("mdy-abbr", _ABBR + r" [0-9]{1,2}, [0-9]{4}", "%b %d, %Y"),
    ("mdy-full", _FULL + r" [0-9]{1,2}, [0-9]{4}", "%B %d, %Y"),
    ("dmy-abbr", r"[0-9]{1,2} " + _ABBR + r" [0-9]{4}", "%d %b %Y"),
    ("dmy-full", r"[0-9]{1,2} " + _FULL + r" [0-9]{4}", "%d %B %Y"),
    ("dmy-abbr-", r"[0-9]{1,2}-" + _ABBR + r"-[0-9]{4}", "%d-%b-%Y"),
    *(
        (
            f"{order}{sep}",
            rf"[0-9]{{1,2}}{re.escape(sep)}[0-9]{{1,2}}{re.escape(sep)}[0-9]{{4}}",
            fmt,
        )
        for sep in "/-."
        for order, fmt in (("mdy", f"%m{sep}%d{sep}%Y"), ("dmy", f"%d{sep}%m{sep}%Y"))
    ),
)
#: The all-number dates whose order (month first or day first) only the data can decide:
#: name -> (order, separator).
DAY_MONTH: dict[str, tuple[str, str]] = {
    f"{order}{sep}": (order, sep) for sep in "/-." for order in ("mdy", "dmy")
}
_MONTH = "(?:0?[1-9]|1[0-2])"
_TIMES: tuple[tuple[str, str, str], ...] = (
    ("hm", r"[0-9]{1,2}:[0-9]{2}", "%H:%M"),
    ("hms", r"[0-9]{1,2}:[0-9]{2}:[0-9]{2}", "%H:%M:%S"),
    ("hmsf", r"[0-9]{1,2}:[0-9]{2}:[0-9]{2}\.[0-9]{1,6}", "%H:%M:%S.%f"),
)
_STAMPS: tuple[tuple[str, str, str], ...] = tuple(
    (f"{dname}{sep}{tname}", dpat + sep + tpat, dfmt + sep + tfmt)
    for dname, dpat, dfmt in _DATES[:2]
    for sep in (" ", "T")
    for tname, tpat, tfmt in _TIMES
)

#: name -> (regular expression, strptime format), dates then timestamps.
FORMATS: dict[str, tuple[str, str]] = {name: (pat, fmt) for name, pat, fmt in _DATES + _STAMPS}
_TIMESTAMP_NAMES = frozenset(name for name, _, _ in _STAMPS)


@dataclass(frozen=True)
class Shape:
    """What a set of values has in common: its kind plus what the SQL type and check need.

    Attributes:
        kind: ``boolean``, ``number``, ``date`` or ``timestamp``.
        unit: the normalised unit of a number (``%``, ``¥``, ``元``...), or None.
        scale: digits after the decimal point (the most any value has).
        digits: digits before the decimal point (the most any value has).
        separators: the thousands separators the numbers use (``,`` and/or ``，``).
        spellings: how the unit is written (``%`` and/or ``％``...).
        parens: some number is an accounting negative such as ``(1,234)``.
        formats: names of the date/timestamp ``FORMATS`` the values use.
        padded: some value has whitespace around it.
        nulls: some value is a null token or blank.
    """

    kind: Kind
    unit: str | None = None
    scale: int = 0
    digits: int = 0
    separators: frozenset[str] = frozenset()
    spellings: frozenset[str] = frozenset()
    parens: bool = False
    formats: frozenset[str] = frozenset()
    padded: bool = False
    nulls: bool = False


@dataclass(frozen=True)
class ColumnType:
    """The decision for one column: SQL type, unit, and the SQL that converts and checks.

    Templates use ``{col}`` for the quoted source column. ``cast`` converts without checking
    (NULL where a value does not convert); ``check`` is true for a value the column holds
    exactly, or that is a null token (empty for text). ``canonical`` (``{x}``: the converted
    value) spells a value the way the check surely accepts; a value equal to it fits without
    running the regular expression, which is most of the cost of typing a large column.

    Example:
        >>> t = infer_column(["12.5%", "7%", "N/A"])
        >>> (t.sql_type, t.unit, t.null_tokens)
        ('DECIMAL(18,1)', '%', 1)
    """

    sql_type: str
    unit: str | None = None
    cast: str = "{col}"
    check: str = ""
    canonical: str = ""
    shape: Shape | None = None
    null_tokens: int = 0

    def sql(self, column: str) -> str:
        """The checked conversion of ``column`` (an already quoted SQL name or expression)."""
        if not self.check:
            return self.cast_sql(column)
        return f"CASE WHEN {self.check_sql(column)} THEN {self.cast_sql(column)} END"

    def cast_sql(self, column: str) -> str:
        """The unchecked conversion of ``column``."""
        return self.cast.replace("{col}", column)

    def check_sql(self, column: str) -> str:
        """The check of ``column``."""
        return self.check.replace("{col}", column)


TEXT = ColumnType("VARCHAR")


def is_null_token(text: str) -> bool:
    """Say whether a value means "no value" once trimmed (blank values do too).

    Example:
        >>> [is_null_token(v) for v in ("N/A", " - ", "0", "none", "  ")]
        [True, True, False, True, True]
    """
    value = text.strip(WHITESPACE)
    return not value or value in NULL_TOKENS


def shape_of(text: str) -> Shape | None:
    """The shape of one value that is not a null token, or None when it can only be text.

    Example:
        >>> s = shape_of("¥1,200.50")
        >>> (s.kind, s.unit, s.scale, s.digits, s.separators, s.spellings)
        ('number', '¥', 2, 4, frozenset({','}), frozenset({'¥'}))
        >>> shape_of("2026年9月1日").kind, shape_of(" Sep 1, 2026").formats
        ('date', frozenset({'mdy-abbr'}))
        >>> shape_of("00123") is None, shape_of("2026-09") is None
        (True, True)
    """
    value = text.strip(WHITESPACE)
    if not value:
        return None
    padded = value != text
    shape: Shape | None
    if _PLAIN_INT.fullmatch(value):  # the common case, without the general machinery
        shape = Shape("number", digits=len(value) - (value[0] in "-+"))
    elif _compiled(_BOOL).fullmatch(value):
        shape = Shape("boolean")
    else:
        shape = _number_shape(value) or _date_shape(value)
    return replace(shape, padded=True) if shape is not None and padded else shape


def covers(shape: Shape, text: str) -> bool:
    """A quick yes: ``text`` adds nothing to ``shape`` (joining its shape gives ``shape`` back).

    One regular expression instead of ``shape_of``, for numbers, booleans and ISO dates; False
    means "not known here": work out ``shape_of(text)`` then. Null tokens are the caller's.

    Example:
        >>> s = shape_of("1,234.5")
        >>> covers(s, "-999.5"), covers(s, "999.25"), covers(s, "12,345"), covers(s, "(1)")
        (True, False, False, False)
        >>> day = shape_of("2026-09-01")
        >>> covers(day, "2026-02-28"), covers(day, "2026-02-30"), covers(day, "2026-2-28")
        (True, False, False)
    """
    pattern = _covering(shape)
    if pattern is None or not pattern.fullmatch(text):
        return False
    if shape.kind == "date":
        try:
            date.fromisoformat(text)
        except ValueError:
            return False
    return True


@lru_cache(maxsize=256)
def _covering(shape: Shape) -> re.Pattern[str] | None:
    """The values ``covers`` says yes to: within the shape's digits, scale, separators, unit
    spellings and parentheses, without padding (a number seen only as ``.5`` has no integer
    digits, so ``0.5`` would widen it: no quick yes there)."""
    if shape.kind == "number" and shape.digits >= 1:
        return _compiled(
            number_pattern(
                shape.unit,
                shape.digits,
                shape.scale,
                "".join(sorted(shape.separators)),
                shape.parens,
                tuple(sorted(shape.spellings)),
            )
        )
    if shape.kind == "boolean":
        return _compiled(_BOOL)
    if shape.kind == "date" and shape.formats == {"ymd-"}:
        return _compiled("[0-9]{4}-[0-9]{2}-[0-9]{2}")
    return None


def join(a: Shape | None, b: Shape | None) -> Shape | None:
    """The narrowest shape that holds both, or None when only text holds both.

    Example:
        >>> join(shape_of("1"), shape_of("2.25")).scale
        2
        >>> join(shape_of("5%"), shape_of("5")) is None
        True
        >>> join(shape_of("2026-09-01"), shape_of("2026-09-01 10:00")).kind
        'timestamp'
    """
    if a is None or b is None:
        return None
    padded, nulls = a.padded or b.padded, a.nulls or b.nulls
    if a.kind == "number" and b.kind == "number":
        if a.unit != b.unit:
            return None
        return Shape(
            "number",
            a.unit,
            max(a.scale, b.scale),
            max(a.digits, b.digits),
            a.separators | b.separators,
            a.spellings | b.spellings,
            a.parens or b.parens,
            padded=padded,
            nulls=nulls,
        )
    if a.kind in ("date", "timestamp") and b.kind in ("date", "timestamp"):
        kind: Kind = "timestamp" if "timestamp" in (a.kind, b.kind) else "date"
        formats = _join_formats(a.formats, b.formats)
        if formats is None:
            return None
        return Shape(kind, formats=formats, padded=padded, nulls=nulls)
    return replace(a, padded=padded, nulls=nulls) if a.kind == b.kind else None


def widen(shape: Shape | None, text: str | None) -> Shape | None:
    """Widen ``shape`` (None: nothing seen yet) so that it holds the value ``text`` too.

    Null tokens and blanks only set ``nulls``; None (SQL NULL) changes nothing. Returns None
    when only text holds both; use ``TEXT`` then.

    Example:
        >>> widen(widen(None, "12"), " N/A ").nulls
        True
    """
    if text is None:
        return shape
    if is_null_token(text):
        if shape is None:
            return None
        padded = shape.padded or text.strip(WHITESPACE) not in ("", text)
        return replace(shape, nulls=True, padded=padded)
    current = shape_of(text)
    return current if shape is None else join(shape, current)


def infer_column(values: Iterable[str | None]) -> ColumnType:
    """Infer the type of a column from all of its values (the pure-Python twin of the SQL path).

    Example:
        >>> infer_column(["1,234", "(56)", None, "-"]).sql_type
        'BIGINT'
        >>> infer_column(["00123", "456"]).sql_type
        'VARCHAR'
        >>> infer_column(["2026-09", "202609"]).sql_type
        'VARCHAR'
        >>> infer_column(["2026/9/1", "2026年10月1日", "N/A"]).sql_type
        'DATE'
    """
    shape: Shape | None = None
    tokens: list[str] = []
    for raw in values:
        if raw is None:
            continue
        if is_null_token(raw):
            tokens.append(raw)
            continue
        shape = widen(shape, raw)
        if shape is None:
            return TEXT
    if shape is None:
        return TEXT
    for token in tokens:
        shape = widen(shape, token)
    assert shape is not None
    return column_type(shape, len(tokens))


def column_type(shape: Shape, null_tokens: int = 0) -> ColumnType:
    """Turn a shape into the column's SQL type, conversion and check.

    Example:
        >>> column_type(Shape("number", "%", scale=1, digits=2)).sql_type
        'DECIMAL(18,1)'
        >>> column_type(Shape("number", digits=25)).sql_type
        'DECIMAL(38,0)'
        >>> column_type(Shape("number", digits=40)).sql_type
        'VARCHAR'
    """
    value = f"trim({{col}}, {_quote(WHITESPACE)})" if shape.padded else "{col}"
    if shape.kind == "boolean":
        sql_type, conversion = "BOOLEAN", f"TRY_CAST({value} AS BOOLEAN)"
    elif shape.kind == "number":
        number_type = _number_type(shape.scale, shape.digits)
        if number_type is None:
            return TEXT
        sql_type, conversion = number_type, _number_conversion(value, shape, number_type)
    elif is_ambiguous(shape) and _DATE_ORDER.get() == "auto":
        # kept as text, and checked so that a value with a day over 12 still decides the order
        check = f"regexp_full_match({{col}}, {_quote(fits_pattern(shape))})"
        return ColumnType("VARCHAR", None, "{col}", check, "", shape, null_tokens)
    else:
        if is_ambiguous(shape):  # the date_order setting decides what the data does not
            order = _DATE_ORDER.get()
            shape = replace(
                shape,
                formats=frozenset(
                    n for n in shape.formats if n not in DAY_MONTH or DAY_MONTH[n][0] == order
                ),
            )
        sql_type = "TIMESTAMP" if shape.kind == "timestamp" else "DATE"
        if shape.formats == {"ymd-"}:
            conversion = f"TRY_CAST({value} AS DATE)"
        else:
            conversion = f"CAST(try_strptime({value}, {_format_list(shape)}) AS {sql_type})"
    check = f"regexp_full_match({{col}}, {_quote(fits_pattern(shape))})"
    canonical = "" if shape.padded else _canonical(shape)
    unit = written_dates(shape.formats) if shape.kind in ("date", "timestamp") else shape.unit
    return ColumnType(sql_type, unit, conversion, check, canonical, shape, null_tokens)


def written_dates(formats: Iterable[str]) -> str | None:
    """How a date column's all-number dates are written (``MM/DD/YYYY``), once their order is
    decided, or None when it has none. The catalog keeps it as the column's unit: the stored
    dates no longer say which order the file wrote, and a question copying them
    (``03/05/2026``) is read by it (issue 23).

    Example:
        >>> written_dates({"mdy/"}), written_dates({"dmy.", "ymd-"}), written_dates({"ymd-"})
        ('MM/DD/YYYY', 'DD.MM.YYYY', None)
        >>> infer_column(["03/05/2026", "05/13/2026"]).unit
        'MM/DD/YYYY'
        >>> with date_order("dmy"):
        ...     infer_column(["03-05-2026"]).unit
        'DD-MM-YYYY'
    """
    forms = sorted(
        ("MM{0}DD{0}YYYY" if order == "mdy" else "DD{0}MM{0}YYYY").format(sep)
        for name, (order, sep) in DAY_MONTH.items()
        if name in formats
    )
    return " or ".join(forms) or None


def _canonical(shape: Shape) -> str:
    """How DuckDB spells a converted value, when that spelling surely passes the check."""
    text = "CAST({x} AS VARCHAR)"
    if shape.kind == "boolean":
        return text
    if shape.kind == "date":
        if shape.formats != {"ymd-"}:
            return ""
        return f"CASE WHEN strlen({{col}}) = 10 THEN {text} END"
    if shape.kind != "number" or shape.separators or shape.parens or len(shape.spellings) > 1:
        return ""
    spelling = next(iter(shape.spellings), "")
    # BIGINT holds 19 digits, the check 18; strlen counts bytes, in O(1) (length counts
    # characters): a value it overcounts only goes on to the check
    limit = 18 + len(spelling.encode())
    if shape.unit is not None:
        prefixes, _ = UNITS[shape.unit]
        if spelling in prefixes:
            text = f"{_quote(spelling)} || {text}"
        else:
            text = f"{text} || {_quote(spelling)}"
    return f"CASE WHEN strlen({{col}}) <= {limit} THEN {text} END"


def fits_pattern(shape: Shape) -> str:
    """The regular expression every value of a column of this shape fully matches.

    It bounds digits and decimals by the capacity of the SQL type ``column_type`` picks, allows
    whitespace only when ``shape.padded`` and null tokens only when ``shape.nulls``.

    Example:
        >>> p = fits_pattern(shape_of("1,234.5"))
        >>> [bool(re.fullmatch(p, v)) for v in ("12", "1,234.5", "1.25", "012", "-")]
        [True, True, False, False, False]
    """
    if shape.kind == "boolean":
        body = _BOOL
    elif shape.kind == "number":
        body = number_pattern(
            shape.unit,
            _int_capacity(shape),
            shape.scale,
            "".join(sorted(shape.separators)),
            shape.parens,
            tuple(sorted(shape.spellings)),
        )
    else:
        body = "|".join(f"(?:{_date_pattern(name, shape)})" for name in sorted(shape.formats))
    if shape.nulls:
        tokens = "|".join(re.escape(t) for t in sorted(NULL_TOKENS))
        body = f"(?:{body})|(?:{tokens})?"
        if not shape.padded:
            body = f"{body}|{_WS}+"
    if shape.padded:
        body = f"{_WS}*(?:{body}){_WS}*"
    return body


def _date_pattern(name: str, shape: Shape) -> str:
    """A format's pattern; while the order is undecided, only values no order decides fit, so
    the first value with a day over 12 is a misfit that decides the column's order."""
    if name in DAY_MONTH and is_ambiguous(shape):
        sep = re.escape(DAY_MONTH[name][1])
        return f"{_MONTH}{sep}{_MONTH}{sep}[0-9]{{4}}"
    return FORMATS[name][0]


def fits(shape: Shape, text: str) -> bool:
    """Python's verdict on whether ``text`` fits a column of ``shape`` (the SQL check's twin).

    Example:
        >>> fits(shape_of("2026-09-01"), "2026-9-30"), fits(shape_of("2026-09-01"), "2026-2-30")
        (True, False)
    """
    if not re.fullmatch(fits_pattern(shape), text):
        return False
    if shape.kind in ("date", "timestamp") and not is_null_token(text):
        value = text.strip(WHITESPACE)
        return any(_parses(value, FORMATS[name][1]) for name in shape.formats)
    return True


@lru_cache(maxsize=256)
def number_pattern(
    unit: str | None,
    int_digits: int = 38,
    scale: int = 38,
    separators: str = ",，",
    parens: bool = True,
    spellings: tuple[str, ...] | None = None,
) -> str:
    """The regular expression for a number with ``unit`` within the given bounds.

    ``separators`` are the allowed thousands separators (none: ``""``); ``spellings`` limit
    how the unit may be written (None: every spelling in ``UNITS``).

    Example:
        >>> bool(re.fullmatch(number_pattern("元"), "1,200元"))
        True
        >>> bool(re.fullmatch(number_pattern(None), "0123"))
        False
    """
    num = _num(int_digits, scale, separators)
    if unit is None:
        return rf"[-+]?{num}" + (rf"|\({num}\)" if parens else "")
    prefixes, suffixes = UNITS[unit]
    if spellings is not None:
        prefixes = tuple(p for p in prefixes if p in spellings)
        suffixes = tuple(x for x in suffixes if x in spellings)
    forms = []
    if prefixes:
        pre = "(?:" + "|".join(re.escape(p) for p in prefixes) + ")"
        forms += [rf"[-+]?{pre} ?{num}", rf"{pre} ?[-+]{num}"]
        forms += [rf"\({pre} ?{num}\)", rf"{pre} ?\({num}\)"] if parens else []
    if suffixes:
        post = "(?:" + "|".join(re.escape(s) for s in suffixes) + ")"
        forms += [rf"[-+]?{num} ?{post}"]
        forms += [rf"\({num} ?{post}\)", rf"\({num}\) ?{post}"] if parens else []
    return "|".join(forms)


@lru_cache(maxsize=256)
def _num(int_digits: int, scale: int, separators: str) -> str:
    whole = ["0"] + ([f"[1-9][0-9]{{0,{int_digits - 1}}}"] if int_digits >= 1 else [])
    if separators:
        for first in (1, 2, 3):
            groups = (int_digits - first) // 3
            if groups >= 1:
                whole.append(f"[1-9][0-9]{{{first - 1}}}(?:[{separators}][0-9]{{3}}){{1,{groups}}}")
    integer = "(?:" + "|".join(whole) + ")"
    if scale == 0:
        return integer
    fraction = rf"\.[0-9]{{1,{scale}}}"
    return f"(?:{integer}(?:{fraction})?|{fraction})"


def _int_capacity(shape: Shape) -> int:
    """Integer digits the SQL type for ``shape`` holds (BIGINT: 18; DECIMAL(p,s): p - s)."""
    number_type = _number_type(shape.scale, shape.digits)
    if number_type == "BIGINT":
        return 18
    precision = 18 if number_type is not None and number_type.startswith("DECIMAL(18,") else 38
    return precision - shape.scale


_UNIT_SPLIT = re.compile(
    r"\(?[-+]?(?P<pre>[^0-9.()+\- ]*) ?\(?[-+]?[0-9.,，]+\)? ?(?P<post>[^0-9()]*)\)?"
)
_PLAIN_INT = re.compile(r"[-+]?(?:0|[1-9][0-9]{0,17})")
_NOT_DIGIT = re.compile(r"[^0-9.]")
_SPELLING: dict[str, str] = {
    spelling: unit for unit, (pre, post) in UNITS.items() for spelling in (*pre, *post)
}


def _number_shape(value: str) -> Shape | None:
    split = _UNIT_SPLIT.fullmatch(value)
    if split is None:
        return None
    pre, post = split["pre"], split["post"]
    if pre and post:
        return None
    spelling = pre or post
    unit = _SPELLING.get(spelling) if spelling else None
    if spelling and unit is None:
        return None
    if not _compiled(number_pattern(unit)).fullmatch(value):
        return None
    digits_only = _NOT_DIGIT.sub("", value)
    whole, _, fraction = digits_only.partition(".")
    separators = frozenset(ch for ch in ",，" if ch in value)
    return Shape(
        "number",
        unit,
        len(fraction),
        len(whole),
        separators,
        frozenset({spelling}) if spelling else frozenset(),
        "(" in value,
    )


@lru_cache(maxsize=512)
def _compiled(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern)


def _date_shape(value: str) -> Shape | None:
    for name, (pattern, fmt) in FORMATS.items():
        if _compiled(pattern).fullmatch(value):
            if name in DAY_MONTH:  # 03/05/2026: both orders may parse
                _, sep = DAY_MONTH[name]
                names = frozenset(
                    n
                    for n, (_, s) in DAY_MONTH.items()
                    if s == sep and _parses(value, FORMATS[n][1])
                )
                return Shape("date", formats=names) if names else None
            if not _parses(value, fmt):
                return None
            kind: Kind = "timestamp" if name in _TIMESTAMP_NAMES else "date"
            return Shape(kind, formats=frozenset({name}))
    return None


def _orders(formats: frozenset[str]) -> frozenset[str] | None:
    """The day-month orders the all-number dates among ``formats`` allow (None: there are none)."""
    orders = frozenset(DAY_MONTH[n][0] for n in formats if n in DAY_MONTH)
    return orders or None


def _join_formats(a: frozenset[str], b: frozenset[str]) -> frozenset[str] | None:
    """The formats of a column holding both: a union, except that all-number dates keep only
    the orders both sides allow (a value with a day over 12 decides for the whole column);
    None when no order is left.

    Example:
        >>> sorted(_join_formats(frozenset({"mdy/", "dmy/"}), frozenset({"dmy."})))
        ['dmy.', 'dmy/']
        >>> _join_formats(frozenset({"mdy/"}), frozenset({"dmy/"})) is None
        True
    """
    left, right = _orders(a), _orders(b)
    union = a | b
    if left is None or right is None:
        return union
    allowed = left & right
    if not allowed:
        return None
    return frozenset(n for n in union if n not in DAY_MONTH or DAY_MONTH[n][0] in allowed)


DateOrder = Literal["auto", "mdy", "dmy"]
_DATE_ORDER: ContextVar[DateOrder] = ContextVar("tablerag_date_order", default="auto")


@contextmanager
def date_order(order: DateOrder) -> Iterator[None]:
    """Read all-number dates the data leaves undecided (``03/05/2026``) month-first (``mdy``)
    or day-first (``dmy``) inside the block; ``auto`` keeps them as text (the default).

    The ingest pipeline sets it from the ``date_order`` setting around each source, so the
    store's type decisions deep below see it without every reader passing it on.

    Example:
        >>> with date_order("dmy"):
        ...     infer_column(["03/05/2026"]).cast
        "CAST(try_strptime({col}, ['%d/%m/%Y']) AS DATE)"
        >>> infer_column(["03/05/2026"]).sql_type
        'VARCHAR'
    """
    token = _DATE_ORDER.set(order)
    try:
        yield
    finally:
        _DATE_ORDER.reset(token)


def is_ambiguous(shape: Shape) -> bool:
    """Whether a date shape's all-number dates could be month-first or day-first (no value has
    a first or second field over 12).

    Example:
        >>> is_ambiguous(shape_of("03/05/2026")), is_ambiguous(shape_of("13/05/2026"))
        (True, False)
    """
    orders = _orders(shape.formats)
    return shape.kind == "date" and orders is not None and len(orders) > 1


def _parses(value: str, fmt: str) -> bool:
    try:
        datetime.strptime(value, fmt)
    except ValueError:
        return False
    return True


def _number_type(scale: int, digits: int) -> str | None:
    if scale == 0 and digits <= 18:
        return "BIGINT"
    width = max(digits, 1) + scale
    if width <= 18:
        return f"DECIMAL(18,{scale})"
    if width <= 38:
        return f"DECIMAL(38,{scale})"
    return None


def _number_conversion(value: str, shape: Shape, sql_type: str) -> str:
    """TRY_CAST after removing unit spellings and separators (null tokens cast to NULL)."""
    text = value
    for spelling in sorted(shape.spellings, key=len, reverse=True):
        text = f"replace({text}, {_quote(spelling)}, '')"
    for separator in sorted(shape.separators):
        text = f"replace({text}, {_quote(separator)}, '')"
    if not shape.parens:
        return f"TRY_CAST({text} AS {sql_type})"
    # "$(5)" and "$ (5)" are "(5)" and " (5)" once the unit is gone
    text = f"ltrim({text})" if shape.spellings else text
    inner = f"TRY_CAST(replace(replace({text}, '(', ''), ')', '') AS {sql_type})"
    return f"CASE WHEN {text} LIKE '(%' THEN -{inner} ELSE TRY_CAST({text} AS {sql_type}) END"


def _format_list(shape: Shape) -> str:
    return "[" + ", ".join(_quote(FORMATS[name][1]) for name in sorted(shape.formats)) + "]"


def _null_test(value: str) -> str:
    tokens = ", ".join(_quote(t) for t in sorted(NULL_TOKENS | {""}))
    return f"trim({value}, {_quote(WHITESPACE)}) IN ({tokens})"


def _quote(text: str) -> str:
    """A SQL string literal."""
    return "'" + text.replace("'", "''") + "'"


def ambiguous_dates(decided: Mapping[str, ColumnType]) -> list[Problem]:
    """One problem per column kept as text because its all-number dates could be read
    month-first or day-first (``03/05/2026``: no value has a day over 12).

    Example:
        >>> [p.line() for p in ambiguous_dates({"filed": infer_column(["03/05/2026"])})]
        ... # doctest: +NORMALIZE_WHITESPACE
        ["column 'filed': the dates are written MM/DD/YYYY or DD/MM/YYYY and no value has a
          day over 12, so the order is unknown (kept as text; write them as YYYY-MM-DD, or set
          the setting date_order to 'mdy' or 'dmy' and ingest again)"]
    """
    return [
        Problem(
            f"column {name!r}",
            "the dates are written MM/DD/YYYY or DD/MM/YYYY and no value has a day over 12, "
            "so the order is unknown",
            "kept as text; write them as YYYY-MM-DD, or set the setting date_order to 'mdy' "
            "or 'dmy' and ingest again",
        )
        for name, t in decided.items()
        if t.sql_type == "VARCHAR" and t.shape is not None and is_ambiguous(t.shape) and t.check
    ]


def null_tokens_sql(column: str) -> str:
    """SQL that is true when ``column`` holds a null token or a blank value."""
    return f"({column} IS NOT NULL AND {_null_test(column)})"
