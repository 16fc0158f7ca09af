"""The label repair's lookups on every engine: they name exposed columns only."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tablerag.nl2sql.literals import label_elsewhere
from tablerag.sql.engines import SQLEngine
from tests.sql.conftest import ENGINES

KINDS = [pytest.param(k, marks=pytest.mark.postgres) if k == "postgres" else k for k in ENGINES]
SHOWN = ["orders", "customers", "销售"]


@pytest.mark.parametrize("kind", KINDS)
def test_a_label_another_table_stores_is_named(
    kind: str, engine_for: Callable[[str], SQLEngine]
) -> None:
    engine = engine_for(kind)
    sql = "SELECT count(*) FROM orders WHERE region = 'shanghai'"
    assert label_elsewhere(sql, engine, SHOWN) == (
        "orders.region has no 'shanghai'; customers.city stores it: read that table"
    )
    han = "SELECT count(*) FROM orders WHERE region IN ('华东区', '华东')"
    assert label_elsewhere(han, engine, SHOWN) == (
        "orders.region has no '华东'; 销售.地区 stores it: read that table"
    )
    assert label_elsewhere("SELECT 1 FROM orders WHERE region = 'north'", engine, SHOWN) is None


@pytest.mark.parametrize("kind", KINDS)
def test_hidden_columns_and_unexposed_tables_are_never_read(
    kind: str, engine_for: Callable[[str], SQLEngine]
) -> None:
    engine = engine_for(kind)
    for value in ("pw-1", "user1@example.com", "13812340001", "the-launch-code"):
        sql = f"SELECT count(*) FROM orders WHERE region = '{value}'"
        assert label_elsewhere(sql, engine, [*SHOWN, "secrets"]) is None, value
