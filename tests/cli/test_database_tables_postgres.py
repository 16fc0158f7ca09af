"""A PostgreSQL source seen as a new user sees it (issue 36): ``schema`` profiles a table
through the read-only engine (never a hidden column, masked values masked), shows column
comments; ``tables`` and ``sources`` give row counts and say "no access" for a table the role
may not read."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tablerag.cli import app
from tablerag.cli._common import console
from tests.plugins.postgres import PostgresServer

pytestmark = pytest.mark.postgres
runner = CliRunner()
DBNAME = "tablerag_new_user"
ROLE = "tr36_reader"
ORDERS = 3757


@pytest.fixture(autouse=True)
def _settings(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TABLERAG_EMBEDDER", "hashing")
    monkeypatch.setenv("TABLERAG_INDEX_ON_INGEST", "false")
    monkeypatch.setattr(console, "width", 300)


@pytest.fixture(scope="module")
def shop(
    postgres_server: PostgresServer, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Path]:
    """The shop ingested as a read-only role: orders (commented), customers (phone hidden,
    granted by column), staff (not granted at all)."""
    with postgres_server.connect() as admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{DBNAME}" WITH (FORCE)')
        admin.execute(f'CREATE DATABASE "{DBNAME}"')
        admin.execute(f"DROP ROLE IF EXISTS {ROLE}")
        admin.execute(f"CREATE ROLE {ROLE} LOGIN")
    with postgres_server.connect(DBNAME) as con:
        con.execute(
            "CREATE TABLE orders (id INTEGER PRIMARY KEY, status TEXT NOT NULL, "
            "amount NUMERIC(10, 2), note TEXT)"
        )
        con.execute("COMMENT ON TABLE orders IS 'One row per customer order'")
        con.execute("COMMENT ON COLUMN orders.amount IS 'Order total in yuan, tax included'")
        con.execute(
            "INSERT INTO orders SELECT i, (ARRAY['PAID', 'UNPAID', 'REFUNDED'])[1 + i % 3], "
            "i % 500, CASE WHEN i % 4 = 0 THEN NULL ELSE 'call 13812345678' END "
            f"FROM generate_series(1, {ORDERS}) AS i"
        )
        con.execute(
            "CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT, phone TEXT, segment TEXT)"
        )
        con.execute(
            "INSERT INTO customers VALUES (1, 'Ann', '13900001111', 'retail'), (2, 'Bob', NULL, "
            "'trade')"
        )
        con.execute("CREATE TABLE staff (id INTEGER PRIMARY KEY, salary INTEGER)")
        con.execute("INSERT INTO staff VALUES (1, 9000)")
        con.execute(f"GRANT SELECT ON orders TO {ROLE}")
        con.execute(f"GRANT SELECT (id, name) ON customers TO {ROLE}")
    url = f"postgresql://{ROLE}@{postgres_server.host}:{postgres_server.port}/{DBNAME}"
    ws = tmp_path_factory.mktemp("newuser") / "ws"
    res = runner.invoke(app, ["ingest", url, "-w", str(ws)])
    assert res.exit_code == 0, res.output
    yield ws
    with postgres_server.connect() as admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{DBNAME}" WITH (FORCE)')
        admin.execute(f"DROP ROLE IF EXISTS {ROLE}")


def _line(printed: str, word: str) -> str:
    return next(ln for ln in printed.splitlines() if f"│ {word} " in ln)


def test_tables_and_sources_give_row_counts_and_no_access(shop: Path) -> None:
    res = runner.invoke(app, ["tables", "-w", str(shop)])
    assert res.exit_code == 0, res.output
    assert f"{ORDERS:,}" in _line(res.stdout, "orders")
    assert "no access" in _line(res.stdout, "staff") and "-" not in _line(res.stdout, "staff")
    listed = {
        t["name"]: t
        for t in json.loads(runner.invoke(app, ["tables", "-w", str(shop), "--json"]).stdout)
    }
    assert (listed["orders"]["rows"], listed["orders"]["readable"]) == (ORDERS, True)
    assert (listed["staff"]["rows"], listed["staff"]["readable"]) == (None, False)

    res = runner.invoke(app, ["sources", "-w", str(shop)])
    assert res.exit_code == 0, res.output
    row = next(ln for ln in res.stdout.splitlines() if DBNAME in ln)
    assert f"{ORDERS + 2:,} (in place), 1 table no access" in row
    (record,) = json.loads(runner.invoke(app, ["sources", "-w", str(shop), "--json"]).stdout)
    assert (record["rows_in_place"], record["tables_no_access"]) == (ORDERS + 2, 1)

    res = runner.invoke(app, ["schema", "staff", "-w", str(shop)])
    assert "no access" in res.stdout and "-1" not in res.stdout


def test_schema_profiles_a_database_table_through_the_engine(shop: Path) -> None:
    res = runner.invoke(app, ["schema", "orders", "-w", str(shop)])
    assert res.exit_code == 0, res.output
    assert "sample of 0" not in res.stdout
    assert "One row per customer order" in res.stdout
    assert "Order total in yuan, tax included" in _line(res.stdout, "amount")
    status = _line(res.stdout, "status")
    assert "PAID | REFUNDED | UNPAID" in status and "│ 3 " in status
    assert "25%" in _line(res.stdout, "note")  # one note in four is NULL
    assert "13812345678" not in res.stdout  # masked as a result cell is
    out = json.loads(runner.invoke(app, ["schema", "orders", "-w", str(shop), "--json"]).stdout)
    profiles = {p["column"]: p for p in out["profiles"]}
    assert profiles["id"]["sampled_rows"] == ORDERS and profiles["id"]["distinct_count"] == ORDERS
    assert profiles["note"]["null_ratio"] == pytest.approx(0.25, abs=0.01)


def test_schema_never_reads_a_hidden_column(shop: Path) -> None:
    res = runner.invoke(app, ["schema", "customers", "-w", str(shop)])
    assert "not profiled: segment (the role may not read it)" in res.stdout
    assert "│ 2 " in _line(res.stdout, "name") and "retail" not in res.stdout
    res = runner.invoke(app, ["schema", "customers", "-w", str(shop), "--json"])
    assert res.exit_code == 0, res.output
    assert "13900001111" not in res.stdout
    profiles = {p["column"]: p for p in json.loads(res.stdout)["profiles"]}
    assert profiles["name"]["distinct_count"] == 2
    assert "phone" not in profiles or profiles["phone"]["sampled_rows"] == 0
