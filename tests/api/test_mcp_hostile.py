"""A prompt-injected assistant against the MCP server: every hostile case of the project's
hostile-SQL table through ``run_sql`` is a tool error and changes nothing (the data is read
back afterwards) on DuckDB, SQLite and PostgreSQL sources; canaries planted in hidden columns
reach no tool output, resource, prompt or error."""

from __future__ import annotations

import os
import re
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import duckdb
import psycopg
import pytest
from mcp import Client
from sqlalchemy.engine import make_url

from tablerag.api.mcp import build
from tablerag.llm.testing import FunctionLLM
from tablerag.runtime import Runtime
from tablerag.service import Workspace
from tablerag.settings import Settings
from tests.api.conftest import settings
from tests.api.test_canary import QUESTIONS, canary_ws, hostile, kit  # noqa: F401 - fixtures
from tests.api.test_mcp import run, text
from tests.plugins.canary import assert_no_canary
from tests.sql.cases import HOSTILE, LIMIT, Case
from tests.sql.conftest import DDL, N_ORDERS, _fill, build_sqlite, create_pg_shop
from tests.test_canary_channels import HOSTILE as CANARY_SQL

ENGINES = ("duckdb", "sqlite", pytest.param("postgres", marks=pytest.mark.postgres))


def _cases(kind: str) -> list[Case]:
    """The hostile cases the gate refuses on ``kind``. Left out: the engine-stopped runaways
    (they take the time limit each and are the engine tests' business) and the reads of
    ``secrets``, which the engine tests keep outside the exposed catalog but which is an
    ordinary table of a database ingested whole, as here."""
    return [
        c
        for c in HOSTILE
        if kind in c.engines and c.expect != LIMIT and not re.search(r"\bsecrets\b", c.sql)
    ]


def _duckdb_file(path: Path) -> str:
    con = duckdb.connect(str(path))
    for ddl in DDL:
        con.execute(ddl)
    _fill(lambda sql, rows: con.executemany(sql, rows), "?")
    con.close()
    return f"duckdb:///{path}"


def _fingerprint(kind: str, url: str, admin: str | None) -> tuple[Any, ...]:
    """Everything a write could change, read with a connection of our own."""
    queries = (
        "SELECT count(*), sum(amount), min(id), max(id) FROM orders",
        "SELECT count(*), min(password), max(phone) FROM customers",
        "SELECT count(*) FROM secrets",
        'SELECT count(*) FROM "销售"',
    )
    if kind == "sqlite":
        with sqlite3.connect(url.removeprefix("sqlite:///")) as con:
            tables = con.execute("SELECT count(*) FROM sqlite_master").fetchone()
            return (tables, *(con.execute(q).fetchone() for q in queries))
    if kind == "duckdb":
        con = duckdb.connect(url.removeprefix("duckdb:///"), read_only=True)
        try:
            tables = con.execute("SELECT count(*) FROM duckdb_tables()").fetchone()
            return (tables, *(con.execute(q).fetchone() for q in queries))
        finally:
            con.close()
    assert admin is not None
    with psycopg.connect(admin) as con:
        tables = con.execute(
            "SELECT count(*) FROM pg_tables WHERE schemaname NOT IN ('pg_catalog', "
            "'information_schema')"
        ).fetchone()
        return (tables, *(con.execute(q).fetchone() for q in queries))


@pytest.fixture
def shop(
    request: pytest.FixtureRequest, tmp_path: Path, kind: str
) -> Iterator[tuple[Runtime, str, str | None]]:
    """A workspace asking the shop database of ``kind`` in place, and a runtime on it."""
    admin = None
    if kind == "duckdb":
        url = _duckdb_file(tmp_path / "shop.duckdb")
    elif kind == "sqlite":
        url = f"sqlite:///{build_sqlite(tmp_path / 'shop.db')}"
    else:
        dsn = request.getfixturevalue("postgres_dsn")
        name = f"mcp_{os.getpid()}"
        urls = create_pg_shop(dsn, name, roles=(f"{name}_r", f"{name}_w"))
        url = urls[f"{name}_r"]
        admin = make_url(dsn).set(database=name).render_as_string(hide_password=False)
    root = tmp_path / "ws"
    with Workspace.open(root) as ws:
        (report,) = ws.ingest([url], settings=Settings(embedder="hashing"))
    assert report.status != "failed", report
    rt = Runtime.open(root, settings=settings(), llm=FunctionLLM(lambda m: "no"), watch=False)
    yield rt, url, admin
    rt.close()
    if kind == "postgres":
        _drop_pg_shop(request.getfixturevalue("postgres_dsn"), f"mcp_{os.getpid()}")


def _drop_pg_shop(superuser: str, name: str) -> None:
    """Drop the database and its roles (cluster-wide: the engine tests' roles are recreated
    by their own fixture and must not find grants of ours)."""
    with psycopg.connect(superuser, autocommit=True) as con:
        con.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        for role in (f"{name}_r", f"{name}_w"):
            con.execute(f"DROP ROLE IF EXISTS {role}")


@pytest.mark.parametrize("kind", ENGINES)
def test_every_hostile_query_is_a_tool_error_and_changes_nothing(
    shop: tuple[Runtime, str, str | None], kind: str
) -> None:
    runtime, url, admin = shop
    before = _fingerprint(kind, url, admin)
    cases = _cases(kind)
    assert len(cases) >= 70

    async def work(client: Client) -> list[Any]:
        out = [await client.call_tool("run_sql", {"sql": c.sql}) for c in cases]
        out.append(await client.call_tool("run_sql", {"sql": "SELECT count(*) AS n FROM orders"}))
        return out

    results = run(build(runtime), work)
    *refused, last = results
    let_through = [(c.group, c.sql) for c, r in zip(cases, refused, strict=True) if not r.is_error]
    assert not let_through
    for r in refused:
        assert "Traceback" not in text(r) and text(r).strip()
    assert last.structured_content["rows"] == [[N_ORDERS]]  # the server kept serving
    assert _fingerprint(kind, url, admin) == before


def test_no_canary_reaches_any_tool_resource_or_error(
    canary_ws: Path,  # noqa: F811 - the fixture imported above
    hostile: FunctionLLM,  # noqa: F811
) -> None:
    rt = Runtime.open(canary_ws, settings=settings(), llm=hostile, watch=False)

    async def work(client: Client) -> list[Any]:
        out: list[Any] = [await client.list_tools(), await client.list_resource_templates()]
        out += [await client.call_tool("run_sql", {"sql": p.values[0]}) for p in CANARY_SQL]
        out += [await client.call_tool("ask", {"question": q}) for q in QUESTIONS]
        out.append(await client.call_tool("list_tables", {}))
        out.append(await client.call_tool("list_sources", {}))
        out.append(await client.call_tool("describe_table", {"table": "customers"}))
        out.append(await client.call_tool("search_documents", {"query": "password phone", "k": 10}))
        out.append(await client.read_resource("tablerag://tables/customers/schema"))
        out.append(await client.get_prompt("answer_with_sources", {"question": "passwords?"}))
        return out

    try:
        outputs = run(build(rt), work)
    finally:
        rt.close()
    described = outputs[-4].structured_content["table"]
    shown = {c["name"] for c in described["columns"]}
    assert "name" in shown and not shown & {"password", "phone", "id_card", "diagnosis"}
    dumped = [o.model_dump(mode="json") for o in outputs]
    assert_no_canary(*dumped, hostile)
