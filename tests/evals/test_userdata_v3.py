"""The third user-data set (``--set v3``): the same seed writes the same bytes, the files are as
messy as promised, every stored answer equals the one recomputed in plain Python from the
generator's records and the gold SQL gives it on the ingested files, each document question's
passage is a chunk of the workspace, and ``tablerag eval userdata`` runs it end to end (scripted
model, no real one)."""

from __future__ import annotations

import io
import json
import shutil
import time
from collections import Counter
from dataclasses import replace
from pathlib import Path
from typing import Any

import docx
import pytest
from openpyxl import load_workbook

from tablerag.evals.userdata.passages import gold_chunks, squeeze
from tablerag.evals.userdata.split import select_part
from tablerag.evals.userdata.task import judge, oracle_text
from tablerag.evals.userdata.v3 import data as v3data
from tablerag.evals.userdata.v3.files import (
    ATTENDANCE_FILE,
    HANDBOOK,
    INSTRUCTORS,
    WORKBOOK,
    write_files,
)
from tablerag.evals.userdata.v3.questions import QUESTIONS
from tablerag.evals.userdata.v3.truth import TRUTH
from tablerag.llm.testing import FunctionLLM
from tablerag.service import QA
from tablerag.settings import Settings
from tests.evals.userdata_helpers import assert_truths_match, results, run_eval

DOCUMENT_ONLY = {"clause", "prose_number", "doc_table", "yes_no"}
DATA = {"count", "sum", "average", "defined", "topk", "period", "join", "mixed"}


def test_the_set_holds_bilingual_questions_of_every_kind_the_issue_asks_for() -> None:
    assert len(QUESTIONS) >= 44 and len({q.qid for q in QUESTIONS}) == len(QUESTIONS)
    languages = Counter(q.language for q in QUESTIONS)
    assert abs(languages["zh"] - languages["en"]) <= 4
    kinds = Counter(q.kind for q in QUESTIONS)
    assert sum(kinds[k] for k in DOCUMENT_ONLY) >= 12
    assert kinds["mixed"] >= 4 and kinds["unanswerable"] >= 4 and kinds["yes_no"] >= 1
    assert set(kinds) == DOCUMENT_ONLY | DATA | {"unanswerable"}
    for q in QUESTIONS:
        assert q.answerable == bool(q.numbers or q.facts) == (q.qid in TRUTH), q.qid
        assert bool(q.sql) == (q.kind in DATA), q.qid
        if q.kind in DOCUMENT_ONLY | {"defined", "mixed"}:
            assert q.source and q.passage, q.qid  # the passage a document answer comes from
        else:
            assert not q.passage, q.qid


def test_every_stored_answer_equals_the_truth_recomputed_from_the_records() -> None:
    assert assert_truths_match(QUESTIONS, TRUTH, v3data.build()) == sum(
        q.answerable for q in QUESTIONS
    )


def test_the_same_seed_writes_the_same_bytes_and_another_seed_does_not(tmp_path: Path) -> None:
    one = write_files(tmp_path / "a")
    time.sleep(1.1)  # a writer that stamps the clock would show here
    two = write_files(tmp_path / "b")
    for a, b in zip(one, two, strict=True):
        assert a.read_bytes() == b.read_bytes(), a.name
    other = write_files(tmp_path / "c", seed=v3data.SEED + 1)
    assert (tmp_path / "c" / WORKBOOK).read_bytes() != (tmp_path / "a" / WORKBOOK).read_bytes()
    assert [p.name for p in other] == [p.name for p in one]


def test_the_files_are_messy_as_promised(tmp_path: Path) -> None:
    write_files(tmp_path)
    raw = (tmp_path / ATTENDANCE_FILE).read_bytes()
    assert raw.startswith(b"\xff\xfe")  # UTF-16 LE with its byte-order mark
    with pytest.raises(UnicodeDecodeError):
        raw.decode("utf-8")
    lines = raw.decode("utf-16").splitlines()
    assert lines[0] == "date,enrollment_id,student,course,hours,status"
    days = [line.split(",")[0] for line in lines[1:]]
    assert all(len(d) == 10 and d[2] == d[5] == "." for d in days)
    assert any(int(d[:2]) > 12 for d in days)  # DD.MM.YYYY, not MM.DD.YYYY
    book = load_workbook(io.BytesIO((tmp_path / WORKBOOK).read_bytes()))
    assert book.sheetnames == ["报名记录", "课程"]
    sheet = book["报名记录"]
    assert "A1" in str(sheet.merged_cells) and sheet["A3"].value == "报名号"
    assert {type(c.value).__name__ for c in sheet["D"][3:]} >= {"datetime", "str"}
    assert str(sheet.cell(row=sheet.max_row, column=1).value).startswith("注：")
    assert (tmp_path / INSTRUCTORS).read_bytes().startswith(b"%PDF")
    handbook = "\n".join(p.text for p in docx.Document(str(tmp_path / HANDBOOK)).paragraphs)
    assert "第七条" in handbook and len(docx.Document(str(tmp_path / HANDBOOK)).tables) == 1


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    folder = tmp_path_factory.mktemp("v3") / "run"
    return folder, run_eval(folder, ["--set", "v3", "--part", "all", "--methods", "oracle"])


def test_the_oracle_scores_every_question_of_both_parts(
    run: tuple[Path, dict[str, Any]],
) -> None:
    folder, summary = run
    assert summary["set"] == "v3" and summary["today"] == v3data.TODAY.isoformat()
    assert summary["methods"]["oracle"]["accuracy"] == 1.0
    assert summary["cases"] == len(QUESTIONS)
    assert {r["case_id"] for r in results(folder)} == {q.qid for q in QUESTIONS}
    ingested = (folder / "workspace" / ".userdata-ingested").read_text(encoding="utf-8")
    for name in (WORKBOOK, ATTENDANCE_FILE, HANDBOOK, INSTRUCTORS):
        assert f"{name}: added" in ingested
    assert summary["passages"] == {}  # the oracle retrieves nothing


def test_gold_sql_on_the_ingested_files_gives_every_truth_and_passages_are_chunks(
    run: tuple[Path, dict[str, Any]],
) -> None:
    llm = FunctionLLM(lambda _: "")
    with QA.open(run[0] / "workspace", llm=llm, settings=Settings(embedder="hashing")) as qa:
        engine = qa.engine
        assert engine is not None and qa.index is not None
        checked = 0
        for q in QUESTIONS:
            if not q.sql:
                continue
            gold = replace(q, numbers=q.numbers[:1], facts=()) if q.kind == "mixed" else q
            rows = [list(r) for r in engine.execute(q.sql).rows]
            text = json.dumps(rows, ensure_ascii=False, default=str)
            assert judge(gold, text, "ok") == (True, ""), (q.qid, rows)
            checked += 1
        # the footnote under the enrollments is the table's note, not a row (issue 29)
        assert engine.execute("SELECT COUNT(*) FROM 报名记录").rows[0][0] == 160
        assert qa.catalog is not None
        assert "早鸟九折为开课前30天" in qa.catalog.tables["报名记录"].description
        chunks = [(c.chunk_id, c.text) for c in qa.index.chunks]
    assert checked == sum(q.kind in DATA for q in QUESTIONS)
    for q in QUESTIONS:
        if q.passage:  # one chunk (or a few) holds it, not every chunk
            assert 1 <= len(gold_chunks(chunks, q.passage)) <= 2, q.qid
    assert squeeze("a b\nc") == "abc"


def test_a_model_that_finds_nothing_is_counted_where_retrieval_found_the_passage(
    run: tuple[Path, dict[str, Any]], tmp_path: Path
) -> None:
    folder = tmp_path / "run"
    shutil.copytree(run[0] / "workspace", folder / "workspace")
    summary = run_eval(
        folder,
        ["--set", "v3", "--part", "all", "--methods", "tablerag", "--only", "p-03,p-10,k-01"],
    )
    figures = summary["passages"]["tablerag"]
    assert figures["n"] == 2  # k-01 names no passage
    assert figures["retrieved"] == figures["shown"] == 2  # both passages in the top 5
    assert figures["retrieved_not_found"] == figures["retrieved_missed"] == 2
    assert figures["missed_share"] == 1.0
    rows = {r["case_id"]: r["detail"] for r in results(folder)}
    assert rows["p-03"]["passage_rank"] >= 1 and "passage_rank" not in rows["k-01"]
    report = (folder / "report.md").read_text(encoding="utf-8")
    assert "the right passage retrieved, the answer still missed it" in report
    assert "| tablerag | 2 | 2 | 2 | 2 | 0 | 100.0% |" in report


def test_the_default_part_is_dev_and_the_judge_rejects_a_wrong_answer() -> None:
    assert len(select_part(QUESTIONS, "dev")) < len(QUESTIONS)
    for q in QUESTIONS:
        assert judge(q, oracle_text(q), "ok") == (True, ""), q.qid
        if q.numbers:  # the same answer with its first figure off by 3 % is wrong
            off = replace(q, facts=(), numbers=((q.numbers[0][0] * 1.03 + 1,), *q.numbers[1:]))
            text = oracle_text(off) + "; " + "; ".join(f[0] for f in q.facts)
            assert judge(q, text, "ok")[0] is False, q.qid
    yes = next(q for q in QUESTIONS if q.kind == "yes_no")
    assert judge(yes, "Yes, the student gets the certificate.", "ok")[0] is False
