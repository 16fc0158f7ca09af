"""The SQLEngine ABC: every query goes through the gate, the engine's guards and masking."""

from __future__ import annotations

import logging
import re
import time
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import replace
from types import TracebackType
from typing import Any, ClassVar

import sqlglot

from tablerag.errors import EngineError, Issue, QueryFailed, SQLRejected
from tablerag.sql.drift import drift_message
from tablerag.sql.engines.once import once
from tablerag.sql.engines.personal import (
    MAX_TABLES,
    SAMPLE_ROWS,
    SAMPLE_TIME_LIMIT_MS,
    personal_columns,
    sample_query,
)
from tablerag.sql.engines.scrub import exposable, scrub_message, scrub_schema
from tablerag.sql.engines.verdicts import Verdict, Verdicts
from tablerag.sql.exposed import ExposedCatalog
from tablerag.sql.mask import allowed_names, mask_rows
from tablerag.sql.policy import ExecutionPolicy
from tablerag.sql.result import ResultSet
from tablerag.sql.rewrite import ADDED, SORT_ROWS, order_unordered, render, sort_key
from tablerag.sql.sensitive import DEFAULT_RULES, SensitiveRules
from tablerag.sql.validate import gate
from tablerag.types import TableInfo

Rows = list[tuple[Any, ...]]
CatalogArg = Sequence[TableInfo] | ExposedCatalog | None

log = logging.getLogger(__name__)

_UNORDERABLE = re.compile(r"could not identify an ordering operator", re.IGNORECASE)
"""PostgreSQL's refusal to sort a type with no order (json, xml, point...)."""

ALLOW_HINT = (
    "or, if such a column is not sensitive after all, list it in allow_columns (e.g. "
    'allow_columns = ["{example}"] in tablerag.toml) so that tablerag shows it'
)
"""The other fix of a refusal over readable hidden columns (PostgreSQL and MySQL)."""


class SQLEngine(ABC):
    """A read-only database that runs generated SQL: gate first, then engine guards.

    There is no way to run SQL around the gate: :meth:`execute` checks the SQL against
    :attr:`catalog` in :attr:`dialect`, runs the rewritten statement under ``policy`` and masks
    personal data in the rows. Use engines as context managers so connections are closed.
    """

    dialect: ClassVar[str]
    """sqlglot dialect name; the gate parses and renders in it."""
    exposure: ClassVar[str | None] = None
    """The catalog every table reference of generated SQL is qualified to, when the engine
    builds one that physically lacks hidden columns (DuckDB); None: the database's own."""
    _verdicts: tuple[ExposedCatalog, Verdicts] | None = None
    """The gate's verdicts for the catalog they were made for (a new catalog starts anew)."""

    def __init__(self, policy: ExecutionPolicy | None = None) -> None:
        self.policy = policy or ExecutionPolicy()
        self._catalog: ExposedCatalog | None = None
        self._sampled: dict[str, tuple[str, ...]] | None = None
        """``{table: columns}`` whose sampled rows hold personal data (sampled once)."""
        self._personal: dict[SensitiveRules, ExposedCatalog] = {}
        """:attr:`catalog` with those columns marked, per ``allow_columns`` rules."""
        self._sample_personal = True
        """Mark columns by sampling (off with ``hide_sensitive=False``: other people's data)."""

    @property
    def catalog(self) -> ExposedCatalog:
        """The tables and columns generated SQL may read (introspected unless given)."""
        if self._catalog is None:
            self._set_catalog(
                ExposedCatalog.from_tables(
                    self.introspect(), schema=self.schema, rules=self.policy.sensitive
                )
            )
        assert self._catalog is not None
        return self._catalog

    @property
    def schema(self) -> str | None:
        """Schema of unqualified table names, if any."""
        return None

    def use_catalog(self, catalog: CatalogArg, **options: Any) -> None:
        """Restrict generated SQL to ``catalog`` (a list of TableInfo or an ExposedCatalog).

        ``options`` go to :meth:`ExposedCatalog.from_tables` (``sensitive``, ``allow``...).
        A table in schema ``tablerag`` (tablerag's own, even when an external database has a
        schema of that name) or in a system schema is never exposed: it is left out with a
        warning, and the gate refuses SQL that names it as an unknown table.
        """
        self._sample_personal = bool(options.get("hide_sensitive", True))
        if catalog is None:
            self._catalog = None
            self._sampled, self._personal = None, {}
        elif isinstance(catalog, ExposedCatalog):
            self._set_catalog(catalog)
        else:
            options.setdefault("rules", self.policy.sensitive)
            self._set_catalog(ExposedCatalog.from_tables(catalog, schema=self.schema, **options))

    def _set_catalog(self, catalog: ExposedCatalog) -> None:
        self._catalog = self._with_lineage(_without_reserved(catalog))
        self._sampled, self._personal = None, {}
        self._expose(self._catalog)

    def gate_catalog(self, policy: ExecutionPolicy | None = None) -> ExposedCatalog:
        """The catalog the gate checks generated SQL against under ``policy``: :attr:`catalog`
        with every readable column that holds personal data marked masked
        (``ExposedTable.masked``), so that no function can undo the mask; with masking off,
        none is marked.

        The columns are the ones the catalog's sample values mark plus the ones whose values,
        sampled through this engine (:mod:`tablerag.sql.engines.personal`) the first time,
        hold personal data; ``allow_columns`` unmarks a column.
        """
        policy = policy or self.policy
        if not policy.mask_personal_data:
            return self.catalog.without_masked()
        rules = policy.sensitive
        marked = self._personal.get(rules)
        if marked is None:
            marked = self.catalog
            if self._sample_personal and rules.defaults:
                if self._sampled is None:
                    self._sampled = self._sampled_personal(marked, policy)
                marked = marked.with_masked(self._sampled)
            self._personal[rules] = marked.without_masked(rules)
        return self._personal[rules]

    def _sampled_personal(
        self, catalog: ExposedCatalog, policy: ExecutionPolicy
    ) -> dict[str, tuple[str, ...]]:
        """``{table: columns}`` whose first rows, read through the gate and this engine, hold
        personal data (``allow_columns`` not applied yet); a table the gate or the engine
        refuses to sample is left as it is."""
        found: dict[str, tuple[str, ...]] = {}
        sampling = replace(
            policy,
            max_rows=SAMPLE_ROWS,
            time_limit_ms=min(policy.time_limit_ms, SAMPLE_TIME_LIMIT_MS),
        )
        for table in catalog.tables[:MAX_TABLES]:
            if not table.columns:
                continue
            result = gate(
                sample_query(table, self.dialect),
                dialect=self.dialect,
                catalog=catalog,
                policy=sampling,
                exposure=self.exposure,
            )
            if result.issues or result.sql is None:
                log.debug("not sampling %s for personal data: %s", table.qualified, result.issues)
                continue
            try:
                _, rows = self._run(result.executed or result.sql, sampling)
            except EngineError as exc:
                log.debug("not sampling %s for personal data: %s", table.qualified, exc)
                continue
            found[table.qualified] = personal_columns(table, rows, DEFAULT_RULES)
        return found

    def _with_lineage(self, catalog: ExposedCatalog) -> ExposedCatalog:
        """``catalog`` with every view column derived from a hidden column hidden too (an
        engine that reads its views' definitions); the default changes nothing."""
        return catalog

    def _expose(self, catalog: ExposedCatalog) -> None:
        """Make the database show generated SQL only ``catalog`` (an engine's exposure layer).

        The default does nothing: the engine relies on its own guard (SQLite's authorizer, a
        PostgreSQL role's column privileges) and on the gate.
        """
        return

    def driver_message(self, exc: BaseException) -> str:
        """A driver error's text naming nothing outside :attr:`catalog` (``scrub_message``)."""
        return scrub_message(str(exc), self.catalog)

    def introspect(self) -> list[TableInfo]:
        """Tables and columns of the database (names and types only)."""
        return []

    def execute(self, sql: str, policy: ExecutionPolicy | None = None) -> ResultSet:
        """Gate, run and mask one query of generated SQL.

        Within one request (:func:`~tablerag.sql.engines.once.queries_once`) a query this
        engine already ran with the same policy is answered from that request's memo.

        Raises:
            SQLRejected: the gate refused the SQL (feedback for the model).
            QueryTimeout: the time limit stopped it.
            ResourceLimitExceeded: a memory or disk limit stopped it.
            QueryFailed: the database refused or failed to run it.
        """
        policy = policy or self.policy
        return once((id(self), sql, policy), lambda: self._execute(sql, policy))

    def verdict(self, sql: str, policy: ExecutionPolicy) -> Verdict:
        """The gate's verdict on ``sql`` under ``policy`` and what runs for it; kept per
        exposed catalog (:mod:`~tablerag.sql.engines.verdicts`)."""
        catalog = self.catalog
        verdicts = self._verdicts
        if verdicts is None or verdicts[0] is not catalog:
            verdicts = self._verdicts = (catalog, Verdicts())
        return verdicts[1].get((sql, policy), lambda: self._judge(sql, policy, catalog))

    def _judge(self, sql: str, policy: ExecutionPolicy, catalog: ExposedCatalog) -> Verdict:
        result = gate(
            sql,
            dialect=self.dialect,
            catalog=self.gate_catalog(policy),
            policy=policy,
            exposure=self.exposure,
        )
        if result.issues or result.sql is None:
            return Verdict(tuple(result.issues))
        unordered = result.executed or result.sql
        executed, order = self._ordered(unordered)
        return Verdict((), result.sql, executed, unordered, order)

    def _execute(self, sql: str, policy: ExecutionPolicy) -> ResultSet:
        verdict = self.verdict(sql, policy)
        if verdict.issues or verdict.sql is None:
            raise SQLRejected(sql, [_without_own_schema(i) for i in verdict.issues])
        safe, order = verdict.sql, verdict.order
        start = time.perf_counter()
        try:
            try:
                columns, rows = self._run(verdict.executed, policy)
            except QueryFailed as exc:
                if order != ADDED or not _UNORDERABLE.search(str(exc)):
                    raise
                order = SORT_ROWS  # a column type without an order (PostgreSQL json): sort here
                columns, rows = self._run(verdict.unordered, policy)
        except EngineError as exc:
            exc.sql = safe  # the SQL as the user reads it, not through the exposure catalog
            drifted = drift_message(str(exc), self.catalog.names())
            if drifted is not None:  # dropped or renamed since ingest: name the fix (issue 22)
                raise QueryFailed(drifted, engine=exc.engine, sql=safe) from exc
            raise
        elapsed = (time.perf_counter() - start) * 1000
        if order == SORT_ROWS:
            rows = sorted(rows, key=sort_key)
        truncated = len(rows) > policy.max_rows
        kept: tuple[tuple[Any, ...], ...] = tuple(rows[: policy.max_rows])
        masked: tuple[str, ...] = ()
        if policy.mask_personal_data:
            allowed = allowed_names(self.catalog, policy.sensitive)  # allow_columns unmasks
            kept, masked = mask_rows(columns, kept, hidden=self._hidden_names(), allowed=allowed)
            if masked and order in (ADDED, SORT_ROWS):
                # the order tablerag chose came from the values before masking (the digits the
                # mask hides); the rows are sorted again as they are shown
                kept = tuple(sorted(kept, key=sort_key))
        return ResultSet(columns, kept, truncated, round(elapsed, 3), safe, masked)

    def _ordered(self, sql: str) -> tuple[str, str]:
        """``sql`` sorted by its output columns when it has no ORDER BY of its own
        (:func:`~tablerag.sql.rewrite.order_unordered`): the order rows are stored or indexed
        in, by a hidden column perhaps, does not show through."""
        try:
            tree = sqlglot.parse_one(sql, read=self.dialect)
        except sqlglot.errors.SqlglotError:
            return sql, SORT_ROWS
        ordered, how = order_unordered(tree, self.dialect)
        return (render(ordered, self.dialect), how) if how == ADDED else (sql, how)

    def _hidden_names(self) -> frozenset[str]:
        """Lower-cased names of the catalog's hidden columns: a result column so named (an
        alias, or an engine's layer that let one through) is masked whole."""
        return frozenset(h.lower() for t in self.catalog.tables for h in t.hidden)

    @abstractmethod
    def _run(self, sql: str, policy: ExecutionPolicy) -> tuple[tuple[str, ...], Rows]:
        """Run gated SQL; return column names and at most ``policy.max_rows + 1`` rows."""

    @abstractmethod
    def close(self) -> None:
        """Close connections (idempotent)."""

    def __enter__(self) -> SQLEngine:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


def _without_reserved(catalog: ExposedCatalog) -> ExposedCatalog:
    kept, refused = exposable(catalog.tables)
    if not refused:
        return catalog
    log.warning(
        "not exposing %s: schema %r is tablerag's own or a system schema; move the table to "
        "another schema (or expose a view of it there) to query it",
        ", ".join(repr(t.qualified) for t in refused),
        refused[0].schema,
    )
    return ExposedCatalog(kept)


def _without_own_schema(issue: Issue) -> Issue:
    """``issue`` with no mention of tablerag's own schema in its message or detail."""
    detail = {k: scrub_schema(v) if isinstance(v, str) else v for k, v in issue.detail.items()}
    return replace(issue, message=scrub_schema(issue.message), detail=detail)
