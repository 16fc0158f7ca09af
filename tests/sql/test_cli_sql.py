"""``tablerag sql``: exit codes, JSON output, and the same gate and engines as NL2SQL."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from tablerag.cli.sql import register
from tablerag.service import Workspace

app = typer.Typer()
register(app)
app.command("noop", hidden=True)(lambda: None)  # keep `sql` a named subcommand
runner = CliRunner()


@pytest.fixture(scope="module")
def ws(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real workspace with one ingested CSV holding a phone column."""
    base = tmp_path_factory.mktemp("cli")
    csv = base / "sales.csv"
    rows = "\n".join(f"{r},{i},138{i:08d}" for i, r in enumerate(["north", "south"] * 30))
    csv.write_text("region,amount,phone\n" + rows + "\n", encoding="utf-8")
    with Workspace.open(base / "ws") as w:
        w.ingest([csv])
    return base / "ws"


def run(*args: str) -> tuple[int, str]:
    result = runner.invoke(app, ["sql", *args])
    return result.exit_code, result.stdout


def test_rows_exit_0_json(ws: Path) -> None:
    code, out = run(
        "SELECT region, sum(amount) AS total FROM sales GROUP BY region ORDER BY region",
        "--workspace",
        str(ws),
        "--json",
    )
    assert code == 0, out
    data = json.loads(out)
    assert data["columns"] == ["region", "total"]
    assert data["rows"] == [["north", 870], ["south", 900]]
    assert data["sql"].startswith("SELECT region, SUM(amount) AS total FROM data.sales")


def test_table_output(ws: Path) -> None:
    code, out = run("SELECT count(*) AS n FROM sales", "--workspace", str(ws))
    assert code == 0 and "60" in out


def test_gate_rejection_exit_3_with_structured_issues(ws: Path) -> None:
    code, out = run("SELECT phone FROM sales; DROP TABLE sales", "--workspace", str(ws), "--json")
    assert code == 3
    error = json.loads(out)["error"]
    assert error["type"] == "SQLRejected"
    assert error["issues"][0]["code"] == "multiple_statements"
    code, out = run("SELECT phone FROM sales", "--workspace", str(ws), "--json")
    assert code == 3
    assert json.loads(out)["error"]["issues"][0]["code"] == "sensitive_column"


def test_row_cap_exit_4(ws: Path) -> None:
    code, out = run("SELECT amount FROM sales", "--workspace", str(ws), "--json", "--max-rows", "5")
    assert code == 4
    data = json.loads(out)
    assert data["truncated"] is True and len(data["rows"]) == 5


def test_timeout_exit_4(ws: Path) -> None:
    sql = "SELECT count(*) FROM sales a, sales b, sales c, sales d, sales e, sales f"
    code, out = run(sql, "--workspace", str(ws), "--json", "--timeout-ms", "300")
    assert code == 4
    assert json.loads(out)["error"]["type"] == "QueryTimeout"


def test_other_errors_exit_1(tmp_path: Path) -> None:
    code, _ = run("SELECT 1", "--db", f"sqlite:///{tmp_path / 'missing.db'}")
    assert code == 1


def test_external_sqlite_database(tmp_path: Path) -> None:
    import sqlite3

    db = tmp_path / "ext.db"
    con = sqlite3.connect(db)
    con.execute("CREATE TABLE t (a INTEGER, email TEXT)")
    con.execute("INSERT INTO t VALUES (1, 'x@example.com')")
    con.commit()
    con.close()
    code, out = run("SELECT a FROM t", "--db", f"sqlite:///{db}", "--json")
    assert code == 0 and json.loads(out)["rows"] == [[1]]
    code, _ = run("SELECT email FROM t", "--db", f"sqlite:///{db}", "--json")
    assert code == 3


DEEP = {
    "brackets": "SELECT " + "(" * 400 + "1" + ")" * 400,
    "subqueries": "SELECT * FROM " + "(SELECT * FROM " * 400 + "sales" + ") t" * 400,
}


@pytest.mark.parametrize("query", DEEP.values(), ids=DEEP.keys())
@pytest.mark.parametrize(
    "kind", ["duckdb", "sqlite", pytest.param("postgres", marks=pytest.mark.postgres)]
)
def test_deeply_nested_sql_exits_3_with_one_line_and_no_traceback(
    kind: str, query: str, ws: Path, request: pytest.FixtureRequest
) -> None:
    if kind == "duckdb":
        target = ["--workspace", str(ws)]
    elif kind == "sqlite":
        target = ["--db", f"sqlite:///{request.getfixturevalue('shop_files')['sqlite']}"]
    else:
        target = ["--db", request.getfixturevalue("pg_shop")["tr_reader"]]
    result = runner.invoke(app, ["sql", query, *target])
    assert result.exit_code == 3, result.output
    assert not isinstance(result.exception, RecursionError)
    assert "Traceback" not in result.output
    issues = [line for line in result.output.splitlines() if line.strip().startswith("too_deep")]
    assert len(issues) == 1, result.output  # one issue (rich may wrap its sentence)
    code, out = run(query, *target, "--json")
    assert code == 3
    error = json.loads(out)["error"]
    assert [i["code"] for i in error["issues"]] == ["too_deep"]
    assert "nests 400 levels deep" in error["issues"][0]["message"]


COMMENTED = "-- how many rows\nSELECT count(*) AS n FROM sales"


@pytest.mark.parametrize(
    "args",
    [
        pytest.param((COMMENTED, "--workspace", "{ws}", "--json"), id="argument"),
        pytest.param(("--workspace", "{ws}", "--json", "--", COMMENTED), id="after-dashdash"),
    ],
)
def test_sql_starting_with_a_comment_is_the_query(ws: Path, args: tuple[str, ...]) -> None:
    code, out = run(*(a.format(ws=ws) for a in args))
    assert code == 0, out
    assert json.loads(out)["rows"] == [[60]]


def test_sql_from_stdin(ws: Path) -> None:
    result = runner.invoke(app, ["sql", "-", "--workspace", str(ws), "--json"], input=COMMENTED)
    assert result.exit_code == 0, result.stdout
    assert json.loads(result.stdout)["rows"] == [[60]]


def test_help_says_how_to_pass_a_leading_comment() -> None:
    out = runner.invoke(app, ["sql", "--help"], terminal_width=200).stdout
    assert "standard input" in out and "'--'" in out
