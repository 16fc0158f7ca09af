"""Several processes on one workspace (issue 22): many readers at once, one writer that waits or
names who holds the workspace, and readers that never see a half-ingested source.

Every process here is a real one (``python -m tablerag`` or a small driver script), started
together; nothing is mocked.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tablerag.errors import WorkspaceError
from tablerag.service import Workspace
from tablerag.settings import Settings
from tablerag.store.lock import _lock_holder, acquire, holders, reading

SETTINGS = Settings(embedder="hashing", index_on_ingest=True, draft_on_ingest=False)
ASK = (
    "import json, sys\n"
    "from tablerag.llm.testing import ScriptedLLM\n"
    "from tablerag.service import QA\n"
    "reply = '```sql\\nSELECT sum(qty) AS total FROM fruit\\n```'\n"
    "with QA.open(sys.argv[1], llm=ScriptedLLM(replies=[reply])) as qa:\n"
    "    a = qa.ask('What is the total qty of fruit?')\n"
    "print(json.dumps({'status': a.status, 'error': a.error,\n"
    "                  'rows': a.table.rows if a.table else None}))\n"
)
HOLD = (  # holds a reading session until a line arrives on stdin
    "import sys\n"
    "from tablerag.service import QA\n"
    "qa = QA.open(sys.argv[1], llm='scripted')\n"
    "print('open', flush=True)\n"
    "sys.stdin.readline()\n"
    "qa.close()\n"
    "print('closed', flush=True)\n"
)
SLOW_INGEST = (
    "import sys, time\n"
    "from tablerag.service import Workspace, ingest\n"
    "from tablerag.settings import Settings\n"
    "calls = []\n"
    "def step(location):\n"
    "    calls.append(location)\n"
    "    if len(calls) == 2:  # the first new source is committed; the second is not read yet\n"
    "        print('half', flush=True)\n"
    "        time.sleep(float(sys.argv[4]))\n"
    "with Workspace.open(sys.argv[1]) as ws:\n"
    "    settings = Settings(embedder='hashing', draft_on_ingest=False)\n"
    "    ingest(ws, sys.argv[2:4], settings=settings, progress=step)\n"
)


def _env() -> dict[str, str]:
    return {**os.environ, "TABLERAG_EMBEDDER": "hashing", "TABLERAG_LLM": "scripted"}


def _cli(*args: str) -> list[str]:
    return [sys.executable, "-m", "tablerag", *args]


def _start(argv: list[str]) -> subprocess.Popen[str]:
    return subprocess.Popen(
        argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=_env()
    )


def _finish(proc: subprocess.Popen[str], timeout: float = 120) -> tuple[int, str, str]:
    out, err = proc.communicate(timeout=timeout)
    return proc.returncode, out, err


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    data = tmp_path / "data"
    data.mkdir()
    (data / "fruit.csv").write_text("name,qty\napple,3\npear,5\n", encoding="utf-8")
    (data / "guide.md").write_text(
        "# Storage\n\nApples keep for weeks in a cold cellar.\n", encoding="utf-8"
    )
    root = tmp_path / "ws"
    with Workspace.open(root) as w:
        assert all(r.status == "added" for r in w.ingest([data], settings=SETTINGS))
    return root


def test_many_readers_started_together_all_work(ws: Path) -> None:
    procs = [_start([sys.executable, "-c", ASK, str(ws)]) for _ in range(4)]
    procs += [
        _start(_cli("sql", "SELECT sum(qty) AS total FROM fruit", "-w", str(ws), "--json"))
        for _ in range(2)
    ]
    procs += [_start(_cli("search", "cold cellar", "-w", str(ws), "--json")) for _ in range(2)]
    procs += [_start(_cli("ask", "hello", "-w", str(ws), "--json")) for _ in range(2)]
    results = [_finish(p) for p in procs]
    for code, _out, err in results:
        assert code == 0, err
        assert "in use" not in err
    for _, out, _ in results[:4]:
        assert json.loads(out) == {"status": "ok", "error": None, "rows": [[8]]}
    for _, out, _ in results[4:6]:
        assert json.loads(out)["rows"] == [[8]]
    for _, out, _ in results[6:8]:
        assert "cold cellar" in json.loads(out)[0]["text"]


def test_an_ingest_says_who_holds_the_workspace_or_waits_with_wait(
    ws: Path, tmp_path: Path
) -> None:
    new = tmp_path / "more.csv"
    new.write_text("k,v\na,1\n", encoding="utf-8")
    reader = subprocess.Popen(
        [sys.executable, "-c", HOLD, str(ws)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env=_env(),
    )
    with reader:
        assert reader.stdout is not None and reader.stdin is not None
        assert reader.stdout.readline().strip() == "open"
        refused = subprocess.run(
            _cli("ingest", str(new), "-w", str(ws)), capture_output=True, text=True, env=_env()
        )
        others = [
            subprocess.run(_cli(*args, "-w", str(ws)), capture_output=True, text=True, env=_env())
            for args in (("remove", "fruit.csv"), ("refresh",))
        ]
        waiting = _start(_cli("ingest", str(new), "-w", str(ws), "--wait", "120", "--json"))
        time.sleep(3)
        assert waiting.poll() is None  # still waiting for the reader
        reader.stdin.write("done\n")
        reader.stdin.flush()
        assert reader.stdout.readline().strip() == "closed"
        code, out, err = _finish(waiting)
    assert refused.returncode == 1, refused.stdout + refused.stderr
    assert f"pid {reader.pid}" in refused.stderr
    assert "--wait SECONDS" in refused.stderr and "Traceback" not in refused.stderr
    for other in others:
        assert other.returncode == 1 and f"pid {reader.pid}" in other.stderr, other.stderr
    assert code == 0, err
    assert [s["status"] for s in json.loads(out)["sources"]] == ["added"]
    with Workspace.open(ws, read_only=True) as w:
        assert {t.name for t in w.tables()} == {"fruit", "more"}


def test_readers_wait_for_a_writer_and_never_see_half_an_ingest(ws: Path, tmp_path: Path) -> None:
    a, b = tmp_path / "a.csv", tmp_path / "b.md"
    a.write_text("x\n1\n2\n", encoding="utf-8")
    b.write_text("# Bees\n\nBees visit the orchard in spring.\n", encoding="utf-8")
    with _start([sys.executable, "-c", SLOW_INGEST, str(ws), str(a), str(b), "4"]) as writer:
        assert writer.stdout is not None and writer.stdout.readline().strip() == "half"
        with pytest.raises(WorkspaceError, match=rf"being written by pid {writer.pid}"):
            Workspace.open(ws, read_only=True, wait_s=0.2)
        readers = [
            _start(_cli("sql", "SELECT count(*) AS n FROM a", "-w", str(ws), "--json")),
            _start(_cli("search", "orchard bees", "-w", str(ws), "--json")),
            _start([sys.executable, "-c", ASK, str(ws)]),
        ]
        results = [_finish(p) for p in readers]
        assert writer.wait(60) == 0
    for code, _, err in results:
        assert code == 0, err
    assert json.loads(results[0][1])["rows"] == [[2]]
    assert "orchard" in json.loads(results[1][1])[0]["text"]  # index and chunks agree
    assert json.loads(results[2][1])["rows"] == [[8]]


def test_the_lock_is_reentrant_in_one_process_and_names_no_one_when_free(ws: Path) -> None:
    with Workspace.open(ws) as writer, Workspace.open(ws) as again:
        assert writer.summary() == again.summary()
    with Workspace.open(ws, read_only=True) as r1, Workspace.open(ws, read_only=True) as r2:
        assert r1.summary() == r2.summary()
    assert holders(ws) == []


def _pids_holding(ws: Path) -> set[int]:
    st = (ws / "lock").stat()
    with open("/proc/locks", encoding="ascii") as fh:
        return {p for line in fh if (p := _lock_holder(line, st.st_dev, st.st_ino)) is not None}


@pytest.mark.skipif(not Path("/proc/locks").exists(), reason="needs Linux /proc/locks")
def test_a_failed_upgrade_keeps_this_process_a_reader(ws: Path) -> None:
    reader = subprocess.Popen(
        [sys.executable, "-c", HOLD, str(ws)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env=_env(),
    )
    with reader, reading(ws):
        assert reader.stdout is not None and reader.stdin is not None
        assert reader.stdout.readline().strip() == "open"
        with pytest.raises(WorkspaceError, match=rf"in use by pid {reader.pid}"):
            acquire(ws, exclusive=True, wait_s=0.3)
        assert os.getpid() in _pids_holding(ws)  # still a reader: no writer may come in
        reader.stdin.write("done\n")
        reader.stdin.flush()
        assert reader.stdout.readline().strip() == "closed"
        assert _pids_holding(ws) == {os.getpid()}
    assert _pids_holding(ws) == set()
