"""A MySQL/MariaDB database as a workspace source, end to end through the CLI on a real MariaDB
server: ingest a ``mysql://`` URL, query it in place with ``tablerag sql`` (with ``--db`` and
without), and the writable-account check at ingest and when asking."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tablerag.cli import app
from tablerag.llm.base import Message
from tablerag.llm.testing import FunctionLLM
from tests.plugins.mariadb import MariaDBServer
from tests.sql.conftest import N_ORDERS
from tests.sql.mysql_shop import create_mysql_shop

pytestmark = pytest.mark.mariadb
runner = CliRunner()
DB = "tablerag_cli_shop"
QUERY = "SELECT region, count(*) AS n FROM orders GROUP BY region ORDER BY region"
EXPECTED = [["east", 500], ["north", 500], ["south", 500], ["west", 500]]


@pytest.fixture(scope="module")
def shop(mariadb_server: MariaDBServer) -> dict[str, str]:
    """URLs of a shop of its own, the password named by a variable (never stored)."""
    urls = create_mysql_shop(mariadb_server, DB)
    return {
        user: url.replace(f"{user}:{pw}@", f"{user}@") + f"?password_env={user.upper()}_PW"
        for (user, url), pw in zip(urls.items(), ("reader-pw", "writer-pw"), strict=True)
    }


@pytest.fixture(autouse=True)
def passwords(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TR_READER_PW", "reader-pw")
    monkeypatch.setenv("TR_WRITER_PW", "writer-pw")
    monkeypatch.delenv("TABLERAG_ALLOW_WRITABLE_ROLE", raising=False)
    monkeypatch.delenv("TABLERAG_ALLOW_READABLE_HIDDEN_COLUMNS", raising=False)


def _cli(*args: str) -> tuple[int, str]:
    result = runner.invoke(app, list(args))
    return result.exit_code, result.stdout + (result.stderr if result.stderr_bytes else "")


def test_ingest_then_query_in_place(shop: dict[str, str], tmp_path: Path) -> None:
    ws = str(tmp_path / "ws")
    code, out = _cli("ingest", shop["tr_reader"], "--workspace", ws, "--no-index", "--json")
    assert code == 0, out
    report = json.loads(out)["sources"][0]
    assert report["status"] == "added"
    assert sorted(report["tables"]) == ["customers", "orders", "销售"]
    assert not any("can write" in json.dumps(p) for p in report["problems"])
    assert "reader-pw" not in out
    code, out = _cli("sql", QUERY, "--db", shop["tr_reader"], "--json")
    assert code == 0, out
    assert json.loads(out)["rows"] == EXPECTED
    # without --db: the workspace finds the source holding `orders` and queries it in place
    code, out = _cli("sql", QUERY, "--workspace", ws, "--json")
    assert code == 0, out
    assert json.loads(out)["rows"] == EXPECTED
    code, out = _cli("sql", "SELECT count(*) AS n FROM orders", "--workspace", ws, "--json")
    assert json.loads(out)["rows"] == [[N_ORDERS]]
    # the gate in the MySQL dialect, and hidden columns, on the way
    code, out = _cli("sql", "SELECT LOAD_FILE('/etc/passwd') AS f", "--workspace", ws)
    assert code == 3 and "load_file" in out.lower()
    code, out = _cli("sql", "SELECT password FROM customers", "--workspace", ws)
    assert code == 3 and "pw-" not in out
    assert not any("reader-pw" in p.read_text(errors="ignore") for p in Path(ws).glob("*.toml"))


def test_writable_account_is_warned_at_ingest_and_refused_when_asking(
    shop: dict[str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ws = str(tmp_path / "ws")
    code, out = _cli("ingest", shop["tr_writer"], "--workspace", ws, "--no-index")
    assert code == 0, out
    assert "the account can write (has DELETE, INSERT, UPDATE on" in out
    assert "--allow-writable-role" in out
    code, out = _cli("sources", "--workspace", ws, "--json")  # recorded with the source
    assert code == 0 and "the account can write" in out and "writer-pw" not in out
    code, out = _cli("sql", QUERY, "--db", shop["tr_writer"])
    assert code == 1
    assert "can write" in out and "allow-writable-role" in out
    code, out = _cli("sql", QUERY, "--workspace", ws)
    assert code == 1 and "can write" in out
    # the operator's override, for this ingest and then for every command
    code, out = _cli(
        "ingest", shop["tr_writer"], "--workspace", ws, "--no-index", "--allow-writable-role"
    )
    assert code == 0, out
    assert "accepted on operator override" in out
    monkeypatch.setenv("TABLERAG_ALLOW_WRITABLE_ROLE", "true")
    code, out = _cli("sql", QUERY, "--workspace", ws, "--json")
    assert code == 1 and "can read 4 column(s) that tablerag hides" in out  # the next guard
    monkeypatch.setenv("TABLERAG_ALLOW_READABLE_HIDDEN_COLUMNS", "true")
    code, out = _cli("sql", QUERY, "--workspace", ws, "--json")
    assert code == 0, out
    assert json.loads(out)["rows"] == EXPECTED


def test_server_down_is_one_sentence_and_nothing_is_written(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    code, out = _cli("ingest", "mysql://u:s3cret-canary@127.0.0.1:1/shop", "--workspace", str(ws))
    assert code == 1
    assert "Cannot connect to MySQL at 127.0.0.1:1" in out
    assert "s3cret-canary" not in out and "Traceback" not in out
    code, out = _cli("sources", "--workspace", str(ws), "--json")
    assert code == 0 and json.loads(out) == []  # nothing written on failure


def _reply(messages: Sequence[Message]) -> str:
    system = messages[0]["content"]
    if "SELECT" in system:
        return "```sql\nSELECT region, count(*) AS n FROM orders GROUP BY region ORDER BY n DESC, region\n```"  # noqa: E501
    return "The east region has the most orders, 500."


def test_ask_answers_on_the_mysql_source_with_a_scripted_model(
    shop: dict[str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    llm = FunctionLLM(_reply)
    monkeypatch.setattr("tablerag.service.load_llm", lambda spec=None, **kw: llm)
    ws = str(tmp_path / "ws")
    assert _cli("ingest", shop["tr_reader"], "--workspace", ws, "--no-index")[0] == 0
    code, out = _cli("ask", "Which region has the most orders?", "--workspace", ws, "--json")
    assert code == 0, out
    answer = json.loads(out)
    assert answer["path"] == "nl2sql", answer
    assert answer["table"]["rows"][0] == ["east", 500], answer
    assert "FROM tablerag_cli_shop.orders" in answer["sql"]  # ran on MariaDB, in place
