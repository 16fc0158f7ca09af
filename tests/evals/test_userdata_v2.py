"""The second user-data set (``--set v2``): the same seed writes the same bytes, the files are
as messy as promised, every stored answer equals the one recomputed in plain Python from the
generator's records, and the ``oracle`` method scores 100 % through ``tablerag eval userdata``
(scripted model, no real one)."""

from __future__ import annotations

import io
import json
import time
from collections import Counter
from dataclasses import replace
from pathlib import Path
from typing import Any

import docx
import pytest
from openpyxl import load_workbook

from tablerag.evals.userdata.split import select_part
from tablerag.evals.userdata.task import judge, oracle_text, plain
from tablerag.evals.userdata.v2 import data as v2data
from tablerag.evals.userdata.v2.files import (
    CUSTOMER_FILE,
    RULES,
    TERMS,
    WAYBILLS,
    WORKBOOK,
    write_files,
)
from tablerag.evals.userdata.v2.questions import QUESTIONS
from tablerag.evals.userdata.v2.truth import TRUTH
from tablerag.llm.testing import FunctionLLM
from tablerag.service import QA
from tablerag.settings import Settings
from tests.evals.userdata_helpers import assert_truths_match, results, run_eval

KINDS = {
    "count",
    "sum",
    "average",
    "defined",
    "topk",
    "period",
    "join",
    "clause",
    "prose_number",
    "doc_table",
    "mixed",
    "unanswerable",
}


def test_the_set_holds_forty_bilingual_questions_of_every_kind() -> None:
    assert len(QUESTIONS) >= 40 and len({q.qid for q in QUESTIONS}) == len(QUESTIONS)
    languages = Counter(q.language for q in QUESTIONS)
    assert abs(languages["zh"] - languages["en"]) <= 4
    assert {q.kind for q in QUESTIONS} == KINDS
    for q in QUESTIONS:
        assert q.answerable == bool(q.numbers or q.facts), q.qid
        assert q.answerable == (q.qid in TRUTH), q.qid
        if q.kind in ("clause", "prose_number", "doc_table", "defined", "mixed"):
            assert q.source, q.qid  # the passage a document answer comes from


def test_every_stored_answer_equals_the_truth_recomputed_from_the_records() -> None:
    assert assert_truths_match(QUESTIONS, TRUTH, v2data.build()) == sum(
        q.answerable for q in QUESTIONS
    )


def test_the_document_answers_are_in_the_documents(tmp_path: Path) -> None:
    write_files(tmp_path)
    rules = (tmp_path / RULES).read_text(encoding="utf-8")
    terms = "\n".join(p.text for p in docx.Document(str(tmp_path / TERMS)).paragraphs)
    cells = [
        c.text for t in docx.Document(str(tmp_path / TERMS)).tables for r in t.rows for c in r.cells
    ]
    for phrase in (
        "前24小时",
        "30日内",
        "不纳入医保",
        "主任医师80元",
        "儿科每日限号40个",
        "科室主任签字",
    ):
        assert phrase in rules
    for phrase in ("capped at 50%", "within 7 days", "above 50,000 yuan", "Operations Department"):
        assert phrase in terms
    assert "Express (加急)" in cells and "2" in cells and "10% of the freight" in cells


def test_the_same_seed_writes_the_same_bytes_and_another_seed_does_not(tmp_path: Path) -> None:
    one = write_files(tmp_path / "a")
    time.sleep(1.1)  # a writer that stamps the clock would show here
    two = write_files(tmp_path / "b")
    for a, b in zip(one, two, strict=True):
        assert a.read_bytes() == b.read_bytes(), a.name
    other = write_files(tmp_path / "c", seed=v2data.SEED + 1)
    assert (tmp_path / "c" / WAYBILLS).read_bytes() != (tmp_path / "a" / WAYBILLS).read_bytes()
    assert [p.name for p in other] == [p.name for p in one]


def test_the_files_are_messy_as_promised(tmp_path: Path) -> None:
    write_files(tmp_path)
    waybills = (tmp_path / WAYBILLS).read_bytes()
    with pytest.raises(UnicodeDecodeError):
        waybills.decode("utf-8")
    text = waybills.decode("gbk")
    assert "万," in text and '"1,' in text  # 万 amounts and thousands separators
    assert "年" in text and "/2026" not in text and "2026/" in text and "-0" in text
    assert (tmp_path / CUSTOMER_FILE).read_bytes().startswith(b"\xef\xbb\xbf")
    book = load_workbook(io.BytesIO((tmp_path / WORKBOOK).read_bytes()))
    assert book.sheetnames == ["预约记录", "收费明细", "医生"]
    sheet = book["预约记录"]
    assert "A1" in str(sheet.merged_cells) and sheet["A3"].value == "预约号"
    kinds = {type(c.value).__name__ for c in sheet["D"][3:]}
    assert {"datetime", "str"} <= kinds  # date cells and dates typed as text


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    folder = tmp_path_factory.mktemp("v2") / "run"
    return folder, run_eval(folder, ["--set", "v2", "--part", "all", "--methods", "oracle"])


def test_the_oracle_scores_every_question_of_both_parts(
    run: tuple[Path, dict[str, Any]],
) -> None:
    folder, summary = run
    assert summary["set"] == "v2" and summary["today"] == v2data.TODAY.isoformat()
    assert summary["methods"]["oracle"]["accuracy"] == 1.0
    assert summary["cases"] == len(QUESTIONS)
    assert {r["case_id"] for r in results(folder)} == {q.qid for q in QUESTIONS}
    ingested = (folder / "workspace" / ".userdata-ingested").read_text(encoding="utf-8")
    for name in (WORKBOOK, RULES, WAYBILLS, CUSTOMER_FILE, TERMS):
        assert f"{name}: added" in ingested


def test_gold_sql_on_the_ingested_files_gives_every_truth(
    run: tuple[Path, dict[str, Any]],
) -> None:
    workspace = run[0] / "workspace"
    llm = FunctionLLM(lambda _: "")
    with QA.open(workspace, llm=llm, settings=Settings(embedder="hashing")) as qa:
        engine = qa.engine
        assert engine is not None
        checked = 0
        for q in QUESTIONS:
            if not q.sql:
                continue
            gold = replace(q, numbers=q.numbers[:1], facts=()) if q.kind == "mixed" else q
            rows = [list(r) for r in engine.execute(q.sql).rows]
            text = json.dumps(rows, ensure_ascii=False, default=str)
            assert judge(gold, text, "ok") == (True, ""), (q.qid, rows)
            checked += 1
    data_kinds = ("count", "sum", "average", "defined", "topk", "period", "join", "mixed")
    assert checked == sum(q.kind in data_kinds for q in QUESTIONS) + 1  # + the Word table's


def test_the_default_part_is_dev_and_the_judge_rejects_a_wrong_figure(tmp_path: Path) -> None:
    summary = run_eval(tmp_path / "dev", ["--set", "v2", "--methods", "oracle"])
    assert summary["part"] == "dev" and summary["cases"] == len(select_part(QUESTIONS, "dev"))
    for q in QUESTIONS:
        assert judge(q, oracle_text(q), "ok") == (True, ""), q.qid
        if q.numbers:  # the same answer with its first figure off by 3 % is wrong
            off = replace(q, facts=(), numbers=((q.numbers[0][0] * 1.03 + 1,), *q.numbers[1:]))
            text = oracle_text(off) + "; " + "; ".join(f[0] for f in q.facts)
            assert judge(q, text, "ok")[0] is False, q.qid
        if q.facts:
            assert judge(q, "; ".join(plain(g[0]) for g in q.numbers), "ok")[0] is False, q.qid
