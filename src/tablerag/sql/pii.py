"""Personal data in values: what it looks like and how it is masked, text and numbers alike.

Masking is total and linear-time: every pattern is bounded or scanned without backtracking (a
1,000,000-character cell masks in well under a second), nested values (lists, tuples, structs,
maps and their keys) are masked all the way down, JSON text is masked as the text it is (and
kept valid JSON), and numbers shaped like a Chinese mobile number are masked too. Result rows
(:mod:`tablerag.sql.mask`), table chunks, engine errors and the sample values a prompt shows
all mask with :func:`mask_text` and :func:`mask_value`. A key of a JSON or struct value named
like a sensitive column (``{"password": …}``) has its value replaced whole.
"""

from __future__ import annotations

import functools
import json
import re
from decimal import Decimal
from typing import Any

from tablerag.sql.sensitive_names import SENSITIVE_NAME

_DOMAIN = re.compile(r"@[\w-]+(?:\.[\w-]+)+")
"""The ``@domain`` of an e-mail address: it starts at an ``@``, so a search tries few places."""
_LOCAL = re.compile(r"[\w.+-]*")
"""The local part of an e-mail address, matched on the reversed text backwards from its ``@``."""
_CN_ID = re.compile(r"(?<!\d)(\d{6})[ -]?\d{4}[ -]?\d{4}[ -]?(\d{3}[\dXx])(?![\dA-Za-z])")
"""An 18-digit Chinese ID number, also written in groups (``110101 19900307 123X``)."""
_CARD = re.compile(r"(?<!\d)\d(?:[ -]?\d){12,18}(?!\d)")
_MOBILE = re.compile(
    r"(?<![\d+])(\+?86[ -]?|\(\+?86\)[ -]?)?(1[3-9]\d)[ -]?\d{4}[ -]?(\d{4})(?!\d)"
)
"""A Chinese mobile number, with or without ``+86``, plain or grouped (``139-1234-5678``)."""
_LANDLINE = re.compile(
    r"(?<![\d+-])(\(0[1-9]\d{1,2}\)[ -]?|0[1-9]\d{1,2}[ -])[1-9]\d{2,3}[ -]?(\d{4})(?![\d-])"
)
"""A Chinese landline number whose area code is set apart (``(010) 6552-1234``,
``0755-12345678``): without the separator eleven digits starting with 0 read as an id."""
_PHONE = re.compile(r"(?<!\d)(\+?\d{1,3}[ -])?\(?(\d{3})\)?[ -](\d{3})[ -](\d{4})(?!\d)")

_MOBILE_INTS = range(13_000_000_000, 20_000_000_000)
"""Integers whose digits are an 11-digit Chinese mobile number, ``1[3-9]`` then nine digits."""

MAX_DEPTH = 100
"""Nesting depth past which a nested value is replaced whole (only a hostile query gets there)."""


def _card(match: re.Match[str]) -> str:
    digits = re.sub(r"\D", "", match.group())
    if not 13 <= len(digits) <= 19 or not luhn_valid(digits):
        return match.group()
    return f"{digits[:4]}{'*' * (len(digits) - 8)}{digits[-4:]}"


def _mask_emails(text: str) -> str:
    """Replace the local part of every e-mail address but its first character by ``***``.

    The same matches as ``([\\w.+-])[\\w.+-]*(@[\\w-]+(?:\\.[\\w-]+)+)`` searched left to right,
    found in linear time: that search tries every start in a run of word characters and scans
    the run to its end each time (quadratic; 547 s on 200,000 ``a``). Here each ``@domain`` is
    found first and its local part is read backwards, never past the previous address.
    """
    if "@" not in text:
        return text
    backwards = text[::-1]
    size = len(text)
    out: list[str] = []
    done = 0  # end of the last address masked; the next local part starts at or after it
    for match in _DOMAIN.finditer(text):
        at = match.start()
        local = _LOCAL.match(backwards, size - at, size - done)
        assert local is not None  # ``[...]*`` always matches
        start = at - (local.end() - local.start())
        if start == at:  # no local part: not an address
            continue
        out += (text[done:start], text[start], "***", match.group())
        done = match.end()
    return "".join(out) + text[done:] if out else text


def _mask_patterns(text: str) -> str:
    text = _mask_emails(text)
    text = _CN_ID.sub(lambda m: f"{m.group(1)}********{m.group(2)[-4:]}", text)
    text = _CARD.sub(_card, text)
    text = _MOBILE.sub(lambda m: f"{m.group(1) or ''}{m.group(2)}****{m.group(3)}", text)
    text = _LANDLINE.sub(lambda m: f"{m.group(1)}****{m.group(2)}", text)
    return _PHONE.sub(lambda m: f"{m.group(1) or ''}{m.group(2)}-***-{m.group(4)}", text)


def _is_json(text: str) -> bool:
    try:
        json.loads(text)
    except (ValueError, RecursionError):
        return False
    return True


def _mask_number(token: str) -> Any:
    """A JSON number token, masked as the text it is (a masked number becomes a string)."""
    masked = _mask_patterns(token)
    if masked != token:
        return masked
    return float(token) if any(c in token for c in ".eE") else int(token)


def _keep_json_valid(text: str, masked: str) -> str:
    """``masked`` if it is still JSON (or ``text`` never was); else JSON masked the same way.

    Masking a number token (``{"p":13812345678}``) leaves ``138****5678`` where a number was;
    then the JSON is decoded with number tokens masked as text, its strings and keys masked,
    and encoded again (compact; a masked number is a string, a float keeps its value but may be
    written differently: ``1.5e3`` becomes ``1500.0``).
    """
    if text.lstrip()[:1] not in ("{", "[") or _is_json(masked):
        return masked
    try:
        data = json.loads(text, parse_int=_mask_number, parse_float=_mask_number)
    except (ValueError, RecursionError):
        return masked
    return json.dumps(_mask_nested(data, 0), ensure_ascii=False, separators=(",", ":"))


def mask_text(text: str) -> str:
    """Mask e-mail addresses, Chinese ID numbers, card numbers and phone numbers in ``text``.

    JSON text is text: the same patterns mask it, and it stays valid JSON.

    Example:
        >>> mask_text("call 13812345678 or mail ann.lee@example.com")
        'call 138****5678 or mail a***@example.com'
        >>> mask_text("ID 110101199003071234, card 4111 1111 1111 1111")
        'ID 110101********1234, card 4111********1111'
        >>> mask_text("order 2024-05-01 total 12345")
        'order 2024-05-01 total 12345'
        >>> mask_text('{"e":"ann@example.com","p":13812345678,"n":3}')
        '{"e":"a***@example.com","p":"138****5678","n":3}'
        >>> mask_text('{"nickname": "ann", "password": "s3cret", "tags": [{"PIN_hash": 7}]}')
        '{"nickname":"ann","password":"***","tags":[{"PIN_hash":"***"}]}'
        >>> mask_text("{'password': s3cret, 'n': 2}"), mask_text('{"pwd": "s3c…')
        ("{'password': ***, 'n': 2}", '{"pwd": "***')
        >>> mask_text("ratio: 2, city=Oslo")
        'ratio: 2, city=Oslo'
    """
    masked = _mask_patterns(text)
    if text.lstrip()[:1] in ("{", "[") and '"' in text:
        keyed = _mask_secret_keys(text)
        if keyed is not None:
            return keyed
    masked = masked if masked == text else _keep_json_valid(text, masked)
    return _KEYED.sub(_keyed_value, masked) if ":" in masked or "=" in masked else masked


_KEYED = re.compile(
    r"""(?<![\w$])(["']?)([A-Za-z_\u4e00-\u9fff][\w\u4e00-\u9fff]{0,40})\1(\s{0,3}[:=]\s{0,3})"""
    r"""("(?:[^"\\\n]|\\.){0,200}"|'(?:[^'\\\n]|\\.){0,200}'|["'][^"'\n]{0,200}"""
    r"""|[^\s,;&}\])'"]{1,200})"""
)
"""``key: value`` or ``key=value`` in text that is not whole JSON (a cut sample, a struct as
DuckDB writes it, a log line); every part bounded, so the scan stays linear."""


@functools.lru_cache(maxsize=4096)
def _is_secret_key(key: str) -> bool:
    return bool(SENSITIVE_NAME.search(key))


def _keyed_value(match: re.Match[str]) -> str:
    """A ``key: value`` pair with the value masked when the key names a sensitive column."""
    quote, key, sep, value = match.groups()
    if not _is_secret_key(key) or value.strip("'\"") in ("***", ""):
        return match.group(0)
    quoted = value[:1] in "'\"" and len(value) > 1 and value[-1] == value[0]
    mark = (
        f"{value[0]}***{value[0]}" if quoted else f"{value[0]}***" if value[0] in "'\"" else "***"
    )
    return f"{quote}{key}{quote}{sep}{mark}"


def _mask_secret_keys(text: str) -> str | None:
    """JSON ``text`` masked, when an object in it has a key named like a sensitive column
    (``{"password": …}``): that key's value is replaced whole; else None (nothing keyed)."""
    try:
        data = json.loads(text, parse_int=_mask_number, parse_float=_mask_number)
    except (ValueError, RecursionError):
        return None
    if not _has_secret_key(data, 0):
        return None
    return json.dumps(_mask_nested(data, 0), ensure_ascii=False, separators=(",", ":"))


def _has_secret_key(value: Any, depth: int) -> bool:
    if depth >= MAX_DEPTH:
        return True
    if isinstance(value, dict):
        return any(
            (isinstance(k, str) and SENSITIVE_NAME.search(k)) or _has_secret_key(v, depth + 1)
            for k, v in value.items()
        )
    if isinstance(value, list | tuple):
        return any(_has_secret_key(v, depth + 1) for v in value)
    return False


def mask_int(value: int) -> int | str:
    """Mask an integer that is a phone number; leave every other integer alone.

    The rule is deliberately narrow: an integer is masked only when its digits are an 11-digit
    Chinese mobile number (``1[3-9]`` and nine more digits, 13,000,000,000 to 19,999,999,999),
    exactly what the text patterns mask in a string of those digits. It becomes the same masked
    string. Counts, amounts, years and ids of every other length are integers again; so are
    integers shaped like ID or card numbers (ids of those lengths are common and a checksum
    alone would hide too many).

    Example:
        >>> mask_int(13812345678), mask_int(2024), mask_int(12812345678), mask_int(138123456789)
        ('138****5678', 2024, 12812345678, 138123456789)
    """
    if value in _MOBILE_INTS:
        digits = str(value)
        return f"{digits[:3]}****{digits[-4:]}"
    return value


def mask_number(value: float | Decimal) -> float | Decimal | str:
    """Mask a DOUBLE or DECIMAL whose value is a whole phone number (:func:`mask_int`).

    A phone column typed as a number (``DECIMAL(11,0)``, a spreadsheet's DOUBLE) holds the same
    digits with a fraction of zero; any other number, and every number with a fraction, stays.

    Example:
        >>> from decimal import Decimal
        >>> mask_number(13812345678.0), mask_number(Decimal("13812345678.00")), mask_number(2.5)
        ('138****5678', '138****5678', 2.5)
        >>> mask_number(13812345678.5), mask_number(float("nan"))
        (13812345678.5, nan)
    """
    try:
        whole = int(value)
    except (OverflowError, ValueError, ArithmeticError):  # inf, nan
        return value
    if whole != value:
        return value
    masked = mask_int(whole)
    return value if isinstance(masked, int) else masked


def _mask_nested(value: Any, depth: int) -> Any:
    """``value`` masked all the way down; the same object when nothing in it changed."""
    if isinstance(value, str):
        masked = mask_text(value)
        return value if masked == value else masked
    if isinstance(value, bool):  # an int, but never a phone number
        return value
    if isinstance(value, int):
        return mask_int(value)
    if isinstance(value, float | Decimal):
        return mask_number(value)
    if not isinstance(value, list | tuple | dict):
        return value
    if depth >= MAX_DEPTH:
        return "***"
    if isinstance(value, dict):  # a key named like a sensitive column hides its value whole
        pairs = [
            (
                _mask_nested(k, depth + 1),
                "***"
                if v is not None and isinstance(k, str) and SENSITIVE_NAME.search(k)
                else _mask_nested(v, depth + 1),
            )
            for k, v in value.items()
        ]
        same = all(a is k and b is v for (a, b), (k, v) in zip(pairs, value.items(), strict=True))
        return value if same else dict(pairs)
    items = [_mask_nested(v, depth + 1) for v in value]
    if all(a is b for a, b in zip(items, value, strict=True)):
        return value
    return items if isinstance(value, list) else tuple(items)


def mask_value(value: Any, *, whole: bool = False) -> Any:
    """Mask one cell; ``whole`` replaces any non-null value of a sensitive-named column.

    Text is masked with :func:`mask_text`, integers with :func:`mask_int`; lists, tuples and
    dicts (arrays, structs, maps: keys and values) are masked all the way down. A value nested
    deeper than :data:`MAX_DEPTH` is replaced by ``***``.

    Example:
        >>> mask_value("secret-123", whole=True), mask_value(None, whole=True), mask_value(7)
        ('***', None, 7)
        >>> mask_value({"p": [13812345678], "ann@example.com": ("x", 2024)})
        {'p': ['138****5678'], 'a***@example.com': ('x', 2024)}
    """
    if value is None:
        return None
    if whole:
        return "***"
    return _mask_nested(value, 0)


MASK_MARK = re.compile(r"\d\*{4}\d|\d\*{5,11}\d|\w\*\*\*@|\d-\*\*\*-\d")
"""What :func:`mask_text` leaves where it masked a value (``138****5678``, ``a***@x.org``,
``110101********1234``, ``555-***-4567``): a sample value the workspace recorded masked still
shows that its column holds personal data."""


def holds_personal_data(value: Any, depth: int = 0) -> bool:
    """Whether ``value`` holds an e-mail address, a phone, ID or card number that results
    masking would mask in place, or the mark such masking left (:data:`MASK_MARK`).

    Only the patterns count: a JSON key named like a secret (``{"password": …}``) is hidden by
    its name, not by this test, so a JSON column whose other keys are read stays usable.

    Example:
        >>> [holds_personal_data(v) for v in ("call 13812345678 today", "call 138****5678",
        ...     "prefers email", 13812345678, 2024, '{"password": "x"}', ["a@b.org"],
        ...     float("nan"))]
        [True, True, False, True, False, False, True, False]
    """
    if isinstance(value, str):
        return _mask_patterns(value) != value or MASK_MARK.search(value) is not None
    if isinstance(value, bool):
        return False
    if isinstance(value, int):
        return isinstance(mask_int(value), str)
    if isinstance(value, float | Decimal):
        return isinstance(mask_number(value), str)
    if depth >= MAX_DEPTH:
        return False
    if isinstance(value, dict):
        return any(
            holds_personal_data(k, depth + 1) or holds_personal_data(v, depth + 1)
            for k, v in value.items()
        )
    if isinstance(value, list | tuple):
        return any(holds_personal_data(v, depth + 1) for v in value)
    return False


def luhn_valid(digits: str) -> bool:
    """Whether a card number's digits pass the Luhn checksum (an id of the same length rarely
    does: one in ten).

    Example:
        >>> luhn_valid("4111111111111111"), luhn_valid("4111111111111112")
        (True, False)
    """
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = int(ch)
        if i % 2:
            d = d * 2 - 9 if d > 4 else d * 2
        total += d
    return total % 10 == 0
