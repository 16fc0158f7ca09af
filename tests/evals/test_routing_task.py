"""The routing task: labelled cases, the router set-ups, accuracy and the confusion matrix."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tablerag.errors import ConfigError
from tablerag.evals.routing_task import (
    build_methods,
    confusion,
    confusion_table,
    default_cases_file,
    load_routing_cases,
)
from tablerag.evals.runner import Case, ResultLog, run, summarise
from tablerag.store.workspace import Workspace
from tests.plugins.answering import build_sample_workspace


def _write(path: Path, rows: list[dict[str, str]]) -> Path:
    path.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in rows) + "\n", "utf-8")
    return path


def test_default_file_is_the_repository_set() -> None:
    cases = load_routing_cases()
    assert default_cases_file().name == "routing_cases.jsonl"
    assert len(cases) >= 50 and cases[0].case_id == "zh-data-01"
    assert {c.gold for c in cases} == {"data", "knowledge", "hybrid", "chitchat", "ambiguous"}
    assert all(c.category == c.gold for c in cases)


def test_rules_method_accuracy_and_confusion(tmp_path: Path) -> None:
    cases = load_routing_cases(
        _write(
            tmp_path / "cases.jsonl",
            [
                {"id": "a", "question": "上月华东的毛利是多少？", "intent": "data"},
                {"id": "b", "question": "毛利是怎么定义的？", "intent": "knowledge"},
                {"id": "c", "question": "谢谢！", "intent": "chitchat"},
                {"question": "那个呢", "route": "data"},  # the router says ambiguous
            ],
        )
    )
    assert cases[3].case_id == "line-4"
    outcomes = run(cases, build_methods(["rules"], None), ResultLog(tmp_path / "run"))
    assert summarise(outcomes)["rules"].accuracy == 0.75
    miss = next(o for o in outcomes if o.case_id == "line-4")
    assert miss.error == "wrong_result" and miss.prediction == "ambiguous"
    matrix = confusion(outcomes, "rules")
    assert matrix["data"] == {
        "knowledge": 0,
        "data": 1,
        "hybrid": 0,
        "chitchat": 0,
        "ambiguous": 1,
    }
    assert sum(sum(row.values()) for row in matrix.values()) == 4
    table = confusion_table(matrix)
    assert table[0].startswith("| expected \\ routed | knowledge | data")
    assert "| data | 0 | 1 | 0 | 0 | 1 |" in table


def test_router_with_probe_needs_a_workspace(sample_dir: Path, tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="needs a workspace"):
        build_methods(["router"], None)
    ws_path = build_sample_workspace(sample_dir, tmp_path / "ws")
    with Workspace.open(ws_path, create=False, read_only=True) as ws:
        rules, catalog, router = build_methods(["rules", "catalog", "router"], ws)
        assert rules.context.probe is None and catalog.context.probe is None
        assert router.context.probe is not None
        outcome = router(Case("q", "上月华东的毛利是多少？", "data", "data"))
    assert outcome.correct and outcome.detail["confidence"] > 0


@pytest.mark.parametrize(
    ("line", "message"),
    [
        pytest.param('{"intent": "data"}', "no 'question'", id="no-question"),
        pytest.param('{"question": "x", "intent": "sql"}', "expects route 'sql'", id="bad-label"),
        pytest.param("{not json", "is not JSON", id="syntax"),
    ],
)
def test_bad_lines_name_the_line(tmp_path: Path, line: str, message: str) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text('{"question": "ok", "intent": "data"}\n' + line + "\n", "utf-8")
    with pytest.raises(ConfigError, match=message) as info:
        load_routing_cases(path)
    assert ":2" in str(info.value)


def test_unknown_method_and_missing_file(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="Unknown routing method"):
        build_methods(["llm"], None)
    with pytest.raises(ConfigError, match="--path"):
        load_routing_cases(tmp_path / "none.jsonl")
