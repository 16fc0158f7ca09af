"""The rows a gated query returned, with what was run and whether a limit cut them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class ResultSet:
    """Rows of one query, as the user and the model see them (already capped and masked).

    Example:
        >>> rs = ResultSet(("n",), ((1,), (2,)), truncated=False, elapsed_ms=0.5, sql_executed="x")
        >>> rs.as_dicts()
        [{'n': 1}, {'n': 2}]
    """

    columns: tuple[str, ...]
    rows: tuple[tuple[Any, ...], ...]
    truncated: bool
    """True when the row cap cut the result (more rows existed)."""
    elapsed_ms: float
    sql_executed: str
    """The SQL the engine ran: the gate's rewrite of the input (qualified, LIMIT enforced)."""
    masked_columns: tuple[str, ...] = ()
    """Columns in which personal data was masked."""

    def as_dicts(self) -> list[dict[str, Any]]:
        """Return the rows as dicts keyed by column name (later duplicates win)."""
        return [dict(zip(self.columns, row, strict=True)) for row in self.rows]
