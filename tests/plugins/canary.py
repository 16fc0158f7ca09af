"""Canaries: unique values planted where nothing may ever be shown, and one assertion over outputs.

Every test database built here plants fresh canary strings *and* canary integers in columns the
model and the reader must never see:

- hidden by name: ``phone``, ``email``, ``id_card``, ``password`` (strings), ``mobile`` (an
  integer mobile number), ``secret_pin`` (an integer);
- hidden by content: ``contact`` (every value an e-mail address, the name says nothing);
- flagged ``"sensitive": true`` in a descriptions file: ``diagnosis`` (a string) and
  ``risk_score`` (an integer);
- tablerag's internal tables: :func:`plant_internal` writes a canary into the workspace's own
  schema ``tablerag``; an external DuckDB file gets its own schema ``tablerag``, which is never
  exposed.

Every planted value is registered for the whole test process, so :func:`assert_no_canary` takes
only the outputs: CLI text and ``--json``, result sets, exceptions, answers, the prompts a
scripted LLM received (its ``history``), citations, hits, chunks, files (the LLM response
cache) - anything, walked recursively. It fails naming the canary, the channel and the context.

    kit = canary_kit()                      # or the ``canaries`` fixture
    folder = write_customers(tmp_path / "in", kit)
    ...
    assert_no_canary(result.output, llm.history, answer)
"""

from __future__ import annotations

import dataclasses
import json
import random
import secrets
import sqlite3
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import duckdb
import psycopg
import pytest
from click.testing import Result
from pydantic import BaseModel
from sqlalchemy.engine import make_url

from tablerag.layout import DB_FILE, INTERNAL_SCHEMA

N_ROWS = 8
"""Rows of the canary ``customers`` table."""

#: Every canary value planted in this process: (value as text, what it is).
_PLANTED: dict[str, str] = {}


@dataclass(frozen=True)
class CustomerRow:
    """One row of the canary ``customers`` table; only ``id, name, city, amount`` are visible."""

    id: int
    name: str
    city: str
    amount: float
    phone: str
    email: str
    id_card: str
    password: str
    mobile: int
    secret_pin: int
    contact: str
    diagnosis: str
    risk_score: int


COLUMNS: tuple[str, ...] = tuple(f.name for f in dataclasses.fields(CustomerRow))
VISIBLE: tuple[str, ...] = ("id", "name", "city", "amount")
HIDDEN: tuple[str, ...] = tuple(c for c in COLUMNS if c not in VISIBLE)
FLAGGED: tuple[str, ...] = ("diagnosis", "risk_score")
SQL_TYPES = {
    "id": "INTEGER",
    "name": "VARCHAR(40)",
    "city": "VARCHAR(20)",
    "amount": "DOUBLE PRECISION",
    "mobile": "BIGINT",
    "secret_pin": "BIGINT",
    "risk_score": "BIGINT",
}
CITIES = ("Lyon", "Oslo", "Quito", "Perth")


@dataclass(frozen=True)
class CanaryKit:
    """The rows of one canary database plus its internal canary; all values are registered."""

    tag: str
    rows: tuple[CustomerRow, ...]
    internal: str
    """A canary string for an internal table (the workspace's or the database's own)."""

    @property
    def values(self) -> tuple[str, ...]:
        """Every canary of this kit as text (integers in decimal)."""
        out = [self.internal]
        for row in self.rows:
            out += [str(getattr(row, c)) for c in HIDDEN]
        return tuple(out)

    def ddl(self, table: str = "customers", columns: Sequence[str] = COLUMNS) -> str:
        """``CREATE TABLE`` for the canary table (portable across DuckDB, SQLite, PostgreSQL)."""
        cols = ", ".join(f"{c} {SQL_TYPES.get(c, 'VARCHAR(80)')}" for c in columns)
        return f"CREATE TABLE {table} ({cols})"

    def tuples(self, columns: Sequence[str] = COLUMNS) -> list[tuple[Any, ...]]:
        """The rows as tuples of ``columns`` (all, in :data:`COLUMNS` order, by default)."""
        return [tuple(getattr(r, c) for c in columns) for r in self.rows]


def _register(value: object, what: str) -> None:
    _PLANTED[str(value)] = what


def plant(value: object, what: str) -> str:
    """Register one more canary (a value planted somewhere of a test's own: a JSON key, a file,
    a free-text cell) for :func:`assert_no_canary`; returns it as text."""
    _register(value, what)
    return str(value)


def canary_kit(rng: random.Random | None = None) -> CanaryKit:
    """Fresh canaries: unique strings and integers, registered for :func:`assert_no_canary`.

    The values look like what they stand for (a phone number is a Chinese mobile number, an
    e-mail an address), so the content rules of the catalog see them as a real table's would.
    With ``rng`` the values come from it (a seeded run plants the same canaries every time);
    the visible columns are the same in every kit.
    """
    randbelow = rng.randrange if rng is not None else secrets.randbelow
    tag = f"{rng.getrandbits(32):08x}" if rng is not None else secrets.token_hex(4)
    rows = []
    for i in range(1, N_ROWS + 1):
        r = randbelow(10**8)
        row = CustomerRow(
            id=i,
            name=f"name_{i}",
            city=CITIES[i % len(CITIES)],
            amount=float(10 * i),
            phone=f"139{r:08d}",
            email=f"cnry{tag}{i}@example.org",
            id_card=f"110101{r:08d}{i:03d}X",
            password=f"CNRYpw{tag}{i}",
            mobile=15_000_000_000 + r,
            secret_pin=700_000_000 + randbelow(10**8),
            contact=f"cnryc{tag}{i}@mail.example.com",
            diagnosis=f"CNRYdx{tag}{i}",
            risk_score=800_000_000 + randbelow(10**8),
        )
        for column in HIDDEN:
            _register(getattr(row, column), f"customers.{column} row {i}")
        rows.append(row)
    kit = CanaryKit(tag, tuple(rows), internal=f"CNRYint{tag}")
    _register(kit.internal, "an internal table")
    return kit


@pytest.fixture
def canaries() -> CanaryKit:
    """A fresh :class:`CanaryKit` for one test."""
    return canary_kit()


# --- building databases --------------------------------------------------------------------------


def descriptions(table: str = "customers") -> dict[str, Any]:
    """A descriptions file that flags :data:`FLAGGED` sensitive."""
    return {
        "format": "tablerag-table-descriptions/1",
        "tables": {table: {"columns": {c: {"sensitive": True} for c in FLAGGED}}},
    }


def write_customers(folder: Path, kit: CanaryKit) -> Path:
    """``customers.csv`` plus ``descriptions.json`` (flagging :data:`FLAGGED`) in ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    lines = [",".join(COLUMNS)] + [",".join(str(v) for v in t) for t in kit.tuples()]
    (folder / "customers.csv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (folder / "descriptions.json").write_text(json.dumps(descriptions()), encoding="utf-8")
    return folder


def build_sqlite(path: Path, kit: CanaryKit) -> Path:
    """A SQLite file with the canary ``customers`` without the :data:`FLAGGED` columns (a SQLite
    file carries no descriptions file that could flag them)."""
    columns = [c for c in COLUMNS if c not in FLAGGED]
    con = sqlite3.connect(path)
    con.execute(kit.ddl(columns=columns))
    marks = ", ".join("?" * len(columns))
    con.executemany(f"INSERT INTO customers VALUES ({marks})", kit.tuples(columns))
    con.commit()
    con.close()
    return path


def build_duckdb(path: Path, kit: CanaryKit) -> Path:
    """A DuckDB file with the canary ``customers`` (without the :data:`FLAGGED` columns, as
    :func:`build_sqlite`) in ``main`` and its own schema ``tablerag`` (which tablerag must never
    expose) holding the internal canary."""
    columns = [c for c in COLUMNS if c not in FLAGGED]
    con = duckdb.connect(str(path))
    con.execute(kit.ddl(columns=columns))
    marks = ", ".join("?" * len(columns))
    con.executemany(f"INSERT INTO customers VALUES ({marks})", kit.tuples(columns))
    con.execute(f"CREATE SCHEMA {INTERNAL_SCHEMA}")
    con.execute(f"CREATE TABLE {INTERNAL_SCHEMA}.columns (name VARCHAR, samples VARCHAR)")
    con.execute(f"INSERT INTO {INTERNAL_SCHEMA}.columns VALUES ('secret', ?)", [kit.internal])
    con.close()
    return path


def build_postgres(superuser_url: str, kit: CanaryKit, dbname: str) -> str:
    """The canary ``customers`` (without the :data:`FLAGGED` columns) in a fresh PostgreSQL
    database, plus a schema ``tablerag`` of the database's own holding the internal canary;
    returns the URL of a role granted SELECT on the visible columns only (the column GRANTs an
    operator gives; tablerag refuses a role that can read hidden columns)."""
    columns = [c for c in COLUMNS if c not in FLAGGED]
    role = f"canary_{dbname}"[:60]
    with psycopg.connect(superuser_url, autocommit=True) as admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{dbname}" WITH (FORCE)')
        admin.execute(f'CREATE DATABASE "{dbname}"')
        admin.execute(f'DROP ROLE IF EXISTS "{role}"')
        admin.execute(f'CREATE ROLE "{role}" LOGIN')
    url = make_url(superuser_url).set(database=dbname)
    with psycopg.connect(url.render_as_string(hide_password=False), autocommit=True) as con:
        con.execute(kit.ddl(columns=columns))
        marks = ", ".join(["%s"] * len(columns))
        with con.cursor() as cur:
            cur.executemany(f"INSERT INTO customers VALUES ({marks})", kit.tuples(columns))
        con.execute(f'GRANT SELECT ({", ".join(VISIBLE)}) ON customers TO "{role}"')
        con.execute(f"CREATE SCHEMA {INTERNAL_SCHEMA}")
        con.execute(f"CREATE TABLE {INTERNAL_SCHEMA}.columns (name text, samples text)")
        con.execute(f"INSERT INTO {INTERNAL_SCHEMA}.columns VALUES ('secret', %s)", [kit.internal])
        con.execute(f'GRANT USAGE ON SCHEMA {INTERNAL_SCHEMA} TO "{role}"')
        con.execute(f'GRANT SELECT ON {INTERNAL_SCHEMA}.columns TO "{role}"')
    return url.set(username=role).render_as_string(hide_password=False)


def plant_internal(workspace: Path, kit: CanaryKit) -> None:
    """Write the kit's internal canary into the workspace's own schema (an annotation note and a
    table of its own), where only tablerag may read it."""
    con = duckdb.connect(str(workspace / DB_FILE))
    try:
        con.execute(f"CREATE TABLE IF NOT EXISTS {INTERNAL_SCHEMA}.canary_planted (secret VARCHAR)")
        con.execute(f"INSERT INTO {INTERNAL_SCHEMA}.canary_planted VALUES (?)", [kit.internal])
    finally:
        con.close()


def workspace_index(workspace: Path) -> list[str]:
    """Every text of the workspace's text index (the ``tablerag.chunks`` table), read directly."""
    con = duckdb.connect(str(workspace / DB_FILE), read_only=True)
    try:
        rows = con.execute(f"SELECT * FROM {INTERNAL_SCHEMA}.chunks").fetchall()
    finally:
        con.close()
    return [" | ".join(map(str, r)) for r in rows]


# --- the assertion -------------------------------------------------------------------------------


def _texts(value: Any, where: str, seen: set[int]) -> Iterator[tuple[str, str]]:
    """(channel, text) pairs of every text reachable from ``value``."""
    if isinstance(value, str):
        yield where, value
    elif isinstance(value, bytes | bytearray):
        yield where, bytes(value).decode("utf-8", errors="replace")
    elif value is None or isinstance(value, bool | int | float):
        yield where, str(value)
    elif id(value) not in seen:
        seen.add(id(value))
        yield from _object_texts(value, where, seen)


def _object_texts(value: Any, where: str, seen: set[int]) -> Iterator[tuple[str, str]]:
    name = f"{where} {type(value).__name__}"
    if isinstance(value, Path):
        yield from _path_texts(value, where, seen)
    elif isinstance(value, BaseException):
        yield name, str(value)
        yield from _texts(vars(value), name, seen)
        if value.__cause__ is not None:
            yield from _texts(value.__cause__, f"{where} cause", seen)
    elif isinstance(value, BaseModel):
        yield where, value.model_dump_json()
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        fields = {f.name: getattr(value, f.name) for f in dataclasses.fields(value)}
        yield from _texts(fields, name, seen)
    elif isinstance(value, Mapping):
        for k, v in value.items():
            yield from _texts(k, where, seen)
            yield from _texts(v, f"{where}.{k}", seen)
    elif isinstance(value, Result):
        yield f"{where} stdout", value.stdout
        yield f"{where} stderr", value.stderr
        if value.exception is not None:
            yield from _texts(value.exception, f"{where} exception", seen)
    elif isinstance(getattr(value, "history", None), list):  # a test-double LLM
        yield from _texts(value.history, f"{where} prompts", seen)
    elif isinstance(value, Iterable):
        for n, item in enumerate(value):
            yield from _texts(item, f"{where}[{n}]", seen)
    elif hasattr(value, "__dict__"):
        yield from _texts(vars(value), name, seen)
    else:
        yield where, repr(value)


def _path_texts(path: Path, where: str, seen: set[int]) -> Iterator[tuple[str, str]]:
    """A file's bytes; a folder's files, except the workspace database (the data itself)."""
    if path.is_file():
        yield f"{where} file {path.name}", path.read_bytes().decode("utf-8", "replace")
    elif path.is_dir():
        for child in sorted(path.rglob("*")):
            if child.is_file() and child.name != DB_FILE:
                yield from _texts(child, f"{where}/{child.name}", seen)


def _variants(value: str) -> tuple[str, ...]:
    """The canary as text, plus ``1,234,567`` for an integer (a rendered number)."""
    out = [value.lower()]
    if value.isdigit():
        out.append(f"{int(value):,}")
    return tuple(out)


def find_canaries(*outputs: Any) -> list[str]:
    """Every planted canary found in ``outputs``, as ``'<what> in <channel>: …context…'``."""
    found = []
    needles = [(v, what, n) for v, what in _PLANTED.items() for n in _variants(v)]
    for n, output in enumerate(outputs):
        for channel, text in _texts(output, f"output {n}", set()):
            low = text.lower()
            for value, what, needle in needles:
                at = low.find(needle)
                if at >= 0:
                    context = text[max(0, at - 60) : at + len(needle) + 60]
                    found.append(f"{what} ({value!r}) in {channel}: …{context}…")
    return found


def assert_no_canary(*outputs: Any) -> None:
    """Fail when any canary planted in this process appears in any of ``outputs``.

    Outputs are walked recursively: strings, bytes, JSON values, dataclasses and pydantic models
    (results, answers, citations, hits, chunks), exceptions (message, fields and cause), CLI
    results (stdout and stderr), test-double LLMs (every prompt in ``history``) and paths (a
    file's bytes; a folder's files except the workspace database, which holds the data itself).
    """
    assert _PLANTED, "no canary was planted; build the test database with canary_kit()"
    found = find_canaries(*outputs)
    assert not found, "canary leaked:\n" + "\n".join(found[:20])
