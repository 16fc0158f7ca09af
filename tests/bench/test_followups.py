"""bench/followups.py: the cue figures of the conversation set, and resolution scoring."""

from __future__ import annotations

import doctest
import json
from collections.abc import Sequence

from tablerag.llm.base import Message
from tablerag.llm.testing import FunctionLLM
from tests.bench import load_script

followups = load_script("followups")
CONVERSATION = {
    "id": "t",
    "turns": [
        {"q": "上月华东的毛利是多少？", "dependent": False},
        {"q": "那华南呢？", "dependent": True, "terms": ["华南", "毛利"], "modifies": True},
        {"q": "按渠道拆开", "dependent": True, "terms": ["渠道", "华南", "毛利"], "modifies": True},
    ],
}


def test_doctests() -> None:
    result = doctest.testmod(followups)
    assert result.attempted >= 1 and result.failed == 0


def test_the_set_has_forty_turns_and_its_cue_figures() -> None:
    conversations = followups.load_conversations(followups.DEFAULT_CASES)
    figures = followups.run(conversations).summary()
    assert figures["turns"] >= 40
    assert figures["cue_precision"] >= 0.9 and figures["cue_recall"] >= 0.9
    assert figures["false_orphan_replies"] == 0
    assert "resolution_accuracy" not in figures  # no model: cues only


def _resolver(standalones: dict[str, str]) -> FunctionLLM:
    def reply(messages: Sequence[Message]) -> str:
        last = messages[-1]["content"].rsplit("The last question: ", 1)[1].strip()
        return json.dumps(
            {"standalone_question": standalones.get(last, last), "modifies_previous_query": True},
            ensure_ascii=False,
        )

    return FunctionLLM(reply)


def test_resolution_accuracy_counts_the_expected_terms() -> None:
    good = _resolver(
        {"那华南呢？": "上月华南的毛利是多少？", "按渠道拆开": "上月华南的毛利按渠道拆开"}
    )
    assert followups.run([CONVERSATION], good).summary()["resolution_accuracy"] == 1.0
    lazy = _resolver({"那华南呢？": "上月华南的毛利是多少？"})  # the second left as asked
    figures = followups.run([CONVERSATION], lazy).summary()
    assert figures["resolution_accuracy"] == 0.5
    assert any("按渠道拆开" in m for m in figures["misses"])
