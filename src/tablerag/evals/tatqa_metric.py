"""The official TAT-QA metric: exact match and numeracy-aware F1, with the scale.

A port of the semantics of ``tatqa_metric.py`` / ``tatqa_utils.py`` (NExTplusplus/TAT-QA, MIT):
gold and predicted answers are each turned into *one* string (spans sorted and joined; a number
rendered as ``%.4f`` of its value rounded to 2 places times its scale, so ``1.5`` million is
``1500000.0000``); the prediction may also be read as a bare number (``add_percent_pred``);
then DROP-style normalisation (lower case, punctuation and articles removed, numbers
normalised) and exact match / bag-of-words F1, the best over the prediction strings. For
arithmetic and count answers F1 equals exact match. A wrong scale makes the numbers differ, so
it is wrong too. The official code's quirks are kept (e.g. ``(3.5)`` reads as -3.5).
"""

from __future__ import annotations

import math
import re
import string
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

_EXCLUDE_IN_NUM = "'\"\\$€£¥%(),[]"
_NUM = re.compile(r"([+-]?\d+(\.\d+)?)|([+-]?\.\d+)")
_ARTICLES = re.compile(r"\b(a|an|the)\b", re.UNICODE)
_PUNCT = set(string.punctuation)


def scale_to_num(scale: str) -> float:
    """The factor of a scale word.

    Example:
        >>> scale_to_num("million"), scale_to_num("percent"), scale_to_num("")
        (1000000, 0.01, 1)
    """
    s = scale.lower()
    for word, factor in (
        ("hundred", 100),
        ("thousand", 1000),
        ("million", 1000000),
        ("billion", 1000000000),
        ("percent", 0.01),
    ):
        if word in s:
            return factor
    return 1


def _clean_num(text: str) -> str:
    return "".join(ch for ch in str(text) if ch not in _EXCLUDE_IN_NUM)


def _extract_one_num(text: str) -> int | float | None:
    groups = _NUM.findall(_clean_num(text))
    if not groups or groups[0][0] == "":
        return None
    num = groups[0][0]
    return float(num) if "." in num else int(num)


def is_number(text: str) -> bool:
    """Whether ``text`` reads as a number, optionally followed by a scale word.

    Example:
        >>> is_number("$1,452.4"), is_number("3.5 million"), is_number("3 apples"), is_number("x")
        (True, True, False, False)
    """
    words = " ".join(_clean_num(w) for w in text.split()).split()
    if not words:
        return False
    try:
        num = float(words[0])
    except ValueError:
        return False
    if math.isnan(num):
        return False
    return not (len(words) >= 2 and scale_to_num(words[1]) == 1)


def to_number(text: str) -> float | None:
    """The value of a number text: scale words, ``(…)`` negatives and percents applied.

    Example:
        >>> to_number("(3.5)"), to_number("12%"), to_number("1.2 million"), to_number("n/a")
        (-3.5, 0.12, 1200000.0, None)
    """
    num = _extract_one_num(text)
    if num is None:
        return None
    scale: float = 1
    for match in re.finditer(r"([\d.]+\s?[a-zA-Z]+)", text):
        scale = scale_to_num(match.group(0).lower())
        break
    negative = -1 if re.findall(r"(\([\d.\s]+\))", text.strip()) else 1
    percent = 0.01 if re.findall(r"([\d.\s]+%)", text.strip()) else 1
    return round(num * scale * negative * percent, 4)


def _remove_punc(text: str) -> str:
    return text if is_number(text) else "".join(ch for ch in text if ch not in _PUNCT)


def _normalize_number(text: str) -> str:
    return str(to_number(text)) if is_number(text) else text


def normalize_answer(text: str) -> str:
    """Lower case, punctuation and articles removed, numbers normalised (per space token).

    Example:
        >>> normalize_answer("The $1,452.4 Fixed-price")
        '1452.4 fixedprice'
    """
    parts = [
        " ".join(_ARTICLES.sub(" ", _normalize_number(_remove_punc(token.lower()))).split())
        for token in text.split(" ")
    ]
    return " ".join(p for p in parts if p.strip()).strip()


def _f1(predicted: set[str], gold: set[str]) -> float:
    common = len(gold & predicted)
    precision = common / len(predicted) if predicted else 1.0
    recall = common / len(gold) if gold else 1.0
    if precision == 0.0 and recall == 0.0:
        return 0.0
    return (2 * precision * recall) / (precision + recall)


def get_metrics(predicted: str, gold: str) -> tuple[float, float]:
    """Exact match and F1 of one predicted string against one gold string.

    (The official code accepts lists here and aligns bags; TAT-QA always passes single
    strings, so the alignment is one bag against one.)

    Example:
        >>> get_metrics("fixed price", "Fixed price")
        (1.0, 1.0)
        >>> get_metrics("cloud revenue", "revenue")
        (0.0, 0.67)
    """
    pred_norm, gold_norm = normalize_answer(predicted), normalize_answer(gold)
    exact = 1.0 if pred_norm == gold_norm else 0.0
    f1 = round(_f1(set(pred_norm.split()), set(gold_norm.split())), 2)
    return exact, f1


def gold_answers(annotation: dict[str, Any]) -> tuple[str, list[str], str]:
    """``(answer_type, gold answer strings, scale)`` of a question's annotation.

    Example:
        >>> gold_answers({"answer_type": "count", "answer": 3.0, "scale": ""})
        ('count', ['3'], '')
    """
    answer_type, scale, content = (
        annotation["answer_type"],
        annotation["scale"],
        annotation["answer"],
    )
    if answer_type in ("multi-span", "span"):
        answers = [str(a) for a in content] if isinstance(content, list) else [str(content)]
    elif answer_type == "count":
        answers = [str(int(content))]
    else:
        answers = [str(content)]
    return answer_type, answers, scale


def answer_string(answers: Sequence[Any], scale: str) -> list[str]:
    """The single string the metric compares: sorted answers, numbers scaled, joined.

    Example:
        >>> answer_string(["1.5"], "million"), answer_string(["12.5"], "percent")
        (['1500000.0000'], ['0.1250'])
        >>> answer_string(["b", "a"], "")
        ['a b']
    """
    parts = []
    for ans in sorted(answers, key=str):
        text = str(ans)
        if is_number(text):
            num = to_number(text)
            if num is None:
                text = f"{text} {scale}" if scale else text
            elif "%" in text:
                text = f"{num:.4f}"
            else:
                text = f"{round(num, 2) * scale_to_num(scale):.4f}"
        elif scale:
            text = f"{text} {scale}"
        parts.append(text)
    return [" ".join(parts)]


def _add_percent_pred(strings: list[str], pred_scale: str, pred: Sequence[Any]) -> list[str]:
    if len(pred) > 1:
        return strings
    text = str(pred[0])
    if not pred_scale and "%" not in text and is_number(text):
        num = to_number(text)
        if num is not None:
            strings.append(f"{num:.4f}")
    return strings


@dataclass(frozen=True)
class TatScore:
    """The official scores of one prediction."""

    em: float
    f1: float
    scale_correct: bool


def tatqa_score(annotation: dict[str, Any], prediction: Any, pred_scale: str) -> TatScore:
    """Score one prediction (a string or a list of strings) with its scale against the gold.

    Args:
        annotation: ``answer``, ``answer_type`` and ``scale`` of the gold.
        prediction: the predicted answer; empty or None scores 0.
        pred_scale: ``""``, ``thousand``, ``million``, ``billion`` or ``percent``.

    Example:
        >>> gold = {"answer": 1452.4, "answer_type": "arithmetic", "scale": "million"}
        >>> tatqa_score(gold, "1452.4", "million")
        TatScore(em=1.0, f1=1.0, scale_correct=True)
        >>> tatqa_score(gold, "1452.4", "")
        TatScore(em=0.0, f1=0.0, scale_correct=False)
    """
    scale_ok = pred_scale == annotation["scale"]
    if not prediction:
        return TatScore(0.0, 0.0, scale_ok)
    gold_type, gold, gold_scale = gold_answers(annotation)
    if not gold:
        return TatScore(0.0, 0.0, scale_ok)
    gold_strings = answer_string(gold, gold_scale)
    pred = prediction if isinstance(prediction, list) else [prediction]
    strings = _add_percent_pred(answer_string(pred, pred_scale), pred_scale, pred)
    em, f1 = max(get_metrics(p, g) for p in strings for g in gold_strings)
    if gold_type in ("arithmetic", "count"):
        f1 = em
    return TatScore(em, f1, scale_ok)
