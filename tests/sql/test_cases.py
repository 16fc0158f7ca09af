"""Every hostile input is stopped and every benign-but-tricky query runs, on every engine."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import pytest

from tablerag.errors import QueryTimeout, SQLRejected
from tablerag.sql.engines import ResourceLimitExceeded, SQLEngine
from tablerag.sql.policy import ExecutionPolicy
from tests.sql.cases import BENIGN, HOSTILE, LIMIT, Case

FAST = ExecutionPolicy(time_limit_ms=1000, max_rows=50)


def _params(cases: list[Case]) -> list[Any]:
    out = []
    for i, case in enumerate(cases):
        for engine in case.engines:
            marks = {"postgres": [pytest.mark.postgres], "mysql": [pytest.mark.mariadb]}.get(
                engine, []
            )
            out.append(pytest.param(engine, case, id=f"{engine}-{case.ids(i)}", marks=marks))
    return out


def test_tables_are_big_enough() -> None:
    assert len(HOSTILE) >= 80
    assert len(BENIGN) >= 30
    assert len({c.sql for c in HOSTILE}) == len(HOSTILE)


@pytest.mark.parametrize(("kind", "case"), _params(HOSTILE))
def test_hostile_input_is_stopped(
    kind: str, case: Case, engine_for: Callable[[str], SQLEngine]
) -> None:
    engine = engine_for(kind)
    if case.expect == LIMIT:
        start = time.monotonic()
        with pytest.raises((QueryTimeout, ResourceLimitExceeded)):
            engine.execute(case.sql, FAST)
        assert time.monotonic() - start < FAST.time_limit_ms / 1000 + 1.0
    else:
        with pytest.raises(SQLRejected) as info:
            engine.execute(case.sql, FAST)
        codes = {i.code for i in info.value.issues}
        assert codes & set(case.expect), info.value.issues
        assert all(i.message.endswith((".", "?")) for i in info.value.issues)
    # the engine keeps serving afterwards
    assert engine.execute("SELECT count(*) AS n FROM orders", FAST).rows[0][0] == 2000


@pytest.mark.parametrize(("kind", "case"), _params(BENIGN))
def test_benign_query_runs(kind: str, case: Case, engine_for: Callable[[str], SQLEngine]) -> None:
    result = engine_for(kind).execute(case.sql, FAST)
    assert result.columns
    assert len(result.rows) <= FAST.max_rows
