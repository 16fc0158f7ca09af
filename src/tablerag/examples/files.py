"""The verified-query file: JSON Lines, one pair a line, for review in git.

Keys are written in one order, with the SQL as one string; a file exported, imported and exported
again is byte for byte the same.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import fields
from typing import Any

from tablerag.errors import ConfigError
from tablerag.store.examples import ORIGINS, Example

KEYS = ("id", "question", "sql", "tables", "source", "verified_by", "verified_at", "origin")
"""The keys of a line, in the order written (``case_id`` follows when there is one)."""
REQUIRED = ("question", "sql")


class ExamplesInvalid(ConfigError):
    """A verified-query file or pair is wrong; ``problems`` lists every reason, one sentence
    each, naming the pair."""

    def __init__(self, problems: Sequence[str], *, what: str = "The verified queries") -> None:
        self.problems = list(problems)
        listed = "\n".join(f"- {p}" for p in self.problems)
        super().__init__(
            f"{what} have {len(self.problems)} problem(s); nothing was stored. Fix them and "
            f"try again:\n{listed}"
        )


def dumps(examples: Sequence[Example]) -> str:
    """The file's text: one JSON object a line."""
    lines = []
    for e in examples:
        row: dict[str, Any] = {k: getattr(e, k) for k in KEYS}
        row["tables"] = list(e.tables)
        if e.case_id:
            row["case_id"] = e.case_id
        lines.append(json.dumps(row, ensure_ascii=False))
    return "".join(line + "\n" for line in lines)


def loads(text: str, *, default_source: str) -> list[Example]:
    """The pairs of a file; a pair without ``origin`` is an ``import``, without ``source`` it
    runs on ``default_source``.

    Raises:
        ExamplesInvalid: a line is not a JSON object, lacks a question or SQL, has an unknown
            key or origin; every such line is named.
    """
    known = {f.name for f in fields(Example)}
    out, problems = [], []
    for n, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            problems.append(f"line {n}: not JSON ({exc.msg}); write one object a line.")
            continue
        if not isinstance(row, dict):
            problems.append(f"line {n}: not a JSON object; write one object a line.")
            continue
        missing = [k for k in REQUIRED if not str(row.get(k) or "").strip()]
        unknown = sorted(set(row) - known)
        origin = row.get("origin") or "import"
        if missing:
            problems.append(f"line {n}: no {' and no '.join(missing)}; every pair needs both.")
        if unknown:
            problems.append(
                f"line {n}: unknown key(s) {', '.join(unknown)}; use {', '.join(KEYS)}."
            )
        if origin not in ORIGINS:
            problems.append(f"line {n}: origin {origin!r} is not one of {', '.join(ORIGINS)}.")
        if missing or unknown or origin not in ORIGINS:
            continue
        out.append(
            Example(
                question=str(row["question"]).strip(),
                sql=str(row["sql"]).strip(),
                source=str(row.get("source") or default_source),
                tables=tuple(str(t) for t in row.get("tables") or ()),
                verified_by=str(row.get("verified_by") or ""),
                verified_at=str(row.get("verified_at") or ""),
                origin=origin,
                case_id=row.get("case_id") or None,
                id=str(row.get("id") or ""),
            )
        )
    if problems:
        raise ExamplesInvalid(problems, what="The file's lines")
    return out
