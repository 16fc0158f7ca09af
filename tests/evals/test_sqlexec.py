"""Execution accuracy: hand-checked comparisons, and gold vs predicted runs on a SQLite file."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from tablerag.errors import QueryFailed
from tablerag.evals.sqlexec import (
    MAX_PERMUTATIONS,
    Executor,
    bird_equal,
    cell,
    has_order_by,
    normalise,
    results_equal,
    run_gold,
    spider_equal,
    strip_distinct,
)
from tablerag.sql.policy import ExecutionPolicy


def eq(gold: list[tuple[object, ...]], pred: list[tuple[object, ...]], order: bool = False) -> bool:
    return results_equal(gold, pred, metric="spider", order_matters=order)


class TestSpiderRule:
    def test_row_order_ignored_without_order_by(self) -> None:
        assert eq([(1,), (2,), (3,)], [(3,), (1,), (2,)])

    def test_row_order_matters_with_order_by(self) -> None:
        assert eq([(1,), (2,)], [(1,), (2,)], order=True)
        assert not eq([(1,), (2,)], [(2,), (1,)], order=True)

    def test_duplicate_rows_matter(self) -> None:
        # Bags, not sets: an extra duplicate is a different result.
        assert not eq([("a",), ("a",), ("b",)], [("a",), ("b",), ("b",)])
        assert not eq([("a",), ("a",)], [("a",)])
        assert eq([("a",), ("a",), ("b",)], [("b",), ("a",), ("a",)])

    def test_int_and_float_compare_as_values(self) -> None:
        assert eq([(1, 2.5)], [(1.0, 2.5)])
        assert eq([(3,)], [(3.0,)])
        assert not eq([(3,)], [(3.5,)])

    def test_float_noise_from_summation_order_is_equal(self) -> None:
        assert eq([(0.1 + 0.2,)], [(0.3,)])
        assert eq([(100 / 3,)], [(33.333333333333336,)])
        assert not eq([(33.33,)], [(33.333333333333336,)])

    def test_text_and_numbers_differ(self) -> None:
        assert not eq([("1",)], [(1,)])

    def test_null_equals_null(self) -> None:
        assert eq([(None, 1)], [(None, 1)])
        assert not eq([(None,)], [(0,)])

    def test_column_permutation_is_allowed(self) -> None:
        gold = [("Alice", 30, "NY"), ("Bob", 25, "LA")]
        pred = [(30, "NY", "Alice"), (25, "LA", "Bob")]
        assert eq(gold, pred)
        assert eq(gold, list(reversed(pred)))

    def test_permutation_must_be_one_for_all_rows(self) -> None:
        # Each row alone matches under some permutation, but no single permutation fits both.
        gold = [(1, 2), (3, 4)]
        pred = [(2, 1), (3, 4)]
        assert not eq(gold, pred)

    def test_column_count_and_row_count(self) -> None:
        assert not eq([(1, 2)], [(1,)])
        assert not eq([(1,)], [(1,), (2,)])

    def test_empty_results(self) -> None:
        assert eq([], [])
        assert not eq([], [(1,)])
        assert not eq([(1,)], [])

    def test_wide_results_with_many_equal_columns_stay_bounded(self) -> None:
        width = 9  # 9! permutations; pruning keeps all, the cap bounds the search
        gold = [tuple(0 for _ in range(width))] * 3
        pred = [tuple(0 for _ in range(width))] * 3
        assert eq(gold, pred)
        assert MAX_PERMUTATIONS < 362_880

    def test_ordered_comparison_also_allows_column_permutation(self) -> None:
        assert spider_equal([(1, "a"), (2, "b")], [("a", 1), ("b", 2)], order_matters=True)
        assert not spider_equal([(1, "a"), (2, "b")], [("b", 2), ("a", 1)], order_matters=True)


class TestBirdRule:
    def test_set_semantics(self) -> None:
        assert bird_equal([(1,), (1,), (2,)], [(2,), (1,)])
        assert bird_equal([(1,)], [(1.0,)])

    def test_column_order_matters(self) -> None:
        assert not bird_equal([(1, "a")], [("a", 1)])

    def test_via_results_equal(self) -> None:
        assert results_equal([(2,), (1,)], [(1,), (2,), (2,)], metric="bird")


class TestQueryText:
    def test_order_by_is_top_level_only(self) -> None:
        assert has_order_by("SELECT name FROM t ORDER BY age DESC LIMIT 3")
        assert not has_order_by("SELECT name FROM t WHERE id IN (SELECT id FROM u ORDER BY x)")
        assert not has_order_by("SELECT 'order by' FROM t")

    def test_unparsable_falls_back_to_text(self) -> None:
        assert has_order_by("SELEC x FROM t ORDER  BY x (")

    def test_strip_distinct(self) -> None:
        assert strip_distinct("SELECT DISTINCT a FROM t") == "SELECT a FROM t"
        assert strip_distinct("select distinct a from t") == "select a from t"
        assert strip_distinct("SELECT a FROM t WHERE b = 'DISTINCT'") == (
            "SELECT a FROM t WHERE b = 'DISTINCT'"
        )

    def test_cells(self) -> None:
        assert cell(True) == 1 and cell(2.0) == 2 and isinstance(cell(2.0), int)
        assert normalise([[1.5, None, "x"]]) == [(1.5, None, "x")]


@pytest.fixture
def db(tmp_path: Path) -> Path:
    path = tmp_path / "shop" / "shop.sqlite"
    path.parent.mkdir()
    con = sqlite3.connect(path)
    con.executescript(
        """
        CREATE TABLE singer (id INTEGER PRIMARY KEY, name TEXT, country TEXT, age INTEGER,
                             phone_number TEXT);
        INSERT INTO singer VALUES (1, 'Joe', 'France', 30, '555-0101'),
                                  (2, 'Ann', 'France', 25, '555-0102'),
                                  (3, 'Li', 'China', 41, '555-0103');
        """
    )
    con.commit()
    con.close()
    return path


class TestExecutor:
    def test_correct_wrong_and_permuted(self, db: Path) -> None:
        ex = Executor({"shop": db})
        gold = "SELECT name, age FROM singer WHERE country = 'France'"
        right = ex.score("shop", "SELECT age, name FROM singer WHERE country = 'France'", gold)
        assert right.correct and right.error == "" and right.rows == 2 and right.gold_rows == 2
        wrong = ex.score("shop", "SELECT name, age FROM singer", gold)
        assert not wrong.correct and wrong.error == ""
        ex.close()

    def test_order_by_in_gold_makes_order_matter(self, db: Path) -> None:
        ex = Executor({"shop": db})
        gold = "SELECT name FROM singer ORDER BY age"
        assert ex.score("shop", "SELECT name FROM singer ORDER BY age ASC", gold).correct
        assert not ex.score("shop", "SELECT name FROM singer ORDER BY age DESC", gold).correct
        assert ex.score(
            "shop", "SELECT name FROM singer ORDER BY age DESC", "SELECT name FROM singer"
        ).correct

    def test_distinct_is_removed_from_both(self, db: Path) -> None:
        ex = Executor({"shop": db})
        # Official rule: DISTINCT stripped, so these two agree on the duplicated 'France'.
        assert ex.score(
            "shop", "SELECT country FROM singer", "SELECT DISTINCT country FROM singer"
        ).correct
        bird = Executor({"shop": db}, metric="bird")
        assert bird.score(
            "shop", "SELECT country FROM singer", "SELECT DISTINCT country FROM singer"
        ).correct

    def test_failures_are_classified(self, db: Path) -> None:
        ex = Executor({"shop": db})
        gold = "SELECT count(*) FROM singer"
        bad = ex.score("shop", "SELECT nope FROM singer", gold)
        assert (bad.correct, bad.error) == (False, "invalid_sql")
        assert "nope" in bad.message
        write = ex.score("shop", "DELETE FROM singer", gold)
        assert write.error == "invalid_sql"
        assert run_gold(db, gold) == [(3,)]  # the file was not changed

    def test_runaway_query_times_out(self, db: Path) -> None:
        policy = ExecutionPolicy(time_limit_ms=200, max_rows=10, mask_personal_data=False)
        ex = Executor({"shop": db}, policy=policy)
        # 3 singers in 26 cross joins: 3**26 rows, far beyond 200 ms on any machine
        # (3**14 took 30 ms on a fast one: DuckDB counts a cross product quickly).
        slow = "SELECT count(*) FROM " + ", ".join(
            f"singer {a}" for a in "abcdefghijklmnopqrstuvwxyz"
        )
        got = ex.score("shop", slow, "SELECT 1")
        assert got.error == "timeout"

    def test_sensitive_columns_visible_by_default_hidden_on_request(self, db: Path) -> None:
        gold = "SELECT phone_number FROM singer WHERE id = 1"
        assert Executor({"shop": db}).score("shop", gold, gold).correct
        hidden = Executor({"shop": db}, hide_sensitive=True).score("shop", gold, gold)
        assert hidden.error == "invalid_sql"

    def test_gold_failure_raises(self, db: Path) -> None:
        with pytest.raises(QueryFailed, match="gold query"):
            Executor({"shop": db}).score("shop", "SELECT 1", "SELECT nope FROM singer")

    def test_gold_results_are_cached(self, db: Path) -> None:
        ex = Executor({"shop": db})
        first = ex.gold("shop", "SELECT name FROM singer")
        assert ex.gold("shop", "SELECT name FROM singer") is first
