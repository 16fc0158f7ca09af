"""Reports: Markdown, JSON summary, plots, and the comparison of two runs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tablerag.errors import ConfigError
from tablerag.evals.report import (
    PLOTS,
    REPORT_FILE,
    SUMMARY_FILE,
    compare,
    render_markdown,
    summary_dict,
    write_report,
)
from tablerag.evals.runner import ERROR_KINDS, Outcome, ResultLog, summarise


def outcome(case: str, method: str, correct: bool, **kw: object) -> Outcome:
    return Outcome(
        case,
        method,
        correct,
        float(correct),
        "" if correct else str(kw.pop("error", "wrong_result")),
        category=str(kw.pop("category", "db1")),
        latency_ms={"total": float(kw.pop("ms", 1000.0))},  # type: ignore[arg-type]
        llm_calls=1,
        prompt_tokens=int(kw.pop("tokens", 100)),  # type: ignore[call-overload]
        completion_tokens=10,
        detail=kw,
    )


def make_run(folder: Path, results: list[Outcome], meta: dict[str, object] | None = None) -> Path:
    log = ResultLog(folder)
    for o in results:
        log.append(o)
    log.write_meta(meta or {"task": "sql", "dataset": "spider", "llm": "scripted"})
    return folder


@pytest.fixture
def run_dir(tmp_path: Path) -> Path:
    results = [
        outcome("1", "naive", True, hardness="easy", tokens=400),
        outcome("1", "tablerag", True, hardness="easy", tokens=200),
        outcome("2", "naive", False, hardness="hard", category="db2", error="invalid_sql"),
        outcome("2", "tablerag", True, hardness="hard", category="db2", ms=3000),
        outcome("3", "naive", True, hardness="hard", category="db2"),
        outcome("3", "tablerag", False, hardness="hard", category="db2", error="no_sql"),
        outcome("4", "naive", False, category="db2"),  # tablerag has not reached case 4 yet
    ]
    return make_run(tmp_path / "run", results)


def test_summary_dict_lists_every_error_kind() -> None:
    s = summarise([outcome("1", "m", False, error="timeout"), outcome("2", "m", True)])
    d = summary_dict(s, {"task": "sql"})["methods"]["m"]
    assert set(ERROR_KINDS) <= set(d["errors"]) and d["errors"]["timeout"] == 1
    assert d["accuracy"] == 0.5 and d["n"] == 2 and d["tokens_per_question"] == 110.0
    assert {"latency_p50_ms", "latency_p95_ms"} <= set(d)


def test_write_report_files(run_dir: Path) -> None:
    path = write_report(run_dir)
    assert path == run_dir / REPORT_FILE
    text = path.read_text(encoding="utf-8")
    assert text.startswith("# Evaluation: sql spider")
    assert "| naive | 50.0% | 4 | invalid_sql 1, wrong_result 1 |" in text
    assert "| tablerag | 66.7% | 3 | no_sql 1 |" in text
    # Shared cases: 1-3; tablerag is right on case 2 where naive is not, and wrong on 3.
    assert "Cases every method has answered: 3." in text
    assert "| tablerag | 66.7% | 1 | 1 |" in text
    assert "## Accuracy by hardness" in text and "| hard | 50.0% (2) | 50.0% (2) |" in text
    assert "## Accuracy by category" in text and "| db1 | 100.0% (1) | 100.0% (1) |" in text
    summary = json.loads((run_dir / SUMMARY_FILE).read_text(encoding="utf-8"))
    assert summary["task"] == "sql" and summary["methods"]["tablerag"]["n"] == 3
    for plot in PLOTS:
        assert (run_dir / plot).stat().st_size > 1000
        assert f"({plot})" in text


def test_report_without_matplotlib(run_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import builtins

    real_import = builtins.__import__

    def no_matplotlib(name: str, *args: object, **kwargs: object) -> object:
        if name.startswith("matplotlib"):
            raise ImportError(name)
        return real_import(name, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(builtins, "__import__", no_matplotlib)
    text = write_report(run_dir).read_text(encoding="utf-8")
    assert "pip install" in text and "matplotlib" in text
    assert not (run_dir / PLOTS[0]).exists()
    assert (run_dir / SUMMARY_FILE).is_file()


def test_render_markdown_single_method() -> None:
    outs = [outcome("1", "m", True)]
    text = render_markdown(summarise(outs), outs, {"task": "sql"})
    assert "| m | 100.0% | 1 | none |" in text and "shared" not in text


def test_latency_leaves_out_cases_answered_from_the_cache() -> None:
    outs = [
        outcome("1", "m", True, ms=4000.0),
        outcome("2", "m", True, ms=2.0, cached_calls=1),
        outcome("1", "all-cached", True, ms=3.0, cached_calls=2),
    ]
    text = render_markdown(summarise(outs), outs, {})
    assert "| m | 100.0% | 2 | none | 4.00 | 4.00 | 1 |" in text
    assert "| all-cached | 100.0% | 1 | none | — | — | 0 |" in text


def test_interaction_accuracy() -> None:
    outs = [
        outcome("a/0", "m", True, interaction="a"),
        outcome("a/1", "m", False, interaction="a"),
        outcome("b/0", "m", True, interaction="b"),
    ]
    text = render_markdown(summarise(outs), outs, {})
    assert "| m | 50.0% | 2 |" in text


def test_compare_two_runs(tmp_path: Path) -> None:
    a = make_run(tmp_path / "a", [outcome("1", "m", False), outcome("2", "m", True)])
    b = make_run(
        tmp_path / "b",
        [outcome("1", "m", True), outcome("2", "m", True), outcome("3", "m", False)],
    )
    text = compare(a, b)
    assert "| m | 50.0% (2) | 66.7% (3) | 2 | 50.0% | 100.0% | +50.0 pts |" in text


def test_not_a_run_folder(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="results.jsonl"):
        write_report(tmp_path)


def test_partial_run_adds_the_categories_of_the_shared_cases(run_dir: Path) -> None:
    text = write_report(run_dir).read_text(encoding="utf-8")
    # naive has case 4 (db2, wrong) that tablerag has not reached: the plain table compares
    # 3 naive db2 cases with 2 tablerag ones; the shared one compares the same 2.
    assert "| db2 | 33.3% (3) | 50.0% (2) |" in text
    shared = text.split("## Accuracy by category on the shared cases")[1]
    assert "| category | naive | tablerag |" in shared
    assert "| db2 | 50.0% (2) | 50.0% (2) |" in shared


def test_complete_run_has_no_shared_category_table() -> None:
    outs = [outcome("1", "a", True), outcome("1", "b", False)]
    text = render_markdown(summarise(outs), outs, {})
    assert "on the shared cases" not in text and "mean score" not in text


def test_graded_metric_adds_the_mean_score_of_the_shared_cases() -> None:
    def graded(case: str, method: str, score: float) -> Outcome:
        return Outcome(case, method, score == 1.0, score, category="span")

    outs = [graded("1", "rag", 0.5), graded("2", "rag", 1.0), graded("1", "loop", 0.0)]
    outs += [graded("2", "loop", 0.2)]
    text = render_markdown(summarise(outs), outs, {})
    # Methods come in name order, so loop is the base.
    assert "| wrong where loop is right | mean score |" in text
    assert "| loop | 0.0% | 0 | 0 | 0.100 |" in text
    assert "| rag | 50.0% | 1 | 0 | 0.750 |" in text
