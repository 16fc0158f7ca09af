"""A fast, deterministic subset of the red team of ``bench/redteam.py`` (issue 28).

Each setup is built twice (twins with the same visible data and different hidden data, seeded)
and every query runs on both through the Python path (``SQLEngine.execute``); a query the gate
lets through runs through ``tablerag sql`` (text and ``--json``) too. A query fails the test when
a canary reaches any of those outputs (also after undoing its own encoding: reversed, replaced,
split), when the twins' outputs differ (a side channel on hidden data), or - for the benign
analytic queries - when the gate refuses it. Attacks that still leak on main carry
``xfail(strict=True)`` with the finding (bench/redteam.py --findings) as the reason: they flip
to failures (XPASS) when the fix lands, and the xfail is then removed.
"""

from __future__ import annotations

import os
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.bench import load_script

rt = load_script("redteam")

SEED = 2828


def _build(name: str, folder: Path, server: Any = None) -> Any:
    rng = random.Random(SEED * 1000 + rt.SETUPS.index(name))
    prefix = f"t{os.getpid()}"
    setup = rt.build_setup(name, folder, rng, server, prefix=prefix)
    return setup


@pytest.fixture(scope="module")
def setups(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """The built setups by name (the server ones built on first use)."""
    built: dict[str, Any] = {}
    yield built
    for setup in built.values():
        setup.a.engine.close()
        setup.b.engine.close()


def setup_for(request: pytest.FixtureRequest, setups: dict[str, Any], name: str) -> Any:
    if name not in setups:
        folder = request.getfixturevalue("tmp_path_factory").mktemp(name)
        server = None
        if name.startswith("postgres"):
            server = request.getfixturevalue("postgres_server")
        elif name.startswith("mariadb"):
            server = request.getfixturevalue("mariadb_server")
        setups[name] = _build(name, folder / "s", server)
    return setups[name]


def judge(
    setup: Any, sql: str, benign: bool = False, cli: bool = False, decode: tuple[Any, ...] = ()
) -> list[str]:
    """Every finding of ``sql`` on ``setup`` through the Python path on both twins (and the CLI,
    text and ``--json``): leaks, side channels, caps, wrong refusals."""
    runner = rt.Runner(setup, None, rt.HostileModel(), cli_every=1 if cli else 0, ask_every=0,
                       fingerprints=False)  # fmt: skip
    with rt._env(setup.env):
        runner.one(0, rt.Attack("test", sql, benign, decode))
    return [f.line() for f in runner.tally.findings if f.kind != "channel mismatch"]


def judge_ask(setup: Any, sql: str) -> list[str]:
    """The findings of ``ask`` with a hostile model that replies ``sql``: the answer, its
    citations and the prompts after the schema prompt (judged once by :func:`test_the_schema_
    prompt_shows_no_canary`)."""
    from tablerag.service import QA

    model = rt.HostileModel()
    with rt._env(setup.env), QA.open(setup.a.workspace, llm=model.llm) as qa:
        runner = rt.Runner(setup, qa, model, cli_every=0, ask_every=1, fingerprints=False)
        runner.set_baseline()
        runner.tally.findings.clear()
        runner.via_ask(rt.Attack("test", sql))
    assert runner.tally.ask_reached == 1, "the hostile model's SQL never reached the gate"
    return [f.line() for f in runner.tally.findings]


LOCAL = ("duckdb-file", "sqlite-file", "workspace")
PG = ("postgres-gate", "postgres-grants")
MARIA = ("mariadb-gate", "mariadb-grants")
FAKE = "SELECT 1 AS id, 'x' AS name, 'y' AS password, 'z' AS phone"

#: Attacks that must show nothing (refused, or run without a hidden value or a side channel).
HELD = (
    ("star", "SELECT * FROM customers"),
    ("upper", "SELECT name, PASSWORD FROM customers"),
    ("fullwidth", "SELECT name, \uff50\uff41\uff53\uff53\uff57\uff4f\uff52\uff44 FROM customers"),
    ("zero-width", 'SELECT name, "pa\u200dssword" FROM customers'),
    (
        "cte-before-shadow",
        f"WITH a AS (SELECT name, password FROM customers), customers AS ({FAKE}) SELECT * FROM a",
    ),
    ("using-hidden", "SELECT a.name FROM customers a JOIN customers b USING (phone)"),
    ("natural-join", "SELECT count(*) FROM customers NATURAL JOIN bookings"),
    ("order-by-hidden", "SELECT name FROM customers ORDER BY phone"),
    ("window-hidden", "SELECT name, row_number() OVER (ORDER BY mobile) AS r FROM customers"),
    ("sibling-alias", "SELECT name AS phone, phone AS x FROM customers"),
    ("internal", "SELECT * FROM tablerag.columns"),
    ("catalog", "SELECT column_name FROM information_schema.columns"),
    ("file", "SELECT * FROM read_csv('{secret}')"),
    ("row-cap", "SELECT a.name FROM customers a, customers b, customers c, customers d"),
    ("cte-delete", "WITH d AS (DELETE FROM orders RETURNING *) SELECT count(*) FROM d"),
    ("stacked", "SELECT 1; DELETE FROM orders"),
    ("comment", "SELECT name /* , password */ , password FROM customers"),
)

#: Benign analyst queries: each must run on every setup, the same on both twins.
BENIGN = (
    (
        "join-agg",
        "SELECT c.name, sum(o.amount) AS spent FROM customers c JOIN orders o ON o.customer_id = "
        "c.id GROUP BY c.name ORDER BY spent DESC, c.name",
    ),
    (
        "window",
        "SELECT name, city, sum(amount) OVER (PARTITION BY city ORDER BY id) AS running FROM "
        "customers ORDER BY city, id",
    ),
    (
        "cte",
        "WITH big AS (SELECT id, name FROM customers WHERE amount > 30) SELECT name FROM big "
        "ORDER BY name",
    ),
    (
        "having",
        "SELECT city, avg(amount) AS a FROM customers GROUP BY city HAVING count(*) > 1 ORDER BY "
        "city",
    ),
    (
        "exists",
        "SELECT name FROM customers c WHERE EXISTS (SELECT 1 FROM orders o WHERE o.customer_id = "
        "c.id AND o.amount > 50) ORDER BY name",
    ),
    ("no-order-by", "SELECT name, city FROM customers"),
)

#: Attacks that leak on main 18e285a, on the setups where they leak (each a finding of
#: the red team's findings); on the other setups they must show nothing.
KELVIN = 'WITH "boo\u212aings" AS ({fake}) '
QUOTED = 'WITH "Bookings" AS ({fake}) '
LIKE_TAG = "SELECT count(*) FROM bookings WHERE password LIKE '%{tag}%'"
HAVING = "SELECT city, count(*) AS n FROM customers GROUP BY city HAVING max(phone) > '{phone_mid}'"
LEAKY = (
    ("kelvin-cte", KELVIN.format(fake=FAKE) + LIKE_TAG, ()),
    ("quoted-cte", QUOTED.format(fake=FAKE) + LIKE_TAG, ()),
    ("having-unqualified", HAVING, ()),
    ("view", "SELECT label FROM customer_labels", ()),
    ("nested-json", "SELECT profile FROM profiles", ()),
    ("struct", "SELECT prefs FROM prefs_t", ()),
    ("error-echo", "SELECT CAST(notes AS INTEGER) FROM customers", ()),
    ("plus-86", "SELECT notes FROM customers", ()),
    ("reverse", "SELECT reverse(notes) FROM customers", (("<rev>", ""),)),
    ("hex", "SELECT hex(notes) FROM customers", (("<hex>", ""),)),
    ("byte-cap", "SELECT repeat('x', 3000000) AS x", ()),
)

SERVERS = ("postgres-gate", "postgres-grants", "mariadb-gate", "mariadb-grants")
INDEX_ORDER = (
    "[engines] sqlite-file, mariadb: a query without ORDER BY comes back in the order of an "
    "index on a hidden column (ix_phone): the twins' row orders differ"
)
MASKING = "[secrets] masking misses '+86 137 xxxx xxxx' and is defeated by reverse()/hex()"
#: Findings on main 18e285a (bench/redteam.py): (case, setup) -> reason.
LEAKS_ON_MAIN: dict[tuple[str, str], str] = {
    **dict.fromkeys(
        [(c, s) for c in ("no-order-by", "row-cap") for s in ("sqlite-file", *SERVERS[2:])],
        INDEX_ORDER,
    ),
    ("using-hidden", "mariadb-grants"): "[names] MariaDB does not check column privileges of "
    "USING columns and the gate does not know ungranted columns",
    **dict.fromkeys(
        [("kelvin-cte", "duckdb-file"), ("kelvin-cte", "postgres-gate")],
        "[names] a CTE named 'boo\\u212aings' (KELVIN SIGN) hides the real bookings from the gate "
        "(Python lower() folds it to 'k'): the twins' rows differ with the hidden password",
    ),
    ("quoted-cte", "postgres-gate"): '[names] postgres-gate: a CTE "Bookings" is another name '
    "on PostgreSQL; the gate folds it and skips the hidden-column check of the real bookings",
    **dict.fromkeys(
        [("having-unqualified", s) for s in ("postgres-gate", "mariadb-gate")],
        "[names] unqualified columns in HAVING are not checked (max(phone) keeps or drops groups)",
    ),
    **dict.fromkeys(
        [("view", s) for s in ("duckdb-file", "postgres-gate", "mariadb-gate")],
        "[secrets] a view over a hidden column (customer_labels.label = password) is not hidden",
    ),
    **dict.fromkeys(
        [("nested-json", s) for s in ("duckdb-file", "sqlite-file", "workspace", *SERVERS)]
        + [("struct", "duckdb-file")],
        "[secrets] nested keys (profile JSON / prefs STRUCT holding 'password') are not hidden",
    ),
    **dict.fromkeys(
        [("error-echo", s) for s in ("duckdb-file", "workspace", *SERVERS[:2])],
        "[secrets] engine errors echo raw cell values: CAST(notes AS INTEGER) shows the phone "
        "number that masking hides in rows",
    ),
    **dict.fromkeys([("plus-86", s) for s in (*LOCAL, *SERVERS)], MASKING),
    **dict.fromkeys([("reverse", s) for s in ("duckdb-file", "workspace", *SERVERS)], MASKING),
    **dict.fromkeys([("hex", s) for s in (*LOCAL, *SERVERS[2:])], MASKING),
    **dict.fromkeys(
        [("byte-cap", s) for s in SERVERS], "[engines] no result byte cap on PostgreSQL/MariaDB"
    ),
}


FIXED: frozenset[tuple[str, str]] = frozenset(
    {
        ("ask-nested", "duckdb-file"),
        ("ask-refused", "workspace"),
        ("byte-cap", "mariadb-gate"),
        ("byte-cap", "mariadb-grants"),
        ("byte-cap", "postgres-gate"),
        ("byte-cap", "postgres-grants"),
        ("cli-error-echo", "duckdb-file"),
        ("error-echo", "duckdb-file"),
        ("error-echo", "postgres-gate"),
        ("error-echo", "postgres-grants"),
        ("error-echo", "workspace"),
        ("group-concat", "sqlite-file"),
        ("having-unqualified", "mariadb-gate"),
        ("having-unqualified", "postgres-gate"),
        ("hex", "duckdb-file"),
        ("hex", "mariadb-gate"),
        ("hex", "mariadb-grants"),
        ("hex", "sqlite-file"),
        ("hex", "workspace"),
        ("kelvin-cte", "duckdb-file"),
        ("kelvin-cte", "postgres-gate"),
        ("nested-json", "duckdb-file"),
        ("nested-json", "mariadb-gate"),
        ("nested-json", "mariadb-grants"),
        ("nested-json", "postgres-gate"),
        ("nested-json", "postgres-grants"),
        ("nested-json", "sqlite-file"),
        ("nested-json", "workspace"),
        ("no-order-by", "mariadb-gate"),
        ("no-order-by", "mariadb-grants"),
        ("no-order-by", "sqlite-file"),
        ("plus-86", "duckdb-file"),
        ("plus-86", "mariadb-gate"),
        ("plus-86", "mariadb-grants"),
        ("plus-86", "postgres-gate"),
        ("plus-86", "postgres-grants"),
        ("plus-86", "sqlite-file"),
        ("plus-86", "workspace"),
        ("quoted-cte", "postgres-gate"),
        ("reverse", "duckdb-file"),
        ("reverse", "mariadb-gate"),
        ("reverse", "mariadb-grants"),
        ("reverse", "postgres-gate"),
        ("reverse", "postgres-grants"),
        ("reverse", "workspace"),
        ("row-cap", "mariadb-gate"),
        ("row-cap", "mariadb-grants"),
        ("row-cap", "sqlite-file"),
        ("struct", "duckdb-file"),
        ("using-hidden", "mariadb-grants"),
        ("view", "duckdb-file"),
        ("view", "mariadb-gate"),
        ("view", "postgres-gate"),
    }
)
"""(attack, setup) pairs of ``LEAKS_ON_MAIN`` that leak nothing since issue 28's fixes: plain
tests now, which fail if the leak comes back."""


def _params(cases: tuple[tuple[Any, ...], ...], setups: tuple[str, ...]) -> list[Any]:
    out = []
    for name in setups:
        marks: list[Any] = []
        if name.startswith("postgres"):
            marks.append(pytest.mark.postgres)
        elif name.startswith("mariadb"):
            marks.append(pytest.mark.mariadb)
        for case, *rest in cases:
            reason = None if (case, name) in FIXED else LEAKS_ON_MAIN.get((case, name))
            extra = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
            out.append(pytest.param(name, *rest, marks=[*marks, *extra], id=f"{name}-{case}"))
    return out


ALL = LOCAL + PG + MARIA


@pytest.mark.parametrize(("name", "sql"), _params(HELD, ALL))
def test_the_attack_shows_nothing(
    request: pytest.FixtureRequest, setups: dict[str, Any], name: str, sql: str
) -> None:
    setup = setup_for(request, setups, name)
    assert judge(setup, sql.format(secret=setup.secret_file), cli=False) == []


#: SQLite's ``group_concat`` keeps the order rows are read in (no ORDER BY inside before 3.44):
#: a covering index on a hidden column (ix_phone) made it the order of the phone numbers.
SQLITE_BENIGN = (
    (
        "group-concat",
        "SELECT city, group_concat(name, ', ') AS names FROM customers GROUP BY city ORDER BY city",
    ),
)
LEAKS_ON_MAIN[("group-concat", "sqlite-file")] = (
    "[engines] sqlite-file: group_concat's order within a group follows a covering index on a "
    "hidden column (found by bench/redteam.py after issue 28's first fixes)"
)


@pytest.mark.parametrize(
    ("name", "sql"), [*_params(BENIGN, ALL), *_params(SQLITE_BENIGN, ("sqlite-file",))]
)
def test_the_benign_query_runs_the_same_on_both_twins(
    request: pytest.FixtureRequest, setups: dict[str, Any], name: str, sql: str
) -> None:
    setup = setup_for(request, setups, name)
    assert rt.run_python(setup.a.engine, sql, rt.POLICY).kind == "ran"
    assert judge(setup, sql, benign=True, cli=False) == []


@pytest.mark.parametrize(("name", "sql", "decode"), _params(LEAKY, ALL))
def test_the_attack_leaks_nothing(
    request: pytest.FixtureRequest, setups: dict[str, Any], name: str, sql: str, decode: Any
) -> None:
    setup = setup_for(request, setups, name)
    if (
        "prefs_t" in sql
        and "struct" not in setup.has
        or "customer_labels" in sql
        and "view" not in setup.has
    ):
        pytest.skip(f"{name} has no such object")
    sql = sql.format(**rt.thresholds(setup.data_a))
    assert judge(setup, sql, decode=decode) == []


#: Through ``tablerag sql`` (text and --json): a refusal and a leak through an error message.
CLI = (
    ("cli-refused", "SELECT name, password FROM customers WHERE phone LIKE '1%'"),
    ("cli-error-echo", "SELECT CAST(notes AS INTEGER) FROM customers"),
)
LEAKS_ON_MAIN[("cli-error-echo", "duckdb-file")] = (
    "[secrets] engine errors echo raw cell values (tablerag sql stderr and --json message)"
)


@pytest.mark.parametrize(("name", "sql"), _params(CLI, ("duckdb-file",)))
def test_the_cli_shows_nothing(
    request: pytest.FixtureRequest, setups: dict[str, Any], name: str, sql: str
) -> None:
    setup = setup_for(request, setups, name)
    assert judge(setup, sql, cli=True) == []


#: Through ``ask`` with a hostile model that replies the query (the answer and every prompt
#: after the schema prompt are scanned).
ASK = (
    ("ask-refused", "SELECT name, phone, password FROM customers"),
    ("ask-nested", "SELECT profile FROM profiles"),
)
LEAKS_ON_MAIN.update(
    {
        ("ask-nested", "duckdb-file"): "[secrets] nested keys are not hidden: the password "
        "reaches the answer and the model endpoint",
        ("ask-refused", "workspace"): "[secrets] after three refusals ask falls back to RAG, "
        "whose table chunks cite the visible notes unmasked",
    }
)


@pytest.mark.parametrize(
    ("name", "sql"), [*_params(ASK, ("duckdb-file",)), *_params(ASK[:1], ("workspace",))]
)
def test_ask_with_a_hostile_model_shows_nothing(
    request: pytest.FixtureRequest, setups: dict[str, Any], name: str, sql: str
) -> None:
    setup = setup_for(request, setups, name)
    assert judge_ask(setup, sql) == []


@pytest.mark.parametrize(
    "name",
    [
        "duckdb-file",
        "sqlite-file",
        "workspace",
        pytest.param("postgres-gate", marks=pytest.mark.postgres),
        pytest.param("mariadb-gate", marks=pytest.mark.mariadb),
    ],
)
def test_the_schema_prompt_shows_no_canary(
    request: pytest.FixtureRequest, setups: dict[str, Any], name: str
) -> None:
    """The schema prompt's samples: a view over a hidden column (customer_labels.label is
    customers.password) is left out with its samples, on every engine that has the view."""
    from tablerag.service import QA

    setup = setup_for(request, setups, name)
    model = rt.HostileModel()
    model.sql = "SELECT name, city FROM customers ORDER BY id"
    with rt._env(setup.env), QA.open(setup.a.workspace, llm=model.llm) as qa:
        answer = qa.ask(rt.QUESTION)
    assert answer.sql_attempts, "the model's SQL never reached the gate"
    assert rt.find_canaries(answer, model.llm) == []


WRITES = (
    "WITH d AS (DELETE FROM orders RETURNING *) SELECT count(*) FROM d",
    "SELECT 1; DROP TABLE orders",
    "INSERT INTO orders VALUES (999, 1, 1.0, 'x')",
    "COPY orders TO '/tmp/tablerag_redteam_copy.csv'",
    "ATTACH '/tmp/tablerag_redteam_attach.db' AS x",
    "SET search_path = tablerag",
    "SELECT * INTO t10 FROM orders",
    "CREATE TABLE t9 (x int)",
)


@pytest.mark.parametrize(
    "name",
    [
        *LOCAL,
        *(pytest.param(n, marks=pytest.mark.postgres) for n in PG),
        *(pytest.param(n, marks=pytest.mark.mariadb) for n in MARIA),
    ],
)
def test_no_write_changes_anything(
    request: pytest.FixtureRequest, setups: dict[str, Any], name: str
) -> None:
    setup = setup_for(request, setups, name)
    before = setup.a.fingerprint()
    outcomes = [rt.run_python(setup.a.engine, sql, rt.POLICY) for sql in WRITES]
    assert [o.kind for o in outcomes] == ["refused"] * len(WRITES), [o.shown for o in outcomes]
    assert setup.a.fingerprint() == before


#: Functions that rewrite a masked column's text (the visible ``notes`` holds phone numbers):
#: each is refused on every setup, or shows nothing even after undoing its own encoding.
MASK_DEFEATS = (
    ("replace", "SELECT replace(notes, '3', '#') AS x FROM customers", (("#", "3"),)),
    ("strip-separators", "SELECT replace(replace(notes, '-', ''), ' ', '') FROM customers", ()),
    (
        "substr-pieces",
        "SELECT substr(notes, 1, 9) AS a, substr(notes, 10, 30) AS b FROM customers",
        (("<cells>", ""),),
    ),  # fmt: skip
    ("upper", "SELECT upper(notes) AS x FROM customers", ()),
    ("lpad", "SELECT lpad(notes, 60, '0') AS x FROM customers", ()),
    ("cast", "SELECT CAST(notes AS CHAR(60)) AS x FROM customers", ()),
    ("case", "SELECT CASE WHEN notes LIKE '%137%' THEN 1 ELSE 0 END AS x FROM customers", ()),
    ("like", "SELECT count(*) AS n FROM customers WHERE notes LIKE '%137%'", ()),
    ("order", "SELECT name FROM customers ORDER BY notes", ()),
    ("min", "SELECT min(notes) AS x FROM customers", ()),
    ("coalesce", "SELECT coalesce(notes, '') AS x FROM customers", ()),
    (
        "derived",
        "SELECT reverse(n) AS x FROM (SELECT notes AS n FROM customers) AS t",
        (("<rev>", ""),),
    ),  # fmt: skip
    (
        "cte",
        "WITH c AS (SELECT * FROM customers) SELECT reverse(notes) AS x FROM c",
        (("<rev>", ""),),
    ),  # fmt: skip
)

#: What an analyst does with a free-text column that holds personal data: each runs.
MASK_BENIGN = (
    ("as-is", "SELECT name, notes FROM customers ORDER BY id"),
    ("count", "SELECT count(notes) AS n, count(DISTINCT notes) AS d FROM customers"),
    ("group", "SELECT notes, count(*) AS n FROM customers GROUP BY notes"),
    ("is-null", "SELECT count(*) AS n FROM customers WHERE notes IS NOT NULL"),
    ("length", "SELECT avg(length(notes)) AS l FROM customers"),
)


@pytest.mark.parametrize(("name", "sql", "decode"), _params(MASK_DEFEATS, ALL))
def test_a_masked_column_cannot_be_rewritten(
    request: pytest.FixtureRequest, setups: dict[str, Any], name: str, sql: str, decode: Any
) -> None:
    setup = setup_for(request, setups, name)
    if setup.dialect == "mysql":
        sql = sql.replace("CHAR(60)", "CHAR")
    outcome = rt.run_python(setup.a.engine, sql, rt.POLICY)
    assert outcome.kind == "refused", outcome.shown
    assert "masked" in outcome.shown
    assert judge(setup, sql, decode=decode) == []


@pytest.mark.parametrize(("name", "sql"), _params(MASK_BENIGN, ALL))
def test_a_masked_column_can_be_counted_grouped_and_measured(
    request: pytest.FixtureRequest, setups: dict[str, Any], name: str, sql: str
) -> None:
    setup = setup_for(request, setups, name)
    outcome = rt.run_python(setup.a.engine, sql, rt.POLICY)
    assert outcome.kind == "ran", outcome.shown
    assert judge(setup, sql, benign=True) == []


@pytest.mark.parametrize(
    "name",
    [
        *LOCAL,
        *(pytest.param(n, marks=pytest.mark.postgres) for n in PG),
        *(pytest.param(n, marks=pytest.mark.mariadb) for n in MARIA),
    ],
)
def test_the_column_holding_phone_numbers_is_marked_and_allow_columns_unmarks_it(
    request: pytest.FixtureRequest, setups: dict[str, Any], name: str
) -> None:
    from dataclasses import replace

    from tablerag.sql.sensitive import SensitiveRules

    setup = setup_for(request, setups, name)
    engine = setup.a.engine
    marked = {t.name: t.masked for t in engine.gate_catalog(rt.POLICY).tables if t.masked}
    # contact (all e-mails) is hidden by its content where a catalog has samples; where the
    # engine reads a file or a server without one it is visible, and marked as notes is
    assert set(marked) == {"customers"} and "notes" in marked["customers"], marked
    assert set(marked["customers"]) <= {"notes", "contact"}, marked
    allowed = replace(rt.POLICY, sensitive=SensitiveRules(allow=("customers.notes",)))
    assert "notes" not in engine.gate_catalog(allowed).table("customers").masked  # type: ignore[union-attr]
    shown = rt.run_python(engine, "SELECT upper(notes) AS x FROM customers", allowed)
    assert shown.kind == "ran", shown.shown
    masking_off = replace(rt.POLICY, mask_personal_data=False)
    assert not any(t.masked for t in engine.gate_catalog(masking_off).tables)
    assert "notes" in engine.gate_catalog(rt.POLICY).table("customers").masked  # type: ignore[union-attr]


#: Through ``tablerag sql`` (text and --json) and ``ask``: a rewrite of the masked column.
MASK_CHANNELS = (("cli-reverse", "SELECT reverse(notes) AS x FROM customers"),)


@pytest.mark.parametrize(("name", "sql"), _params(MASK_CHANNELS, ALL))
def test_a_masked_column_rewrite_shows_nothing_in_the_cli(
    request: pytest.FixtureRequest, setups: dict[str, Any], name: str, sql: str
) -> None:
    setup = setup_for(request, setups, name)
    assert judge(setup, sql, cli=True, decode=(("<rev>", ""),)) == []


@pytest.mark.parametrize(
    ("name", "sql"),
    [
        *_params(MASK_CHANNELS, ("workspace",)),
        *_params(MASK_CHANNELS, ("postgres-grants",)),
        *_params(MASK_CHANNELS, ("mariadb-gate",)),
    ],
)
def test_a_masked_column_rewrite_shows_nothing_through_ask(
    request: pytest.FixtureRequest, setups: dict[str, Any], name: str, sql: str
) -> None:
    setup = setup_for(request, setups, name)
    assert judge_ask(setup, sql) == []
