"""The parser guard: deeply nested SQL is a gate refusal, within a second, on every engine."""

from __future__ import annotations

import time
from collections.abc import Callable

import pytest

from tablerag.errors import SQLRejected
from tablerag.sql.engines import SQLEngine
from tablerag.sql.exposed import ExposedCatalog
from tablerag.sql.guard import MAX_NESTING, nesting_depth
from tablerag.sql.policy import ExecutionPolicy
from tablerag.sql.validate import check, validate
from tests.sql.cases import BENIGN

FAST = ExecutionPolicy(time_limit_ms=1000, max_rows=50)
CAT = ExposedCatalog.from_mapping({"orders": ["id", "amount"]})
KINDS = ["duckdb", "sqlite", pytest.param("postgres", marks=pytest.mark.postgres)]


def brackets(n: int) -> str:
    return "SELECT " + "(" * n + "1" + ")" * n + " AS x"


def subqueries(n: int) -> str:
    return "SELECT * FROM " + "(SELECT * FROM " * n + "orders" + ") t" * n


def in_lists(n: int) -> str:
    return "SELECT id FROM orders WHERE id IN (" * n + "SELECT id FROM orders" + ")" * n


DEEP = {
    "brackets": brackets(400),
    "subqueries": subqueries(400),
    "in-subqueries": in_lists(400),
    "long-brackets": "SELECT " + "(" * 3000 + "1" + ")" * 3000,  # ~6 kB
}


@pytest.mark.parametrize("sql", DEEP.values(), ids=DEEP.keys())
@pytest.mark.parametrize("kind", KINDS)
def test_deep_nesting_is_rejected_before_parsing(
    kind: str, sql: str, engine_for: Callable[[str], SQLEngine]
) -> None:
    engine = engine_for(kind)
    start = time.monotonic()
    with pytest.raises(SQLRejected) as info:
        engine.execute(sql, FAST)
    # a bound for a hang, not a benchmark: parsing these takes minutes; the refusal is a
    # depth count before any parse (milliseconds on a quiet machine, see bench/fuzz_gate.py)
    assert time.monotonic() - start < 10.0
    (issue,) = info.value.issues
    assert issue.code == "too_deep"
    assert issue.message.startswith("The query nests ")
    assert issue.message.endswith("write it with fewer nested subqueries.")
    # the engine keeps serving afterwards
    assert engine.execute("SELECT count(*) AS n FROM orders", FAST).rows[0][0] == 2000


@pytest.mark.parametrize("make", [brackets, subqueries, in_lists])
@pytest.mark.parametrize("dialect", ["duckdb", "sqlite", "postgres"])
def test_the_gate_reads_nesting_up_to_the_limit(dialect: str, make: Callable[[int], str]) -> None:
    assert check(make(MAX_NESTING), dialect=dialect, catalog=CAT)
    issues = validate(make(MAX_NESTING + 1), dialect=dialect, catalog=CAT)
    assert [i.code for i in issues] == ["too_deep"]
    assert f"nests {MAX_NESTING + 1} levels deep" in issues[0].message


@pytest.mark.parametrize("kind", KINDS)
def test_nested_queries_below_the_limit_run(
    kind: str, engine_for: Callable[[str], SQLEngine]
) -> None:
    engine = engine_for(kind)
    assert [list(r) for r in engine.execute(brackets(MAX_NESTING), FAST).rows] == [[1]]
    # SQLite's own parser stops near 20 nested subqueries ("parser stack overflow")
    assert engine.execute(subqueries(8), FAST).columns
    assert engine.execute(in_lists(8), FAST).columns


@pytest.mark.parametrize("dialect", ["duckdb", "sqlite", "postgres"])
def test_a_stack_overflow_without_brackets_is_a_refusal(dialect: str) -> None:
    sql = "SELECT " + "CASE WHEN id = 1 THEN " * 400 + "1" + " END" * 400 + " FROM orders"
    (issue,) = validate(sql, dialect=dialect, catalog=CAT)
    assert issue.code == "too_deep" and "fewer nested subqueries" in issue.message
    sql = "SELECT " + "NOT " * 3000 + "id FROM orders"
    assert [i.code for i in validate(sql, dialect=dialect, catalog=CAT)] == ["too_deep"]


def test_brackets_in_strings_names_and_comments_do_not_count() -> None:
    deep = "(" * 100
    sql = f"SELECT '{deep}' AS \"{deep}\" FROM orders -- {deep}\n/* {deep} */"
    assert nesting_depth(sql, "duckdb") == 0
    assert check(sql, dialect="duckdb", catalog=CAT).startswith("SELECT '((((")


def test_unclosed_quote_is_still_a_parse_error() -> None:
    issues = validate("SELECT ((('", dialect="duckdb", catalog=CAT)
    assert [i.code for i in issues] == ["parse_error"]


@pytest.mark.parametrize("sql", ["SELECT '\ud800' AS x FROM orders", "SELECT \udc80id FROM orders"])
def test_a_broken_character_is_a_refusal(sql: str) -> None:
    (issue,) = validate(sql, dialect="duckdb", catalog=CAT)
    assert issue.code == "bad_character" and "bad encoding" in issue.message
    assert issue.message.endswith("remove it.")


def test_too_long_sql_is_refused_before_anything_parses() -> None:
    sql = "SELECT " + "(" * 10_000 + "1" + ")" * 10_000
    assert [i.code for i in validate(sql, dialect="duckdb", catalog=CAT)] == ["too_long"]


@pytest.mark.parametrize("dialect", ["duckdb", "sqlite", "postgres"])
def test_several_statements_are_refused_as_a_whole(dialect: str) -> None:
    for sql in ("SELECT 1; DROP TABLE t", "SELECT id FROM orders; DROP TABLE orders;"):
        with pytest.raises(SQLRejected) as info:
            check(sql, dialect=dialect, catalog=CAT)
        assert [i.code for i in info.value.issues] == ["multiple_statements"]
        assert "Found 2 statements" in info.value.issues[0].message


def test_no_benign_case_comes_near_the_limit() -> None:
    assert max(nesting_depth(c.sql, "duckdb") for c in BENIGN) < MAX_NESTING // 4
