"""The workspace's verified queries: question → SQL pairs a person checked, one row each
(issue 33).

The store keeps plain values; :mod:`tablerag.examples` checks an entry's SQL through the gate of
its source before it is stored. Writing is all or nothing, inside the caller's transaction.
"""

from __future__ import annotations

import datetime as dt
import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field

import duckdb

ORIGINS = ("manual", "feedback", "import")


@dataclass(frozen=True)
class Example:
    """One verified query.

    ``question`` is unique per workspace (compared without case and surrounding blanks);
    ``case_id`` is the logged answer an example promoted from feedback corrects.
    """

    question: str
    sql: str
    source: str
    tables: tuple[str, ...] = ()
    verified_by: str = ""
    verified_at: str = ""
    origin: str = "manual"
    case_id: str | None = None
    id: str = field(default="")

    def __post_init__(self) -> None:
        if not self.id:
            object.__setattr__(self, "id", example_id(self.question))
        if not self.verified_at:
            object.__setattr__(self, "verified_at", now())


def example_id(question: str) -> str:
    """The id of the example of ``question``: stable across workspaces and exports.

    Example:
        >>> example_id("How many refunds?") == example_id("  how many refunds? ")
        True
        >>> len(example_id("How many refunds?"))
        10
    """
    key = " ".join(question.split()).lower()
    return "q" + hashlib.sha256(key.encode("utf-8")).hexdigest()[:9]


def now() -> str:
    """The current UTC time as a verified query records it."""
    return dt.datetime.now(dt.UTC).isoformat(timespec="seconds")


_COLUMNS = "example_id, question, sql, tables, source, verified_by, verified_at, origin, case_id"


def add_examples(con: duckdb.DuckDBPyConnection, examples: Sequence[Example]) -> None:
    """Store ``examples``; call it inside a transaction (a duplicate id or case fails it whole
    with a ``duckdb.ConstraintException``; the caller checks duplicates first to say so)."""
    for e in examples:
        con.execute(
            f"INSERT INTO tablerag.examples ({_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [
                e.id,
                e.question,
                e.sql,
                list(e.tables),
                e.source,
                e.verified_by,
                e.verified_at,
                e.origin,
                e.case_id,
            ],
        )


def read_examples(con: duckdb.DuckDBPyConnection) -> list[Example]:
    """Every verified query, oldest first."""
    rows = con.execute(
        f"SELECT {_COLUMNS} FROM tablerag.examples ORDER BY verified_at, example_id"
    ).fetchall()
    return [
        Example(
            id=r[0],
            question=r[1],
            sql=r[2],
            tables=tuple(r[3]),
            source=r[4],
            verified_by=r[5],
            verified_at=r[6],
            origin=r[7],
            case_id=r[8],
        )
        for r in rows
    ]


def remove_example(con: duckdb.DuckDBPyConnection, example: str) -> bool:
    """Delete the verified query with id ``example``; False when there is none."""
    found = con.execute(
        "SELECT 1 FROM tablerag.examples WHERE example_id = ?", [example]
    ).fetchone()
    con.execute("DELETE FROM tablerag.examples WHERE example_id = ?", [example])
    return found is not None


def forget_examples(con: duckdb.DuckDBPyConnection) -> int:
    """Delete every verified query (inside the caller's transaction); returns how many."""
    row = con.execute("SELECT count(*) FROM tablerag.examples").fetchone()
    con.execute("DELETE FROM tablerag.examples")
    return int(row[0]) if row else 0
