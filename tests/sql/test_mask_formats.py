"""Phone and ID formats with separators and country codes are masked; ordinary numbers are not
(issue 28). Both ways, in text, numbers of every type, and engine error messages."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest

from tablerag.sql.engines.scrub import scrub_message
from tablerag.sql.exposed import ExposedCatalog
from tablerag.sql.mask import mask_rows, mask_text, mask_value


@pytest.mark.parametrize(
    ("text", "masked", "secret"),
    [
        ("+86 139 1234 5678", "+86 139****5678", "1234"),
        ("+8613912345678", "+86139****5678", "12345678"),
        ("(+86) 139-1234-5678", "(+86) 139****5678", "1234"),
        ("139-1234-5678", "139****5678", "1234"),
        ("139 1234 5678", "139****5678", "1234"),
        ("(010) 6552-1234", "(010) ****1234", "6552"),
        ("010-65521234", "010-****1234", "6552"),
        ("0755 2345 6789", "0755 ****6789", "2345"),
        ("110101 19900307 123X", "110101********123X", "19900307"),
        ("110101-1990-0307-123x", "110101********123x", "1990"),
        ("110101199003071234", "110101********1234", "19900307"),
        ("(555) 123-4567", "555-***-4567", "123-"),
    ],
)
def test_phone_and_id_formats_are_masked(text: str, masked: str, secret: str) -> None:
    out = mask_text(f"call {text} today")
    assert out == f"call {masked} today"
    assert secret not in out


@pytest.mark.parametrize(
    "text",
    [
        "order 2024-05-01 total 12345",
        "amount 1,234,567.89 CNY",
        "years 2019-2024, Q3 2024",
        "order ORD-2024-000123 and id 20240501123456",
        "invoice 0001-2024-0001",
        "ts 20240501 120000",
        "price 139.50, qty 1391234",
        "range 100-2000-3000",
        "order_no 202405010001",
        "ISBN 978-7-111-12345-6",
        "2024-1391-2345",
    ],
)
def test_ordinary_numbers_are_not_masked(text: str) -> None:
    assert mask_text(text) == text


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (13912345678.0, "139****5678"),
        (Decimal("13912345678"), "139****5678"),
        (Decimal("13912345678.000"), "139****5678"),
        (13912345678, "139****5678"),
        (2024.0, 2024.0),
        (Decimal("139.50"), Decimal("139.50")),
        (13912345678.25, 13912345678.25),
        (202405010001, 202405010001),
        (Decimal("1234567.89"), Decimal("1234567.89")),
    ],
)
def test_numbers_of_every_type_are_masked_only_when_a_phone(value: Any, expected: Any) -> None:
    assert mask_value(value) == expected
    rows, _ = mask_rows(["amount"], [(value,)])
    assert rows[0][0] == expected


CATALOG = ExposedCatalog.from_mapping({"people": ["id", "note"]})


@pytest.mark.parametrize(
    "message",
    [
        "Conversion Error: Could not convert string 'Ann Lee' to INT32 when casting from "
        "source column note\n\nLINE 1: SELECT CAST(note AS INT) FROM people",
        'invalid input syntax for type integer: "Ann Lee"',
        'invalid input value for enum mood: "Ann Lee"',
        "(1292, \"Truncated incorrect INTEGER value: 'Ann Lee'\")",
        "(1366, \"Incorrect integer value: 'Ann Lee' for column 'n' at row 1\")",
        'Invalid Input Error: Could not parse string "Ann Lee" according to format '
        'specifier "%Y"\nAnn Lee\n^\nError: Expected a number',
        "Conversion Error: Malformed JSON at byte 0 of input: unexpected character.  "
        'Input: "Ann Lee" when casting',
    ],
)
def test_engine_errors_quote_no_cell_value(message: str) -> None:
    scrubbed = scrub_message(message, CATALOG)
    assert "Ann Lee" not in scrubbed and "<value>" in scrubbed, scrubbed


def test_engine_errors_mask_what_they_still_say() -> None:
    scrubbed = scrub_message("Binder Error: no match for 139-1234-5678 in people", CATALOG)
    assert scrubbed == "Binder Error: no match for 139****5678 in people"
    kept = 'Binder Error: Referenced column "nosuch" not found!\nCandidate bindings: "note"'
    assert scrub_message(kept, CATALOG) == kept  # names are not values
