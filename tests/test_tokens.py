"""The token estimate: 1 per CJK character, 1.3 per other word, rounded up."""

from __future__ import annotations

import pytest

from tablerag.tokens import count_tokens


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("", 0),
        ("   \n\t ", 0),
        ("差旅费报销标准", 7),
        ("，。！？「」", 6),  # CJK and full-width punctuation count one each
        ("ひらがな カタカナ", 8),
        ("word", 2),  # ceil(1.3)
        ("ten words " * 5, 13),  # 10 words * 1.3
        ("revenue=1,234.5 (USD)", 3),  # two words: 'revenue=1,234.5' and '(USD)'
        ("2024年华东区revenue增长3.5%", 6 + 4),  # 6 Han + ceil(3 words * 1.3)
    ],
)
def test_count_tokens(text: str, expected: int) -> None:
    assert count_tokens(text) == expected


def test_grows_with_text_and_is_roughly_additive() -> None:
    a, b = "住宿费按城市标准报销。" * 7, "Hotels are paid up to the limit. " * 9
    assert count_tokens(a + b) >= max(count_tokens(a), count_tokens(b))
    assert abs(count_tokens(a + " " + b) - count_tokens(a) - count_tokens(b)) <= 1
