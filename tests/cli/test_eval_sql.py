"""``tablerag eval sql`` and ``tablerag eval report`` end to end, with a scripted model."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tablerag.cli import app
from tablerag.llm.testing import FunctionLLM
from tests.evals.test_sql_task import QUESTIONS, answers, make_spider

runner = CliRunner()


@pytest.fixture
def spider(tmp_path: Path) -> Path:
    return make_spider(tmp_path / "spider")


@pytest.fixture
def model(monkeypatch: pytest.MonkeyPatch) -> FunctionLLM:
    # Right on the first two questions, wrong on the third.
    llm = answers({**dict(QUESTIONS[:2]), QUESTIONS[2][0]: "SELECT concert_name FROM concert"})
    monkeypatch.setattr("tablerag.cli.eval_common.load_llm", lambda spec=None, **kw: llm)
    return llm


def test_json_summary_resume_and_report(spider: Path, model: FunctionLLM, tmp_path: Path) -> None:
    out = tmp_path / "runs" / "s"
    args = ["eval", "sql", "--dataset", "spider", "--path", str(spider), "--llm", "scripted",
            "--methods", "naive,tablerag", "--out", str(out), "--json"]  # fmt: skip
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert set(data["methods"]) == {"naive", "tablerag"}
    naive = data["methods"]["naive"]
    assert naive["n"] == 3 and naive["accuracy"] == pytest.approx(2 / 3, abs=1e-3)
    assert naive["errors"]["wrong_result"] == 1
    assert {"latency_p50_ms", "latency_p95_ms", "tokens_per_question"} <= set(naive)
    assert data["dataset"] == "spider" and data["skipped"] == {"nodb": 1}
    calls = len(model.history)
    assert (out / "report.md").is_file() and (out / "summary.json").is_file()
    lines = (out / "results.jsonl").read_text(encoding="utf-8").splitlines()
    assert len(lines) == 6
    # The same command again resumes: nothing left to run, no model call.
    again = runner.invoke(app, args)
    assert again.exit_code == 0 and len(model.history) == calls
    assert json.loads(again.stdout)["methods"]["naive"]["n"] == 3

    shown = runner.invoke(app, ["eval", "report", str(out)])
    assert shown.exit_code == 0 and "| naive | 66.7% | 3 |" in shown.stdout


def test_limit_sample_and_default_folder(
    spider: Path, model: FunctionLLM, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(
        app,
        ["eval", "sql", "--dataset", "spider", "--path", str(spider), "--limit", "2",
         "--methods", "tablerag-norepair"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    folder = tmp_path / "eval-runs" / "sql-spider-n2-s0"
    assert len((folder / "results.jsonl").read_text(encoding="utf-8").splitlines()) == 2
    assert "Report: eval-runs/sql-spider-n2-s0/report.md" in result.stdout
    assert "| tablerag-norepair | " in (folder / "report.md").read_text("utf-8")


def test_compare_two_runs(spider: Path, model: FunctionLLM, tmp_path: Path) -> None:
    for name, methods in (("a", "naive"), ("b", "naive,tablerag")):
        result = runner.invoke(
            app,
            ["eval", "sql", "--dataset", "spider", "--path", str(spider), "--methods", methods,
             "--out", str(tmp_path / name), "--json"],
        )  # fmt: skip
        assert result.exit_code == 0, result.output
    shown = runner.invoke(app, ["eval", "report", str(tmp_path / "a"), str(tmp_path / "b")])
    assert shown.exit_code == 0
    assert "| naive | 66.7% (3) | 66.7% (3) | 3 |" in shown.stdout
    assert "| tablerag | - |" in shown.stdout


def test_only_runs_the_named_cases_of_the_sample(
    spider: Path, model: FunctionLLM, tmp_path: Path
) -> None:
    first = runner.invoke(
        app,
        ["eval", "sql", "--dataset", "spider", "--path", str(spider), "--methods", "naive",
         "--out", str(tmp_path / "all"), "--json"],
    )  # fmt: skip
    assert first.exit_code == 0, first.output
    lines = (tmp_path / "all" / "results.jsonl").read_text(encoding="utf-8").splitlines()
    ids = [json.loads(line)["case_id"] for line in lines]
    calls = len(model.history)
    result = runner.invoke(
        app,
        ["eval", "sql", "--dataset", "spider", "--path", str(spider), "--methods", "naive",
         "--only", f"{ids[2]}, {ids[0]}", "--out", str(tmp_path / "two"), "--json"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    kept = (tmp_path / "two" / "results.jsonl").read_text(encoding="utf-8").splitlines()
    assert sorted(json.loads(line)["case_id"] for line in kept) == sorted([ids[0], ids[2]])
    assert len(model.history) == calls + 2


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--methods", "naive,magic"], "Unknown method 'magic'"),
        (["--dataset", "wikisql"], "Unknown dataset"),
        (["--llm-threads", "2", "--llm", "openai:gpt"], "--llm-threads applies"),
        (["--only", "nosuch/0"], "--only names no case of the sample: nosuch/0"),
    ],
)
def test_errors(
    spider: Path, model: FunctionLLM, tmp_path: Path, args: list[str], message: str
) -> None:
    base = {"--dataset": "spider", "--path": str(spider), "--out": str(tmp_path / "x")}
    for flag in args[::2]:
        base.pop(flag, None)
    argv = ["eval", "sql", *[v for kv in base.items() for v in kv], *args]
    result = runner.invoke(app, argv)
    assert result.exit_code != 0
    assert message in str(result.exception) + result.output


def test_chase_turns_alone_is_its_own_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from tests.evals.test_chase_turns import _reply, make_chase

    chase = make_chase(tmp_path / "chase")
    llm = FunctionLLM(_reply)
    monkeypatch.setattr("tablerag.cli.eval_common.load_llm", lambda spec=None, **kw: llm)
    monkeypatch.chdir(tmp_path)
    base = ["eval", "sql", "--dataset", "chase", "--path", str(chase), "--methods", "tablerag"]
    together = runner.invoke(app, [*base, "--json"])
    alone = runner.invoke(app, [*base, "--turns", "alone", "--json"])
    assert together.exit_code == 0 and alone.exit_code == 0, together.output + alone.output
    assert json.loads(together.stdout)["methods"]["tablerag"]["accuracy"] == 1.0
    assert json.loads(alone.stdout)["methods"]["tablerag"]["accuracy"] == pytest.approx(
        2 / 3, abs=1e-3
    )
    runs = tmp_path / "eval-runs"
    assert sorted(p.name for p in runs.iterdir()) == [
        "sql-chase-alone-nall-s0",
        "sql-chase-nall-s0",
    ]
    meta = json.loads((runs / "sql-chase-alone-nall-s0" / "run.json").read_text("utf-8"))
    assert meta["turns"] == "alone"
    wrong = runner.invoke(app, [*base, "--turns", "together"])
    assert wrong.exit_code == 2 and "--turns" in wrong.output


def test_knowledge_draft_is_its_own_run_and_reports_the_semantic_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.evals.test_sql_knowledge import scripted, spider_with_a_metric_question

    spider = spider_with_a_metric_question(tmp_path / "spider")
    llm = scripted()
    monkeypatch.setattr("tablerag.cli.eval_common.load_llm", lambda spec=None, **kw: llm)
    monkeypatch.chdir(tmp_path)
    base = ["eval", "sql", "--dataset", "spider", "--path", str(spider), "--methods", "tablerag"]
    none = runner.invoke(app, [*base, "--json"])
    draft = runner.invoke(app, [*base, "--knowledge", "draft", "--json"])
    assert none.exit_code == 0 and draft.exit_code == 0, none.output + draft.output
    assert json.loads(none.stdout)["methods"]["tablerag"]["accuracy"] == 0.75
    data = json.loads(draft.stdout)
    assert data["methods"]["tablerag"]["accuracy"] == 1.0
    assert data["knowledge"] == "draft"
    assert data["semantic"]["tablerag"] == {
        "n": 4, "answered": 1, "answered_accuracy": 1.0, "declined": 0,
        "declined_accuracy": None, "other_accuracy": 1.0,
    }  # fmt: skip
    assert data["drafted"]["metrics_per_database"] == {"concerts": 3}
    folder = tmp_path / "eval-runs" / "sql-spider-draft-nall-s0"
    assert "total_age" in (folder / "drafts" / "concerts.yaml").read_text("utf-8")
    report = (folder / "report.md").read_text("utf-8")
    assert "- knowledge: `draft`" in report
    assert "| tablerag | 4 | 1 | 100.0% | 0 | — | 100.0% |" in report
    assert json.loads((tmp_path / "eval-runs" / "sql-spider-nall-s0" / "run.json").read_text(
        "utf-8"))["knowledge"] == "none"  # fmt: skip
    wrong = runner.invoke(app, [*base, "--knowledge", "curated"])
    assert wrong.exit_code == 2 and "--knowledge" in wrong.output
