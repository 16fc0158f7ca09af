"""One query that ran, as the stages after its run read it (:class:`~.stages.Attempt`).

Built once per query by the path; the evidence the answer checks read and their findings are
computed on first use and shared by every stage that asks (the empty-result mends and the
answer's own checks).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from tablerag.nl2sql.checks import Evidence, Finding, run_checks
from tablerag.nl2sql.evidence import gather_evidence
from tablerag.nl2sql.schema_context import SchemaContext
from tablerag.nl2sql.stages import ALL_ON, ANSWER_CHECKS, Switches
from tablerag.sql.engines.base import SQLEngine

if TYPE_CHECKING:
    from tablerag.linking.catalog import SchemaCatalog
    from tablerag.linking.fkgraph import JoinEdge


@dataclass(frozen=True)
class QueryAttempt:
    """A query that ran over ``schema`` on ``engine``, with its rows.

    Example (no query runs here, so no engine is needed):
        >>> a = QueryAttempt("How many?", "SELECT 1", ("n",), ((1,),), None,
        ...                  SchemaContext("", (), 0))
        >>> mended = a.with_sql("SELECT 2")
        >>> a.linked, mended.sql, mended.question, mended._derived is a._derived
        (False, 'SELECT 2', 'How many?', True)
    """

    question: str
    sql: str
    columns: Sequence[str]
    rows: Sequence[Sequence[object]]
    engine: SQLEngine
    schema: SchemaContext
    stages: Switches = ALL_ON
    """Which answer checks run (:data:`~tablerag.nl2sql.stages.ANSWER_CHECKS`)."""
    earlier: bool = False
    """The SQL model read an earlier turn before the question (:attr:`Evidence.earlier`)."""
    said: str = ""
    """What the user said in the conversation (:attr:`Evidence.said`)."""
    _derived: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)
    """What was computed from the query that ran (shared with :meth:`with_sql` copies)."""

    @property
    def edges(self) -> Sequence[JoinEdge]:
        return self.schema.edges

    @property
    def tables(self) -> Sequence[str]:
        return self.schema.tables

    @property
    def catalog(self) -> SchemaCatalog | None:
        return self.schema.catalog

    @property
    def linked(self) -> bool:
        return self.schema.linked is not None

    @property
    def evidence(self) -> Evidence:
        if "evidence" not in self._derived:
            gathered = gather_evidence(
                self.question, self.sql, self.columns, self.rows, self.schema, self.engine
            )
            self._derived["evidence"] = replace(gathered, earlier=self.earlier, said=self.said)
        found: Evidence = self._derived["evidence"]
        return found

    @property
    def findings(self) -> Sequence[Finding]:
        if "findings" not in self._derived:
            self._derived["findings"] = run_checks(
                self.evidence, [c.run for c in self.stages.enabled(ANSWER_CHECKS)]
            )
        found: list[Finding] = self._derived["findings"]
        return found

    def with_sql(self, sql: str) -> QueryAttempt:
        """The same attempt with ``sql`` mended; its derived facts stay those of what ran."""
        return replace(self, sql=sql, _derived=self._derived)
