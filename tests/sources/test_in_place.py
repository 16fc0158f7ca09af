"""Databases asked in place: ``ask``, the loop and ``tablerag sql`` run on the source holding
the tables (SQLite and DuckDB files here; PostgreSQL in test_postgres_in_place.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tablerag.cli import app
from tablerag.llm.testing import FunctionLLM
from tablerag.service import QA
from tests.sources.conftest import SALES_CSV, SETTINGS, Model, ingest, make_hr, url

runner = CliRunner()

EMPLOYEES_OPS = "SELECT count(*) AS n FROM employees WHERE dept = 'ops'"
ORDERS_TOTAL = "SELECT sum(amount) AS total FROM orders"
SALES_NORTH = "SELECT sum(amount) AS total FROM sales WHERE region = 'north'"
SCRIPT = {"ops": EMPLOYEES_OPS, "orders": ORDERS_TOTAL, "region": SALES_NORTH}


def sql(ws: Path, query: str, *extra: str) -> tuple[int, dict[str, object]]:
    res = runner.invoke(app, ["sql", query, "-w", str(ws), "--json", *extra])
    return res.exit_code, json.loads(res.stdout)


def test_the_catalog_keeps_each_source_and_qualifies_database_tables(mixed: dict) -> None:
    with QA.open(mixed["ws"], llm=FunctionLLM(Model({})), settings=SETTINGS) as qa:
        assert [(s.label, s.kind, s.dialect) for s in qa.sources.sources] == [
            ("files", "files", "duckdb"),
            ("hr", "database", "sqlite"),
            ("shop", "database", "duckdb"),
        ]
        assert qa.catalog is not None
        assert sorted(qa.catalog.tables) == ["hr.employees", "sales", "shop.orders"]
        # the databases are not opened before a question needs them
        assert [type(e).__name__ for e in qa.sources.opened()] == ["DuckDBEngine"]


@pytest.mark.parametrize(
    ("query", "rows", "ran"),
    [
        pytest.param(
            "SELECT name FROM employees WHERE dept = 'ops' ORDER BY name",
            [["Bob"], ["Cy"]],
            "SELECT name FROM employees WHERE",
            id="sqlite",
        ),
        pytest.param(
            ORDERS_TOTAL, [[35.0]], "SELECT SUM(amount) AS total FROM orders", id="duckdb"
        ),
        pytest.param(
            "SELECT sum(e2.salary) AS total FROM hr.employees JOIN hr.employees AS e2 USING (id)",
            [[13200.0]],
            "FROM employees JOIN employees AS e2",
            id="label-qualified",
        ),
        pytest.param(SALES_NORTH, [[16]], "FROM data.sales", id="files"),
    ],
)
def test_sql_without_db_runs_on_the_source_holding_the_tables(
    mixed: dict, query: str, rows: list[list[object]] | None, ran: str
) -> None:
    code, out = sql(mixed["ws"], query)
    assert code == 0, out
    assert ran in str(out["sql"])
    if rows is not None:
        assert out["rows"] == rows


def test_sql_over_two_sources_is_refused_with_the_fix(mixed: dict) -> None:
    code, out = sql(mixed["ws"], "SELECT e.name FROM employees e JOIN orders o ON o.id = e.id")
    assert code == 3
    error = out["error"]
    assert isinstance(error, dict) and error["type"] == "SQLRejected"
    assert error["issues"][0]["code"] == "cross_source"
    assert "hr (" in error["message"] and "shop (" in error["message"]
    assert "query each source on its own" in error["message"]


def test_sql_naming_a_table_two_sources_hold_asks_for_the_source(twins: dict) -> None:
    code, out = sql(twins["ws"], "SELECT name FROM employees")
    assert code == 3
    error = out["error"]
    assert isinstance(error, dict) and error["issues"][0]["code"] == "ambiguous_source"
    assert "hr.employees or staff.employees" in error["message"]
    assert "tablerag." not in error["message"]  # no internal names
    code, out = sql(twins["ws"], "SELECT name FROM staff.employees")
    assert (code, out["rows"]) == (0, [["Dee"]])
    code, out = sql(twins["ws"], "SELECT count(*) AS n FROM hr.employees")
    assert (code, out["rows"]) == (0, [[3]])


def test_ask_runs_the_sql_on_the_database_in_its_dialect(mixed: dict) -> None:
    model = Model(SCRIPT)
    with QA.open(mixed["ws"], llm=FunctionLLM(model), settings=SETTINGS) as qa:
        hr = qa.ask("How many employees work in the ops department?")
        shop = qa.ask("What is the total amount of all orders?")
        files = qa.ask("What is the total amount of sales in the north region?")
    assert (hr.path, hr.status, hr.table and hr.table.rows) == ("nl2sql", "ok", [[2]])
    assert (shop.status, shop.table and shop.table.rows) == ("ok", [[35.0]])
    assert (files.status, files.table and files.table.rows) == ("ok", [[16]])
    hr_prompt, shop_prompt, files_prompt = model.sql_prompts
    # each prompt shows one source under its own names, in its dialect
    assert "SQLite" in hr_prompt or "sqlite" in hr_prompt
    assert "employees" in hr_prompt and "orders" not in hr_prompt and "hr." not in hr_prompt
    assert "orders" in shop_prompt and "employees" not in shop_prompt
    assert "sales" in files_prompt and "employees" not in files_prompt


def test_ask_through_the_cli_answers_from_the_database(
    mixed: dict, monkeypatch: pytest.MonkeyPatch
) -> None:
    llm = FunctionLLM(Model(SCRIPT))
    monkeypatch.setattr("tablerag.service.load_llm", lambda spec=None, **kw: llm)
    res = runner.invoke(
        app,
        ["ask", "How many employees work in the ops department?", "-w", str(mixed["ws"]), "--json"],
    )
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    assert data["table"]["rows"] == [[2]] and "employees" in data["sql"]


def test_the_loop_runs_sql_on_the_database_its_chunks_come_from(mixed: dict) -> None:
    model = Model({"ops": EMPLOYEES_OPS}, passages="Two people work in ops [1].")
    with QA.open(mixed["ws"], llm=FunctionLLM(model), settings=SETTINGS) as qa:
        answer = qa.loop("How many employees work in the ops department?")
    assert answer.path == "loop"
    assert answer.table is not None and answer.table.rows == [[2]]
    assert answer.sql and "employees" in answer.sql
    assert "employees" in answer.steps[0].tables


def test_a_question_needing_two_sources_says_so(mixed: dict) -> None:
    model = Model(SCRIPT, passages="NOT_FOUND")  # the documents do not say either
    with QA.open(mixed["ws"], llm=FunctionLLM(model), settings=SETTINGS) as qa:
        answer = qa.ask("Which employees placed orders?")
    assert answer.status == "error" and answer.table is None
    assert "needs tables from 2 sources" in answer.answer
    assert "hr (" in answer.answer and "shop (" in answer.answer
    assert model.sql_prompts == []  # no partial answer from one of them


def test_a_table_two_sources_hold_alike_is_asked_back_then_answered(twins: dict) -> None:
    model = Model(
        {
            "(in hr)": "SELECT count(*) AS n FROM employees",
            "(in staff)": "SELECT count(*) AS n FROM employees",
        }
    )
    with QA.open(twins["ws"], llm=FunctionLLM(model), settings=SETTINGS) as qa:
        assert qa.catalog is not None
        assert sorted(qa.catalog.tables) == ["hr.employees", "staff.employees"]
        asked = qa.ask("How many employees are there?")
        assert asked.status == "clarify" and model.sql_prompts == []
        assert "employees is in 2 sources" in asked.answer
        options = [c.question for c in asked.clarifications]
        assert options == [
            "How many employees are there? (in hr)",
            "How many employees are there? (in staff)",
        ]
        counts = [qa.ask(q) for q in options]
    assert [a.table and a.table.rows for a in counts] == [[[3]], [[1]]]


def test_a_database_that_is_gone_fails_only_its_questions(tmp_path: Path) -> None:
    (tmp_path / "sales.csv").write_text(SALES_CSV, encoding="utf-8")
    hr = make_hr(tmp_path / "hr.db")
    ingest(tmp_path / "ws", [url("sqlite", hr), tmp_path / "sales.csv"])
    hr.unlink()
    model = Model(SCRIPT, passages="NOT_FOUND")  # the documents do not say either
    with QA.open(tmp_path / "ws", llm=FunctionLLM(model), settings=SETTINGS) as qa:
        files = qa.ask("What is the total amount of sales in the north region?")
        gone = qa.ask("How many employees work in the ops department?")
    assert files.status == "ok" and files.table and files.table.rows == [[16]]
    assert gone.status == "error" and gone.error is not None
    assert gone.error.startswith("The source hr (sqlite:///") and "check the path" in gone.error
    code, out = sql(tmp_path / "ws", "SELECT count(*) FROM employees")
    assert code == 1 and "check the path" in str(out["error"])


def test_the_hybrid_path_runs_sql_on_the_database_and_cites_the_documents(mixed: dict) -> None:
    model = Model(SCRIPT, passages="Ops may book hotels up to 120 euros a night [1].")
    question = (
        "How many employees work in the ops department, and what hotel limit does the travel "
        "policy give them?"
    )
    with QA.open(mixed["ws"], llm=FunctionLLM(model), settings=SETTINGS) as qa:
        answer = qa.ask(question)
    assert answer.path == "hybrid" and answer.status == "ok"
    assert answer.table is not None and answer.table.rows == [[2]]
    assert "120 euros" in answer.answer
    assert answer.citations and answer.citations[0].source.endswith("policy.md")


def test_a_relative_file_url_is_stored_absolute_and_asked_from_any_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``tablerag ingest sqlite:///hr.db`` typed in the database's folder is stored with the
    whole path, so ``tablerag sql`` run elsewhere still finds the file."""
    data = tmp_path / "data"
    data.mkdir()
    make_hr(data / "hr.db")
    ws = tmp_path / "ws"
    monkeypatch.chdir(data)
    ingest(ws, ["sqlite:///hr.db"])
    monkeypatch.chdir(tmp_path)
    code, out = sql(ws, EMPLOYEES_OPS)
    assert code == 0, out
    assert out["rows"] == [[2]]
    res = runner.invoke(app, ["sources", "-w", str(ws), "--json"])
    assert f"sqlite:///{data.resolve() / 'hr.db'}" in res.stdout


def test_a_question_for_documents_a_workspace_has_none_of_goes_to_its_tables(
    tmp_path: Path,
) -> None:
    """A workspace of one database in place has no text index: a question the router sends to
    the documents ("… salary policy …") is answered from the tables, saying why, instead of an
    error that there is no text index."""
    ws = tmp_path / "ws"
    ingest(ws, [url("sqlite", make_hr(tmp_path / "hr.db"))])
    model = Model({"salary": "SELECT avg(salary) AS salary FROM employees"})
    with QA.open(ws, llm=FunctionLLM(model), settings=SETTINGS) as qa:
        answer = qa.ask("What is the salary policy for employees?")
    assert answer.path == "nl2sql" and answer.status == "ok", answer.answer
    assert answer.table is not None and answer.table.rows == [[4400.0]]
    assert answer.route is not None and answer.route.intent == "data"
    assert answer.route.reasons[0].startswith("the workspace has no documents")
