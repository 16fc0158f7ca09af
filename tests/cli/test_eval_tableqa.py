"""``tablerag eval tableqa``: one JSON summary, a resumable run folder, custom questions."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tablerag.cli import app
from tablerag.errors import ConfigError
from tablerag.llm.testing import FunctionLLM
from tests.evals.test_tableqa_task import _reply
from tests.evals.test_wikitq_reader import write_wikitq
from tests.plugins.answering import build_sample_workspace

runner = CliRunner()


@pytest.fixture
def llm(monkeypatch: pytest.MonkeyPatch) -> FunctionLLM:
    model = FunctionLLM(_reply)
    monkeypatch.setattr("tablerag.cli.eval_common.load_llm", lambda spec=None, **kw: model)
    return model


def test_wikitq_json_summary_and_resume(tmp_path: Path, llm: FunctionLLM) -> None:
    data = write_wikitq(tmp_path / "wikitq")
    args = ["eval", "tableqa", "--dataset", "wikitq", "--path", str(data)]
    args += ["--limit", "3", "--out", str(tmp_path / "run"), "--json"]
    res = runner.invoke(app, args)
    assert res.exit_code == 0, res.output
    summary = json.loads(res.stdout)
    assert summary["task"] == "tableqa" and summary["cases"] == 3
    assert set(summary["methods"]) == {"markdown", "tablerag"}
    for method in summary["methods"].values():
        assert method["n"] == 3 and 0 <= method["accuracy"] <= 1
        assert set(method["errors"]) >= {"no_sql", "wrong_result", "refusal"}
        assert method["tokens_per_question"] > 0
    # the stratified sample has both size buckets
    assert set(summary["methods"]["tablerag"]["by_category"]) == {"rows<=20", "rows<=100"}
    assert (tmp_path / "run" / "report.md").is_file()
    calls = len(llm.history)
    again = runner.invoke(app, args)
    assert again.exit_code == 0 and len(llm.history) == calls  # resumed: no new calls
    assert json.loads(again.stdout)["methods"] == summary["methods"]


def test_custom_questions_over_a_workspace(
    tmp_path: Path, sample_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    model = FunctionLLM(lambda m: "```sql\nSELECT count(*) FROM fact_refund\n```")
    monkeypatch.setattr("tablerag.cli.eval_common.load_llm", lambda spec=None, **kw: model)
    ws = build_sample_workspace(sample_dir, tmp_path / "ws")
    questions = tmp_path / "q.jsonl"
    questions.write_text(
        json.dumps({"id": "r", "question": "How many refunds are there?", "answer": 152}) + "\n"
    )
    args = ["eval", "tableqa", "--dataset", "custom", "--path", str(questions)]
    res = runner.invoke(
        app, [*args, "--workspace", str(ws), "--out", str(tmp_path / "run"), "--json"]
    )
    assert res.exit_code == 0, res.output
    method = json.loads(res.stdout)["methods"]["tablerag"]
    assert method["accuracy"] == 1.0 and method["n"] == 1
    missing = runner.invoke(app, [*args, "--out", str(tmp_path / "run2")])
    assert isinstance(missing.exception, ConfigError) and "--workspace" in str(missing.exception)
