"""The dev / held-out split of the user-data sets: stable by id, about a third held out, and
``--part`` picks it; the sets' registry and its errors."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from tablerag.cli import app
from tablerag.errors import ConfigError
from tablerag.evals.userdata.sets import SETS, get_set
from tablerag.evals.userdata.split import part_of, select_part
from tests.evals.userdata_helpers import runner


def test_the_part_of_an_id_is_its_hash_and_never_moves() -> None:
    for qid in ("c-01", "l-22", "s-30", "ud-01", "anything"):
        digest = hashlib.sha256(qid.encode()).digest()
        want = "heldout" if int.from_bytes(digest[:8], "big") % 3 == 0 else "dev"
        assert part_of(qid) == want
    # pinned: a change of the hash or the modulus would silently reshuffle the held-out part
    assert [q.qid for q in select_part(SETS["v2"].questions, "heldout")][:4] == HELD_V2
    assert [q.qid for q in select_part(SETS["shop"].questions, "heldout")][:4] == HELD_SHOP


HELD_V2 = ["c-02", "c-08", "c-10", "c-16"]
HELD_SHOP = ["s-02", "s-04", "s-08", "s-10"]


@pytest.mark.parametrize("name", ["v2", "v3", "shop"])
def test_about_a_third_is_held_out_and_the_parts_cover_the_set(name: str) -> None:
    questions = SETS[name].questions
    dev, held = select_part(questions, "dev"), select_part(questions, "heldout")
    assert {q.qid for q in dev}.isdisjoint(q.qid for q in held)
    assert len(dev) + len(held) == len(questions) == len(select_part(questions, "all"))
    assert 0.2 <= len(held) / len(questions) <= 0.45
    # both parts hold both languages and unanswerable questions
    for part in (dev, held):
        assert {q.language for q in part} == {"zh", "en"}


def test_unknown_parts_and_sets_say_what_to_give(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="dev, heldout, all"):
        select_part(SETS["v2"].questions, "test")
    with pytest.raises(ConfigError, match="v1, v2, v3, shop"):
        get_set("v9")
    for args, message in (
        (["--set", "v2", "--db", "postgresql://x/y"], "--db is for --set shop"),
        (["--set", "shop", "--db", "mysql://x/y"], "takes a PostgreSQL URL"),
        (["--set", "shop", "--part", "test"], "dev, heldout, all"),
    ):
        res = runner.invoke(app, ["eval", "userdata", *args, "--out", str(tmp_path / "r")])
        assert isinstance(res.exception, ConfigError), res.output
        assert message in str(res.exception)
    assert not (tmp_path / "r").exists()  # refused before anything was written
