"""Views in a DuckDB file over hidden columns: a view column computed from a hidden column is
hidden too (lineage through the view's SQL: aliases, functions, CTEs, ``*``, views of views), so
neither the gate nor the exposure views let it through. Canaries in the hidden column."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import duckdb
import pytest

from tablerag.errors import SQLRejected, TableragError
from tablerag.sql.engines import DuckDBEngine, open_engine
from tablerag.sql.policy import ExecutionPolicy

POLICY = ExecutionPolicy(time_limit_ms=5000, max_rows=50)
PW = "CANARY-view-pw-51ad"

VIEWS = {
    "v_alias": "SELECT id, password AS secret, name FROM users",
    "v_func": "SELECT id, upper(password) AS shout, length(name) AS n FROM users",
    "v_star": "SELECT * FROM users",
    "v_cte": "WITH t AS (SELECT id, password AS x FROM users) SELECT id, x AS y FROM t",
    "v_nested": "SELECT secret AS s2, id FROM v_alias",
    "v_ok": "SELECT id, name FROM users",
}
HIDDEN = {
    "v_alias": {"secret"},
    "v_func": {"shout"},
    "v_star": {"password"},
    "v_cte": {"y"},
    "v_nested": {"s2"},
    "v_ok": set(),
}


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[DuckDBEngine]:
    path: Path = tmp_path_factory.mktemp("views") / "views.duckdb"
    con = duckdb.connect(str(path))
    con.execute("CREATE TABLE users (id INTEGER, name VARCHAR, password VARCHAR)")
    con.execute(f"INSERT INTO users VALUES (1, 'ann', '{PW}-1'), (2, 'bob', '{PW}-2')")
    for name, sql in VIEWS.items():
        con.execute(f"CREATE VIEW {name} AS {sql}")
    con.execute("CREATE SCHEMA sales")
    con.execute("CREATE VIEW sales.contacts AS SELECT name, password AS pin FROM main.users")
    con.close()
    opened = open_engine(path, policy=POLICY)
    assert isinstance(opened, DuckDBEngine)
    yield opened
    opened.close()


@pytest.mark.parametrize("view", sorted(VIEWS))
def test_view_columns_from_hidden_columns_are_hidden(engine: DuckDBEngine, view: str) -> None:
    table = engine.catalog.table(view, schema="main")
    assert table is not None
    assert HIDDEN[view] <= set(table.hidden), (view, table)
    assert not HIDDEN[view] & set(table.columns)
    for sql in (f"SELECT * FROM {view}", f"SELECT {view} FROM {view}",
                *(f"SELECT {c} FROM {view}" for c in HIDDEN[view])):  # fmt: skip
        for gate in (True, False):
            try:
                if gate:
                    text = repr(engine.execute(sql, POLICY))
                else:  # the exposure views alone
                    text = repr(engine._run(sql.replace(view, f"main.{view}"), POLICY))
            except SQLRejected as exc:
                text = str(exc)
            except TableragError as exc:
                text = str(exc)
            assert PW not in text, (sql, gate, text)


def test_views_in_another_schema_and_clean_views_work(engine: DuckDBEngine) -> None:
    contacts = engine.catalog.table("contacts", schema="sales")
    assert contacts is not None and "pin" in contacts.hidden and contacts.columns == ("name",)
    assert engine.execute("SELECT name FROM v_ok ORDER BY id", POLICY).rows == (("ann",), ("bob",))
    assert engine.execute("SELECT n FROM v_func ORDER BY id", POLICY).rows == ((3,), (3,))
    with pytest.raises(SQLRejected):
        engine.execute("SELECT s2 FROM v_nested", POLICY)
