"""``refresh``, ``remove`` and ``sources`` on a PostgreSQL source (the session's real server): drift
reported, the password given on the command line used and never kept or shown (issue 22)."""

from __future__ import annotations

import contextlib
import json
import secrets
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
from typer.testing import CliRunner

from tablerag.cli import app
from tablerag.cli._common import console
from tests.plugins.postgres import PASSWORD_USER, PostgresServer

pytestmark = pytest.mark.postgres
runner = CliRunner()
DBNAME = "tablerag_manage"
PASSWORD = "pwc-" + secrets.token_hex(8)
"""Canary: the password of PASSWORD_USER, in no output and nowhere in the workspace."""


@pytest.fixture(autouse=True)
def _settings(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TABLERAG_EMBEDDER", "hashing")
    monkeypatch.delenv("PGPASSWORD", raising=False)
    monkeypatch.setattr(console, "width", 400)


@pytest.fixture
def pg(postgres_server: PostgresServer) -> Iterator[tuple[PostgresServer, str]]:
    with postgres_server.connect() as admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{DBNAME}" WITH (FORCE)')
        admin.execute(f'CREATE DATABASE "{DBNAME}"')
        admin.execute(
            f"DO $$ BEGIN CREATE ROLE {PASSWORD_USER} LOGIN; EXCEPTION WHEN duplicate_object "
            "THEN NULL; END $$"
        )
        admin.execute(f"ALTER ROLE {PASSWORD_USER} PASSWORD '{PASSWORD}'")
    with postgres_server.connect(DBNAME) as con:
        con.execute("CREATE TABLE staff (id INTEGER PRIMARY KEY, name TEXT)")
        con.execute("CREATE TABLE visits (id INTEGER, staff_id INTEGER)")
        con.execute("INSERT INTO staff VALUES (1, 'Ann'), (2, 'Bob')")
        con.execute(f"GRANT SELECT ON staff, visits TO {PASSWORD_USER}")
    host = f"{postgres_server.host}:{postgres_server.port}"
    yield postgres_server, f"postgresql://{PASSWORD_USER}:{PASSWORD}@{host}/{DBNAME}"
    with postgres_server.connect() as admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{DBNAME}" WITH (FORCE)')
        # the role is shared by the session: other tests create it with their own password
        with contextlib.suppress(psycopg.errors.DependentObjectsStillExist):
            admin.execute(f"DROP ROLE IF EXISTS {PASSWORD_USER}")


def cli(*args: str) -> tuple[int, str]:
    res = runner.invoke(app, list(args))
    return res.exit_code, res.output


def workspace_bytes(ws: Path) -> str:
    return "\n".join(p.read_bytes().decode("latin-1") for p in sorted(ws.rglob("*")) if p.is_file())


def test_refresh_with_the_password_on_the_command_line_reports_drift(
    pg: tuple[PostgresServer, str], tmp_path: Path
) -> None:
    server, url = pg
    ws = str(tmp_path / "ws")
    outputs = []
    code, out = cli("ingest", url, "-w", ws)
    assert code == 0, out
    outputs.append(out)
    with server.connect(DBNAME) as con:
        con.execute("ALTER TABLE visits RENAME TO site_visits")
        con.execute("ALTER TABLE staff ADD COLUMN team TEXT")
        con.execute(f"GRANT SELECT ON site_visits TO {PASSWORD_USER}")

    code, out = cli("refresh", "-w", ws)  # the stored URL has no password, none in the env
    outputs.append(out)
    assert code == 1 and "failed" in out and "previous version is kept" in " ".join(out.split())
    code, out = cli("refresh", url, "-w", ws, "--json")
    outputs.append(out)
    assert code == 0, out
    [report] = json.loads(out)["sources"]
    changes = {c["table"]: c for c in report["changes"]}
    assert changes["visits"]["change"] == "removed"
    assert changes["site_visits"]["change"] == "added"
    assert changes["staff"]["columns_added"] == ["team"]

    for args in (("sources",), ("sources", "--json"), ("tables",)):
        code, out = cli(*args, "-w", ws)
        assert code == 0, out
        outputs.append(out)
    listed = json.loads(outputs[-2])
    assert listed[0]["location"].startswith(f"postgresql://{PASSWORD_USER}:***@")
    assert "site_visits" in outputs[-1]
    code, out = cli("remove", DBNAME, "-w", ws)
    outputs.append(out)
    assert code == 0, out
    assert cli("sources", "-w", ws, "--json")[1].strip() == "[]"
    assert PASSWORD not in "\n".join(outputs)
    assert PASSWORD not in workspace_bytes(tmp_path / "ws")
