"""The official TAT-QA metric on hand-checked cases (values worked out from the official rules)."""

from __future__ import annotations

import pytest

from tablerag.evals.tatqa_metric import answer_string, normalize_answer, tatqa_score


def gold(answer: object, kind: str, scale: str = "") -> dict[str, object]:
    return {"answer": answer, "answer_type": kind, "scale": scale}


@pytest.mark.parametrize(
    ("annotation", "prediction", "scale", "em", "f1"),
    [
        pytest.param(gold(["Fixed Price"], "span"), "fixed price.", "", 1.0, 1.0, id="span-case"),
        pytest.param(
            gold(["the effects of the merger"], "span"),
            "merger effects",
            "",
            0.0,
            0.8,
            id="span-f1",
        ),
        pytest.param(
            gold(["2019", "2018"], "multi-span"),
            ["2018", "2019"],
            "",
            1.0,
            1.0,
            id="multi-span-order",
        ),
        pytest.param(gold(["x", "y"], "multi-span"), "x", "", 0.0, 0.67, id="multi-span-partial"),
        pytest.param(gold(["a", "b"], "multi-span"), "a", "", 0.0, 0.0, id="article-a-is-dropped"),
        pytest.param(
            gold(12.5, "arithmetic", "percent"), "12.5%", "percent", 1.0, 1.0, id="percent-sign"
        ),
        pytest.param(
            gold(12.5, "arithmetic", "percent"), "12.5", "percent", 1.0, 1.0, id="percent-scale"
        ),
        pytest.param(
            gold(12.5, "arithmetic", "percent"), "0.125", "", 1.0, 1.0, id="ratio-read-as-percent"
        ),
        pytest.param(
            gold(12.5, "arithmetic", "percent"), "12.5", "", 0.0, 0.0, id="percent-without-scale"
        ),
        pytest.param(
            gold(1452.4, "arithmetic", "million"), "1,452.4", "thousand", 0.0, 0.0, id="wrong-scale"
        ),
        pytest.param(
            gold(-3.5, "arithmetic", "million"),
            "(3.5)",
            "million",
            1.0,
            1.0,
            id="parentheses-negative",
        ),
        pytest.param(gold(3.0, "count"), "3", "", 1.0, 1.0, id="count"),
        pytest.param(gold(251.9, "arithmetic"), "251.87", "", 0.0, 0.0, id="arithmetic-no-f1"),
        pytest.param(gold(["x"], "span"), "", "", 0.0, 0.0, id="empty-prediction"),
    ],
)
def test_official_semantics(
    annotation: dict[str, object], prediction: object, scale: str, em: float, f1: float
) -> None:
    score = tatqa_score(annotation, prediction, scale)
    assert (score.em, score.f1) == (em, f1)


def test_numbers_are_rendered_with_their_scale_and_sorted() -> None:
    assert answer_string(["1.5"], "million") == ["1500000.0000"]
    assert answer_string(["b", "a 2"], "thousand") == ["a 2 thousand b thousand"]
    assert normalize_answer("The $1,452.4") == "1452.4"


def test_scale_correctness_is_reported() -> None:
    assert tatqa_score(gold(3, "arithmetic", "million"), "3", "million").scale_correct
    assert not tatqa_score(gold(3, "arithmetic", "million"), "3", "").scale_correct
