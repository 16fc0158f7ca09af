"""Property-based fuzzing of the gate and the engines over the canary catalogs.

:func:`queries` is a hypothesis strategy of SELECT statements over the canary ``customers``
table (:mod:`tests.plugins.canary`) that try every way of reaching a hidden column: table
aliases with column lists, positional references ``#N``, ``*``/``t.*``/``COLUMNS(*)``, nested
and derived subqueries (with column lists too), set operations, lateral joins, structs, lists,
arrays and JSON, casts and aggregates, HAVING and ORDER BY, CTEs named like the table, and
identifiers respelled by :data:`MUTATIONS` (case, quoting, Unicode folding, fullwidth letters,
homoglyphs, zero-width characters). :func:`try_query` runs one through the real engine and
classifies it: refused by the gate, failed in the engine (a clean error), ran - or a defect:
a canary in the output or an error message (``leak``), an exception that is not a tablerag
error (``crash``), more rows than the cap or longer than the time limit plus one second
(``overrun``).

Used by ``tests/sql/test_fuzz_gate.py`` (a short, derandomized campaign per engine) and by
``bench/fuzz_gate.py`` (a time-boxed campaign per engine, recorded in ``bench/RESULTS.md``).
"""

from __future__ import annotations

import re
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from hypothesis import strategies as st

from tablerag.errors import SQLRejected, TableragError
from tablerag.service import Workspace
from tablerag.settings import Settings
from tablerag.sql.engines import SQLEngine, open_engine
from tablerag.sql.policy import ExecutionPolicy
from tablerag.types import ColumnInfo, TableInfo
from tests.plugins.canary import (
    COLUMNS,
    FLAGGED,
    HIDDEN,
    N_ROWS,
    VISIBLE,
    CanaryKit,
    build_postgres,
    build_sqlite,
    find_canaries,
    plant_internal,
    write_customers,
)
from tests.plugins.mariadb import MariaDBServer

Kind = Literal["ran", "rejected", "failed", "leak", "crash", "overrun"]
DEFECTS: tuple[Kind, ...] = ("leak", "crash", "overrun")
POLICY = ExecutionPolicy(max_rows=50, time_limit_ms=2000)
"""The limits every fuzzed query runs under."""
GRACE_S = 1.0
"""A query may take the time limit plus this long (the resource tests' bound)."""
SLOW_ONCE = "slow once"
"""The detail of a query over the time bound once but not when run again (load noise)."""

DIALECTS = ("duckdb", "sqlite", "postgres", "mysql")
ALIAS_NAMES = ("a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l", "m", "n")
INTERNAL_TABLES = ("tablerag.columns", "tablerag.chunks", "tablerag.canary_planted")


@dataclass(frozen=True)
class Outcome:
    """What one fuzzed query did."""

    kind: Kind
    sql: str
    detail: str = ""


def try_query(engine: SQLEngine, sql: str, policy: ExecutionPolicy = POLICY) -> Outcome:
    """Run ``sql`` on ``engine`` and classify the outcome (see the module docstring)."""
    started = time.perf_counter()
    try:
        result = engine.execute(sql, policy)
    except SQLRejected as exc:
        leaked = find_canaries(exc)
        return Outcome("leak", sql, leaked[0]) if leaked else Outcome("rejected", sql)
    except TableragError as exc:
        leaked = find_canaries(exc)
        if leaked:
            return Outcome("leak", sql, leaked[0])
        return Outcome("failed", sql, f"{type(exc).__name__}: {str(exc)[:200]}")
    except Exception as exc:  # noqa: BLE001 - a crash is what the fuzzer looks for
        return Outcome("crash", sql, f"{type(exc).__name__}: {str(exc)[:300]}")
    elapsed = time.perf_counter() - started
    leaked = find_canaries(result.columns, result.rows)
    if leaked:
        return Outcome("leak", sql, leaked[0])
    if len(result.rows) > policy.max_rows:
        return Outcome("overrun", sql, f"{len(result.rows)} rows > {policy.max_rows}")
    if elapsed > policy.time_limit_ms / 1000 + GRACE_S:
        # the machine is shared: a slow run counts only when the query is slow again
        again = time.perf_counter()
        try:
            engine.execute(sql, policy)
        except TableragError as exc:
            return Outcome("overrun", sql, f"{elapsed:.1f} s, then {type(exc).__name__}")
        retried = time.perf_counter() - again
        if retried > policy.time_limit_ms / 1000 + GRACE_S:
            return Outcome("overrun", sql, f"{elapsed:.1f} s, then {retried:.1f} s > limit + 1 s")
        return Outcome("ran", sql, f"{SLOW_ONCE} ({elapsed:.1f} s, then {retried:.1f} s)")
    return Outcome("ran", sql)


# --- the query grammar ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Source:
    """A FROM item as SQL, the alias that qualifies its columns, and the names it exposes."""

    sql: str
    alias: str
    names: tuple[str, ...]
    pool: tuple[str, ...] = COLUMNS
    """Underlying column names a reference may use (only the visible ones in a sly query,
    which reaches hidden columns through implicit forms only: ``*``, ``to_json(t)``, ``#N``,
    column lists)."""
    with_: str = ""
    """A CTE the query is prefixed with (``name AS (...)``), when the source brought one."""


MUTATIONS = ("upper", "title", "quote", "kelvin", "long-s", "fullwidth", "cyrillic-o",
             "zero-width", "quote-upper")  # fmt: skip
"""Ways an identifier is respelled (issue 28): case, quoting, Unicode folding (the Kelvin
sign for ``k``, ``ſ`` for ``s``), fullwidth letters, homoglyphs (Cyrillic ``о``) and
zero-width characters: each names the same object to Python's ``lower()`` or to a reader, and
another (or the same) to the engine."""


def mutate(name: str, how: str) -> str:
    """``name`` respelled by the mutation ``how`` (quoted when it needs quotes).

    Example:
        >>> mutate("bookings", "kelvin"), mutate("orders", "upper")
        ('"boo\u212aings"', 'ORDERS')
    """
    if how == "upper":
        return name.upper()
    if how == "title":
        return name.title()
    if how == "quote":
        return f'"{name}"'
    if how == "quote-upper":
        return f'"{name.upper()}"'
    if how == "kelvin":
        out = name.replace("k", "\u212a").replace("K", "\u212a")
    elif how == "long-s":
        out = name.replace("s", "\u017f")
    elif how == "fullwidth":
        out = chr(ord(name[0]) + 0xFEE0) + name[1:] if name[:1].isascii() else name
    elif how == "cyrillic-o":
        out = name.replace("o", "\u043e")
    else:
        out = name[:1] + "\u200b" + name[1:]
    return f'"{out}"'


@st.composite
def _name(draw: st.DrawFn, name: str) -> str:
    """``name`` as written, or (one time in four) respelled by a :data:`MUTATIONS` entry."""
    if draw(st.sampled_from(range(4))):
        return name
    return mutate(name, draw(st.sampled_from(MUTATIONS)))


def _literal() -> st.SearchStrategy[str]:
    return st.sampled_from(
        ("1", "0", "'x'", "NULL", "2.5", "'CNRY%'", "'13%'", "TRUE", "'{\"k\": 1}'")
    )


@st.composite
def _column(draw: st.DrawFn, src: Source, dialect: str) -> str:
    """A reference to a column of ``src``: by a name it exposes, a visible or a hidden
    underlying name, qualified or not, or by position on DuckDB."""
    pick = draw(st.sampled_from(range(20)))
    if pick <= 8 and src.names:
        name = draw(st.sampled_from(src.names))
    elif pick <= 13:
        name = draw(st.sampled_from(VISIBLE))
    elif pick <= 16:
        name = draw(st.sampled_from(src.pool))
    elif dialect == "duckdb":
        return f"#{draw(st.integers(1, len(COLUMNS) + 1))}"
    else:
        name = draw(st.sampled_from(ALIAS_NAMES))
    name = draw(_name(name))
    return f"{src.alias}.{name}" if draw(st.booleans()) else name


def _wrap(dialect: str) -> st.SearchStrategy[str]:
    """A function, cast or constructor with one ``{}`` slot for its argument."""
    common = [
        "upper({})", "lower({})", "coalesce({}, 'x')", "CAST({} AS VARCHAR)", "length({})",
        "{} || ''", "max({})", "min({})", "count(DISTINCT {})", "substr({}, 1, 40)",
        "CASE WHEN {} IS NULL THEN 'n' ELSE 'y' END", "replace({}, 'a', 'b')", "trim({})",
    ]  # fmt: skip
    per = {
        "duckdb": [
            "[{}]", "list({})", "{{'k': {}}}", "struct_pack(k := {})", "to_json({})",
            "string_agg({}, ',')", "{}::VARCHAR", "array_agg({})", "json_object('k', {})",
            "list_value({}, 1)", "({})::JSON", "first({})", "any_value({})", "unnest([{}])",
            "TRY_CAST({} AS BIGINT)", "map([1], [{}])", "row({})", "to_json([{}])",
        ],
        "sqlite": [
            "json_object('k', {})", "json_array({})", "group_concat({})", "CAST({} AS TEXT)",
            "printf('%s', {})", "quote({})", "hex({})", "json_quote({})", "CAST({} AS INTEGER)",
        ],
        "postgres": [
            "ARRAY[{}]", "array_agg({})", "row({})", "to_json({})", "json_build_object('k', {})",
            "string_agg({}::text, ',')", "{}::text", "jsonb_build_array({})", "concat({})",
            "format('%s', {})", "row_to_json(row({}))", "CAST({} AS bigint)",
        ],
        "mysql": [
            "json_object('k', {})", "json_array({})", "group_concat({})", "CAST({} AS CHAR)",
            "concat({}, '')", "hex({})", "CAST({} AS SIGNED)", "json_quote({})",
            "any_value({})", "concat_ws(',', {}, 'x')", "json_extract(json_array({}), '$[0]')",
        ],
    }  # fmt: skip
    return st.sampled_from(common + per[dialect])


@st.composite
def _expr(draw: st.DrawFn, src: Source, dialect: str, depth: int) -> str:
    kind = draw(st.sampled_from(range(10)))
    if kind <= 4:
        return draw(_column(src, dialect))
    if kind == 5:
        return draw(_literal())
    if kind == 6 and depth > 0:
        inner, _ = draw(_query(dialect, depth - 1, src.pool))
        return f"(SELECT * FROM ({inner}) AS q LIMIT 1)" if draw(st.booleans()) else f"({inner})"
    if kind == 7:
        whole = dialect in {"duckdb", "postgres"}
        return f"to_json({src.alias})" if whole else draw(_column(src, dialect))
    inner = (
        draw(_expr(src, dialect, max(0, depth - 1))) if depth > 0 else draw(_column(src, dialect))
    )
    return draw(_wrap(dialect)).format(inner)


Select = tuple[str, tuple[str, ...]]
"""SQL and the output column names it is known to have (a select item, a query)."""


@st.composite
def _select_item(draw: st.DrawFn, src: Source, dialect: str, depth: int) -> Select:
    kind = draw(st.sampled_from(range(16)))
    if kind == 0:
        return "*", src.names
    if kind == 1:
        return f"{src.alias}.*", src.names
    if kind == 2 and dialect == "duckdb" and draw(st.booleans()):
        star = ("COLUMNS(*)", "COLUMNS('.*')", f"{src.alias}.* EXCLUDE (id)")
        return draw(st.sampled_from(star)), src.names
    expr = draw(_expr(src, dialect, depth))
    if draw(st.booleans()):
        alias = draw(st.sampled_from(ALIAS_NAMES))
        return f"{expr} AS {alias}", (alias,)
    name = expr.rsplit(".", 1)[-1]
    return expr, (name,) if re.fullmatch(r"[a-z_]+", name) else ()


@st.composite
def _source(draw: st.DrawFn, dialect: str, depth: int, pool: tuple[str, ...]) -> Source:
    """``customers`` under an alias (with a column list, maybe), a derived table (maybe with a
    column list), an internal table, or a lateral join of two of them."""
    source = draw(_from_item(dialect, depth, pool))
    names = tuple(n for n in source.names if n in pool or n not in COLUMNS)
    return Source(source.sql, source.alias, names, pool, source.with_)


@st.composite
def _from_item(draw: st.DrawFn, dialect: str, depth: int, pool: tuple[str, ...]) -> Source:
    kind = draw(st.sampled_from(range(12)))
    alias = draw(st.sampled_from(("t", "c", "s", "x")))
    if kind <= 3:
        return Source(f"{draw(_name('customers'))} AS {alias}", alias, COLUMNS)
    if kind == 4:
        # short lists rename visible columns only (and may run); longer ones reach hidden ones
        size = draw(st.one_of(st.integers(1, len(VISIBLE)), st.integers(1, len(COLUMNS))))
        listed = ALIAS_NAMES[:size]
        names = listed + COLUMNS[len(listed) :]
        return Source(f"customers AS {alias}({', '.join(listed)})", alias, names)
    if kind <= 8 and depth > 0:
        inner, names = draw(_query(dialect, depth - 1, pool))
        if draw(st.booleans()):
            return Source(f"({inner}) AS {alias}", alias, names)
        listed = ALIAS_NAMES[: draw(st.integers(1, max(1, len(names))))]
        rest = names[len(listed) :]
        return Source(f"({inner}) AS {alias}({', '.join(listed)})", alias, listed + rest)
    if kind == 9:
        return Source(f"{draw(st.sampled_from(INTERNAL_TABLES))} AS {alias}", alias, ())
    if kind == 10 and dialect != "sqlite":
        listed = ALIAS_NAMES[: draw(st.integers(1, 4))]
        col = draw(st.sampled_from(pool))
        sql = (
            f"customers AS {alias} CROSS JOIN LATERAL (SELECT {alias}.{col}) AS l"
            f"({', '.join(listed[:1])})"
        )
        return Source(sql, "l", listed[:1])
    if kind == 11 and depth > 0:
        # a CTE named like the table up to case, quoting or Unicode folding, shadowing it or not
        inner, names = draw(_query(dialect, depth - 1, VISIBLE))
        cte = draw(_name("customers"))
        return Source(f"customers AS {alias}", alias, COLUMNS, pool, with_=f"{cte} AS ({inner})")
    return Source("customers", "customers", COLUMNS)


@st.composite
def _query(
    draw: st.DrawFn, dialect: str, depth: int, pool: tuple[str, ...] | None = None
) -> Select:
    if pool is None:  # the outermost query decides: sly (two in three) or open
        pool = draw(st.sampled_from((VISIBLE, VISIBLE, COLUMNS)))
    src = draw(_source(dialect, depth, pool))
    items = draw(st.lists(_select_item(src, dialect, depth), min_size=1, max_size=2))
    names = tuple(n for _, item_names in items for n in item_names)
    sql = f"SELECT {', '.join(item for item, _ in items)} FROM {src.sql}"
    if src.with_:
        sql = f"WITH {src.with_} {sql}"
    if draw(st.booleans()):
        sql += f" WHERE {draw(_expr(src, dialect, 0))} IS NOT NULL"
    if draw(st.sampled_from(range(4))) == 0:
        sql += " GROUP BY ALL" if dialect == "duckdb" else " GROUP BY 1"
        if draw(st.booleans()):
            sql += f" HAVING count({draw(_column(src, dialect))}) > 0"
    if draw(st.sampled_from(range(4))) == 0:
        sql += f" ORDER BY {draw(_expr(src, dialect, 0))}"
    if depth > 0 and draw(st.sampled_from(range(4))) == 0:
        op = draw(st.sampled_from(("UNION", "UNION ALL", "EXCEPT", "INTERSECT")))
        sql = f"{sql} {op} {draw(_query(dialect, depth - 1, pool))[0]}"
    return sql, names


def queries(dialect: str, depth: int = 2) -> st.SearchStrategy[str]:
    """SELECT statements in ``dialect`` that try to reach the hidden canary columns, nested up
    to ``depth`` levels (one forbidden part refuses a whole query, so most are shallow)."""
    levels = st.sampled_from([d for d in (0, 1, 1, 2, 2, 3) if d <= depth])
    return levels.flatmap(lambda d: _query(dialect, d)).map(lambda query: query[0])


# --- the engines ---------------------------------------------------------------------------------


def duckdb_workspace(folder: Path, kit: CanaryKit) -> SQLEngine:
    """The canary workspace (CSV + descriptions file, internal canary planted) and its engine."""
    src = write_customers(folder / "in", kit)
    root = folder / "ws"
    with Workspace.open(root) as ws:
        ws.ingest(
            [src / "customers.csv", src / "descriptions.json"],
            settings=Settings(embedder="hashing", index_on_ingest=False),
        )
        tables = ws.tables()
    plant_internal(root, kit)
    return open_engine(root, catalog=tables, policy=POLICY)


def sqlite_file(folder: Path, kit: CanaryKit) -> SQLEngine:
    """The canary table as a SQLite file, opened by URL (the engine reads its own catalog)."""
    path = build_sqlite(folder / "fuzz.db", kit)
    return open_engine(f"sqlite:///{path}", policy=POLICY)


def postgres_database(superuser_url: str, kit: CanaryKit, dbname: str) -> SQLEngine:
    """The canary table in a fresh PostgreSQL database, read by a role granted only the
    visible columns (:func:`tests.plugins.canary.build_postgres`)."""
    return open_engine(build_postgres(superuser_url, kit, dbname), policy=POLICY)


def mariadb_database(server: MariaDBServer, kit: CanaryKit, dbname: str) -> SQLEngine:
    """The canary table in a fresh MariaDB database, read by an account granted only the
    visible columns (the documented setup), with a ``tablerag`` database of its own holding
    the internal canary; the catalog names the hidden columns as a workspace records them."""
    user, password = f"f_{dbname}"[:32], "fuzz-pw"
    stored = [c for c in COLUMNS if c not in FLAGGED]
    server.execute(
        f"DROP DATABASE IF EXISTS `{dbname}`",
        f"CREATE DATABASE `{dbname}` CHARACTER SET utf8mb4",
        "CREATE DATABASE IF NOT EXISTS tablerag",
        "CREATE TABLE IF NOT EXISTS tablerag.columns (name VARCHAR(40), samples VARCHAR(80))",
        f"DROP USER IF EXISTS '{user}'@'%'",
        f"CREATE USER '{user}'@'%' IDENTIFIED BY '{password}'",
    )
    con = server.connect(dbname)
    try:
        with con.cursor() as cur:
            cur.execute(kit.ddl(columns=stored).replace("DOUBLE PRECISION", "DOUBLE"))
            marks = ", ".join(["%s"] * len(stored))
            cur.executemany(f"INSERT INTO customers VALUES ({marks})", kit.tuples(stored))
            cur.execute("INSERT INTO tablerag.columns VALUES ('secret', %s)", [kit.internal])
            cur.execute(
                f"GRANT SELECT ({', '.join(VISIBLE)}) ON `{dbname}`.customers TO '{user}'@'%'"
            )
            cur.execute(f"GRANT SELECT ON tablerag.columns TO '{user}'@'%'")
    finally:
        con.close()
    columns = tuple(ColumnInfo(c, "", sensitive=c in HIDDEN) for c in stored)
    return open_engine(
        server.url(dbname, user=user, password=password),
        catalog=[TableInfo("customers", "t", columns, N_ROWS)],
        policy=POLICY,
    )


def campaign_summary(outcomes: Sequence[Outcome]) -> dict[str, int]:
    """Counts per outcome kind (every kind present, zeros included)."""
    kinds: tuple[Kind, ...] = ("ran", "rejected", "failed", "leak", "crash", "overrun")
    return {k: sum(o.kind == k for o in outcomes) for k in kinds}
