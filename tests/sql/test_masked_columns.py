"""Columns whose values hold personal data are marked masked, and no function undoes the mask.

A visible free-text column (``comment``) holds an e-mail address or a phone number in a row
the catalog's samples did not show; the engine samples its rows through its own gated path and
marks it (``ExposedTable.masked``), so ``reverse()``, ``hex()``, ``replace()`` and casts over it
are refused while counting, grouping and ``length()`` still run. The values are canaries: none
may reach rows, refusals, errors or the driver exception an error chains.
"""

from __future__ import annotations

import secrets
import sqlite3
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import duckdb
import psycopg
import pytest

from tablerag.errors import QueryFailed, SQLRejected
from tablerag.sql.engines import SQLEngine, open_engine
from tablerag.sql.exposed import ExposedCatalog
from tablerag.sql.policy import ExecutionPolicy
from tablerag.sql.sensitive import SensitiveRules
from tablerag.types import ColumnInfo, TableInfo
from tests.plugins.canary import assert_no_canary, plant

POLICY = ExecutionPolicy(max_rows=100, time_limit_ms=5000)

#: Rewrites of the marked column: each is refused.
REWRITES = (
    "SELECT reverse(comment) AS x FROM notes",
    "SELECT replace(comment, '@', ' at ') AS x FROM notes",
    "SELECT substr(comment, 1, 12) AS a, substr(comment, 13) AS b FROM notes",
    "SELECT upper(comment) AS x FROM notes",
    "SELECT CAST(comment AS INTEGER) AS x FROM notes",
    "SELECT id FROM notes WHERE comment LIKE '%@%'",
    "SELECT id FROM notes ORDER BY comment",
    "SELECT max(comment) AS x FROM notes",
    "SELECT reverse(c) AS x FROM (SELECT comment AS c FROM notes) AS t",
)

#: What an analyst does with the marked column: each runs.
ANALYTICS = (
    "SELECT id, comment FROM notes",
    "SELECT count(comment) AS n, count(DISTINCT comment) AS d FROM notes",
    "SELECT comment, count(*) AS n FROM notes GROUP BY comment",
    "SELECT count(*) AS n FROM notes WHERE comment IS NULL",
    "SELECT avg(length(comment)) AS l FROM notes",
    "SELECT upper(city) AS c, count(*) AS n FROM notes GROUP BY 1",
)


def _rows(email: str, phone: str) -> list[tuple[int, str, str]]:
    """250 rows: personal data only in rows 60 and 170 (never in the catalog's samples)."""
    out = []
    for i in range(1, 251):
        comment = f"visit number {i}"
        if i == 60:
            comment = f"write to {email} please"
        elif i == 170:
            comment = f"call {phone} after 5pm"
        out.append((i, ("Oslo", "Lyon", "Kyoto")[i % 3], comment))
    return out


@pytest.fixture
def planted() -> tuple[str, str]:
    email = plant(f"cnry{secrets.token_hex(4)}@example.org", "notes.comment e-mail")
    phone = plant(f"137{secrets.randbelow(10**8):08d}", "notes.comment phone")
    return email, phone


def _duckdb(folder: Path, rows: list[tuple[int, str, str]]) -> Path:
    path = folder / "notes.duckdb"
    con = duckdb.connect(str(path))
    con.execute("CREATE TABLE notes (id INTEGER, city VARCHAR, comment VARCHAR)")
    con.executemany("INSERT INTO notes VALUES (?, ?, ?)", rows)
    con.close()
    return path


def _sqlite(folder: Path, rows: list[tuple[int, str, str]]) -> Path:
    path = folder / "notes.sqlite"
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE notes (id INTEGER, city TEXT, comment TEXT)")
    con.executemany("INSERT INTO notes VALUES (?, ?, ?)", rows)
    con.commit()
    con.close()
    return path


@pytest.fixture(params=["duckdb", "sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def engine(
    request: pytest.FixtureRequest, tmp_path: Path, planted: tuple[str, str]
) -> Iterator[SQLEngine]:
    rows = _rows(*planted)
    if request.param == "duckdb":
        target = str(_duckdb(tmp_path, rows))
    elif request.param == "sqlite":
        target = str(_sqlite(tmp_path, rows))
    else:
        dsn: str = request.getfixturevalue("postgres_dsn")
        name = f"masked_{secrets.token_hex(3)}"
        with psycopg.connect(dsn, autocommit=True) as admin:
            admin.execute(f'CREATE DATABASE "{name}"')
        with psycopg.connect(dsn.rsplit("/", 1)[0] + f"/{name}", autocommit=True) as con:
            con.execute("CREATE TABLE notes (id integer, city text, comment text)")
            with con.cursor() as cur:
                cur.executemany("INSERT INTO notes VALUES (%s, %s, %s)", rows)
        target = dsn.rsplit("/", 1)[0] + f"/{name}"
    with open_engine(target, policy=POLICY, allow_writable_role=True) as opened:
        yield opened


def test_the_engine_marks_the_column_from_its_rows(engine: SQLEngine) -> None:
    table = engine.gate_catalog().table("notes")
    assert table is not None
    assert table.masked == ("comment",)
    assert engine.catalog.table("notes").masked == ()  # type: ignore[union-attr]


@pytest.mark.parametrize("sql", REWRITES)
def test_a_rewrite_of_the_marked_column_is_refused(engine: SQLEngine, sql: str) -> None:
    with pytest.raises(SQLRejected) as refused:
        engine.execute(sql)
    assert any(i.code == "masked_column" for i in refused.value.issues), refused.value.issues
    assert "is masked in results" in str(refused.value)
    assert_no_canary(refused.value, [i.message for i in refused.value.issues])


@pytest.mark.parametrize("sql", ANALYTICS)
def test_the_analytics_over_the_marked_column_run(engine: SQLEngine, sql: str) -> None:
    result = engine.execute(sql)
    assert result.rows
    assert_no_canary(result.rows, result)


def test_allow_columns_unmarks_and_shows_the_column(engine: SQLEngine) -> None:
    allowed = replace(POLICY, sensitive=SensitiveRules(allow=("notes.comment",)))
    assert engine.gate_catalog(allowed).table("notes").masked == ()  # type: ignore[union-attr]
    result = engine.execute("SELECT upper(comment) AS x FROM notes ORDER BY id", allowed)
    assert len(result.rows) == 100


def test_with_masking_off_no_column_is_marked(engine: SQLEngine) -> None:
    off = replace(POLICY, mask_personal_data=False)
    assert engine.gate_catalog(off).table("notes").masked == ()  # type: ignore[union-attr]
    engine.execute("SELECT upper(comment) AS x FROM notes", off)


def test_an_unordered_result_is_sorted_as_it_is_shown(engine: SQLEngine) -> None:
    """Sorted by the masked text, so the order does not follow the digits the mask hides."""
    rows = engine.execute("SELECT comment FROM notes").rows
    assert list(rows) == sorted(rows)


def test_the_catalog_marks_columns_whose_samples_show_personal_data() -> None:
    tables = [
        TableInfo(
            "t",
            "t.csv",
            (
                ColumnInfo("id", "INTEGER", samples=("1", "2")),
                ColumnInfo("raw", "VARCHAR", samples=("call 13812345678", "none")),
                ColumnInfo("recorded", "VARCHAR", samples=("mail a***@example.com",)),
                ColumnInfo("city", "VARCHAR", samples=("Oslo",)),
                ColumnInfo("profile", "VARCHAR", samples=('{"password": "***", "theme": "x"}',)),
                ColumnInfo("phone", "VARCHAR", samples=("13812345678",)),
            ),
            2,
        )
    ]
    table = ExposedCatalog.from_tables(tables).table("t")
    assert table is not None
    assert table.masked == ("raw", "recorded")  # phone is hidden; a secret JSON key is not PII
    allowed = ExposedCatalog.from_tables(tables, rules=SensitiveRules(allow=("t.raw",)))
    assert allowed.table("t").masked == ("recorded",)  # type: ignore[union-attr]
    assert ExposedCatalog.from_tables(tables, hide_sensitive=False).table("t").masked == ()  # type: ignore[union-attr]


@pytest.mark.postgres
def test_a_postgres_error_chains_no_driver_exception(postgres_dsn: str) -> None:
    """PostgreSQL's error quotes the raw value; the error tablerag raises keeps only the
    scrubbed text, and the driver's exception (which quotes it whole) is not chained."""
    label = plant(f"CNRYlabel{secrets.token_hex(4)}", "people.label")
    name = f"echo_{secrets.token_hex(3)}"
    with psycopg.connect(dsn := postgres_dsn, autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    url = dsn.rsplit("/", 1)[0] + f"/{name}"
    with psycopg.connect(url, autocommit=True) as con:
        con.execute("CREATE TABLE people (id integer, label text)")
        con.execute("INSERT INTO people VALUES (1, %s)", [label])
    with (
        open_engine(url, policy=POLICY, allow_writable_role=True) as engine,
        pytest.raises(QueryFailed) as failed,
    ):
        engine.execute("SELECT CAST(label AS INTEGER) AS n FROM people")
    assert failed.value.__cause__ is None
    assert failed.value.__context__ is None
    assert "<value>" in str(failed.value)
    assert_no_canary(failed.value, str(failed.value))
