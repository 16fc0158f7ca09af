"""Tokenization for BM25 and the script check of queries."""

from __future__ import annotations

import pytest

from tablerag.lang.tokenize import light_stem, scripts, tokenize, unsupported_script


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param("退货后多久可以换货", ["退货", "后", "多久", "换货"], id="zh-question"),
        pytest.param("What is the REFUND policy?", ["refund", "polici"], id="en-lower-stem"),
        pytest.param(
            "华东地区 revenue 2024年",
            ["华东", "地区", "华东地区", "revenue", "2024", "年"],  # search mode: parts + whole
            id="mixed",
        ),
        pytest.param("Refunds take 14 days.", ["refund", "take", "14", "day"], id="trailing-dot"),
        pytest.param("e-mail c++ 3.5%", ["e-mail", "c++", "3.5%"], id="joined-symbols"),
        pytest.param("的 the 了 ！？", [], id="only-stopwords"),
    ],
)
def test_tokenize(text: str, expected: list[str]) -> None:
    assert tokenize(text) == expected


def test_query_and_passage_forms_agree() -> None:
    assert set(tokenize("cookies and policies")) <= set(tokenize("A cookie policy."))
    # search mode also emits the parts of long words, so a short query still matches
    assert "退货" in tokenize("无理由退货政策")


@pytest.mark.parametrize(
    ("plural", "singular"),
    [("companies", "company"), ("boxes", "box"), ("addresses", "address"), ("cards", "card")],
)
def test_light_stem_folds_plurals(plural: str, singular: str) -> None:
    assert light_stem(plural) == light_stem(singular)


def test_scripts_and_unsupported() -> None:
    assert scripts("abc 退货 123") == {"LATIN": 3, "CJK": 2}
    assert unsupported_script("Сколько дней на возврат?") == "CYRILLIC"
    assert unsupported_script("へんぴんはなんにちいないですか") == "HIRAGANA"
    assert unsupported_script("返品は何日以内ですか") is None  # mostly Han: searchable
    assert unsupported_script("2024") is None
    assert unsupported_script("refund Возврат policy") is None  # mostly Latin
