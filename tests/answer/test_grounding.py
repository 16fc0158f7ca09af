"""Grounding: numbers in an answer must come from the rows, a passage or the question."""

from __future__ import annotations

from decimal import Decimal

import pytest

from tablerag.answer.grounding import numbers_in, source_values, ungrounded_numbers


def test_numbers_are_read_with_separators_signs_percent_and_chinese_units() -> None:
    found = numbers_in("净额 -1,234.50 元，占比 12.5％，约 3.2亿，见 [1][2]")
    assert [(n.text, n.value, n.places, n.percent) for n in found] == [
        ("-1,234.50", Decimal("-1234.50"), 2, False),
        ("12.5％", Decimal("12.5"), 1, True),
        ("3.2亿", Decimal("3.2"), 1, False),
    ]
    assert found[2].scale == Decimal(100_000_000)


def test_numbers_inside_words_and_codes_are_not_taken_apart() -> None:
    assert [n.text for n in numbers_in("order SO26000809 in 2026-10")] == ["2026", "10"]


@pytest.mark.parametrize(
    ("answer", "sources"),
    [
        ("华东毛利 1,234.57 元", [Decimal("1234.5678")]),  # rounded to the answer's precision
        ("退货率 12.3%", [0.1234]),  # percent of a ratio
        ("退货率 12.34%", ["12.34"]),  # percent written in a passage
        ("合计约 1.2万 元", [12_000]),  # ten-thousands
        ("2026-10 的订单 35 笔", ["2026-10", 35]),
        ("Refunds within 14 days [2].", ["Refunds are issued within 14 days."]),
        ("处理如下：\n1. 观察名单\n2、 暂停促销\n- 下架", []),  # list markers are no numbers
    ],
)
def test_grounded_numbers_pass(answer: str, sources: list[object]) -> None:
    assert ungrounded_numbers(answer, sources) == []


@pytest.mark.parametrize(
    ("answer", "sources", "flagged"),
    [
        ("华东毛利 1,300 元", [1234.5678], ["1,300"]),
        ("There are 153 refunds.", [152], ["153"]),
        ("增长 15%，达到 200", [0.12, 200], ["15%"]),
        ("约 2万 元", [12_000], ["2万"]),
    ],
)
def test_foreign_numbers_are_flagged(
    answer: str, sources: list[object], flagged: list[str]
) -> None:
    assert ungrounded_numbers(answer, sources) == flagged


def test_source_values_skip_nulls_and_booleans_and_parse_text() -> None:
    assert source_values([None, True, "a 3.5 b", 7]) == [Decimal("3.5"), Decimal(7)]
