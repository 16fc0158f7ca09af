"""The runtime: ingests commit while it serves (answers from the old state until the commit, then
from the new), generations close when their last request ends, the queue reports positions."""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from tablerag.llm.testing import FunctionLLM
from tablerag.request import Request
from tablerag.runtime import Admission, Runtime
from tablerag.service import Workspace
from tablerag.settings import Settings
from tablerag.store import lock as workspace_lock
from tests.api.conftest import client_for, settings


def _ingest_new_table(ws: Path, tmp_path: Path) -> None:
    (tmp_path / "new").mkdir(exist_ok=True)
    (tmp_path / "new" / "late_arrivals.csv").write_text("id,amount\n1,10\n2,20\n", encoding="utf-8")
    with Workspace.open(ws) as store:  # the writer's lock, as `tablerag ingest` takes it
        reports = store.ingest(
            [tmp_path / "new" / "late_arrivals.csv"], settings=Settings(embedder="hashing")
        )
    assert [r.status for r in reports] == ["added"]


def test_the_runtime_holds_no_lock_on_the_workspace(runtime: Runtime) -> None:
    """An ingest can take the workspace for writing at once while the server is up."""
    with workspace_lock.acquire(runtime.path, exclusive=True, wait_s=0):
        pass


def test_an_ingest_commits_while_serving(runtime: Runtime, ws: Path, tmp_path: Path) -> None:
    with client_for(runtime) as client:
        assert "late_arrivals" not in {t["name"] for t in client.get("/v1/tables").json()}
        _ingest_new_table(ws, tmp_path)
        # committed but not yet checked: still the previous state, and still answering
        assert "late_arrivals" not in {t["name"] for t in client.get("/v1/tables").json()}
        assert runtime.refresh() is True
        assert client.get("/healthz").json()["generation"] == 2
        assert "late_arrivals" in {t["name"] for t in client.get("/v1/tables").json()}
        r = client.post("/v1/sql", json={"sql": "SELECT sum(amount) AS s FROM late_arrivals"})
        assert r.json()["rows"] == [[30]]
        assert runtime.refresh() is False  # nothing new


HOLD = (
    "import sys, time\n"
    "from pathlib import Path\n"
    "from tablerag.store import lock\n"
    "held = lock.acquire(Path(sys.argv[1]), exclusive=True, wait_s=5)\n"
    "print('held', flush=True)\n"
    "sys.stdin.readline()\n"
    "held.release()\n"
)


def test_while_an_ingest_writes_the_previous_state_answers(runtime: Runtime) -> None:
    """Another process holds the workspace for writing (as `tablerag ingest` does)."""
    (runtime.path / "workspace.duckdb").touch()  # looks changed...
    writer = subprocess.Popen(
        [sys.executable, "-c", HOLD, str(runtime.path)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert writer.stdout is not None and writer.stdout.readline().strip() == "held"
        assert runtime.refresh() is False  # ...but is being written: no wait, no swap
        with client_for(runtime) as client:
            r = client.post("/v1/ask", json={"question": "How many refunds are there?"})
            assert r.status_code == 200 and r.json()["status"] == "ok"
    finally:
        writer.communicate("\n", timeout=10)
    assert runtime.refresh() is True  # the writer is done: swapped in at the next check
    assert runtime.generation == 2  # the attempt while it wrote took no number


def test_a_request_finishes_on_the_generation_it_began_with(
    runtime: Runtime, ws: Path, tmp_path: Path
) -> None:
    with runtime.use() as first:
        _ingest_new_table(ws, tmp_path)
        assert runtime.refresh() is True and runtime.generation == 2
        assert first.retired and first.folder.exists()  # still in use: kept open
        assert first.qa.sources.catalog is not None
        assert "late_arrivals" not in first.qa.sources.catalog.tables
    assert not first.folder.exists()  # closed with its last request


def test_the_watcher_swaps_in_a_commit_by_itself(
    ws: Path, llm: FunctionLLM, tmp_path: Path
) -> None:
    rt = Runtime.open(ws, settings=settings(), llm=llm)
    try:
        _ingest_new_table(ws, tmp_path)
        until = time.monotonic() + 20
        while rt.generation < 2 and time.monotonic() < until:
            time.sleep(0.05)
        assert rt.generation == 2
    finally:
        rt.close()


def test_asking_during_an_ingest_never_fails(ws: Path, llm: FunctionLLM, tmp_path: Path) -> None:
    """Questions asked in a loop while an ingest writes and commits: every one is answered."""
    rt = Runtime.open(ws, settings=settings(), llm=llm)
    statuses: list[int] = []
    stop = threading.Event()
    try:
        with client_for(rt) as client:

            def ask_in_a_loop() -> None:
                while not stop.is_set():
                    r = client.post("/v1/ask", json={"question": "How many refunds are there?"})
                    statuses.append(r.status_code)

            worker = threading.Thread(target=ask_in_a_loop)
            worker.start()
            _ingest_new_table(ws, tmp_path)
            until = time.monotonic() + 20
            while rt.generation < 2 and time.monotonic() < until:
                time.sleep(0.05)
            time.sleep(0.3)
            stop.set()
            worker.join()
            generation = rt.generation
    finally:
        rt.close()
    assert generation == 2 and len(statuses) >= 2 and set(statuses) == {200}


def test_the_queue_reports_positions_in_order() -> None:
    admission = Admission(slots=1, queue_max=2)
    holder = Request.make("first", max_seconds=10)
    waiting = [Request.make(f"q{i}", max_seconds=10) for i in range(2)]
    order: list[str] = []
    with admission.enter(holder):
        threads = []
        for rq in waiting:

            def run(rq: Request = rq) -> None:
                with admission.enter(rq):
                    order.append(rq.question)

            threads.append(threading.Thread(target=run))
            threads[-1].start()
            while admission.waiting < len(threads):
                time.sleep(0.01)
        assert not admission.has_room()
    for t in threads:
        t.join()
    assert order == ["q0", "q1"]
    positions = [[e.data["position"] for e in rq.trace.events] for rq in waiting]
    assert positions[0] == [1]
    assert positions[1][0] == 2 and positions[1] == sorted(positions[1], reverse=True)


def test_a_wait_ends_at_the_request_deadline() -> None:
    admission = Admission(slots=1, queue_max=5)
    with admission.enter(Request.make("first", max_seconds=10)):
        late = Request.make("late", max_seconds=0.2)
        started = time.monotonic()
        try:
            with admission.enter(late):
                raise AssertionError("admitted while the slot was held")
        except Exception as exc:  # noqa: BLE001 - the type is checked next
            assert type(exc).__name__ == "ServiceBusy"
        assert time.monotonic() - started < 2
    assert admission.waiting == 0 and admission.active == 0


def test_a_cancelled_request_makes_no_more_model_calls(runtime: Runtime, llm: FunctionLLM) -> None:
    rq = runtime.request("How many refunds are there?")
    rq.cancelled.set()
    answer = runtime.serve(rq)
    assert llm.history == [] and answer.status != "ok"
    from tablerag.store import querylog

    entry = querylog.get(runtime.path, rq.id)
    assert entry is not None and entry.status == "cancelled"


def test_qa_open_and_ask_keep_working(ws: Path, llm: FunctionLLM, monkeypatch: object) -> None:
    from tablerag.service import QA

    with QA.open(ws, settings=settings(), llm=llm) as qa:
        a = qa.ask("How many refunds are there?", session="s", today=None)
        b = qa.ask("How many refunds are there?")
    assert a.status == b.status == "ok" and a.llm.calls == b.llm.calls == 1


def test_client_for_runtime_is_used(client: TestClient) -> None:
    assert client.get("/healthz").status_code == 200


def test_a_new_state_that_cannot_be_opened_leaves_the_current_one(
    runtime: Runtime, ws: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tablerag.errors import WorkspaceError
    from tablerag.service import QA

    _ingest_new_table(ws, tmp_path)

    def corrupt(*args: object, **kwargs: object) -> QA:
        raise WorkspaceError("The workspace file is corrupt; restore it from a backup.")

    monkeypatch.setattr(QA, "open", corrupt)
    with pytest.raises(WorkspaceError, match="corrupt"):
        runtime.refresh()
    assert runtime.refresh() is False  # the same state is not tried again
    assert runtime.generation == 1
    with client_for(runtime) as client:
        assert client.post("/v1/sql", json={"sql": "SELECT count(*) FROM fact_refund"}).json()[
            "rows"
        ] == [[152]]
    leftovers = [p.name for p in runtime._root.iterdir()] if runtime._root else []
    assert leftovers == ["gen-1"]  # the failed copy was deleted
