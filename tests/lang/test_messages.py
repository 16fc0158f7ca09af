"""The user-facing messages and the metric-name pairs, read from lang/*.json."""

from __future__ import annotations

import re
from pathlib import Path
from typing import get_args

import pytest

import tablerag
from tablerag.errors import ConfigError
from tablerag.lang.messages import (
    LANGUAGES,
    load_messages,
    message,
    placeholders,
    templates,
    term_pairs,
)
from tablerag.nl2sql.checks import FindingCode

SRC = Path(tablerag.__file__).parent
#: A message id written literally in the source, ``message("rag.not_found", …)``.
_USE = re.compile(r"""\b(?:message|templates)\(\s*["']([\w.]+)["']""")
#: An id a finding carries: ``message="…"``, ``UNSURE = "…"``, the loop's ``_lead(code, "…")``.
_FINDING = re.compile(r"""(?:\bmessage=|\bUNSURE = |\b_lead\(\s*["']\w+["'],\s*)["']([\w.]+)["']""")
#: The document answer's findings, ``_doubt("off_subject", …)``: message ``rag.<code>``.
_RAG = re.compile(r"""\b_doubt\(\s*["'](\w+)["']""")
#: Ids the source names through a constant rather than literally.
_BY_CONSTANT = {
    f"checks.{code}"
    for code in get_args(FindingCode)  # Finding.says: one per finding code
}
KEYS = sorted(load_messages())


@pytest.mark.parametrize("key", KEYS)
def test_every_message_has_both_languages_with_the_same_placeholders(key: str) -> None:
    texts = templates(key)
    assert tuple(texts) == LANGUAGES
    assert all(text.strip() for text in texts.values())
    assert placeholders(texts["zh"]) == placeholders(texts["en"])


def test_a_message_is_rendered_with_its_values() -> None:
    assert (
        message("nl2sql.no_sql", "zh", n=3)
        == "无法为这个问题生成可执行的 SQL 查询（共尝试 3 次）。"
    )
    assert message("rag.ungrounded", "en", numbers="12, 7") == (
        "(Note: these numbers are not in the cited passages or the question: 12, 7)"
    )
    assert message("hybrid.data_label", "en") == "[data] "


def test_an_unknown_key_fails_with_the_closest_name() -> None:
    with pytest.raises(ConfigError, match=r"Unknown message 'rag.not_fund'.*'rag.not_found'"):
        message("rag.not_fund", "en")


def test_a_missing_value_fails_with_its_name() -> None:
    with pytest.raises(ConfigError, match="needs a value for factor, value"):
        message("checks.scale_jump", "en", column="amount")


def test_every_message_the_source_names_exists_and_every_message_is_used() -> None:
    texts = [path.read_text("utf-8") for path in SRC.rglob("*.py")]
    used = {key for text in texts for pattern in (_USE, _FINDING) for key in pattern.findall(text)}
    used |= {f"rag.{code}" for code in _RAG.findall((SRC / "rag" / "answer.py").read_text())}
    used |= _BY_CONSTANT
    assert used - set(KEYS) == set()
    assert set(KEYS) - used == set()


def test_term_pairs_name_one_metric_in_english_and_chinese() -> None:
    pairs = term_pairs()
    assert ("return rate", "退货率") in pairs
    assert len(set(pairs)) == len(pairs)
    for english, chinese in pairs:
        assert " " in english and english == english.lower()  # multi-word: see terms.json notes
        assert re.fullmatch(r"[\u4e00-\u9fff]+", chinese)


def test_the_files_are_read_once() -> None:
    assert load_messages() is load_messages()
    assert term_pairs() is term_pairs()
