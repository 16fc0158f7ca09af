"""Conversations in the service file: created on first use, turns numbered in order, two
writers (threads and processes) at once, an old service file upgraded, retention."""

from __future__ import annotations

import datetime as dt
import sqlite3
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from tablerag.errors import ConfigError
from tablerag.store import querylog, sessions
from tablerag.store.migrations import SERVICE_MIGRATIONS
from tablerag.store.sessions import Turn

SRC = str(Path(__file__).resolve().parents[2] / "src")


def _turn(i: int) -> Turn:
    return Turn(
        f"q{i}",
        f"standalone {i}",
        f"id{i}",
        path="nl2sql",
        status="ok",
        sql=f"SELECT {i}",
        columns=("a", "b"),
        row_count=i,
        filter_values=("华东",),
        chunk_ids=("c1",),
    )


def test_an_unknown_id_is_created_and_turns_read_back_in_order(tmp_path: Path) -> None:
    found, created = sessions.open_session(tmp_path, "s-1", origin="cli")
    assert created and found.turns == () and found.origin == "cli"
    for i in (1, 2, 3):
        stored = sessions.add_turn(tmp_path, "s-1", _turn(i))
        assert stored.n == i and stored.asked_at
    again, created = sessions.open_session(tmp_path, "s-1", last=2)
    assert not created and again.turn_count == 3
    assert [t.n for t in again.turns] == [2, 3]
    assert again.turns[-1].columns == ("a", "b") and again.turns[-1].filter_values == ("华东",)
    assert [s.session_id for s in sessions.listed(tmp_path)] == ["s-1"]
    assert sessions.get(tmp_path, "nope") is None


@pytest.mark.parametrize("bad", ["", "a b", "x" * 201, "../etc", "名字;drop"])
def test_an_unusable_id_is_refused_with_what_is_allowed(tmp_path: Path, bad: str) -> None:
    with pytest.raises(ConfigError, match="letters, digits"):
        sessions.open_session(tmp_path, bad)


def test_threads_adding_turns_to_one_session_each_get_their_own_number(tmp_path: Path) -> None:
    sessions.open_session(tmp_path, "shared")
    errors: list[BaseException] = []

    def write(k: int) -> None:
        try:
            for i in range(10):
                sessions.add_turn(tmp_path, "shared", _turn(k * 100 + i))
        except BaseException as exc:  # collected: the assertion below names it
            errors.append(exc)

    threads = [threading.Thread(target=write, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    found = sessions.get(tmp_path, "shared")
    assert found is not None and found.turn_count == 40
    assert [t.n for t in found.turns] == list(range(1, 41))
    assert len({t.answer_id for t in found.turns}) == 40


WRITER = (
    "import sys\n"
    "from pathlib import Path\n"
    "from tablerag.store import sessions\n"
    "from tablerag.store.sessions import Turn\n"
    "for i in range(15):\n"
    "    sessions.add_turn(Path(sys.argv[1]), 'shared', Turn('q', 's', f'{sys.argv[2]}-{i}'))\n"
)


def test_processes_adding_turns_at_once_leave_no_half_written_turn(tmp_path: Path) -> None:
    env = {"PYTHONPATH": SRC, "PATH": ""}
    procs = [
        subprocess.Popen([sys.executable, "-c", WRITER, str(tmp_path), str(k)], env=env)
        for k in range(3)
    ]
    assert [p.wait(timeout=60) for p in procs] == [0, 0, 0]
    found = sessions.get(tmp_path, "shared")
    assert found is not None and [t.n for t in found.turns] == list(range(1, 46))
    with sqlite3.connect(tmp_path / "service.sqlite") as con:
        assert con.execute("PRAGMA integrity_check").fetchone() == ("ok",)


def test_a_service_file_of_the_first_version_gains_the_session_tables(tmp_path: Path) -> None:
    con = sqlite3.connect(tmp_path / "service.sqlite")
    con.executescript(SERVICE_MIGRATIONS[0] + "; PRAGMA user_version = 1;")
    con.close()
    querylog.record(tmp_path, querylog.Entry("a1", querylog.now(), "cli", "q", "ok"))
    sessions.add_turn(tmp_path, "old", _turn(1))
    assert querylog.get(tmp_path, "a1") is not None
    with sqlite3.connect(tmp_path / "service.sqlite") as con:
        assert con.execute("PRAGMA user_version").fetchone() == (len(SERVICE_MIGRATIONS),)


def test_sessions_unused_past_the_retention_go_with_their_turns(tmp_path: Path) -> None:
    sessions.add_turn(tmp_path, "old", _turn(1))
    sessions.add_turn(tmp_path, "new", _turn(2))
    past = (dt.datetime.now(dt.UTC) - dt.timedelta(days=40)).isoformat()
    with sqlite3.connect(tmp_path / "service.sqlite") as con:
        con.execute("UPDATE sessions SET updated_at = ? WHERE session_id = 'old'", (past,))
    assert sessions.prune(tmp_path, 0) == 0
    assert sessions.prune(tmp_path, 30) == 1
    assert sessions.get(tmp_path, "old") is None and sessions.get(tmp_path, "new") is not None
    with sqlite3.connect(tmp_path / "service.sqlite") as con:
        assert con.execute("SELECT count(*) FROM turns").fetchone() == (1,)
