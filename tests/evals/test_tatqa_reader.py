"""The TAT-QA reader and the open-setting corpus (tables cleaned, paragraphs as documents)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tablerag.errors import ConfigError
from tablerag.evals.datasets.tatqa import load_tatqa
from tablerag.evals.tatqa_corpus import clean_table


def tatqa_item(uid: str, label: str, v19: str, v18: str, text: str) -> dict[str, Any]:
    return {
        "table": {
            "uid": uid,
            "table": [["", "2019", "2018"], ["", "(in millions)", ""], [label, v19, v18]],
        },
        "paragraphs": [{"uid": uid + "-p1", "order": 1, "text": text}],
        "questions": [
            {
                "uid": uid + "-q1",
                "order": 1,
                "question": f"What was the {label.lower()} in 2019?",
                "answer": [v19],
                "derivation": "",
                "answer_type": "span",
                "answer_from": "table",
                "rel_paragraphs": [],
                "req_comparison": False,
                "scale": "million",
            },
            {
                "uid": uid + "-q2",
                "order": 2,
                "question": f"What was the change in {label.lower()} from 2018 to 2019?",
                "answer": 1.5,
                "derivation": f"{v19} - {v18}",
                "answer_type": "arithmetic",
                "answer_from": "table",
                "rel_paragraphs": [],
                "req_comparison": False,
                "scale": "million",
            },
        ],
    }


def write_tatqa(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    items = [
        tatqa_item("aaaa1111-0", "Cloud revenue", "$ 11.5", "10.0", "Cloud sales grew in Europe."),
        tatqa_item("bbbb2222-0", "Mining costs", "(4.0)", "(2.5)", "Mining costs fell sharply."),
    ]
    path = folder / "tatqa_dataset_dev.json"
    path.write_text(json.dumps(items), encoding="utf-8")
    return path


def test_reads_contexts_tables_paragraphs_and_annotated_questions(tmp_path: Path) -> None:
    write_tatqa(tmp_path / "tatqa")
    contexts = load_tatqa(tmp_path / "tatqa")  # the folder or the file
    assert [c.uid for c in contexts] == ["aaaa1111-0", "bbbb2222-0"]
    q = contexts[0].questions[1]
    assert (q.answer_type, q.scale, q.derivation, q.context_uid) == (
        "arithmetic",
        "million",
        "$ 11.5 - 10.0",
        "aaaa1111-0",
    )
    assert q.annotation() == {"answer": 1.5, "answer_type": "arithmetic", "scale": "million"}
    assert contexts[0].paragraphs[0].text == "Cloud sales grew in Europe."


def test_a_missing_or_foreign_file_is_a_config_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="No TAT-QA file"):
        load_tatqa(tmp_path)
    (tmp_path / "tatqa_dataset_dev.json").write_text('{"not": "a list"}', encoding="utf-8")
    with pytest.raises(ConfigError, match="not a TAT-QA file"):
        load_tatqa(tmp_path)


def test_real_tables_are_cleaned_into_columns_and_plain_numbers() -> None:
    raw = [
        ["", "", "Years Ended September 30,", ""],
        ["", "2019", "2018", "2017"],
        ["Fixed Price", "$  1,452.4", "$  1,146.2", "$  1,036.9"],
        ["Other", "44.1", "(56.7)", "—"],
    ]
    table = clean_table("t_x", raw)
    assert table.columns == ("item", "2019", "2018", "2017")
    assert table.rows == (
        ("Fixed Price", "1452.4", "1146.2", "1036.9"),
        ("Other", "44.1", "-56.7", ""),
    )
    assert table.caption == "Years Ended September 30,"
