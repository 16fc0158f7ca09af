"""A user's own questions as JSONL, JSON or YAML, and the cases each task takes from them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tablerag.errors import ConfigError
from tablerag.evals.datasets.custom import custom_cases, load_custom

ROWS = [
    {
        "id": "q1",
        "question": "How many orders?",
        "sql": "SELECT count(*) FROM orders",
        "answer": 152,
        "category": "count",
    },
    {
        "id": "q2",
        "question": "What is the refund policy?",
        "sources": "refunds.md",
        "route": "knowledge",
    },
    {"id": "q3", "question": "Top regions?", "answer": ["East", "North"], "route": "data"},
]


def _jsonl(path: Path, rows: list[dict[str, object]]) -> Path:
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    return path


def test_jsonl_questions_and_task_cases(tmp_path: Path) -> None:
    questions = load_custom(_jsonl(tmp_path / "q.jsonl", ROWS))
    assert [q.qid for q in questions] == ["q1", "q2", "q3"]
    assert questions[0].answer == ("152",) and questions[2].answer == ("East", "North")
    assert questions[1].sources == ("refunds.md",)
    tableqa = custom_cases(questions, "tableqa")
    assert [(c.case_id, c.gold, c.category) for c in tableqa] == [
        ("q1", ("152",), "count"),
        ("q3", ("East", "North"), "custom"),
    ]
    assert [c.gold for c in custom_cases(questions, "routing")] == ["knowledge", "data"]
    assert [c.category for c in custom_cases(questions, "routing")] == ["knowledge", "data"]
    assert custom_cases(questions, "sql")[0].gold == "SELECT count(*) FROM orders"
    assert custom_cases(questions, "retrieval")[0].gold == ("refunds.md",)


def test_yaml_and_json_lists(tmp_path: Path) -> None:
    yaml_file = tmp_path / "q.yaml"
    yaml_file.write_text(
        "questions:\n"
        "  - id: a\n    question: 上月华东的毛利是多少？\n    route: data\n"
        "  - id: b\n    question: Refund rules?\n    sources: [refunds.md, faq.md]\n",
        encoding="utf-8",
    )
    pytest.importorskip("yaml")
    questions = load_custom(yaml_file)
    assert questions[0].question == "上月华东的毛利是多少？"
    assert questions[1].sources == ("refunds.md", "faq.md")
    json_file = tmp_path / "q.json"
    json_file.write_text(json.dumps(ROWS), encoding="utf-8")
    assert len(load_custom(json_file)) == 3


@pytest.mark.parametrize(
    ("row", "message"),
    [
        pytest.param({"question": "x"}, "needs an 'id'", id="no-id"),
        pytest.param({"id": 1, "question": "x", "gold": "y"}, "unknown field", id="unknown-field"),
        pytest.param(
            {"id": 1, "question": "x", "answer": {"a": 1}}, "'answer' must be", id="answer-type"
        ),
        pytest.param({"id": 1, "question": "x", "sql": 3}, "'sql' must be", id="sql-type"),
    ],
)
def test_bad_questions_are_refused(tmp_path: Path, row: dict[str, object], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        load_custom(_jsonl(tmp_path / "q.jsonl", [row]))


def test_file_level_errors(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="used twice"):
        load_custom(_jsonl(tmp_path / "dup.jsonl", [ROWS[0], ROWS[0]]))
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": 1, "question": "x"}\n{oops\n', encoding="utf-8")
    with pytest.raises(ConfigError, match="bad.jsonl:2 is not JSON"):
        load_custom(bad)
    with pytest.raises(ConfigError, match="No question file"):
        load_custom(tmp_path / "none.jsonl")
    questions = load_custom(_jsonl(tmp_path / "q.jsonl", [ROWS[1]]))
    with pytest.raises(ConfigError, match="has 'answer'|No question in the file has 'answer'"):
        custom_cases(questions, "tableqa")
    with pytest.raises(ConfigError, match="no gold for task 'mixed'"):
        custom_cases(questions, "mixed")


def test_yaml_without_pyyaml_says_how_to_fix(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import builtins

    real_import = builtins.__import__

    def no_yaml(name: str, *args: object, **kwargs: object) -> object:
        if name == "yaml":
            raise ModuleNotFoundError("No module named 'yaml'", name="yaml")
        return real_import(name, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(builtins, "__import__", no_yaml)
    path = tmp_path / "q.yml"
    path.write_text("- id: a\n  question: b\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="pip install pyyaml"):
        load_custom(path)
