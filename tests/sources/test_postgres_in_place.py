"""A PostgreSQL database asked in place (the session's real test server), beside files:
ingest, ``sql`` without ``--db``, ``ask`` and the loop, the password never stored, bad input."""

from __future__ import annotations

import json
import secrets
from collections.abc import Iterator
from pathlib import Path

import duckdb
import pytest
from typer.testing import CliRunner

from tablerag.cli import app
from tablerag.layout import DB_FILE
from tablerag.llm.testing import FunctionLLM
from tablerag.service import QA
from tablerag.types import SourceReport
from tests.plugins.postgres import PASSWORD_USER, PostgresServer
from tests.sources.conftest import POLICY_MD, SALES_CSV, SETTINGS, Model, ingest

pytestmark = pytest.mark.postgres
runner = CliRunner()

DBNAME = "tablerag_in_place"
READER = "tr_place_reader"
STAFF = [(1, "Ann", "ops"), (2, "Bob", "ops"), (3, "Cy", "sales")]
OPS_SQL = "SELECT count(*) AS n FROM staff WHERE dept = 'ops'"
PASSWORD = "pw-" + secrets.token_hex(8)
"""The canary password of PASSWORD_USER: it must never appear in the workspace or any output."""


@pytest.fixture(scope="module")
def pg(postgres_server: PostgresServer) -> Iterator[dict[str, str]]:
    """The database with table ``staff``, a read-only role and the password role."""
    with postgres_server.connect() as admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{DBNAME}"')
        admin.execute(f'CREATE DATABASE "{DBNAME}"')
        for role in (READER, PASSWORD_USER):
            admin.execute(
                f"DO $$ BEGIN CREATE ROLE {role} LOGIN; EXCEPTION WHEN duplicate_object "
                "THEN NULL; END $$"
            )
        admin.execute(f"ALTER ROLE {PASSWORD_USER} PASSWORD '{PASSWORD}'")
    with postgres_server.connect(DBNAME) as con:
        con.execute("CREATE TABLE staff (id INTEGER PRIMARY KEY, name TEXT, dept TEXT)")
        with con.cursor() as cur:
            cur.executemany("INSERT INTO staff VALUES (%s, %s, %s)", STAFF)
        con.execute(f"GRANT SELECT ON staff TO {READER}, {PASSWORD_USER}")
    host = f"{postgres_server.host}:{postgres_server.port}"
    yield {
        "reader": f"postgresql://{READER}@{host}/{DBNAME}",
        "host": host,
        "inline": f"postgresql://{PASSWORD_USER}:{PASSWORD}@{host}/{DBNAME}",
        "bare": f"postgresql://{PASSWORD_USER}@{host}/{DBNAME}",
    }
    with postgres_server.connect() as admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{DBNAME}" WITH (FORCE)')


def workspace_text(ws: Path) -> str:
    """Every byte of the workspace folder (the DuckDB file, its WAL, the index), as text."""
    return "\n".join(p.read_bytes().decode("latin-1") for p in sorted(ws.rglob("*")) if p.is_file())


def cli(*args: str) -> tuple[int, str]:
    res = runner.invoke(app, list(args))
    return res.exit_code, res.output


def test_postgres_beside_files_sql_ask_and_loop(pg: dict[str, str], tmp_path: Path) -> None:
    (tmp_path / "sales.csv").write_text(SALES_CSV, encoding="utf-8")
    ingest(tmp_path / "ws", [pg["reader"], tmp_path / "sales.csv"])
    ws = str(tmp_path / "ws")
    code, out = cli(
        "sql", "SELECT name FROM staff WHERE dept = 'ops' ORDER BY name", "-w", ws, "--json"
    )
    assert code == 0, out
    assert json.loads(out)["rows"] == [["Ann"], ["Bob"]]
    code, out = cli(
        "sql", f"SELECT name FROM {DBNAME}.staff ORDER BY id LIMIT 1", "-w", ws, "--json"
    )
    assert (code, json.loads(out)["rows"]) == (0, [["Ann"]])
    code, out = cli("sql", "SELECT * FROM staff, sales", "-w", ws, "--json")
    assert code == 3 and json.loads(out)["error"]["issues"][0]["code"] == "cross_source"
    model = Model(
        {"ops": OPS_SQL, "north": "SELECT sum(amount) AS t FROM sales WHERE region = 'north'"}
    )
    with QA.open(ws, llm=FunctionLLM(model), settings=SETTINGS) as qa:
        staff = qa.ask("How many staff work in the ops department?")
        files = qa.ask("What is the total amount of sales in the north region?")
        loop = qa.loop("How many staff work in the ops department?")
        engines = sorted(type(e).__name__ for e in qa.sources.opened())
    assert (staff.status, staff.table and staff.table.rows) == ("ok", [[2]])
    assert "PostgreSQL" in model.sql_prompts[0] or "postgres" in model.sql_prompts[0]
    assert files.table is not None and files.table.rows == [[16]]
    assert loop.table is not None and loop.table.rows == [[2]]
    assert engines == ["DuckDBEngine", "PostgresEngine"]


def test_an_inline_password_is_never_stored_and_asking_says_how_to_give_it(
    pg: dict[str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("PGPASSWORD", raising=False)
    monkeypatch.setenv("PGPASSFILE", str(tmp_path / "no-pgpass"))
    ws = tmp_path / "ws"
    [report] = ingest(ws, [pg["inline"]])
    notes = [p.line() for p in report.problems]
    assert any("password in the URL is not stored" in n and "PGPASSWORD" in n for n in notes)
    outputs = [cli("sources", "-w", str(ws))[1], cli("sources", "-w", str(ws), "--json")[1]]
    outputs.append(cli("tables", "-w", str(ws))[1])
    assert f"{PASSWORD_USER}:***@" in outputs[1]
    # asking later: the stored URL has no password; the login is refused with the fix
    code, out = cli("sql", "SELECT count(*) FROM staff", "-w", str(ws))
    outputs.append(out)
    assert code == 1 and "rejected the login" in out and "PGPASSWORD" in out
    model = Model({"ops": OPS_SQL}, passages="NOT_FOUND")  # the documents do not say either
    with QA.open(ws, llm=FunctionLLM(model), settings=SETTINGS) as qa:
        refused = qa.ask("How many staff work in the ops department?")
        outputs.append(refused.model_dump_json())
        assert refused.status == "error" and "rejected the login" in (refused.error or "")
        # libpq's own PGPASSWORD keeps working
        monkeypatch.setenv("PGPASSWORD", PASSWORD)
        answered = qa.ask("How many staff work in the ops department?")
    assert answered.table is not None and answered.table.rows == [[2]]
    outputs.append(answered.model_dump_json())
    for text in [*outputs, workspace_text(ws), *model.sql_prompts]:
        assert PASSWORD not in text


@pytest.mark.parametrize("how", ["password_env", "password_file"])
def test_a_url_names_its_password_by_variable_or_file(
    pg: dict[str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, how: str
) -> None:
    monkeypatch.delenv("PGPASSWORD", raising=False)
    if how == "password_env":
        monkeypatch.setenv("TR_TEST_PG_PASSWORD", PASSWORD)
        url = f"{pg['bare']}?password_env=TR_TEST_PG_PASSWORD"
    else:
        (tmp_path / "pw.txt").write_text(PASSWORD + "\n", encoding="utf-8")
        url = f"{pg['bare']}?password_file={tmp_path / 'pw.txt'}"
    ws = tmp_path / "ws"
    [report] = ingest(ws, [url])
    assert report.tables == ("staff",) and not any("not stored" in p.what for p in report.problems)
    code, out = cli("sql", "SELECT count(*) AS n FROM staff", "-w", str(ws), "--json")
    assert (code, json.loads(out)["rows"]) == (0, [[3]])
    code, sources = cli("sources", "-w", str(ws), "--json")
    assert code == 0 and how in sources
    assert PASSWORD not in out + sources + workspace_text(ws)
    if how == "password_env":  # unset later: one sentence naming the variable
        monkeypatch.delenv("TR_TEST_PG_PASSWORD")
        code, out = cli("sql", "SELECT count(*) AS n FROM staff", "-w", str(ws))
        assert code == 1 and "'TR_TEST_PG_PASSWORD', which is not set" in out
        assert "Traceback" not in out


def _failed(tmp_path: Path, url: str) -> tuple[SourceReport, str]:
    from tablerag.service import Workspace

    with Workspace.open(tmp_path / "ws") as ws:
        [report] = ws.ingest([url], settings=SETTINGS)
        left = ws.sources()
    assert report.status == "failed" and left == []  # nothing written
    code, out = cli("sql", "SELECT 1 AS x FROM staff", "--db", url)
    assert code == 1 and "Traceback" not in out
    return report, out


def test_a_wrong_password_is_one_sentence_without_the_password(
    pg: dict[str, str], tmp_path: Path
) -> None:
    wrong = pg["inline"].replace(PASSWORD, "not-" + PASSWORD)
    report, out = _failed(tmp_path, wrong)
    assert "rejected the login" in (report.error or "") and "rejected the login" in out
    assert PASSWORD not in (report.error or "") + out


def test_an_unknown_database_is_one_sentence(pg: dict[str, str], tmp_path: Path) -> None:
    report, out = _failed(tmp_path, pg["reader"].replace(DBNAME, "no_such_db"))
    assert "'no_such_db' does not exist" in (report.error or "")
    assert "'no_such_db' does not exist" in out


def test_a_server_that_is_down_fails_only_its_questions(pg: dict[str, str], tmp_path: Path) -> None:
    (tmp_path / "sales.csv").write_text(SALES_CSV, encoding="utf-8")
    ws = tmp_path / "ws"
    ingest(ws, [pg["reader"], tmp_path / "sales.csv"])
    # the server moves away: the stored location now points at a port nobody listens on
    con = duckdb.connect(str(ws / DB_FILE))
    con.execute(
        "UPDATE tablerag.sources SET location = replace(location, ?, '127.0.0.1:1') "
        "WHERE kind = 'database'",
        [pg["host"]],
    )
    con.close()
    model = Model(
        {"ops": OPS_SQL, "north": "SELECT sum(amount) AS t FROM sales WHERE region = 'north'"},
        passages="NOT_FOUND",  # the documents do not say either
    )
    with QA.open(ws, llm=FunctionLLM(model), settings=SETTINGS) as qa:
        files = qa.ask("What is the total amount of sales in the north region?")
        down = qa.ask("How many staff work in the ops department?")
    assert files.status == "ok" and files.table is not None and files.table.rows == [[16]]
    assert down.status == "error" and "connection was refused" in (down.error or "")
    code, out = cli("sql", "SELECT count(*) FROM staff", "-w", str(ws))
    assert code == 1 and "Cannot connect to PostgreSQL at 127.0.0.1:1" in out.replace("\n", " ")


def test_a_server_that_is_down_is_said_before_any_model_call(
    pg: dict[str, str], tmp_path: Path
) -> None:
    """Issue 36: the data path found the source down in a second, then the documents
    fallback spent a model call (77 s on the local model) before the answer said so."""
    (tmp_path / "sales.csv").write_text(SALES_CSV, encoding="utf-8")
    (tmp_path / "policy.md").write_text(POLICY_MD, encoding="utf-8")
    ws = tmp_path / "ws"
    ingest(ws, [pg["reader"], tmp_path / "sales.csv", tmp_path / "policy.md"])
    con = duckdb.connect(str(ws / DB_FILE))
    con.execute(
        "UPDATE tablerag.sources SET location = replace(location, ?, '127.0.0.1:1') "
        "WHERE kind = 'database'",
        [pg["host"]],
    )
    con.close()
    model = Model({"ops": OPS_SQL})
    with QA.open(ws, llm=FunctionLLM(model), settings=SETTINGS) as qa:
        down = qa.ask("How many staff work in the ops department?")
    assert (down.status, down.path, down.fallback) == ("error", "nl2sql", None)
    assert down.answer.startswith(f"The source {DBNAME} (")
    assert "cannot be queried now" in down.answer and "connection was refused" in down.answer
    assert model.calls == 0 and down.llm.calls == 0
