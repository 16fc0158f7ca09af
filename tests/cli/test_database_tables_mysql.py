"""A MariaDB source seen as a new user sees it (issue 36): ``schema`` profiles a table through
the read-only engine, shows column comments; ``tables`` and ``sources`` give row counts and say
"no access" for a table the account may not read."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tablerag.cli import app
from tablerag.cli._common import console
from tests.plugins.mariadb import MariaDBServer

pytestmark = pytest.mark.mariadb
runner = CliRunner()
DBNAME = "tablerag_new_user"
USER = "tr36_reader"
ORDERS = 3757


@pytest.fixture(autouse=True)
def _settings(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TABLERAG_EMBEDDER", "hashing")
    monkeypatch.setenv("TABLERAG_INDEX_ON_INGEST", "false")
    monkeypatch.setattr(console, "width", 300)


@pytest.fixture(scope="module")
def shop(mariadb_server: MariaDBServer, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """orders (commented), customers (phone hidden, granted by column), staff (a privilege
    that is not SELECT: listed, not readable)."""
    server = mariadb_server
    server.execute(
        f"DROP DATABASE IF EXISTS {DBNAME}", f"CREATE DATABASE {DBNAME}",
        f"DROP USER IF EXISTS '{USER}'@'%'", f"CREATE USER '{USER}'@'%'",
    )  # fmt: skip
    server.execute(
        "CREATE TABLE orders (id INTEGER PRIMARY KEY, status VARCHAR(10) NOT NULL, "
        "amount DECIMAL(10, 2) COMMENT 'Order total in yuan, tax included', note TEXT) "
        "COMMENT 'One row per customer order'",
        "SET SESSION max_recursive_iterations = 10000",
        "INSERT INTO orders WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n "
        f"WHERE i < {ORDERS}) SELECT i, ELT(1 + i % 3, 'PAID', 'UNPAID', 'REFUNDED'), i % 500, "
        "CASE WHEN i % 4 = 0 THEN NULL ELSE 'call 13812345678' END FROM n",
        "CREATE TABLE customers (id INTEGER PRIMARY KEY, name VARCHAR(20), phone VARCHAR(20))",
        "INSERT INTO customers VALUES (1, 'Ann', '13900001111'), (2, 'Bob', NULL)",
        "CREATE TABLE staff (id INTEGER PRIMARY KEY, salary INTEGER)",
        "INSERT INTO staff VALUES (1, 9000)",
        f"GRANT SELECT ON {DBNAME}.orders TO '{USER}'@'%'",
        f"GRANT SELECT (id, name) ON {DBNAME}.customers TO '{USER}'@'%'",
        f"GRANT SHOW VIEW ON {DBNAME}.staff TO '{USER}'@'%'",
        database=DBNAME,
    )
    url = f"mysql://{USER}@{server.host}:{server.port}/{DBNAME}"
    ws = tmp_path_factory.mktemp("newuser_mysql") / "ws"
    res = runner.invoke(app, ["ingest", url, "-w", str(ws)])
    assert res.exit_code == 0, res.output
    yield ws
    server.execute(f"DROP DATABASE IF EXISTS {DBNAME}", f"DROP USER IF EXISTS '{USER}'@'%'")


def _line(printed: str, word: str) -> str:
    return next(ln for ln in printed.splitlines() if f"│ {word} " in ln)


def test_tables_and_sources_give_row_counts_and_no_access(shop: Path) -> None:
    res = runner.invoke(app, ["tables", "-w", str(shop)])
    assert res.exit_code == 0, res.output
    assert f"{ORDERS:,}" in _line(res.stdout, "orders")
    assert "no access" in _line(res.stdout, "staff")
    listed = runner.invoke(app, ["tables", "-w", str(shop), "--json"]).stdout
    by_name = {t["name"]: t for t in json.loads(listed)}
    assert (by_name["staff"]["rows"], by_name["staff"]["readable"]) == (None, False)
    (record,) = json.loads(runner.invoke(app, ["sources", "-w", str(shop), "--json"]).stdout)
    assert record["rows_in_place"] == ORDERS + 2 and record["tables_no_access"] == 1


def test_schema_profiles_a_database_table_through_the_engine(shop: Path) -> None:
    res = runner.invoke(app, ["schema", "orders", "-w", str(shop)])
    assert res.exit_code == 0, res.output
    assert "sample of 0" not in res.stdout and "One row per customer order" in res.stdout
    assert "Order total in yuan, tax included" in _line(res.stdout, "amount")
    assert "PAID | REFUNDED | UNPAID" in _line(res.stdout, "status")
    assert "25%" in _line(res.stdout, "note") and "13812345678" not in res.stdout
    res = runner.invoke(app, ["schema", "customers", "-w", str(shop), "--json"])
    assert "13900001111" not in res.stdout
    profiles = {p["column"]: p for p in json.loads(res.stdout)["profiles"]}
    assert profiles["name"]["distinct_count"] == 2
