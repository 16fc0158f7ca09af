"""``tablerag eval verified``: every verified question asked again through the product's path,
its rows compared with the verified query's rows now — the regression gate for a change of
model, prompt or code (issue 33).

By default the question is answered as a user's would be (its own pair may be reused, which
checks that reuse still finds it and that the SQL still runs). ``held_out`` answers each
question without its own pair (the model writes the SQL, the other pairs shown as examples): the
gate for a change of model or prompt.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from tablerag.answer import Answer
from tablerag.errors import EngineError, SQLRejected, TableragError
from tablerag.examples.reuse import CHECK as REUSED
from tablerag.request import Request
from tablerag.service import QA
from tablerag.store.examples import Example

Outcome = Literal["same", "differs", "broken"]
DIGITS = 6
"""Numbers are compared rounded to this many decimals (engines sum floats in any order)."""


@dataclass(frozen=True)
class Replay:
    """One verified question asked again."""

    id: str
    question: str
    outcome: Outcome
    """``same`` rows as the verified SQL now, ``differs``, or ``broken``: the verified SQL
    itself no longer passes the gate or runs (`tablerag examples check`)."""
    reused: bool
    status: str
    sql: str | None
    detail: str = ""


def replay(qa: QA, *, held_out: bool = False) -> list[Replay]:
    """Ask every verified question of ``qa``'s workspace again and compare the rows."""
    verified = qa.verified
    if verified is None:
        return []
    out = []
    try:
        for e in verified.examples:
            expected = _expected(qa, e)
            if isinstance(expected, str):
                out.append(Replay(e.id, e.question, "broken", False, "", None, expected))
                continue
            qa.verified = verified.without(e.id) if held_out else verified
            rq = Request.make(e.question, max_seconds=qa.settings.answer_max_seconds, origin="eval")
            answer = qa.answer(rq)
            out.append(_compare(e, answer, expected))
    finally:
        qa.verified = verified
    return out


def _expected(qa: QA, example: Example) -> list[tuple[Any, ...]] | str:
    """The verified SQL's rows now, or why there are none."""
    source = qa.sources.source(example.source)
    if source is None:
        return f"its source {example.source!r} is no longer in the workspace"
    try:
        result = qa.sources.engine(source).execute(example.sql)
    except (SQLRejected, EngineError) as exc:
        return str(exc)
    except TableragError as exc:
        return f"its source cannot be used: {exc}"
    return [tuple(row) for row in result.rows]


def _compare(example: Example, answer: Answer, expected: Sequence[tuple[Any, ...]]) -> Replay:
    reused = any(k.kind == "example" for k in answer.knowledge) and REUSED in answer.checks
    got = [tuple(r) for r in answer.table.rows] if answer.table is not None else None
    same = got is not None and _bag(got) == _bag(expected)
    detail = ""
    if not same:
        detail = (
            f"answer status {answer.status}, no rows"
            if got is None
            else f"{len(got)} row(s) where the verified query gives {len(expected)}"
            + ("" if len(got) != len(expected) else ", with other values")
        )
    return Replay(
        example.id,
        example.question,
        "same" if same else "differs",
        reused,
        answer.status,
        answer.sql,
        detail,
    )


def _bag(rows: Sequence[tuple[Any, ...]]) -> Counter[tuple[str, ...]]:
    """Rows as a multiset of cell texts, numbers rounded (order and types do not count).

    Example:
        >>> _bag([(1, 2.0000001)]) == _bag([(1.0, 2)])
        True
    """
    return Counter(tuple(_cell(v) for v in row) for row in rows)


def _cell(value: Any) -> str:
    if isinstance(value, bool) or value is None:
        return str(value)
    if isinstance(value, int | float):
        return repr(round(float(value), DIGITS) + 0.0)
    try:
        return repr(round(float(str(value)), DIGITS) + 0.0)  # Decimal, numeric text
    except ValueError:
        return str(value)
