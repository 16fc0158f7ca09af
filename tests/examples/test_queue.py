"""The review queue: answers whose latest feedback is ``wrong`` or ``not_in_data`` (from the CLI
or ``POST /v1/feedback``, the same log), most recently flagged first."""

from __future__ import annotations

from pathlib import Path

from tablerag.store import querylog


def _entry(folder: Path, answer_id: str) -> None:
    querylog.record(
        folder,
        querylog.Entry(
            id=answer_id, asked_at=querylog.now(), origin="api", question=f"q {answer_id}",
            status="ok",
        ),
    )  # fmt: skip


def test_the_latest_feedback_decides_and_the_last_flagged_comes_first(tmp_path: Path) -> None:
    for answer_id in ("a", "b", "c", "d"):
        _entry(tmp_path, answer_id)
    querylog.add_feedback(tmp_path, "a", "wrong", "off by one")
    querylog.add_feedback(tmp_path, "b", "wrong")
    querylog.add_feedback(tmp_path, "b", "right", "it was right after all")
    querylog.add_feedback(tmp_path, "c", "right")
    querylog.add_feedback(tmp_path, "c", "not_in_data")
    assert [e.id for e in querylog.flagged(tmp_path)] == ["c", "a"]
    assert querylog.flagged(tmp_path)[1].feedback[-1]["comment"] == "off by one"
    assert not querylog.add_feedback(tmp_path, "zz", "wrong")
