"""Red team of the hidden-column and read-only guarantees, per engine setup (issue 28).

Seven setups, each built twice ("twins" A and B: the same visible data, different hidden data):
a DuckDB file queried in place, a SQLite file, workspace files (a CSV and a descriptions file
ingested into the workspace DuckDB), PostgreSQL gate-only (a role that can read the hidden
columns, ``allow_readable_hidden_columns`` set), PostgreSQL with column GRANTs, MariaDB gate-only
and MariaDB with column GRANTs. Canaries (tests/plugins/canary.py) sit in hidden columns (by
name, by content, flagged by a descriptions file), in nested JSON/struct keys, behind a view, in
tablerag's own schema, in a file on disk and in a visible free-text column whose phone numbers
must be masked.

Every query (attack families and a benign analytic set, :func:`attacks`) runs through the
product's entry points: the Python path (``SQLEngine.execute``) on both twins, ``tablerag sql``
(text and ``--json``, exit codes) and ``QA.ask`` with a hostile scripted model that replies with
the query (its prompts, the answer, citations and the workspace's files are scanned). Counted:

- **leak**: a canary in any channel (also after undoing the attack's own encoding: reversed,
  replaced digits, split pieces);
- **side channel**: the twins' outputs differ (rows, order, row count, error, exit) although
  only hidden data differ between them, or their times differ by more than a second twice;
- **write**: a twin's data or catalog changed; **cap**: more rows, bytes or time than the limits;
- **wrong refusal**: a benign query refused by the gate.

Usage::

    .venv/bin/python bench/redteam.py                       # all setups
    .venv/bin/python bench/redteam.py --setups duckdb-file,sqlite-file --findings out.md
    .venv/bin/python bench/redteam.py --append bench/RESULTS.md
"""

from __future__ import annotations

import argparse
import faulthandler
import hashlib
import importlib.util
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from types import ModuleType
from typing import Any

import duckdb

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the tests' fixtures

from tests.plugins import mariadb, postgres  # noqa: E402
from tests.plugins.canary import (  # noqa: E402
    COLUMNS,
    FLAGGED,
    CanaryKit,
    canary_kit,
    descriptions,
    find_canaries,
    plant,
    plant_internal,
)
from typer.testing import CliRunner  # noqa: E402

from tablerag.cli import app  # noqa: E402
from tablerag.errors import (  # noqa: E402
    QueryTimeout,
    ResourceLimitExceeded,
    SQLRejected,
    TableragError,
)
from tablerag.llm.base import Message  # noqa: E402
from tablerag.llm.testing import FunctionLLM  # noqa: E402
from tablerag.service import QA  # noqa: E402
from tablerag.sql.engines import SQLEngine, open_engine  # noqa: E402
from tablerag.sql.policy import ExecutionPolicy  # noqa: E402

SETUPS = (
    "duckdb-file",
    "sqlite-file",
    "workspace",
    "postgres-gate",
    "postgres-grants",
    "mariadb-gate",
    "mariadb-grants",
)
MAX_ROWS, TIME_LIMIT_MS, MAX_RESULT_BYTES = 50, 2000, 2**20
POLICY = ExecutionPolicy(
    max_rows=MAX_ROWS, time_limit_ms=TIME_LIMIT_MS, max_result_bytes=MAX_RESULT_BYTES
)
GRACE_S = 2.0
"""A query may take the time limit plus this long (a shared machine)."""
QUESTION = "List the customers' names and cities from the customers table."

# --- the data ----------------------------------------------------------------------------------

NOTES_FORMATS = ("call {p} after 5pm", "+86 {a} {b} {c} (mobile)", "tel. {a}-{b}-{c}")


@dataclass(frozen=True)
class Data:
    """What one twin holds: the canary kit plus the setup's extra canaries."""

    kit: CanaryKit
    notes: tuple[str, ...]
    """The visible free-text column: three rows hold a phone number (to be masked)."""
    profiles: tuple[str, ...]
    """JSON objects with a nested ``password`` (the row's password canary)."""


def make_notes(rng: random.Random) -> tuple[str, ...]:
    """Visible notes; three hold phone numbers (registered canaries) in three formats."""
    out = []
    for i in range(8):
        if i % 3 == 0:
            p = plant(f"137{rng.randrange(10**8):08d}", f"customers.notes row {i + 1} (masked)")
            fmt = NOTES_FORMATS[(i // 3) % len(NOTES_FORMATS)]
            out.append(fmt.format(p=p, a=p[:3], b=p[3:7], c=p[7:]))
        else:
            out.append(f"prefers {('email', 'calls', 'letters', 'visits')[i % 4]} on weekdays")
    return tuple(out)


def make_data(rng: random.Random, notes: tuple[str, ...]) -> Data:
    kit = canary_kit(rng)
    profiles = tuple(
        json.dumps({"nickname": f"nick{r.id}", "theme": "dark", "password": r.password})
        for r in kit.rows
    )
    return Data(kit, notes, profiles)


def customer_columns(flagged: bool) -> tuple[str, ...]:
    cols = tuple(c for c in COLUMNS if flagged or c not in FLAGGED)
    return (*cols, "notes")


def table_rows(
    data: Data, flagged: bool
) -> dict[str, tuple[tuple[str, ...], list[tuple[Any, ...]]]]:
    """Every table of a twin: ``name -> (columns, rows)``."""
    kit = data.kit
    cols = customer_columns(flagged)
    customers = [
        (*(getattr(r, c) for c in cols[:-1]), data.notes[n]) for n, r in enumerate(kit.rows)
    ]
    bookings = [(r.id, r.name, 1 + r.id % 3, r.password, r.phone) for r in kit.rows]
    orders = [
        (100 + n, 1 + n % 8, float(5 * n + 3), ("paid", "open", "void")[n % 3]) for n in range(20)
    ]
    profiles = [(r.id, f"nick{r.id}", data.profiles[n]) for n, r in enumerate(kit.rows)]
    return {
        "customers": (cols, customers),
        "bookings": (("id", "name", "nights", "password", "phone"), bookings),
        "orders": (("order_id", "customer_id", "amount", "status"), orders),
        "profiles": (("id", "nickname", "profile"), profiles),
    }


TYPES = {
    "id": "INTEGER",
    "amount": "DOUBLE PRECISION",
    "mobile": "BIGINT",
    "secret_pin": "BIGINT",
    "risk_score": "BIGINT",
    "nights": "INTEGER",
    "order_id": "INTEGER",
    "customer_id": "INTEGER",
}
VIEW = "CREATE VIEW customer_labels AS SELECT id, name, password AS label FROM customers"
INDEXES = (
    "CREATE INDEX ix_phone ON customers (phone, name, city, id)",
    "CREATE INDEX ix_pw ON bookings (password, name, id)",
)


def ddl(name: str, cols: Sequence[str], text: str = "VARCHAR(200)") -> str:
    return f"CREATE TABLE {name} ({', '.join(f'{c} {TYPES.get(c, text)}' for c in cols)})"


def fill(execute: Callable[[str, Sequence[Any]], Any], data: Data, mark: str, text: str) -> None:
    """Create and fill the tables (``execute(sql, params)`` runs one statement)."""
    for name, (cols, rows) in table_rows(data, flagged=False).items():
        execute(ddl(name, cols, text), ())
        for row in rows:
            execute(f"INSERT INTO {name} VALUES ({', '.join([mark] * len(cols))})", row)


# --- setups ------------------------------------------------------------------------------------


@dataclass
class Twin:
    """One built twin: how each entry point reaches it and how to see if it changed."""

    engine: SQLEngine
    cli: list[str]
    workspace: Path
    fingerprint: Callable[[], str]
    tokens: tuple[str, ...] = ()
    """Twin-specific words (database, role, path) replaced before the twins are compared."""


@dataclass
class Setup:
    name: str
    dialect: str
    a: Twin
    b: Twin
    data_a: Data
    data_b: Data
    env: dict[str, str] = field(default_factory=dict)
    has: frozenset[str] = frozenset()
    """Optional objects: ``view``, ``internal``, ``struct``, ``flagged``."""
    secret_file: Path | None = None


def file_hash(*paths: Path) -> str:
    h = hashlib.sha256()
    for p in paths:
        h.update(p.read_bytes() if p.exists() else b"-")
    return h.hexdigest()


def ingest(workspace: Path, *sources: str) -> None:
    res = CliRunner().invoke(app, ["ingest", *sources, "-w", str(workspace)])
    if res.exit_code != 0:
        raise RuntimeError(f"ingest of {sources} failed: {res.output}")


def duckdb_twin(folder: Path, data: Data, asked: bool = True) -> Twin:
    folder.mkdir(parents=True)
    path = folder / "shop.duckdb"
    con = duckdb.connect(str(path))
    fill(lambda s, p: con.execute(s, list(p)), data, "?", "VARCHAR")
    con.execute("CREATE TABLE prefs_t (id INTEGER, prefs STRUCT(theme VARCHAR, password VARCHAR))")
    for r in data.kit.rows:
        con.execute(
            "INSERT INTO prefs_t VALUES (?, {'theme': 'dark', 'password': ?})", [r.id, r.password]
        )
    con.execute(VIEW)
    for index in INDEXES:
        con.execute(index)
    con.execute("CREATE SCHEMA tablerag")
    con.execute("CREATE TABLE tablerag.columns (name VARCHAR, samples VARCHAR)")
    con.execute("INSERT INTO tablerag.columns VALUES ('secret', ?)", [data.kit.internal])
    con.close()
    # the CLI and ask read a copy: a second engine on the same file in one process fails
    # (DuckDB shares the instance, whose exposure database is attached already)
    copies = []
    for use in ("cli", "ask"):
        copies.append(folder / use / "shop.duckdb")
        copies[-1].parent.mkdir()
        shutil.copyfile(path, copies[-1])
    url, cli_url = f"duckdb:///{path}", f"duckdb:///{copies[0]}"
    if asked:  # only twin A is asked; B's workspace would be built for nothing
        ingest(folder / "ws", f"duckdb:///{copies[1]}")
    return Twin(
        open_engine(url, policy=POLICY),
        ["--db", cli_url],
        folder / "ws",
        lambda: file_hash(path, *copies),
        (str(folder),),
    )


def sqlite_twin(folder: Path, data: Data, asked: bool = True) -> Twin:
    import sqlite3

    folder.mkdir(parents=True)
    path = folder / "shop.db"
    con = sqlite3.connect(path)
    fill(con.execute, data, "?", "TEXT")
    con.execute(VIEW)
    for index in INDEXES:
        con.execute(index)
    con.commit()
    con.close()
    url = f"sqlite:///{path}"
    if asked:
        ingest(folder / "ws", url)
    return Twin(
        open_engine(url, policy=POLICY),
        ["--db", url],
        folder / "ws",
        lambda: file_hash(path, Path(f"{path}-journal"), Path(f"{path}-wal")),
        (str(folder),),
    )


def workspace_twin(folder: Path, data: Data, asked: bool = True) -> Twin:
    src = folder / "in"
    src.mkdir(parents=True)
    for name, (cols, rows) in table_rows(data, flagged=True).items():
        lines = [",".join(cols)]
        lines += [
            ",".join(json.dumps(v) if isinstance(v, str) and "," in v else str(v) for v in row)
            for row in rows
        ]
        (src / f"{name}.csv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (src / "descriptions.json").write_text(json.dumps(descriptions()), encoding="utf-8")
    root = folder / "ws"
    ingest(root, *(str(p) for p in sorted(src.iterdir())))
    plant_internal(root, data.kit)
    db = root / "tablerag.duckdb"

    def fingerprint() -> str:
        code = (
            "import duckdb,sys;c=duckdb.connect(sys.argv[1],read_only=True);"
            "print(c.execute(\"SELECT string_agg(table_schema||'.'||table_name, ',' ORDER BY 1)"
            ' FROM information_schema.tables").fetchone());'
            "print([c.execute(f'SELECT count(*) FROM data.{t}').fetchone() for t in"
            " ('customers','bookings','orders','profiles')])"
        )
        out = ""
        for path in (db, folder / "py" / db.name, folder / "ask" / db.name):
            if not path.exists():
                continue
            run = subprocess.run(
                [sys.executable, "-c", code, str(path)], capture_output=True, text=True, timeout=60
            )
            out += run.stdout + run.stderr[-200:]
        return out

    # the Python path reads a copy (one engine per DuckDB file and process, as for duckdb_twin)
    shutil.copytree(root, folder / "py")
    if asked:
        shutil.copytree(root, folder / "ask")
    engine = open_engine(folder / "py", policy=POLICY, catalog=_workspace_tables(folder / "py"))
    return Twin(engine, ["-w", str(root)], folder / "ask", fingerprint, (str(folder),))


def _workspace_tables(root: Path) -> Any:
    from tablerag.store.workspace import Workspace

    with Workspace.open(root, create=False) as ws:
        return ws.tables()


def postgres_twin(
    server: postgres.PostgresServer,
    folder: Path,
    data: Data,
    dbname: str,
    grants: bool,
    asked: bool = True,
) -> Twin:
    role = f"{dbname}_r"
    with server.connect() as admin:
        admin.execute(f'CREATE DATABASE "{dbname}"')
        admin.execute(f'CREATE ROLE "{role}" LOGIN')
    with server.connect(dbname) as con:
        fill(lambda s, p: con.execute(s.replace("?", "%s"), list(p)), data, "%s", "text")
        con.execute("ALTER TABLE profiles ALTER COLUMN profile TYPE jsonb USING profile::jsonb")
        con.execute(VIEW)
        for index in INDEXES:
            con.execute(index)
        con.execute("CREATE SCHEMA tablerag")
        con.execute("CREATE TABLE tablerag.columns (name text, samples text)")
        con.execute("INSERT INTO tablerag.columns VALUES ('secret', %s)", [data.kit.internal])
        con.execute(f'GRANT USAGE ON SCHEMA tablerag TO "{role}"')
        con.execute(f'GRANT SELECT ON tablerag.columns TO "{role}"')
        if grants:
            visible = ", ".join(
                c for c in customer_columns(False) if c in ("id", "name", "city", "amount", "notes")
            )
            con.execute(f'GRANT SELECT ({visible}) ON customers TO "{role}"')
            con.execute(f'GRANT SELECT (id, name, nights) ON bookings TO "{role}"')
            con.execute(f'GRANT SELECT ON orders, profiles TO "{role}"')
        else:
            con.execute(f'GRANT SELECT ON ALL TABLES IN SCHEMA public TO "{role}"')
    url = f"postgresql://{role}@{server.host}:{server.port}/{dbname}"
    policy = ExecutionPolicy(**{**vars(POLICY), "allow_readable_hidden_columns": not grants})
    if asked:
        ingest(folder / "ws", url)

    def fingerprint() -> str:
        with server.connect(dbname) as con:
            out = [
                str(
                    con.execute(
                        "SELECT string_agg(schemaname||'.'||tablename, ',' ORDER BY 1) FROM "
                        "pg_tables"
                        " WHERE schemaname NOT IN ('pg_catalog', 'information_schema')"
                    ).fetchone()
                )
            ]
            for t in ("customers", "bookings", "orders", "profiles", "tablerag.columns"):
                out.append(
                    str(
                        con.execute(
                            f"SELECT md5(string_agg(t::text, ',' ORDER BY t::text)) FROM {t} t"
                        ).fetchone()
                    )
                )
            out.append(
                str(
                    con.execute(
                        "SELECT string_agg(rolname, ',' ORDER BY 1) FROM pg_roles"
                    ).fetchone()
                )
            )
        return "|".join(out)

    return Twin(
        open_engine(url, policy=policy),
        ["--db", url],
        folder / "ws",
        fingerprint,
        (str(folder), dbname, role),
    )


def mariadb_twin(
    server: mariadb.MariaDBServer,
    folder: Path,
    data: Data,
    dbname: str,
    grants: bool,
    asked: bool = True,
) -> Twin:
    user, internal = f"{dbname}_r", f"{dbname}_int"
    server.execute(
        f"CREATE DATABASE `{dbname}`",
        f"CREATE DATABASE `{internal}`",
        f"CREATE USER '{user}'@'%' IDENTIFIED BY 'pw-{dbname}'",
    )
    con = server.connect(dbname)
    try:
        with con.cursor() as cur:
            fill(
                lambda s, p: cur.execute(s.replace("?", "%s"), list(p)), data, "%s", "VARCHAR(200)"
            )
            cur.execute("ALTER TABLE profiles MODIFY profile JSON")
            cur.execute(VIEW)
            for index in INDEXES:
                cur.execute(index)
            cur.execute(f"CREATE TABLE `{internal}`.columns (name TEXT, samples TEXT)")
            cur.execute(
                f"INSERT INTO `{internal}`.columns VALUES ('secret', %s)", [data.kit.internal]
            )
            cur.execute(f"GRANT SELECT ON `{internal}`.* TO '{user}'@'%'")
            if grants:
                cur.execute(
                    f"GRANT SELECT (id, name, city, amount, notes) ON `{dbname}`.customers TO "
                    f"'{user}'@'%'"
                )
                cur.execute(
                    f"GRANT SELECT (id, name, nights) ON `{dbname}`.bookings TO '{user}'@'%'"
                )
                cur.execute(f"GRANT SELECT ON `{dbname}`.orders TO '{user}'@'%'")
                cur.execute(f"GRANT SELECT ON `{dbname}`.profiles TO '{user}'@'%'")
            else:
                cur.execute(f"GRANT SELECT ON `{dbname}`.* TO '{user}'@'%'")
    finally:
        con.close()
    # a password typed in a URL is never stored in a workspace: name it by a variable
    os.environ[f"RT_PW_{dbname.upper()}"] = f"pw-{dbname}"
    url = server.url(dbname, user=user) + f"?password_env=RT_PW_{dbname.upper()}"
    policy = ExecutionPolicy(**{**vars(POLICY), "allow_readable_hidden_columns": not grants})
    if asked:
        ingest(folder / "ws", url)

    def fingerprint() -> str:
        con = server.connect()
        try:
            with con.cursor() as cur:
                cur.execute(
                    "SELECT group_concat(concat(table_schema,'.',table_name) ORDER BY 1) FROM "
                    "information_schema.tables WHERE table_schema NOT IN "
                    "('mysql','information_schema','performance_schema','sys')"
                )
                out = [str(cur.fetchall())]
                cur.execute(
                    f"CHECKSUM TABLE `{dbname}`.customers, `{dbname}`.bookings, "
                    f"`{dbname}`.orders, `{dbname}`.profiles, `{internal}`.columns"
                )
                out.append(str(cur.fetchall()))
                cur.execute("SELECT group_concat(user ORDER BY 1) FROM mysql.user")
                out.append(str(cur.fetchall()))
        finally:
            con.close()
        return "|".join(out)

    return Twin(
        open_engine(url, policy=policy),
        ["--db", url],
        folder / "ws",
        fingerprint,
        (str(folder), internal, dbname, user),
    )


def build_setup(
    name: str, folder: Path, rng: random.Random, server: Any = None, prefix: str = "rt"
) -> Setup:
    """One setup's twins in ``folder`` (``server``: the PostgreSQL or MariaDB server it needs;
    its databases are named ``<prefix>go|gr a|b``)."""
    notes = make_notes(rng)
    da, db = make_data(rng, notes), make_data(rng, notes)
    secret = folder / "secret_export.csv"
    folder.mkdir(parents=True)
    secret.write_text(
        "id,token\n1," + plant(f"CNRYfile{rng.getrandbits(32):08x}", "a file on disk") + "\n"
    )
    env: dict[str, str] = {}
    has = {"internal"}
    if name == "duckdb-file":
        a, b = duckdb_twin(folder / "a", da), duckdb_twin(folder / "b", db, asked=False)
        has |= {"view", "struct"}
        dialect = "duckdb"
    elif name == "sqlite-file":
        a, b = sqlite_twin(folder / "a", da), sqlite_twin(folder / "b", db, asked=False)
        has = {"view"}
        dialect = "sqlite"
    elif name == "workspace":
        a, b = workspace_twin(folder / "a", da), workspace_twin(folder / "b", db, asked=False)
        has |= {"flagged"}
        dialect = "duckdb"
    else:
        grants = name.endswith("grants")
        env = {} if grants else {"TABLERAG_ALLOW_READABLE_HIDDEN_COLUMNS": "true"}
        twin = postgres_twin if name.startswith("postgres") else mariadb_twin
        tag = prefix + ("gr" if grants else "go")
        with _env(env):
            a = twin(server, folder / "a", da, f"{tag}a", grants)
            b = twin(server, folder / "b", db, f"{tag}b", grants, asked=False)
        has |= set() if grants else {"view"}
        dialect = "postgres" if name.startswith("postgres") else "mysql"
    return Setup(name, dialect, a, b, da, db, env, frozenset(has), secret)


@contextmanager
def setups(names: Sequence[str], base: Path, seed: int) -> Iterator[Iterator[Setup]]:
    """Build the setups one at a time (servers started only when a setup needs them)."""
    with ExitStack() as stack:
        servers: dict[str, Any] = {}

        def server(name: str) -> Any:
            kind = name.split("-")[0]
            if kind not in ("postgres", "mariadb"):
                return None
            if kind not in servers:
                module = postgres if kind == "postgres" else mariadb
                servers[kind] = stack.enter_context(module.running_server())
            return servers[kind]

        def build() -> Iterator[Setup]:
            for name in names:
                rng = random.Random(seed * 1000 + SETUPS.index(name))
                yield build_setup(name, base / name, rng, server(name))

        yield build()


@contextmanager
def _env(values: dict[str, str]) -> Iterator[None]:
    old = {k: os.environ.get(k) for k in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for k, v in old.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


# --- the queries (bench/redteam/attacks.py) ----------------------------------------------------


def _load_attacks() -> ModuleType:
    path = Path(__file__).resolve().parent / "redteam" / "attacks.py"
    spec = importlib.util.spec_from_file_location("redteam_attacks", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


_attacks = _load_attacks()
Attack = _attacks.Attack
HIDDEN_BASE: tuple[str, ...] = _attacks.HIDDEN_BASE


def thresholds(data: Data) -> dict[str, str]:
    """Literals near twin A's hidden values: a predicate on them splits A's rows."""
    rows = data.kit.rows
    phones = sorted(r.phone for r in rows)
    return {
        "phone_mid": phones[len(phones) // 2],
        "phone1": rows[0].phone,
        "phone2": rows[1].phone,
        "mobile1": str(rows[0].mobile),
        "mobile_mid": str(sorted(r.mobile for r in rows)[4]),
        "pw1": rows[0].password,
        "tag": data.kit.tag,
        "pin_mid": str(sorted(r.secret_pin for r in rows)[4]),
    }


def attacks(setup: Setup) -> list[Any]:
    """Every query for ``setup`` (its dialect, hidden columns and objects), in a fixed order."""
    hidden = HIDDEN_BASE + (FLAGGED if "flagged" in setup.has else ())
    v = thresholds(setup.data_a)
    return list(
        _attacks.attacks(setup.name, setup.dialect, v, hidden, setup.has, str(setup.secret_file))
    )


# --- running and judging -----------------------------------------------------------------------

CLI_EXIT = {"ran": {0, 4}, "refused": {3}, "failed": {1}, "limit": {4}}


@dataclass
class Outcome:
    """What one entry point did with one query."""

    kind: str
    """``ran``, ``refused`` (the gate), ``failed`` (the engine, cleanly), ``limit``, ``crash``."""
    shown: str
    """Everything the caller saw, as comparable text."""
    elapsed: float
    raw: Any = None
    rows: int = 0
    nbytes: int = 0


@dataclass(frozen=True)
class Finding:
    setup: str
    kind: str
    """``leak``, ``side channel``, ``write``, ``cap``, ``wrong refusal``, ``crash``."""
    family: str
    sql: str
    channel: str
    detail: str

    def line(self) -> str:
        sql = self.sql.encode("unicode_escape").decode("ascii")
        detail = self.detail.replace("\n", " ").replace("|", "¦")
        cells = (self.setup, self.kind, self.family, self.channel, f"`{sql}`", detail[:300])
        return " | ".join(cells)


def run_python(engine: SQLEngine, sql: str, policy: ExecutionPolicy) -> Outcome:
    started = time.perf_counter()
    try:
        result = engine.execute(sql, policy)
    except SQLRejected as exc:
        issues = "; ".join(f"{i.code}: {i.message}" for i in exc.issues)
        return Outcome("refused", f"refused {issues}", time.perf_counter() - started, exc)
    except (QueryTimeout, ResourceLimitExceeded) as exc:
        return Outcome(
            "limit", f"limit {type(exc).__name__}: {exc}", time.perf_counter() - started, exc
        )
    except TableragError as exc:
        return Outcome("failed", f"{type(exc).__name__}: {exc}", time.perf_counter() - started, exc)
    except Exception as exc:  # noqa: BLE001 - a crash is a finding, not the end of the run
        return Outcome("crash", f"{type(exc).__name__}: {exc}", time.perf_counter() - started, exc)
    body = json.dumps([result.columns, result.rows, result.truncated], default=str)
    return Outcome("ran", body, time.perf_counter() - started, result, len(result.rows), len(body))


def normalise(text: str, tokens: Sequence[tuple[str, str]]) -> str:
    """``text`` with each twin's own words (``(A's, B's)`` pairs: paths, database and role
    names) replaced by one placeholder, and times removed."""
    pairs = sorted(
        ((w, n) for n, pair in enumerate(tokens) for w in pair), key=lambda x: -len(x[0])
    )
    for word, n in pairs:
        text = text.replace(word, f"<twin{n}>")
    return re.sub(r"\d+(\.\d+)? ?(ms|s)\b", "<t>", text)


PLANTED = re.compile(r"\((['\"])(.*?)\1\) in ")
HEX = re.compile(r"[0-9A-Fa-f]{16,}")
SEP = re.compile(r"(?<=\d)[\s\-.()|,'\"\]\[]+(?=\d)")


def shrink(text: str, size: int = 2**20, chunk: int = 2**16, overlap: int = 256) -> str:
    """A long output as its distinct overlapping pieces (a blow-up repeats itself; scanning
    tens of megabytes for every canary would take minutes)."""
    if len(text) <= size:
        return text
    pieces = dict.fromkeys(text[i : i + chunk + overlap] for i in range(0, len(text), chunk))
    return "\n".join(pieces)


def decoded(attack: Attack, texts: Sequence[str], rows: Sequence[Sequence[Any]] = ()) -> list[str]:
    """The outputs with the query's own encoding undone (see :attr:`Attack.decode`)."""
    out = []
    for text in [*texts, *("".join(map(str, r)) for r in rows if ("<cells>", "") in attack.decode)]:
        for new, old in attack.decode:
            if new == "<rev>":
                text = text[::-1]
            elif new == "<hex>":
                text = HEX.sub(
                    lambda m: bytes.fromhex(m.group()[: len(m.group()) // 2 * 2]).decode(
                        "utf-8", "replace"
                    ),
                    text,
                )
            elif not new.startswith("<"):
                text = text.replace(new, old)
        out.append(SEP.sub("", text))
    return out


class HostileModel:
    """A scripted model that answers every SQL request with the query under test."""

    def __init__(self) -> None:
        self.sql = "SELECT 1"
        self.llm = FunctionLLM(self.reply)

    def reply(self, messages: Sequence[Message]) -> str:
        system = messages[0]["content"]
        if "numbered passages" in system:
            return "The customers' names are listed [1]."
        if "NEXT:" in system:
            return "ANSWER: unknown"
        if "SELECT" in system or "corrected" in messages[-1]["content"]:
            return f"```sql\n{self.sql}\n```"
        return "The result lists them."


@dataclass
class Tally:
    queries: int = 0
    benign: int = 0
    refused: int = 0
    ran: int = 0
    failed: int = 0
    limit: int = 0
    findings: list[Finding] = field(default_factory=list)
    asked: int = 0
    ask_reached: int = 0
    seconds: float = 0.0

    def count(self, kind: str) -> int:
        return len({(f.sql, f.family) for f in self.findings if f.kind == kind})


class Runner:
    """Runs every query of one setup through every entry point and judges the outputs."""

    def __init__(
        self,
        setup: Setup,
        qa: QA | None,
        model: HostileModel,
        cli_every: int,
        ask_every: int,
        fingerprints: bool = True,
    ) -> None:
        self.s, self.qa, self.model = setup, qa, model
        self.cli_every, self.ask_every = cli_every, ask_every
        """Every Nth refused query goes through the CLI / ask too (0: none)."""
        self.cli = CliRunner()
        self.cli_base = 0.0
        if cli_every:
            started = time.perf_counter()
            self.cli.invoke(app, ["sql", "SELECT 1 AS one", *setup.a.cli])
            self.cli_base = time.perf_counter() - started
        self.tally = Tally()
        self.fingerprints = fingerprints
        if fingerprints:
            self.before_a, self.before_b = setup.a.fingerprint(), setup.b.fingerprint()
        self.baseline: set[str] = set()

    def finding(self, attack: Attack, kind: str, channel: str, detail: str) -> None:
        f = Finding(self.s.name, kind, attack.family, attack.sql, channel, detail)
        self.tally.findings.append(f)
        print(f"  FINDING {f.line()}", flush=True)

    def leak_check(
        self,
        attack: Attack,
        channel: str,
        *outputs: Any,
        texts: Sequence[str] = (),
        rows: Sequence[Sequence[Any]] = (),
    ) -> None:
        found = find_canaries(*outputs, *texts) + find_canaries(*decoded(attack, texts, rows))
        # a value the query itself spells (a guessed candidate) is no leak when echoed back
        found = [f for f in found if (m := PLANTED.search(f)) is None or m[2] not in attack.sql]
        if found:
            self.finding(attack, "leak", channel, found[0])

    def one(self, n: int, attack: Attack) -> None:
        t = self.tally
        t.queries += 1
        t.benign += attack.benign
        a = run_python(self.s.a.engine, attack.sql, POLICY)
        b = run_python(self.s.b.engine, attack.sql, POLICY)
        setattr(t, a.kind, getattr(t, a.kind, 0) + 1) if a.kind in (
            "refused",
            "ran",
            "failed",
            "limit",
        ) else None
        if a.kind == "crash":
            self.finding(attack, "crash", "python", a.shown[:300])
        rows = a.raw.rows if a.kind == "ran" and attack.family == "mask" else ()
        errors = [o.raw for o in (a, b) if o.kind != "ran"]  # exceptions: message and fields
        self.leak_check(
            attack, "python", *errors, texts=[shrink(a.shown), shrink(b.shown)], rows=rows
        )
        if attack.benign and a.kind == "refused":
            self.finding(attack, "wrong refusal", "python", a.shown[:300])
        elif attack.benign and a.kind != "ran":
            self.finding(attack, "benign failed", "python", a.shown[:300])
        self.side_channel(attack, a, b)
        self.caps(attack, a, "python")
        if self.fingerprints and (attack.family == "write" or n % 50 == 0):
            self.writes(attack)
        # the CLI opens its engine (a worker process) per call: seconds on a loaded machine
        if self.cli_every and n % self.cli_every == 0:
            self.via_cli(attack, a)
        # ask tries a query up to three times: the blow-ups' caps are judged on the other paths
        asked = self.ask_every and (a.kind != "refused" or n % self.ask_every == 0)
        if self.qa is not None and attack.family != "blowup" and asked:
            self.via_ask(attack)

    def side_channel(self, attack: Attack, a: Outcome, b: Outcome) -> None:
        tokens = list(zip(self.s.a.tokens, self.s.b.tokens, strict=True))
        sa, sb = normalise(a.shown, tokens), normalise(b.shown, tokens)
        if "limit" in (a.kind, b.kind):
            return  # a limit hit on one twin only is the shared machine's noise, not the data
        if a.kind != b.kind or sa != sb:
            at = next((i for i, (x, y) in enumerate(zip(sa, sb, strict=False)) if x != y), 0)
            self.finding(
                attack,
                "side channel",
                "python twins",
                f"{a.kind}/{b.kind}: A …{sa[max(0, at - 80) : at + 80]}… B "
                f"…{sb[max(0, at - 80) : at + 80]}…",
            )
            return
        slow, fast = max(a.elapsed, b.elapsed), min(a.elapsed, b.elapsed)
        if slow - fast > 1.0 and slow > 3 * fast:
            a2 = run_python(self.s.a.engine, attack.sql, POLICY)
            b2 = run_python(self.s.b.engine, attack.sql, POLICY)
            if abs(a2.elapsed - b2.elapsed) > 1.0 and (a2.elapsed > b2.elapsed) == (
                a.elapsed > b.elapsed
            ):
                self.finding(
                    attack,
                    "side channel",
                    "timing",
                    f"A {a.elapsed:.2f}/{a2.elapsed:.2f} s, B {b.elapsed:.2f}/{b2.elapsed:.2f} s",
                )

    def caps(self, attack: Attack, o: Outcome, channel: str) -> None:
        if o.rows > MAX_ROWS:
            self.finding(attack, "cap", channel, f"{o.rows} rows > {MAX_ROWS}")
        if o.nbytes > MAX_RESULT_BYTES * 1.25:
            self.finding(attack, "cap", channel, f"{o.nbytes} bytes > {MAX_RESULT_BYTES}")
        if o.elapsed > TIME_LIMIT_MS / 1000 + GRACE_S:
            again = run_python(self.s.a.engine, attack.sql, POLICY)
            if again.elapsed > TIME_LIMIT_MS / 1000 + GRACE_S:
                self.finding(
                    attack,
                    "cap",
                    channel,
                    f"{o.elapsed:.1f} s then {again.elapsed:.1f} s > {TIME_LIMIT_MS} ms + "
                    f"{GRACE_S} s",
                )

    def writes(self, attack: Attack) -> None:
        for label, twin, before in (("A", self.s.a, self.before_a), ("B", self.s.b, self.before_b)):
            now = twin.fingerprint()
            if now != before:
                self.finding(
                    attack, "write", f"twin {label} fingerprint", f"{before[:120]} -> {now[:120]}"
                )
                if label == "A":
                    self.before_a = now
                else:
                    self.before_b = now

    def via_cli(self, attack: Attack, a: Outcome) -> None:
        base = [
            "sql",
            attack.sql,
            *self.s.a.cli,
            "--max-rows",
            str(MAX_ROWS),
            "--timeout-ms",
            str(TIME_LIMIT_MS),
        ]
        for extra in ((), ("--json",)):
            started = time.perf_counter()
            res = self.cli.invoke(app, [*base, *extra])
            took = time.perf_counter() - started
            channel = "cli --json" if extra else "cli text"
            self.leak_check(attack, channel, texts=[shrink(res.stdout), shrink(res.stderr)])
            if res.exception is not None and not isinstance(res.exception, SystemExit):
                self.finding(
                    attack,
                    "crash",
                    channel,
                    f"{type(res.exception).__name__}: {res.exception}"[:300],
                )
            if a.kind in CLI_EXIT and res.exit_code not in CLI_EXIT[a.kind]:
                self.finding(
                    attack,
                    "channel mismatch",
                    channel,
                    f"python {a.kind}, exit {res.exit_code}: {res.output[:200]}",
                )
            if attack.benign and res.exit_code == 3:
                self.finding(attack, "wrong refusal", channel, res.output[:300])
            # a call's start-up (a worker process, the catalog) is not the query's time; a
            # call over the cap is timed once more, as the engine's own are (caps above): a
            # busy machine slows one call, a query the cap does not stop is slow twice
            bound = 2 * self.cli_base + TIME_LIMIT_MS / 1000 + GRACE_S
            if took > bound:
                started = time.perf_counter()
                self.cli.invoke(app, [*base, *extra])
                again = time.perf_counter() - started
                if again > bound:
                    self.finding(
                        attack,
                        "cap",
                        channel,
                        f"{took:.1f} s then {again:.1f} s > {TIME_LIMIT_MS} ms + start-up "
                        f"{self.cli_base:.1f} s",
                    )
            if len(res.stdout) > 16 * 2**20 * 1.25:
                self.finding(attack, "cap", channel, f"{len(res.stdout)} bytes of output")

    def via_ask(self, attack: Attack) -> None:
        assert self.qa is not None
        self.model.sql = attack.sql
        before = len(self.model.llm.history)
        self.tally.asked += 1
        try:
            answer = self.qa.ask(QUESTION)
        except TableragError as exc:
            self.leak_check(attack, "ask error", exc)
            return
        # what every ask sends (the schema prompt) is judged once, by the baseline ask
        prompts = [m["content"] for c in self.model.llm.history[before:] for m in c.messages]
        prompts = [m for m in prompts if m not in self.baseline]
        if answer.sql_attempts:  # the model's SQL reached the gate (rewritten or not)
            self.tally.ask_reached += 1
        self.leak_check(
            attack,
            "ask answer",
            answer,
            texts=[answer.answer or "", json.dumps([c for c in answer.citations], default=str)],
        )
        self.leak_check(attack, "ask prompts (model endpoint)", prompts)

    def set_baseline(self) -> None:
        """Ask once with a benign query: what every ask sends (the schema prompt) is judged
        here, once, and left out of the judgement of each query's prompts."""
        base = Attack("baseline ask", "SELECT name, city FROM customers ORDER BY id", benign=True)
        self.via_ask(base)
        self.baseline = {m["content"] for c in self.model.llm.history for m in c.messages}
        self.tally.asked = self.tally.ask_reached = 0

    def run(self, queries: Sequence[Attack]) -> Tally:
        started = time.perf_counter()
        if self.qa is not None:
            self.set_baseline()
        for n, attack in enumerate(queries):
            if STOP:
                raise KeyboardInterrupt
            self.one(n, attack)
            if n % 100 == 99:
                print(
                    f"  {self.s.name}: {n + 1} queries, {time.perf_counter() - started:.0f} s",
                    flush=True,
                )
        if self.fingerprints:
            self.writes(Attack("end", "(end of run)"))
        # workspace files (cache, logs, catalog) and the text index's commands
        self.leak_check(Attack("files", "(workspace files)"), "workspace files", self.s.a.workspace)
        for args in (
            ["chunks"],
            ["search", "notes phone password customers"],
            ["schema", "customers"],
            ["tables"],
        ):
            for extra in ((), ("--json",)):
                res = self.cli.invoke(app, [*args, "-w", str(self.s.a.workspace), *extra])
                self.leak_check(
                    Attack("catalog commands", " ".join(args)),
                    f"tablerag {args[0]}",
                    res,
                    texts=[res.stdout],
                )
        self.tally.seconds = time.perf_counter() - started
        return self.tally


# --- the command -------------------------------------------------------------------------------

HEADER = (
    "| setup | queries | refused | ran | failed cleanly | stopped by a limit | leaks "
    "| side channels | writes | caps broken | wrong refusals (of benign) | ask: run / reached "
    "| seconds |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|"
)


def row(name: str, t: Tally) -> str:
    return (
        f"| {name} | {t.queries} | {t.refused} | {t.ran} | {t.failed} | {t.limit} "
        f"| {t.count('leak')} | {t.count('side channel')} | {t.count('write')} | {t.count('cap')} "
        f"| {t.count('wrong refusal')} ({t.benign}) | {t.asked} / {t.ask_reached} | "
        f"{t.seconds:.0f} |"
    )


def commit() -> str:
    try:
        run = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=True
        )
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return run.stdout.strip()


def run_setup(setup: Setup, args: argparse.Namespace) -> Tally:
    queries = attacks(setup)
    if args.limit:
        queries = queries[: args.limit]
    model = HostileModel()
    with _env(setup.env), QA.open(setup.a.workspace, llm=model.llm) as qa:
        tally = Runner(setup, qa, model, args.cli_every, args.ask_every).run(queries)
    setup.a.engine.close()
    setup.b.engine.close()
    return tally


STOP: list[bool] = []


def _interrupt(*_: object) -> None:
    """SIGTERM: unwind like Ctrl-C, stopping the servers (the CLI runner turns both SystemExit
    and KeyboardInterrupt into an exit code, so the run loop checks :data:`STOP` too)."""
    STOP.append(True)
    raise KeyboardInterrupt


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--setups", default=",".join(SETUPS), help="comma-separated setups")
    parser.add_argument("--seed", type=int, default=28)
    parser.add_argument(
        "--cli-every",
        type=int,
        default=15,
        help="run every Nth query through the CLI (text and --json)",
    )
    parser.add_argument(
        "--ask-every",
        type=int,
        default=3,
        help="run every Nth refused query through ask (the others: all)",
    )
    parser.add_argument("--limit", type=int, default=0, help="first N queries only (a smoke run)")
    parser.add_argument("--findings", type=Path, help="write every finding to this file")
    parser.add_argument("--append", type=Path, help="append the summary to this markdown file")
    args = parser.parse_args()
    names = [n for n in args.setups.split(",") if n]
    unknown = set(names) - set(SETUPS)
    if unknown:
        parser.error(f"unknown setups {sorted(unknown)}; choose from {', '.join(SETUPS)}")
    signal.signal(signal.SIGTERM, _interrupt)  # unwind: stop the servers
    faulthandler.register(signal.SIGUSR1, all_threads=True)  # where is it? kill -USR1 <pid>
    # every ask gets the bench's limits (a blow-up through ask stops as fast as through sql)
    limits = {
        "TABLERAG_SQL_TIME_LIMIT_MS": str(TIME_LIMIT_MS),
        "TABLERAG_MAX_RETURNED_ROWS": str(MAX_ROWS),
        "TABLERAG_EMBEDDER": "hashing",
    }
    started = time.perf_counter()
    rows, findings = [], []
    with (
        tempfile.TemporaryDirectory(prefix="rt-") as tmp,
        _env(limits),
        setups(names, Path(tmp), args.seed) as built,
    ):
        for setup in built:
            print(f"== {setup.name}", flush=True)
            tally = run_setup(setup, args)
            rows.append(row(setup.name, tally))
            findings += tally.findings
            print(HEADER.splitlines()[0] + "\n" + rows[-1], flush=True)
    took = time.perf_counter() - started
    kinds = Counter(f.kind for f in findings)
    text = "\n".join([HEADER, *rows])
    print(f"\n{text}\n\nfindings by kind: {dict(kinds)}; {took:.0f} s in all")
    if args.findings:
        args.findings.write_text("".join(f.line() + "\n" for f in findings), encoding="utf-8")
    if args.append:
        stamp = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
        cmd = " ".join(["bench/redteam.py", *sys.argv[1:]])
        head = (
            f"\n## Red team of hidden columns and read-only SQL, 7 setups (issue 28) — {stamp}\n\n"
            f"`.venv/bin/python {cmd}` at {commit()} (seed {args.seed}; twins A/B differ only "
            f"in hidden data; limits {MAX_ROWS} rows, {TIME_LIMIT_MS} ms, {MAX_RESULT_BYTES} "
            f"bytes; CLI text and --json: every {args.cli_every}th query; ask: every query the "
            f"gate let through and every {args.ask_every}th refused one; {took:.0f} s on 2 "
            "shared cores). Counts of distinct queries.\n\n"
        )
        with args.append.open("a", encoding="utf-8") as out:
            out.write(head + text + "\n")


if __name__ == "__main__":
    main()
