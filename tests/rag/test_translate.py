"""A question asked in the other language than the documents: translated for the search only
when its own words find nothing (issue 29: document questions answered "not found" while the
passage was there)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest

from tablerag.llm.base import Message
from tablerag.llm.testing import FunctionLLM
from tablerag.service import QA, Workspace
from tablerag.settings import Settings

HANDBOOK = """# 学员手册

## 第一章 总则

第一条 本手册适用于本校全部学员。

第二条 出勤率 = 出勤次数 ÷ 应到次数。

## 第二章 考勤

第三条 学员出勤率不低于80%且结业考试合格的，颁发结业证书。

## 第三章 报名与退费

第五条 开课前30天以上报名的学员享受早鸟优惠，学费按九折收取。

第六条 每个教学班的班额不超过30人。

第七条 开课前申请退学的，全额退还学费；开课后7日内申请退学的，退还所缴学费的70%。

## 第四章 证书与补贴

第八条 取得结业证书的学员，可在结业之日起90天内申请政府职业技能培训补贴。

第九条 结业证书遗失的，可申请补办，补办费50元，5个工作日内办结。

## 第五章 附则

第十条 本手册由学校教务处负责解释。
"""

ASKED = "Within how many days after graduation can a student apply for the training subsidy?"


def _reply(messages: Sequence[Message]) -> str:
    system = messages[0]["content"]
    if system.startswith("Translate the question"):
        return "结业后多少天内可以申请培训补贴？"
    if "numbered passages" in system:
        return "Within 90 days of graduation [1]."
    return "NOT_FOUND"


@pytest.fixture
def chinese_ws(tmp_path: Path) -> Path:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "学员手册.md").write_text(HANDBOOK, encoding="utf-8")
    with Workspace.open(tmp_path / "ws") as ws:
        ws.ingest([docs], settings=Settings(embedder="hashing"))
    return tmp_path / "ws"


def test_an_english_question_finds_the_chinese_clause_through_its_translation(
    chinese_ws: Path,
) -> None:
    llm = FunctionLLM(_reply)
    with QA.open(chinese_ws, llm=llm) as qa:
        answer = qa.ask(ASKED)
    assert answer.status == "ok" and "90" in answer.answer
    assert any("90天内" in c.snippet for c in answer.citations)
    asked = [c.messages[0]["content"][:22] for c in llm.history]
    assert asked[0] == "Translate the question"  # once, before the document answer
    assert sum(a == "Translate the question" for a in asked) == 1


def test_without_searching_across_languages_the_clause_is_not_found(chinese_ws: Path) -> None:
    llm = FunctionLLM(_reply)
    settings = Settings(embedder="hashing", retrieval_across_languages=False)
    with QA.open(chinese_ws, llm=llm, settings=settings) as qa:
        answer = qa.ask(ASKED)
    assert answer.status != "ok" and not answer.citations
    assert not any(c.messages[0]["content"].startswith("Translate") for c in llm.history)


def test_a_question_its_own_language_answers_costs_no_translation(chinese_ws: Path) -> None:
    llm = FunctionLLM(_reply)
    with QA.open(chinese_ws, llm=llm) as qa:
        answer = qa.ask("结业证书遗失后补办需要几个工作日？")
    assert answer.citations
    assert not any(c.messages[0]["content"].startswith("Translate") for c in llm.history)


def test_a_reply_that_is_not_a_translation_is_not_searched(chinese_ws: Path) -> None:
    def garbage(messages: Sequence[Message]) -> str:
        if messages[0]["content"].startswith("Translate the question"):
            return "Sure, here is the translation you asked for"
        return _reply(messages)

    with QA.open(chinese_ws, llm=FunctionLLM(garbage)) as qa:
        answer = qa.ask(ASKED)
    assert answer.status != "ok" and not answer.citations


INSTRUCTORS = """# Instructor handbook

Instructors may not apply for the training subsidy on behalf of a student. Every student
applies in person after graduation.

Lead instructors are paid 180 yuan per teaching hour.
"""


def _reads(messages: Sequence[Message]) -> str:
    system, user = messages[0]["content"], messages[-1]["content"]
    if system.startswith("Translate the question"):
        return "结业后多少天内可以申请培训补贴？"
    if "numbered passages" in system:
        return "Within 90 days of graduation [1]." if "90天内" in user else "NOT_FOUND"
    return "NOT_FOUND"


def test_not_found_in_the_own_language_is_asked_again_over_the_translation(
    chinese_ws: Path, tmp_path: Path
) -> None:
    docs = tmp_path / "more"
    docs.mkdir()
    (docs / "instructors.md").write_text(INSTRUCTORS, encoding="utf-8")
    with Workspace.open(chinese_ws, create=False) as ws:
        ws.ingest([docs], settings=Settings(embedder="hashing"))
    llm = FunctionLLM(_reads)
    with QA.open(chinese_ws, llm=llm) as qa:
        answer = qa.ask(ASKED)
    assert answer.status == "ok" and "90" in answer.answer
    asked = [c.messages[0]["content"][:22] for c in llm.history]
    assert asked.count("Translate the question") == 1
    # the English passages were relevant enough to be read first, then the retry answered
    assert sum("numbered passages" in c.messages[0]["content"] for c in llm.history) == 2
