"""WikiTQ denotation accuracy on hand-checked cases of the official evaluator's rules."""

from __future__ import annotations

import pytest

from tablerag.evals.wikitq_metric import (
    denotation_match,
    normalize,
    split_target,
    to_value,
    to_value_list,
)


@pytest.mark.parametrize(
    ("predicted", "target", "expected"),
    [
        pytest.param(["2"], ["2"], True, id="same-number"),
        pytest.param(["2.0"], ["2"], True, id="2.0-is-2"),
        pytest.param(["2.0000001"], ["2"], True, id="within-1e-6"),
        pytest.param(["2.1"], ["2"], False, id="other-number"),
        pytest.param(["1,000"], ["1000"], False, id="thousands-separator-is-a-string"),
        pytest.param(["1990"], ["1990-xx-xx"], True, id="year-only-date-is-a-number"),
        pytest.param(["2012-07-04"], ["2012-7-4"], True, id="same-date-other-spelling"),
        pytest.param(["2012-07-05"], ["2012-07-04"], False, id="other-day"),
        pytest.param(["xx-07-04"], ["2012-07-04"], False, id="unknown-year-differs"),
        pytest.param(["ITALY"], ["Italy"], True, id="case"),
        pytest.param(["Italy."], ["Italy"], True, id="trailing-full-stop"),
        pytest.param(["Italy!"], ["Italy"], False, id="other-punctuation-kept"),
        pytest.param(["Italy [1]"], ["Italy"], True, id="citation"),
        pytest.param(["Italy (ITA)"], ["Italy"], True, id="trailing-parenthesis"),
        pytest.param(['"Italy"'], ["Italy"], True, id="outer-quotes"),
        pytest.param(["São Paulo"], ["Sao Paulo"], True, id="accents"),
        pytest.param(["1990–1995"], ["1990-1995"], True, id="en-dash"),
        pytest.param(["  New   York "], ["new york"], True, id="whitespace"),
        pytest.param(["b", "a"], ["a", "b"], True, id="set-order"),
        pytest.param(["a"], ["a", "b"], False, id="missing-item"),
        pytest.param(["a", "b", "c"], ["a", "b"], False, id="extra-item"),
        pytest.param(["a", "A"], ["a"], True, id="duplicates-collapse"),
        pytest.param(["17"], ["17 years"], False, id="raw-target-with-unit-is-a-string"),
        pytest.param([], ["a"], False, id="empty-prediction"),
    ],
)
def test_denotation_match(predicted: list[str], target: list[str], expected: bool) -> None:
    assert denotation_match(predicted, target) is expected


def test_normalize_loops_until_stable() -> None:
    # citation, then parenthesis, then quotes: each removal exposes the next
    assert normalize('"Rome" (city) [2]') == "rome"
    assert normalize("(1)") == "(1)"  # a parenthesis at the start is kept
    assert normalize("") == ""


def test_values_and_their_identity() -> None:
    assert to_value("12").amount == 12 and to_value("12").kind == "number"
    assert to_value("1e3").amount == 1000
    assert to_value("nan").kind == "string" and to_value("inf").kind == "string"
    assert to_value("1_000").kind == "string"  # Python 2's int() refused underscores
    assert to_value("2010-02-30").kind == "date"  # day <= 31 is all the evaluator checks
    assert to_value("2010-13-01").kind == "string"
    assert len(to_value_list(["2", "2.0", "02"])) == 1


def test_split_target_unescapes() -> None:
    assert split_target(r"Italy|Spain") == ["Italy", "Spain"]
    assert split_target(r"AC\pDC") == ["AC|DC"]
    assert split_target(r"a\\b") == ["a\\b"]
    assert split_target(r"line\nbreak") == ["line\nbreak"]
