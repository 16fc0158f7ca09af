"""Mask personal data in query results before the model or the user sees them."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from tablerag.sql.sensitive import SENSITIVE_NAME

_EMAIL = re.compile(r"([\w.+-])[\w.+-]*(@[\w-]+(?:\.[\w-]+)+)")
_CN_ID = re.compile(r"(?<!\d)(\d{6})\d{8}(\d{3}[\dXx])(?!\d)")
_CARD = re.compile(r"(?<!\d)\d(?:[ -]?\d){12,18}(?!\d)")
_MOBILE = re.compile(r"(?<!\d)(1[3-9]\d)\d{4}(\d{4})(?!\d)")
_PHONE = re.compile(r"(?<!\d)(\+?\d{1,3}[ -])?\(?(\d{3})\)?[ -](\d{3})[ -](\d{4})(?!\d)")


def _luhn(digits: str) -> bool:
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = int(ch)
        if i % 2:
            d = d * 2 - 9 if d > 4 else d * 2
        total += d
    return total % 10 == 0


def _card(match: re.Match[str]) -> str:
    digits = re.sub(r"\D", "", match.group())
    if not 13 <= len(digits) <= 19 or not _luhn(digits):
        return match.group()
    return f"{digits[:4]}{'*' * (len(digits) - 8)}{digits[-4:]}"


def mask_text(text: str) -> str:
    """Mask e-mail addresses, Chinese ID numbers, card numbers and phone numbers in ``text``.

    Example:
        >>> mask_text("call 13812345678 or mail ann.lee@example.com")
        'call 138****5678 or mail a***@example.com'
        >>> mask_text("ID 110101199003071234, card 4111 1111 1111 1111")
        'ID 110101********1234, card 4111********1111'
        >>> mask_text("order 2024-05-01 total 12345")
        'order 2024-05-01 total 12345'
    """
    text = _EMAIL.sub(lambda m: f"{m.group(1)}***{m.group(2)}", text)
    text = _CN_ID.sub(lambda m: f"{m.group(1)}********{m.group(2)[-4:]}", text)
    text = _CARD.sub(_card, text)
    text = _MOBILE.sub(lambda m: f"{m.group(1)}****{m.group(2)}", text)
    return _PHONE.sub(lambda m: f"{m.group(1) or ''}{m.group(2)}-***-{m.group(4)}", text)


def mask_value(value: Any, *, whole: bool = False) -> Any:
    """Mask one cell; ``whole`` replaces any non-null value of a sensitive-named column.

    Example:
        >>> mask_value("secret-123", whole=True), mask_value(None, whole=True), mask_value(7)
        ('***', None, 7)
    """
    if value is None:
        return None
    if whole:
        return "***"
    return mask_text(value) if isinstance(value, str) else value


def mask_rows(
    columns: Sequence[str], rows: Sequence[Sequence[Any]]
) -> tuple[tuple[tuple[Any, ...], ...], tuple[str, ...]]:
    """Mask personal data in ``rows``; return the rows and the columns where something changed.

    Columns whose name marks them sensitive (``phone``, ``身份证``...) are replaced whole;
    other text cells have e-mails, ID, card and phone numbers masked in place.

    Example:
        >>> mask_rows(["name", "mobile"], [("Ann", "13812345678")])
        ((('Ann', '***'),), ('mobile',))
    """
    whole = [bool(SENSITIVE_NAME.search(c)) for c in columns]
    changed: set[int] = set()
    out = []
    for row in rows:
        new = tuple(mask_value(v, whole=w) for v, w in zip(row, whole, strict=True))
        changed.update(i for i, (a, b) in enumerate(zip(row, new, strict=True)) if a != b)
        out.append(new)
    return tuple(out), tuple(columns[i] for i in sorted(changed))
