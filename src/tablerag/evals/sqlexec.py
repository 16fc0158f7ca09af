"""Execution accuracy of text-to-SQL: run gold and predicted SQL, compare the results.

Two comparison rules, as the official evaluators define them:

* **Spider** (``taoyds/test-suite-sql-eval``, ``exec_eval.result_eq``): the results are bags of
  rows; two results are equal when some permutation of the predicted columns makes the bags
  equal. Row order matters only when the gold query sorts (``ORDER BY``). ``DISTINCT`` is removed
  from both queries before they run (the evaluator's default without ``--keep_distinct``).
  Two empty results are equal whatever their columns.
* **BIRD** (``evaluation.py``): ``set(predicted_rows) == set(gold_rows)``: row order and
  duplicates are ignored, column order is not.

Cells are compared as values: ``1 == 1.0``, NULL equals NULL, and floats that differ only in
the last digits of their binary expansion (a sum taken in another order) are equal; ``'1'`` and
``1`` are not. Deviation from the official script, on purpose: the order rule looks at the
gold query's *outermost* ``ORDER BY`` (the script searches the text, so an ``ORDER BY ... LIMIT
1`` inside a subquery also made row order matter).

Gold SQL runs raw on a read-only connection with a time limit; predicted SQL runs through
tablerag's own engine (:class:`~tablerag.sql.engines.sqlite.SQLiteEngine`): the SQL gate, the
read-only authorizer and the time limit, as in the product.
"""

from __future__ import annotations

import itertools
import math
import sqlite3
import threading
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import sqlglot
from sqlglot.errors import ParseError, TokenError

from tablerag.errors import ConfigError, EngineError, QueryFailed, QueryTimeout, SQLRejected
from tablerag.sql.engines.sqlite import SQLiteEngine
from tablerag.sql.policy import ExecutionPolicy

Metric = Literal["spider", "bird"]
Row = tuple[Any, ...]

MAX_PERMUTATIONS = 5_000
"""Column permutations tried at most by :func:`spider_equal` (the search is pruned first)."""
FLOAT_DIGITS = 12
"""Significant digits floats are compared at."""
GOLD_TIME_LIMIT_S = 60.0
"""The official evaluator's time limit per query."""

EVAL_POLICY = ExecutionPolicy(max_rows=100_000, time_limit_ms=10_000, mask_personal_data=False)
"""Limits predicted SQL runs under when it is scored: the gate and read-only guards as in the
product (and its default 10 s time limit), but no masking and a row cap far above any gold
result, so only the SQL decides."""


def cell(value: Any) -> Any:
    """A result cell in the form it is compared in.

    Integral floats become ints (``1.0 == 1`` and they hash alike), other floats are rounded to
    :data:`FLOAT_DIGITS` significant digits; everything else is kept.

    Example:
        >>> cell(2.0), cell(0.1 + 0.2) == cell(0.3), cell("1"), cell(None)
        (2, True, '1', None)
    """
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            return value
        if value.is_integer():
            return int(value)
        return float(f"{value:.{FLOAT_DIGITS}g}")
    return value


def normalise(rows: Sequence[Sequence[Any]]) -> list[Row]:
    """Rows as tuples of :func:`cell` values."""
    return [tuple(cell(v) for v in row) for row in rows]


def _sort_key(value: Any) -> tuple[int, str]:
    """Orders mixed cells (NULL, numbers, text, bytes) without comparing across types."""
    if value is None:
        return (0, "")
    if isinstance(value, int | float):
        return (1, repr(float(value)))
    if isinstance(value, bytes):
        return (3, value.hex())
    return (2, str(value))


def _unordered(row: Row) -> Row:
    return tuple(sorted(row, key=_sort_key))


def spider_equal(gold: Sequence[Row], pred: Sequence[Row], *, order_matters: bool) -> bool:
    """Spider's ``result_eq``: equal bags of rows under some column permutation.

    Args:
        gold: gold rows (already :func:`normalise`-d).
        pred: predicted rows (already normalised).
        order_matters: compare row order too (the gold query sorts).

    Example:
        >>> spider_equal([(1, "a"), (2, "b")], [("b", 2), ("a", 1)], order_matters=False)
        True
        >>> spider_equal([(1,), (2,)], [(2,), (1,)], order_matters=True)
        False
        >>> spider_equal([(1,), (1,)], [(1,)], order_matters=False)
        False
        >>> spider_equal([], [], order_matters=False)
        True
    """
    if not gold and not pred:
        return True
    if len(gold) != len(pred):
        return False
    width = len(gold[0])
    if any(len(r) != width for r in pred) or any(len(r) != width for r in gold):
        return False
    # Quick rejection: the bags (or lists) of rows with their cells sorted must already agree.
    if order_matters:
        if [_unordered(r) for r in gold] != [_unordered(r) for r in pred]:
            return False
    elif Counter(_unordered(r) for r in gold) != Counter(_unordered(r) for r in pred):
        return False
    gold_bag = Counter(gold)
    for perm in _permutations(gold, pred, width):
        permuted = [tuple(r[i] for i in perm) for r in pred]
        if order_matters:
            if permuted == list(gold):
                return True
        elif Counter(permuted) == gold_bag:
            return True
    return False


def _permutations(
    gold: Sequence[Row], pred: Sequence[Row], width: int
) -> Iterator[tuple[int, ...]]:
    """Column permutations ``perm`` (gold column i = predicted column perm[i]) worth trying.

    A predicted column can stand for a gold column only if its values all occur in that gold
    column; the search is depth-first over those candidates, at most :data:`MAX_PERMUTATIONS`.
    """
    if width == 1:
        yield (0,)
        return
    gold_sets = [{r[i] for r in gold} for i in range(width)]
    pred_sets = [{r[j] for r in pred} for j in range(width)]
    allowed = [[j for j in range(width) if pred_sets[j] <= gold_sets[i]] for i in range(width)]
    yield from itertools.islice(_search(allowed, 0, ()), MAX_PERMUTATIONS)


def _search(allowed: list[list[int]], i: int, chosen: tuple[int, ...]) -> Iterator[tuple[int, ...]]:
    if i == len(allowed):
        yield chosen
        return
    for j in allowed[i]:
        if j not in chosen:
            yield from _search(allowed, i + 1, (*chosen, j))


def bird_equal(gold: Sequence[Row], pred: Sequence[Row]) -> bool:
    """BIRD's rule: the sets of rows are equal (order, duplicates ignored; columns in order).

    Example:
        >>> bird_equal([(1, "a"), (1, "a")], [(1.0, "a")])
        True
        >>> bird_equal([(1, "a")], [("a", 1)])
        False
    """
    return set(normalise(gold)) == set(normalise(pred))


def results_equal(
    gold: Sequence[Sequence[Any]],
    pred: Sequence[Sequence[Any]],
    *,
    metric: Metric = "spider",
    order_matters: bool = False,
) -> bool:
    """Compare raw result rows under ``metric`` (cells are normalised here)."""
    g, p = normalise(gold), normalise(pred)
    if metric == "bird":
        return bird_equal(g, p)
    return spider_equal(g, p, order_matters=order_matters)


def has_order_by(sql: str, *, dialect: str = "sqlite") -> bool:
    """Whether the outermost query of ``sql`` sorts its rows.

    A query that does not parse falls back to the official test: ``order by`` anywhere.

    Example:
        >>> has_order_by("SELECT a FROM t ORDER BY a")
        True
        >>> has_order_by("SELECT a FROM t WHERE b = (SELECT b FROM u ORDER BY c LIMIT 1)")
        False
        >>> has_order_by("SELECT a FROM t UNION SELECT a FROM u ORDER BY a")
        True
    """
    try:
        tree = sqlglot.parse_one(sql, read=dialect)
    except (ParseError, TokenError):
        return "order by" in " ".join(sql.lower().split())
    return tree.args.get("order") is not None


def strip_distinct(sql: str, *, dialect: str = "sqlite") -> str:
    """``sql`` without any DISTINCT keyword, as the Spider evaluator runs both queries.

    The keyword is cut out of the text token by token, so literals are never touched (and, as
    in the official script, ``count(DISTINCT x)`` becomes ``count(x)``).

    Example:
        >>> strip_distinct("SELECT DISTINCT name FROM t WHERE x = 'distinct'")
        "SELECT name FROM t WHERE x = 'distinct'"
        >>> strip_distinct("SELECT count(DISTINCT a) FROM t")
        'SELECT count(a) FROM t'
    """
    try:
        tokens = sqlglot.tokenize(sql, read=dialect)
    except TokenError:
        return sql
    out, last = [], 0
    for tok in tokens:
        if tok.token_type == sqlglot.TokenType.DISTINCT:
            out.append(sql[last : tok.start])
            last = tok.end + 1
            while last < len(sql) and sql[last] == " ":
                last += 1
    out.append(sql[last:])
    return "".join(out)


def run_gold(path: str | Path, sql: str, *, time_limit_s: float = GOLD_TIME_LIMIT_S) -> list[Row]:
    """Run trusted gold SQL on a SQLite file opened read-only; return every row.

    Raises:
        QueryTimeout: the query ran longer than ``time_limit_s``.
        QueryFailed: SQLite refused the query (a broken gold query: report it to the dataset).
    """
    uri = f"{Path(path).resolve().as_uri()}?mode=ro"
    con = sqlite3.connect(uri, uri=True)
    con.text_factory = lambda b: b.decode("utf-8", errors="replace")
    deadline = time.monotonic() + time_limit_s
    con.set_progress_handler(lambda: int(time.monotonic() > deadline), 10_000)
    try:
        return [tuple(r) for r in con.execute(sql).fetchall()]
    except sqlite3.OperationalError as exc:
        if "interrupted" in str(exc):
            raise QueryTimeout(
                f"The gold query ran longer than {time_limit_s:g} s; raise the time limit.",
                engine="sqlite",
                sql=sql,
                time_limit_ms=int(time_limit_s * 1000),
            ) from exc
        raise QueryFailed(
            f"The gold query fails on {str(path)!r} ({exc}); check the dataset files.",
            engine="sqlite",
            sql=sql,
        ) from exc
    except sqlite3.DatabaseError as exc:
        raise QueryFailed(
            f"The gold query fails on {str(path)!r} ({exc}); check the dataset files.",
            engine="sqlite",
            sql=sql,
        ) from exc
    finally:
        con.close()


@dataclass(frozen=True)
class Execution:
    """How a predicted query fared against the gold.

    Attributes:
        correct: the results match under the metric.
        error: "" when it ran (even if wrong), else ``invalid_sql`` (the gate refused it),
            ``timeout`` or ``execution_error``.
        message: the gate's or the engine's message.
        sql: the SQL that ran (after the gate's rewrite), when it ran.
        rows: how many rows the prediction returned.
        gold_rows: how many rows the gold returned.
    """

    correct: bool
    error: str = ""
    message: str = ""
    sql: str = ""
    rows: int = 0
    gold_rows: int = 0


class Executor:
    """Scores predicted SQL against gold on a set of SQLite databases.

    Gold results are computed once per (database, query) and kept; one gated engine per
    database is opened on first use. Thread-safe.

    Args:
        databases: database id → SQLite file.
        metric: ``spider`` or ``bird``.
        policy: limits predicted SQL runs under (see :data:`EVAL_POLICY`).
        gold_time_limit_s: time limit of a gold query.
        hide_sensitive: let the gate hide columns that look personal (``Birth_Date``,
            ``phone_number``), as a workspace does. Off by default: benchmark data is public,
            the methods are shown those columns, and 14 of Spider's 668 dev gold queries read
            one.
    """

    def __init__(
        self,
        databases: dict[str, Path],
        *,
        metric: Metric = "spider",
        policy: ExecutionPolicy = EVAL_POLICY,
        gold_time_limit_s: float = GOLD_TIME_LIMIT_S,
        hide_sensitive: bool = False,
    ) -> None:
        self.databases = dict(databases)
        self.hide_sensitive = hide_sensitive
        self.metric: Metric = metric
        self.policy = policy
        self.gold_time_limit_s = gold_time_limit_s
        self._gold: dict[tuple[str, str], list[Row]] = {}
        self._engines: dict[str, SQLiteEngine] = {}
        self._lock = threading.Lock()

    def path(self, db: str) -> Path:
        """The SQLite file of ``db``.

        Raises:
            ConfigError: the database has no SQLite file.
        """
        found = self.databases.get(db)
        if found is None:
            raise ConfigError(
                f"Database {db!r} has no SQLite file; put it under database/{db}/{db}.sqlite."
            )
        return found

    def engine(self, db: str) -> SQLiteEngine:
        """The gated, read-only engine of ``db`` (opened once)."""
        with self._lock:
            if db not in self._engines:
                engine = SQLiteEngine(self.path(db), policy=self.policy)
                engine.use_catalog(engine.introspect(), hide_sensitive=self.hide_sensitive)
                self._engines[db] = engine
            return self._engines[db]

    def gold(self, db: str, sql: str) -> list[Row]:
        """Gold rows of ``sql`` on ``db`` (DISTINCT stripped under the Spider rule).

        Raises:
            EngineError: the gold query failed or timed out.
        """
        key = (db, sql)
        with self._lock:
            if key in self._gold:
                return self._gold[key]
        query = strip_distinct(sql) if self.metric == "spider" else sql
        rows = run_gold(self.path(db), query, time_limit_s=self.gold_time_limit_s)
        with self._lock:
            self._gold[key] = rows
        return rows

    def score(self, db: str, predicted: str, gold_sql: str) -> Execution:
        """Run ``predicted`` through the gate on ``db`` and compare it with ``gold_sql``.

        Raises:
            EngineError: the *gold* query failed (the prediction's failures are the result).
        """
        gold = self.gold(db, gold_sql)
        query = strip_distinct(predicted) if self.metric == "spider" else predicted
        try:
            result = self.engine(db).execute(query, self.policy)
        except SQLRejected as exc:
            issues = "; ".join(i.message for i in exc.issues)
            return Execution(False, "invalid_sql", issues or str(exc), gold_rows=len(gold))
        except QueryTimeout as exc:
            return Execution(False, "timeout", str(exc), gold_rows=len(gold))
        except EngineError as exc:
            return Execution(False, "execution_error", str(exc), gold_rows=len(gold))
        correct = results_equal(
            gold,
            result.rows,
            metric=self.metric,
            order_matters=self.metric == "spider" and has_order_by(gold_sql),
        )
        return Execution(
            correct, "", "", result.sql_executed, len(result.rows), gold_rows=len(gold)
        )

    def close(self) -> None:
        """Close the engines (idempotent)."""
        with self._lock:
            for engine in self._engines.values():
                engine.close()
            self._engines.clear()
