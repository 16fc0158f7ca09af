"""Column names and short comments that mark a column sensitive come from a data file, in Chinese
and English, without hiding the plain columns around them (issue 28)."""

from __future__ import annotations

import json
from importlib import resources

import pytest

from tablerag.sql.sensitive import SENSITIVE_NAME, is_hidden, is_sensitive_column
from tablerag.types import ColumnInfo

HIDDEN_BY_NAME = [
    # the gaps
    "address", "联系地址", "住址", "home_address", "birthday", "birth_date", "生日", "出生日期",
    "银行账号", "银行卡号", "bank_account", "bankAccountNo", "pass", "user_pass", "real_name",
    "realName", "真实姓名",
    # what was hidden before stays hidden
    "password", "user_password", "pwd", "api_key", "secret_pin", "phone", "mobile", "email",
    "e_mail", "id_card", "身份证号", "手机号", "dob", "ssn", "tel", "iban", "card_no",
    "credit_card_number", "passport_no", "salt", "token",
]  # fmt: skip

SHOWN = [
    # plain columns that share a word or a piece with a sensitive one
    "passenger_count", "passengers", "bypass_flag", "address_count", "birthday_month_sales",
    "phone_count", "has_phone", "email_verified", "is_email_verified", "tokens_used",
    "地址数量", "hotel", "telescope", "city", "amount", "order_id", "name", "id_no",
    "pass_rate", "cardinality",
]  # fmt: skip


@pytest.mark.parametrize("name", HIDDEN_BY_NAME)
def test_a_sensitive_name_hides_its_column(name: str) -> None:
    assert SENSITIVE_NAME.search(name), name
    assert is_hidden("t", ColumnInfo(name, "VARCHAR"))


@pytest.mark.parametrize("name", SHOWN)
def test_a_plain_name_is_not_hidden(name: str) -> None:
    assert not SENSITIVE_NAME.search(name), name
    assert not is_hidden("t", ColumnInfo(name, "VARCHAR", samples=("17", "23")))


@pytest.mark.parametrize(
    ("comment", "hidden"),
    [
        ("身份证号", True),
        ("ID card number", True),
        ("客户手机", True),
        ("Real name", True),
        ("订单编号", False),
        ("Internal order number", False),
        # a long description is prose about the column, not a label of it
        ("The number of the order; the customer's phone and address are in customers.", False),
    ],
)
def test_a_short_comment_labels_its_column(comment: str, hidden: bool) -> None:
    column = ColumnInfo("id_no", "VARCHAR", description=comment, samples=("A17", "B23"))
    assert is_sensitive_column(column) is hidden


def test_the_terms_are_data_not_code() -> None:
    """The terms live in the packaged data file: every category is read from it."""
    text = resources.files("tablerag.sql").joinpath("sensitive_names.json").read_text("utf-8")
    data = json.loads(text)
    assert {"always", "personal", "measures"} <= data.keys()
    assert "银行账号" in data["personal"]["contains"] and "pass" in data["personal"]["words"]


def test_a_measure_word_does_not_unhide_a_secret() -> None:
    """``measures`` only spare personal data: a password's hash count is still a secret."""
    assert SENSITIVE_NAME.search("password_count") and SENSITIVE_NAME.search("pwd_total")
