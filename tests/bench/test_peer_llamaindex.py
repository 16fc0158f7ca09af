"""bench/peer_llamaindex.py: the parent side (venv set-up, the child protocol, scoring, report),
driven end to end by a stand-in child; LlamaIndex and the model are never used here."""

from __future__ import annotations

import doctest
import json
import os
import sqlite3
import stat
import sys
from pathlib import Path
from typing import Any

import pytest

from tablerag.evals.runner import Case, Outcome, ResultLog
from tablerag.evals.sqlexec import Executor
from tests.bench import BENCH, load_script
from tests.evals.test_sql_task import QUESTIONS, make_db, make_spider

SCRIPT = BENCH / "peer_llamaindex.py"

peer = load_script("peer_llamaindex")


def test_doctests() -> None:
    result = doctest.testmod(peer)
    assert result.attempted >= 5 and result.failed == 0


# --- the peer venv -------------------------------------------------------------------------------


class Recorder:
    """Stands in for subprocess.run: records commands and creates the venv's python."""

    def __init__(self, venv: Path) -> None:
        self.venv = venv
        self.calls: list[tuple[list[str], dict[str, Any]]] = []

    def __call__(self, cmd: list[str], **kwargs: Any) -> None:
        self.calls.append((cmd, kwargs))
        if cmd[1:3] == ["-m", "venv"]:
            (self.venv / "bin").mkdir(parents=True)
            (self.venv / "bin" / "python").write_text("")


def test_venv_is_built_once_with_the_cached_wheel(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    (wheels / "llama_cpp_python-0.3.36-py3-none-linux_x86_64.whl").write_bytes(b"")
    monkeypatch.setenv("TABLERAG_WHEELS", str(wheels))
    venv = tmp_path / "venv"
    run = Recorder(venv)
    assert peer.ensure_peer_venv(venv, ("a==1", "b==2"), run=run) > 0
    assert [c[0][1:3] for c in run.calls] == [["-m", "venv"], ["-m", "pip"]]
    install = run.calls[1][0]
    assert install[3] == "install" and install[-2:] == ["a==1", "b==2"]
    assert install[install.index("--find-links") + 1] == str(wheels)
    assert install[install.index("--only-binary") + 1] == "llama-cpp-python"
    # Ready now: nothing runs again, whatever the order of the pins.
    run.calls.clear()
    assert peer.ensure_peer_venv(venv, ("b==2", "a==1"), run=run) == 0.0
    assert run.calls == []
    # A changed pin reinstalls into the same venv and replaces the marker.
    assert peer.ensure_peer_venv(venv, ("a==1", "b==3"), run=run) > 0
    assert [c[0][3] for c in run.calls] == ["install"]
    assert [p.name for p in venv.glob(".installed-*")] == [
        peer.requirements_stamp(("a==1", "b==3"))
    ]


def test_missing_wheel_is_built_portably_into_the_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TABLERAG_WHEELS", str(tmp_path / "wheels"))
    run = Recorder(tmp_path / "venv")
    peer.ensure_peer_venv(tmp_path / "venv", ("a==1",), run=run)
    build, options = run.calls[1]
    assert build[3] == "wheel" and build[-1] == "llama-cpp-python==0.3.36"
    assert options["env"]["CMAKE_ARGS"] == "-DGGML_NATIVE=OFF"
    assert (tmp_path / "wheels").is_dir()


# --- pure helpers ---------------------------------------------------------------------------


def cases(n: int) -> list[Case]:
    return [Case(f"db/{i}", f"q{i}", "SELECT 1", "db", {"db": "db"}) for i in range(n)]


def test_pending_keeps_the_same_first_cases_across_resumes() -> None:
    cs = cases(6)
    done = {(peer.METHOD, "db/1"), ("naive", "db/2")}
    assert [c.case_id for c in peer.pending(cs, done, 3)] == ["db/0", "db/2"]
    assert [c.case_id for c in peer.pending(cs, done, None)] == [
        "db/0", "db/2", "db/3", "db/4", "db/5",
    ]  # fmt: skip


def test_sqlite_url_is_read_only(tmp_path: Path) -> None:
    db = make_db(tmp_path / "c.sqlite")
    url = peer.sqlite_url(db)
    con = sqlite3.connect(url.removeprefix("sqlite:///"), uri=True)
    try:
        assert con.execute("SELECT count(*) FROM singer").fetchone() == (4,)
        with pytest.raises(sqlite3.OperationalError, match="readonly"):
            con.execute("DELETE FROM singer")
    finally:
        con.close()


@pytest.fixture
def executor(tmp_path: Path) -> Executor:
    return Executor({"concerts": make_db(tmp_path / "concerts.sqlite")})


CASE = Case(
    "concerts/0", QUESTIONS[0][0], QUESTIONS[0][1], "concerts", {"db": "concerts", "hardness": "e"}
)


def record(**fields: Any) -> dict[str, Any]:
    base = {
        "case_id": CASE.case_id,
        "latency_ms": {"schema": 2.0, "llm": 1000.0},
        "llm_calls": 1,
        "prompt_tokens": 400,
        "completion_tokens": 30,
        "reply": "SQLQuery: ...",
        "cpu_ms": 900.0,
    }
    return {**base, **fields}


def score(executor: Executor, sql: str) -> Outcome:
    rec = record(sql=sql)
    out: Outcome = peer.to_outcome(CASE, rec, executor.score("concerts", sql, str(CASE.gold)), 5.0)
    return out


def test_outcome_of_a_matching_query(executor: Executor) -> None:
    o = score(executor, "SELECT COUNT(singer_id) FROM singer WHERE country = 'France'")
    assert (o.correct, o.error, o.method, o.category) == (True, "", peer.METHOD, "concerts")
    assert o.latency_ms == {"schema": 2.0, "llm": 1000.0, "scoring": 5.0, "total": 1007.0}
    assert (o.llm_calls, o.prompt_tokens, o.completion_tokens) == (1, 400, 30)
    assert o.detail["hardness"] == "e" and o.detail["peer_cpu_ms"] == 900.0
    assert o.detail["rows"] == o.detail["gold_rows"] == 1


def test_outcome_error_kinds(executor: Executor) -> None:
    assert score(executor, "SELECT count(*) FROM singer").error == "wrong_result"
    assert score(executor, "DELETE FROM singer").error == "invalid_sql"
    assert score(executor, "SELECT nope FROM singer").error in {"invalid_sql", "execution_error"}
    no_sql = peer.to_outcome(CASE, record(sql="  "), None)
    assert (no_sql.correct, no_sql.error, no_sql.prediction) == (False, "no_sql", None)
    failed = peer.to_outcome(CASE, record(error="llm_error", message="ValueError: ctx"), None)
    assert failed.error == "llm_error" and failed.detail["message"] == "ValueError: ctx"
    with pytest.raises(ValueError, match="score it first"):
        peer.to_outcome(CASE, record(sql="SELECT 1"), None)


def test_paired_accuracy_ignores_methods_without_shared_cases() -> None:
    mine = [Outcome("a", peer.METHOD, True, 1.0)]
    other = [Outcome("b", "naive", True, 1.0), Outcome("a", "tablerag", False, 0.0)]
    assert peer.paired_accuracy(mine, other) == {peer.METHOD: (1, 1), "tablerag": (0, 1)}
    assert peer.paired_accuracy(mine, []) == {}


# --- the child protocol and the whole parent, with a stand-in child ------------------------------

FAKE_CHILD = """
import json, sys
job = json.load(open(sys.argv[sys.argv.index("--child") + 1]))
answers = json.loads({answers!r})
print("llama.cpp chatter on stdout")
print("@peer " + json.dumps({{"versions": {{"llama-index-core": "x"}}, "load_s": 1.0,
                              "chat_format": "fake"}}), flush=True)
for case in job["cases"]:
    assert case["db_path"].endswith("concerts.sqlite"), case
    assert job["n_ctx"] == 4096 and job["max_tokens"] == 320 and job["stop"] == ["SQLResult:"]
    sql = answers.get(case["question"])
    rec = {{"case_id": case["case_id"], "sql": sql, "latency_ms": {{"schema": 1, "llm": 10}},
           "llm_calls": 1, "prompt_tokens": 100, "completion_tokens": 9, "cpu_ms": 50}}
    if sql is None:
        rec.update(error="llm_error", message="boom")
    print("@peer " + json.dumps(rec), flush=True)
sys.exit({exit_code})
"""


def fake_venv(tmp_path: Path, answers: dict[str, str], exit_code: int = 0) -> Path:
    """A peer venv whose python answers pip freeze and runs the stand-in child."""
    venv = tmp_path / "peer-venv"
    (venv / "bin").mkdir(parents=True)
    child = tmp_path / "child.py"
    child.write_text(
        FAKE_CHILD.format(answers=json.dumps(answers), exit_code=exit_code), encoding="utf-8"
    )
    python = venv / "bin" / "python"
    python.write_text(
        "#!/bin/sh\n"
        'if [ "$2" = pip ]; then echo "llama-index-core==0.14.25"; exit 0; fi\n'
        f'exec "{sys.executable}" "{child}" "$@"\n',
        encoding="utf-8",
    )
    python.chmod(python.stat().st_mode | stat.S_IXUSR)
    (venv / peer.requirements_stamp(peer.REQUIREMENTS)).touch()
    return venv


def test_run_child_passes_noise_through_and_returns_the_exit_code(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    venv = fake_venv(tmp_path, {}, exit_code=3)
    job = tmp_path / "job.json"
    job.write_text(json.dumps({"cases": [], "n_ctx": 4096, "max_tokens": 320, "stop": []}))
    got: list[dict[str, Any]] = []
    assert peer.run_child([str(venv / "bin" / "python"), "x"], job, got.append) == 3
    assert got == [{"versions": {"llama-index-core": "x"}, "load_s": 1.0, "chat_format": "fake"}]
    assert "llama.cpp chatter" in capsys.readouterr().err


@pytest.fixture
def patched(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Point the script at a stand-in venv, model file and RESULTS.md; return the dataset."""
    answers = {
        QUESTIONS[0][0]: "SELECT count(*) FROM singer WHERE country = 'France'",
        QUESTIONS[1][0]: "SELECT name FROM singer",  # not sorted: wrong
    }  # QUESTIONS[2]: the child reports a failed model call
    monkeypatch.setattr(peer, "PEER_VENV", fake_venv(tmp_path, answers))
    monkeypatch.setattr(peer, "RESULTS_MD", tmp_path / "RESULTS.md")
    model = tmp_path / "model.gguf"
    model.write_bytes(b"")
    monkeypatch.setattr(peer, "local_model_file", lambda: model)
    return make_spider(tmp_path / "spider")


def test_parent_scores_resumes_and_reports(
    patched: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "run"
    base = ["--path", str(patched), "--limit", "3", "--out", str(out)]
    assert peer.main([*base, "--max-cases", "2"]) == 0
    first = ResultLog(out).outcomes()
    assert [(o.case_id, o.correct, o.error) for o in first] == [
        ("concerts/0", True, ""), ("concerts/1", False, "wrong_result"),
    ]  # fmt: skip
    meta = json.loads((out / "run.json").read_text())
    assert meta["versions"] == {"llama-index-core": "x"} and meta["n_ctx"] == 4096
    assert meta["peer_freeze"] == ["llama-index-core==0.14.25"] and meta["methods"] == [peer.METHOD]
    section = (tmp_path / "RESULTS.md").read_text()
    assert "partial (2 of 3 sampled cases)" in section and "| 50.0 % | 2 |" in section
    assert "--max-cases 2" in section

    # The full command answers only the case that is left, then reports all three.
    lead = tmp_path / "lead"
    log = ResultLog(lead)
    for i, ok in enumerate((True, True, False)):
        log.append(Outcome(f"concerts/{i}", "tablerag", ok, float(ok)))
    capsys.readouterr()
    assert peer.main([*base, "--compare", str(lead), "--no-results-md"]) == 0
    outcomes = ResultLog(out).outcomes()
    assert [o.case_id for o in outcomes] == ["concerts/0", "concerts/1", "concerts/2"]
    assert outcomes[2].error == "llm_error" and outcomes[2].detail["message"] == "boom"
    printed = capsys.readouterr().out
    assert "[1/1] concerts/2 llm_error" in printed
    assert "| llamaindex-nlsql | 33.3 % | 3 | llm_error 1, wrong_result 1 |" in printed
    assert f"same cases as {lead}: tablerag 2/3 = 66.7 %" in printed
    assert (tmp_path / "RESULTS.md").read_text() == section  # --no-results-md


def test_parent_needs_a_path(capsys: pytest.CaptureFixture[str]) -> None:
    assert peer.main([]) == 2
    assert "--path is required" in capsys.readouterr().err


def test_script_imports_nothing_of_tablerag_at_module_level() -> None:
    # The child runs this file in the peer venv, where tablerag is not installed.
    code = (
        "import builtins, runpy, sys\n"
        "real = builtins.__import__\n"
        "def guard(name, *a, **k):\n"
        "    if name.startswith('tablerag'): raise ImportError(name)\n"
        "    return real(name, *a, **k)\n"
        "builtins.__import__ = guard\n"
        f"runpy.run_path({str(SCRIPT)!r}, run_name='not_main')\n"
    )
    import subprocess

    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=dict(os.environ)
    )
    assert done.returncode == 0, done.stderr
