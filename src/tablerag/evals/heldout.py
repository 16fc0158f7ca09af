"""Verified queries for a text-to-SQL evaluation, held out per question (issue 33).

``tablerag eval sql --examples leave-one-out`` gives each case the verified queries a user's
store would hold: the gold (question, SQL) pairs of the *other* questions on the same database.
A pair is never the case's own question, nor one whose gold SQL is the case's (Spider asks some
queries twice in other words; reusing such a pair would be reading the answer). The product
then selects at most ``examples_max`` (≤ 3) of them for the prompt, or reuses one, exactly as
it does over a workspace's store (:func:`tablerag.examples.library.consult`).

:func:`reuse_figures` reports the reuse path apart: how often an answer reused a pair
(``Answer.knowledge`` of kind ``example``) and how often those answers were right, beside the
accuracy of the answers that did not.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import sqlglot
from sqlglot.errors import SqlglotError

from tablerag.evals.runner import Case, Outcome
from tablerag.examples.library import Verified
from tablerag.sql.engines.base import SQLEngine
from tablerag.store.examples import Example

REUSED = "reused_example"
"""Key of an outcome's detail: the id of the verified query the answer reused (None: none)."""


def sql_key(sql: str, dialect: str = "sqlite") -> str:
    """A form of ``sql`` two spellings of one query share (case, spacing, quoting).

    Example:
        >>> sql_key("select count(*) from singer") == sql_key("SELECT COUNT(*)\\nFROM  singer")
        True
    """
    try:
        return sqlglot.transpile(sql, read=dialect, write=dialect, normalize=True)[0].lower()
    except (SqlglotError, IndexError):
        return " ".join(sql.lower().split())


class LeaveOneOut:
    """The verified queries of each case: the other questions of its database with their gold
    SQL.

    Args:
        cases: every case of the dataset (not only the sampled ones: the store of a database
            holds all its other questions).
        dialect: the dialect of the gold SQL.
    """

    def __init__(self, cases: Iterable[Case], *, dialect: str = "sqlite") -> None:
        self._pools: dict[str, Verified] = {}
        self._keys: dict[str, str] = {}
        by_db: dict[str, list[Example]] = {}
        seen: dict[str, set[str]] = {}
        for case in cases:
            db = str(case.context["db"])
            question = " ".join(case.question.split())
            if not isinstance(case.gold, str) or question.lower() in seen.setdefault(db, set()):
                continue  # a question asked twice is one pair, as a store keeps it
            seen[db].add(question.lower())
            self._keys[case.case_id] = sql_key(case.gold, dialect)
            by_db.setdefault(db, []).append(
                Example(
                    question=question,
                    sql=case.gold,
                    source=db.lower(),  # the label the product gives the database's source
                    origin="import",
                    id=case.case_id,
                )
            )
        self._pools = {db: Verified(pairs) for db, pairs in by_db.items()}
        self._dialect = dialect

    def for_case(self, case: Case, engine: SQLEngine) -> Verified | None:
        """The pairs ``case`` may see: its database's, without its own question and without
        every pair whose gold SQL is its gold SQL (None when nothing is left). ``engine`` (the
        case's database) gates the database's pairs once, for every case of it."""
        db = str(case.context["db"])
        pool = self._pools.get(db)
        if pool is None:
            return None
        pool.usable(db.lower(), engine)
        own = " ".join(case.question.split()).lower()
        key = sql_key(case.gold, self._dialect) if isinstance(case.gold, str) else None
        held = {
            e.id for e in pool.examples if e.question.lower() == own or self._keys.get(e.id) == key
        }
        kept = pool.excluding(held)
        return kept if kept.examples else None


def reused_id(knowledge: Sequence[Any]) -> str | None:
    """The verified query an answer reused (its ``knowledge`` entry of kind ``example``)."""
    return next((k.name for k in knowledge if getattr(k, "kind", None) == "example"), None)


def latest_per_method(outcomes: Iterable[Outcome], key: str) -> dict[str, list[Outcome]]:
    """Method → the last outcome of each of its cases whose detail records ``key`` (a resumed
    run may hold a case twice), in case order."""
    latest: dict[tuple[str, str], Outcome] = {}
    for o in outcomes:
        if key in o.detail:
            latest[(o.method, o.case_id)] = o
    per: dict[str, list[Outcome]] = {}
    for (method, _), o in sorted(latest.items()):
        per.setdefault(method, []).append(o)
    return per


def reuse_figures(outcomes: Iterable[Outcome]) -> dict[str, Any]:
    """Per method that saw verified queries: how often an answer reused one, the accuracy of
    those answers and of the others (the last outcome of a repeated pair wins).

    Example:
        >>> o = [Outcome("1", "m", True, 1.0, detail={REUSED: "a"}),
        ...      Outcome("2", "m", False, 0.0, detail={REUSED: None}),
        ...      Outcome("3", "m", True, 1.0, detail={REUSED: None})]
        >>> reuse_figures(o)["reuse"]["m"]
        {'n': 3, 'reused': 1, 'reuse_rate': 0.3333, 'reused_accuracy': 1.0, 'other_accuracy': 0.5}
    """
    per = latest_per_method(outcomes, REUSED)
    figures = {}
    for method, done in per.items():
        reused = [o for o in done if o.detail.get(REUSED)]
        others = [o for o in done if not o.detail.get(REUSED)]
        figures[method] = {
            "n": len(done),
            "reused": len(reused),
            "reuse_rate": round(len(reused) / len(done), 4),
            "reused_accuracy": _accuracy(reused),
            "other_accuracy": _accuracy(others),
        }
    return {"reuse": figures} if figures else {}


def _accuracy(outcomes: Sequence[Outcome]) -> float | None:
    return round(sum(o.correct for o in outcomes) / len(outcomes), 4) if outcomes else None
