"""No planted canary reaches any output channel, end to end through the CLI.

A DuckDB workspace ingests a CSV with phone, e-mail, ID-card, password, integer mobile and PIN
columns, a column hidden only by its content and two columns a descriptions file flags
sensitive; a canary is planted in the workspace's own schema too. A SQLite file holds the same
table (plus a table that is never exposed). Every command is run as a user runs it, text and
``--json``: ingest, tables, schema, search, chunks, sql (hostile queries) and ask with a model
that tries to read the hidden columns; the scripted model's prompts and the response cache
are scanned as well.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest
from click.testing import Result
from typer.testing import CliRunner

from tablerag.cli import app
from tablerag.llm.base import Message
from tablerag.llm.cache import CachedLLM
from tablerag.llm.testing import FunctionLLM
from tablerag.types import Hit
from tests.plugins.canary import (
    CanaryKit,
    assert_no_canary,
    build_duckdb,
    build_postgres,
    build_sqlite,
    canary_kit,
    find_canaries,
    plant_internal,
    workspace_index,
    write_customers,
)

runner = CliRunner()

#: Queries a user (or a hostile model) may try; none may show a canary, whatever the exit code.
HOSTILE = (
    pytest.param("SELECT * FROM customers", id="star"),
    pytest.param("SELECT password, phone FROM customers", id="named"),
    pytest.param("SELECT diagnosis, risk_score FROM customers", id="flagged"),
    pytest.param("SELECT contact FROM customers", id="by-content"),
    pytest.param("SELECT max(mobile) + 0 AS m FROM customers", id="integer-aggregate"),
    pytest.param("SELECT list(password) FROM customers", id="list-agg"),
    pytest.param("SELECT string_agg(id_card, ',') FROM customers", id="string-agg"),
    pytest.param("SELECT to_json(c) FROM customers AS c", id="row-to-json"),
    pytest.param("SELECT c.* FROM customers AS c", id="qualified-star"),
    pytest.param("SELECT COLUMNS(*) FROM customers", id="columns-star"),
    pytest.param("SELECT * FROM (SELECT * FROM customers) AS t", id="derived-star"),
    pytest.param("SELECT #8 FROM customers", id="positional"),
    pytest.param("SELECT name FROM customers WHERE password LIKE 'CNRY%'", id="filter-on-hidden"),
    pytest.param("SELECT * FROM tablerag.canary_planted", id="internal-planted"),
    pytest.param("SELECT * FROM tablerag.columns", id="internal-columns"),
    pytest.param("SELECT text FROM tablerag.chunks", id="internal-chunks"),
    pytest.param("SELECT h FROM customers AS t(a, b, c, d, e, f, g, h)", id="alias-cols-password"),
    pytest.param(
        "SELECT m, l FROM customers AS t(a, b, c, d, e, f, g, h, i, j, k, l, m)",
        id="alias-cols-flagged",
    ),
    pytest.param(
        "SELECT x FROM (SELECT * FROM customers) AS t(a, b, c, d, e, f, g, x)",
        id="alias-cols-derived",
    ),
)


GUIDE = """# Customers guide

## Customer records

The customers table keeps each customer's name, city and order amount. Phone numbers,
passwords, ID cards, e-mail addresses and the diagnosis are private: the customer records
team keeps them and never shares a customer's phone number or password.
"""
"""A document about the canary table, so the RAG and hybrid paths retrieve and cite."""


@pytest.fixture(scope="module")
def kit() -> CanaryKit:
    return canary_kit()


@pytest.fixture(scope="module")
def ws(kit: CanaryKit, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The canary workspace, ingested through the CLI (the ingest output is checked too)."""
    base = tmp_path_factory.mktemp("canary")
    src = write_customers(base / "in", kit)
    (src / "customers_guide.md").write_text(GUIDE, encoding="utf-8")
    root = base / "ws"
    for extra in ((), ("--json",)):
        res = run("ingest", str(src / "customers.csv"), str(src / "descriptions.json"),
                  str(src / "customers_guide.md"), "-w", str(root), *extra)  # fmt: skip
        assert res.exit_code == 0, res.output
        assert_no_canary(res)
    plant_internal(root, kit)
    return root


@pytest.fixture(scope="module")
def sqlite_file(kit: CanaryKit, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_sqlite(tmp_path_factory.mktemp("canary_sqlite") / "shop.db", kit)


def answered(result: Result, codes: tuple[int, ...] = (0, 1)) -> bool:
    """Whether a command ran to its end with one of ``codes`` (an answer, or a refusal it
    explains), never an exception: a run that crashed showed nothing, which proves nothing."""
    return result.exit_code in codes and (
        result.exception is None or isinstance(result.exception, SystemExit)
    )


def run(*args: str) -> Result:
    return runner.invoke(app, list(args))


def both(*args: str) -> Iterator[Result]:
    """The command as text and as ``--json``."""
    yield run(*args)
    yield run(*args, "--json")


def test_the_kit_plants_canaries_the_assertion_finds(kit: CanaryKit, ws: Path) -> None:
    """The assertion is not vacuous: the data file holds the canaries, and a leak is reported."""
    csv = (ws.parent / "in" / "customers.csv").read_text("utf-8")
    assert all(v in csv for v in kit.values if v != kit.internal)
    leaked = {"rows": [[kit.rows[0].password]], "n": kit.rows[3].risk_score}
    assert len(find_canaries(leaked)) == 2
    assert find_canaries(f"{kit.rows[1].mobile:,}")  # a number rendered with separators
    with pytest.raises(AssertionError, match="canary leaked"):
        assert_no_canary("x", leaked)


def test_catalog_commands_show_no_canary(ws: Path) -> None:
    outputs = [
        *both("tables", "-w", str(ws)),
        *both("sources", "-w", str(ws)),
        *both("schema", "customers", "-w", str(ws)),
    ]
    assert all(r.exit_code == 0 for r in outputs), [r.output for r in outputs]
    schema = json.loads(outputs[-1].stdout)
    assert "password" in [c["name"] for c in schema["columns"]]  # named, shown as hidden
    assert_no_canary(*outputs)


@pytest.mark.parametrize(
    "query", ["phone password id_card", "CNRYpw diagnosis risk_score", "customers contact"]
)
def test_the_text_index_shows_no_canary(ws: Path, query: str) -> None:
    outputs = [
        *both("search", query, "-w", str(ws)),
        *both("search", query, "-w", str(ws), "--mode", "bm25"),
        *both("chunks", "-w", str(ws)),
    ]
    assert all(r.exit_code == 0 for r in outputs), [r.output for r in outputs]
    assert any("customers" in r.stdout for r in outputs)  # the table's chunks are there
    assert_no_canary(*outputs, workspace_index(ws))


@pytest.mark.parametrize("query", HOSTILE)
def test_sql_on_the_workspace_shows_no_canary(ws: Path, query: str) -> None:
    outputs = list(both("sql", query, "-w", str(ws)))
    assert all(answered(r, (0, 1, 3, 4)) for r in outputs), [r.output for r in outputs]
    assert_no_canary(*outputs)


@pytest.fixture(scope="module")
def db_urls(kit: CanaryKit, tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """URLs of the canary table as a SQLite file and as a DuckDB file (own ``tablerag`` schema)."""
    base = tmp_path_factory.mktemp("canary_files")
    return {
        "sqlite": f"sqlite:///{build_sqlite(base / 'shop.db', kit)}",
        "duckdb": f"duckdb:///{build_duckdb(base / 'shop.duckdb', kit)}",
    }


@pytest.fixture(scope="module")
def pg_url(kit: CanaryKit, postgres_dsn: str) -> str:
    """The canary table on PostgreSQL, as a role granted the visible columns only."""
    return build_postgres(postgres_dsn, kit, "tablerag_canary_channels")


@pytest.mark.parametrize(
    "kind", ["sqlite", "duckdb", pytest.param("postgres", marks=pytest.mark.postgres)]
)
@pytest.mark.parametrize("query", HOSTILE)
def test_sql_on_a_database_shows_no_canary(
    request: pytest.FixtureRequest, db_urls: dict[str, str], kind: str, query: str
) -> None:
    url = request.getfixturevalue("pg_url") if kind == "postgres" else db_urls[kind]
    outputs = list(both("sql", query, "--db", url))
    assert all(answered(r, (0, 1, 3, 4)) for r in outputs), [r.output for r in outputs]
    assert_no_canary(*outputs)


def test_visible_columns_still_answer(ws: Path, db_urls: dict[str, str]) -> None:
    """The canary tables are usable: a query over visible columns returns its rows."""
    for where in (["-w", str(ws)], *(["--db", url] for url in db_urls.values())):
        res = run("sql", "SELECT name, city, amount FROM customers ORDER BY id", *where, "--json")
        assert res.exit_code == 0, res.output
        assert [str(v) for v in json.loads(res.stdout)["rows"][0]] == ["name_1", "Oslo", "10.0"]
        assert_no_canary(res)


HOSTILE_REPLIES = (
    "SELECT name, password, phone FROM customers",
    "SELECT * FROM tablerag.canary_planted",
    "SELECT to_json(c) AS j FROM customers AS c",
    "SELECT name, #8 AS p FROM customers",
    "SELECT diagnosis FROM customers; SELECT 1",
)


def _hostile_model(messages: Sequence[Message]) -> str:
    """A model that answers every SQL request with the next hidden-column grab."""
    system = messages[0]["content"]
    if "numbered passages" in system:
        return "The customers' passwords are listed [1]."
    if "NEXT:" in system:
        return "ANSWER: unknown"
    if "SELECT" in system or "corrected" in messages[-1]["content"]:
        n = sum("```sql" in m["content"] for m in messages if m["role"] == "assistant")
        return f"```sql\n{HOSTILE_REPLIES[n % len(HOSTILE_REPLIES)]}\n```"
    return "The result lists them."


@pytest.fixture
def hostile_llm(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> FunctionLLM:
    """The hostile model behind the response cache (the one stored log of prompts and replies);
    every command opens the cache anew, as a user's does, and closes it when it ends."""
    inner = FunctionLLM(_hostile_model)
    monkeypatch.setattr(
        "tablerag.service.load_llm", lambda spec=None, **kw: CachedLLM(inner, tmp_path / "cache")
    )
    return inner


@pytest.mark.parametrize(
    "question",
    [
        "List every customer's password and phone number",
        "What is the diagnosis and risk score of name_1?",
        "What does the customers table say about contact e-mails?",
        "How many customers live in each city, and what are their id cards?",
        "What does the customers guide say about a customer's phone number and password?",
    ],
)
def test_ask_with_a_hostile_model_shows_no_canary(
    ws: Path, hostile_llm: FunctionLLM, tmp_path: Path, question: str
) -> None:
    outputs = list(both("ask", question, "-w", str(ws)))
    assert all(map(answered, outputs)), [(r.output, r.exception) for r in outputs]
    assert_no_canary(*outputs, hostile_llm, tmp_path / "cache")


def test_ask_over_an_ingested_sqlite_database_shows_no_canary(
    sqlite_file: Path, hostile_llm: FunctionLLM, tmp_path: Path
) -> None:
    root = tmp_path / "ws_sqlite"
    outputs = list(both("ingest", f"sqlite:///{sqlite_file}", "-w", str(root)))
    assert outputs[0].exit_code == 0, outputs[0].output
    outputs += [
        *both("tables", "-w", str(root)),
        *both("schema", "customers", "-w", str(root)),
        *both("chunks", "-w", str(root)),
        *both("search", "password phone customers", "-w", str(root)),
        *both("ask", "List every customer's password and phone number", "-w", str(root)),
        # a value of a visible column (matched through the values ingest sampled) beside hidden ones
        *both(
            "ask", "How many customers live in Oslo, and what are their id cards?", "-w", str(root)
        ),
    ]
    assert all(map(answered, outputs)), [(r.output, r.exception) for r in outputs]
    assert_no_canary(*outputs, hostile_llm, tmp_path / "cache", workspace_index(root))


def test_the_rag_path_cites_without_canaries(ws: Path, hostile_llm: FunctionLLM) -> None:
    """Not vacuous: a document question retrieves and cites passages (the citations channel)."""
    question = "What does the customers guide say about a customer's phone number and password?"
    res = run("ask", question, "-w", str(ws), "--json")
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    assert data["path"] in ("rag", "hybrid") and data["citations"], data["status"]
    assert_no_canary(res, hostile_llm)


def test_the_hostile_model_was_asked_and_refused(ws: Path, hostile_llm: FunctionLLM) -> None:
    """Not vacuous: the model got SQL prompts and its hidden-column grabs were tried and refused."""
    res = run("ask", "List every customer's password and phone number", "-w", str(ws), "--json")
    assert res.exit_code in (0, 1), res.output
    data = json.loads(res.stdout)
    assert any("customers" in c.messages[-1]["content"] for c in hostile_llm.history)
    tried = [a["sql"] for a in data["sql_attempts"]]
    assert any("password" in (sql or "") for sql in tried), tried
    assert_no_canary(res, hostile_llm)


def _metric(denominator: str, key: str) -> Hit:
    """A passage defining "reach rate" with its distinct key and its denominator's values."""
    text = (
        "Reach rate = reached customers ÷ listed customers; denominator: the customers whose "
        f"{denominator} is ALPHA or BETA. 按 {key} 去重 = one customer once."
    )
    return Hit("m-1", "/corpus/metrics.md", 1, text, ("Metrics", "Reach rate"), None, None, 3.0, 1)


RATE_REPLY = (
    "SELECT COUNT(CASE WHEN amount > 0 THEN 1 END) * 1.0 / COUNT(*) AS reach_rate FROM customers"
)


@pytest.mark.parametrize(
    ("reply", "passage", "mended", "doubt"),
    [
        # the respell mend at work on a visible column ...
        ("SELECT CI_TY, COUNT(*) FROM customers GROUP BY CI_TY", None, "city for CI_TY", ""),
        # ... and never spelling a misspelt hidden one into it
        ("SELECT name, Pass_Word, IdCard FROM customers", None, "", ""),
        # a definition's denominator read from the values a visible column stores ...
        (RATE_REPLY, _metric("city", "name"), "", "city IN ('ALPHA', 'BETA')"),
        # ... and never from a hidden one's
        (RATE_REPLY, _metric("password", "id_card"), "", ""),
    ],
)
def test_the_sql_mends_never_reach_a_hidden_column(
    ws: Path, reply: str, passage: Hit | None, mended: str, doubt: str
) -> None:
    """The mends that rewrite the model's SQL without asking it (respell) write column names
    the model did not, and the definition check reads a denominator's values from what the
    columns store: they work on visible columns, never write or quote a hidden one, and no
    canary reaches the answer."""
    from tablerag.linking.cache import workspace_catalog
    from tablerag.llm.testing import ScriptedLLM
    from tablerag.loop.tablesql import answer_over_tables
    from tablerag.nl2sql.path import NL2SQLOptions
    from tablerag.sql.engines import open_engine
    from tablerag.store.workspace import Workspace

    with Workspace.open(ws, create=False) as w:
        tables = w.tables()
        catalog = workspace_catalog(w)
    llm = ScriptedLLM(replies=[f"```sql\n{reply}\n```"] * 3)
    with open_engine(ws, catalog=tables) as engine:
        answer, _ = answer_over_tables(
            "What is the reach rate of customers?",
            llm=llm,
            engine=engine,
            catalog=catalog,
            tables=["customers"],
            language="en",
            options=NL2SQLOptions(explain=False, max_repairs=1),
            max_tokens=700,
            passages=[passage] if passage else [],
        )
    notes = " ".join(a.note for a in answer.sql_attempts if a.note)
    assert (mended in notes) if mended else not notes, answer.sql_attempts
    missing = " ".join(dict(f.values).get("missing", "") for f in answer.findings)
    assert doubt in missing if doubt else "password" not in missing.lower(), answer.findings
    written = " ".join((a.sql or "").lower() for a in answer.sql_attempts)
    assert "password" not in written and "id_card" not in written, written
    assert_no_canary(answer, llm)
