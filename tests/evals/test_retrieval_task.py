"""The retrieval task: PolicyQA and TAT-QA corpora, the search modes, recall@k and MRR."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tablerag.errors import ConfigError
from tablerag.evals.retrieval_task import (
    build_index,
    build_methods,
    markdown_section,
    policyqa_corpus,
    retrieval_metrics,
    tatqa_corpus,
)
from tablerag.evals.runner import Case, ResultLog, run, summarise
from tablerag.store.workspace import Workspace

SEGMENTS = [
    "We collect your email address and phone number when you register an account.",
    "Cookies and web beacons let advertising partners track visits across websites.",
    "You may delete your account data at any time by contacting support.",
]


def write_policyqa(path: Path) -> Path:
    qas = [
        (
            "q1",
            "Which email and phone number do you collect when I register?",
            "First Party Collection/Use",
        ),
        ("q2", "Do advertising partners use cookies to track visits?", "Third Party Sharing"),
        ("q3", "How can I delete my account data?", "User Access, Edit and Deletion"),
    ]
    paragraphs = [
        {
            "context": text,
            "qas": [{"id": q, "question": question, "type": f"{cat}|||x|||y", "answers": []}],
        }
        for text, (q, question, cat) in zip(SEGMENTS, qas, strict=True)
    ]
    data = {"version": "1", "data": [{"title": "example.com", "paragraphs": paragraphs}]}
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def write_tatqa(path: Path) -> Path:
    item = {
        "table": {"uid": "t-1", "table": [["", "2019"], ["Revenue", "$ 1,452.4"]]},
        "paragraphs": [
            {"uid": "p1", "order": 1, "text": "Revenue grew because of strong cloud sales."},
            {"uid": "p2", "order": 2, "text": "The board approved a dividend of 2 dollars."},
        ],
        "questions": [
            {
                "uid": "a",
                "question": "What was revenue in 2019?",
                "answer_from": "table",
                "answer": "1,452.4",
                "answer_type": "span",
                "rel_paragraphs": [],
            },
            {
                "uid": "b",
                "question": "Why did revenue grow?",
                "answer_from": "text",
                "answer": "cloud",
                "answer_type": "span",
                "rel_paragraphs": ["1"],
            },
            {
                "uid": "c",
                "question": "What dividend did the board approve?",
                "answer_from": "table-text",
                "answer": "2",
                "answer_type": "span",
                "rel_paragraphs": ["2"],
            },
        ],
    }
    path.write_text(json.dumps([item]), encoding="utf-8")
    return path


def test_policyqa_corpus(tmp_path: Path) -> None:
    corpus = policyqa_corpus(write_policyqa(tmp_path / "dev.json"))
    assert [c.chunk_id for c in corpus.chunks] == [
        "example.com#0",
        "example.com#1",
        "example.com#2",
    ]
    assert corpus.cases[1].gold == ("example.com#1",)
    assert corpus.cases[2].category == "User Access, Edit and Deletion"
    assert "1 of 1 policies" in corpus.note
    assert len(policyqa_corpus(tmp_path).cases) == 3  # the folder works as --path too


def test_tatqa_corpus_gold_is_paragraphs_plus_table(tmp_path: Path) -> None:
    corpus = tatqa_corpus(write_tatqa(tmp_path / "tatqa_dataset_dev.json"))
    table = corpus.chunks[0]
    assert table.chunk_id == "t-1#table" and table.table == "tatqa_t-1"
    assert table.text == " | 2019\nRevenue | $ 1,452.4"
    gold = {c.case_id: c.gold for c in corpus.cases}
    assert gold == {"a": ("t-1#table",), "b": ("t-1#p1",), "c": ("t-1#p2", "t-1#table")}
    assert [c.category for c in corpus.cases] == ["table", "text", "table-text"]


def test_search_modes_ranks_and_metrics(tmp_path: Path) -> None:
    corpus = policyqa_corpus(write_policyqa(tmp_path / "dev.json"))
    info = build_index(tmp_path / "index", corpus.chunks, "hashing")
    assert info.chunks == 3 and not info.reused
    with Workspace.open(info.folder, create=False, read_only=True) as ws:
        methods = build_methods(["bm25", "dense", "hybrid"], ws)
        outcomes = run(corpus.cases, methods, ResultLog(tmp_path / "run"))
    bm25 = [o for o in outcomes if o.method == "bm25"]
    assert [o.detail["rank"] for o in bm25] == [
        1,
        1,
        1,
    ]  # each question shares words with its segment
    assert all(o.correct and o.score == 1.0 and o.error == "" for o in bm25)
    assert bm25[0].prediction[0] == "example.com#0"
    metrics = retrieval_metrics(outcomes)
    assert metrics["bm25"].recall_at_1 == 1.0 and metrics["bm25"].mrr_at_10 == 1.0
    assert summarise(outcomes)["bm25"].accuracy == metrics["bm25"].recall_at_5
    section = markdown_section(corpus, 3, metrics, info.chunks_per_s, 1.0)
    assert section.startswith("#### PolicyQA dev: 3 chunks, 3 queries")
    assert "| bm25 | 1.000 | 1.000 | 1.000 | 1.000 |" in section
    assert "Hybrid R@5" in section


def test_a_miss_is_not_found_and_counts_zero(tmp_path: Path) -> None:
    corpus = policyqa_corpus(write_policyqa(tmp_path / "dev.json"))
    info = build_index(tmp_path / "index", corpus.chunks, "hashing")
    case = Case("x", "registration email phone", ("example.com#2",))  # gold is another chunk
    with Workspace.open(info.folder, create=False, read_only=True) as ws:
        (method,) = build_methods(["bm25"], ws)
        outcome = method(case)
    assert outcome.error == "not_found" and not outcome.correct
    assert outcome.detail["rank"] is None or outcome.detail["rank"] > 1


def test_source_files_count_as_gold(tmp_path: Path) -> None:
    corpus = policyqa_corpus(write_policyqa(tmp_path / "dev.json"))
    info = build_index(tmp_path / "index", corpus.chunks, "hashing")
    with Workspace.open(info.folder, create=False, read_only=True) as ws:
        (method,) = build_methods(["bm25"], ws)
        outcome = method(Case("s", "delete account data support", ("example.com",)))
    assert outcome.correct and outcome.detail["rank"] == 1


def test_index_is_reused_only_for_the_same_chunks(tmp_path: Path) -> None:
    corpus = policyqa_corpus(write_policyqa(tmp_path / "dev.json"))
    first = build_index(tmp_path / "index", corpus.chunks, "hashing")
    again = build_index(tmp_path / "index", corpus.chunks, "hashing")
    assert again.reused and again.chunks_per_s == pytest.approx(first.chunks_per_s)
    fewer = build_index(tmp_path / "index", corpus.chunks[:2], "hashing")
    assert not fewer.reused and fewer.chunks == 2


def test_unknown_mode_and_missing_file(tmp_path: Path) -> None:
    corpus = policyqa_corpus(write_policyqa(tmp_path / "dev.json"))
    info = build_index(tmp_path / "index", corpus.chunks, "hashing")
    with (
        Workspace.open(info.folder, create=False, read_only=True) as ws,
        pytest.raises(ConfigError, match="Unknown retrieval method"),
    ):
        build_methods(["splade"], ws)
    with pytest.raises(ConfigError, match="No TAT-QA file"):
        tatqa_corpus(tmp_path / "nothing")
