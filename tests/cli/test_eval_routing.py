"""``tablerag eval routing``: accuracy and confusion matrix per router set-up."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from tablerag.cli import app
from tablerag.errors import ConfigError

runner = CliRunner()


def test_default_cases_with_the_sample_workspace(tmp_path: Path) -> None:
    res = runner.invoke(app, ["eval", "routing", "--out", str(tmp_path / "run"), "--json"])
    assert res.exit_code == 0, res.output
    summary = json.loads(res.stdout)
    assert set(summary["methods"]) == {"rules", "router"}
    n = summary["total_questions"]
    for method, figures in summary["methods"].items():
        assert figures["n"] == n and figures["accuracy"] > 0.5
        matrix = summary["confusion"][method]
        assert sum(sum(row.values()) for row in matrix.values()) == n
        right = sum(matrix[k][k] for k in matrix)
        assert round(right / n, 4) == figures["accuracy"]
    assert Path(summary["workspace"]).is_dir()


def test_custom_routes_and_tables_output(tmp_path: Path) -> None:
    questions = tmp_path / "q.jsonl"
    rows = [
        {"id": "1", "question": "谢谢！", "route": "chitchat"},
        {"id": "2", "question": "上月华东的毛利是多少？", "route": "data"},
        {"id": "3", "question": "How many orders?"},
    ]
    questions.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in rows) + "\n")
    args = ["eval", "routing", "--dataset", "custom", "--path", str(questions)]
    res = runner.invoke(app, [*args, "--methods", "rules", "--out", str(tmp_path / "run")])
    assert res.exit_code == 0, res.output
    assert (
        "Confusion matrix of rules" in res.output
        and "| chitchat | 0 | 0 | 0 | 1 | 0 |" in res.output
    )
    bad = runner.invoke(app, [*args, "--methods", "rules,oracle", "--out", str(tmp_path / "r2")])
    assert isinstance(bad.exception, ConfigError) and "oracle" in str(bad.exception)
