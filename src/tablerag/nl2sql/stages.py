"""Every note, mend and doubt of the text-to-SQL path, registered in one place.

A *note* adds a line to what the model reads (a fact about the question's values or tables), a
*mend* rewrites SQL without another model call, a *doubt* sends a query that ran back to the
model once because its result cannot be the answer. Each stage handles one failure, lives in
the module named after it, and is listed here with its name and the reason it exists; the
pipelines below are the order in which :mod:`tablerag.nl2sql.path`, :mod:`.schema_context` and
the TableRAG loop run them.

Any stage can be switched off by name, or a whole family at once (``notes``, ``mends``,
``doubts``), through :class:`Switches`: a model profile (:mod:`tablerag.llm.profiles`) chooses
the defaults and the ``stages`` setting overrides them. A stage that is off is skipped: the
path then behaves as if the failure it handles could not happen.
"""

from __future__ import annotations

import datetime as dt
import difflib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Generic, Literal, Protocol, TypeVar

from tablerag.errors import ConfigError
from tablerag.nl2sql.autofix import (
    Fixed,
    add_join,
    from_mysql,
    rejoin,
    requalify,
    respell,
    unclip,
)
from tablerag.nl2sql.canonical import canonicalize_formats
from tablerag.nl2sql.checks import REPAIRABLE, Evidence, Finding
from tablerag.nl2sql.dates import dated
from tablerag.nl2sql.definitions import definition_note, definition_rows
from tablerag.nl2sql.denominator import denominator_set, widen
from tablerag.nl2sql.distinct import count_distinct, distinct_key, key_columns
from tablerag.nl2sql.joins import rebridge, unjoined
from tablerag.nl2sql.labels import label_notes
from tablerag.nl2sql.literals import found_nothing, label_elsewhere, past_the_data, stored_labels
from tablerag.nl2sql.prose_definitions import prose_definitions
from tablerag.nl2sql.ratio import RateProblem
from tablerag.nl2sql.rollup import rollup_note, rollups
from tablerag.nl2sql.scale import scale_notes
from tablerag.nl2sql.slashdates import slash_date_notes
from tablerag.nl2sql.spelling import spelling_note, spellings
from tablerag.nl2sql.years import year_notes

if TYPE_CHECKING:
    from tablerag.linking.catalog import SchemaCatalog
    from tablerag.linking.fkgraph import JoinEdge
    from tablerag.linking.linker import LinkedSchema
    from tablerag.sql.engines.base import SQLEngine
    from tablerag.types import Hit

Family = Literal["note", "mend", "doubt"]
FAMILIES: dict[str, Family] = {"notes": "note", "mends": "mend", "doubts": "doubt"}
F = TypeVar("F")


@dataclass(frozen=True)
class Stage(Generic[F]):
    """One named stage: what it is, why it exists, and the function that runs it."""

    name: str
    family: Family
    reason: str
    """The failure it handles, in one line."""
    run: F


@dataclass
class NoteInput:
    """What a value note reads: the question, the linker's answer and the engine.

    ``covered`` holds the values (lower-cased) an earlier note already explains, so a later
    one does not say them again (a roll-up note says how to filter a parent region; the
    spelling note then leaves it out).
    """

    question: str
    linked: LinkedSchema
    catalog: SchemaCatalog
    engine: SQLEngine
    covered: set[str] = field(default_factory=set)
    passages: Sequence[Hit] = ()
    """Document passages retrieved for the question (empty: the workspace has no index)."""


@dataclass(frozen=True)
class TableNoteInput:
    """What a table note of the loop reads: the tables retrieval chose, in its order, and the
    passages it retrieved with them."""

    question: str
    catalog: SchemaCatalog
    tables: Sequence[str]
    engine: SQLEngine | None
    passages: Sequence[Hit] = ()


class Attempt(Protocol):
    """A query that ran, as every stage after its run reads it: the one context of the empty-
    and found-result mends and doubts. The path builds it once per query
    (:class:`tablerag.nl2sql.attempt.QueryAttempt`); what it derives (the evidence, the answer
    checks' findings, the rate problem) is computed on first use and shared by the stages."""

    @property
    def question(self) -> str:
        """The question the query answers."""

    @property
    def sql(self) -> str:
        """The query as it ran (or as an earlier mend of this pipeline left it)."""

    @property
    def rows(self) -> Sequence[Sequence[object]]:
        """Its rows."""

    @property
    def engine(self) -> SQLEngine:
        """The engine it ran on."""

    @property
    def edges(self) -> Sequence[JoinEdge]:
        """The join keys of the schema the model was shown."""

    @property
    def tables(self) -> Sequence[str]:
        """The tables the model was shown."""

    @property
    def catalog(self) -> SchemaCatalog | None:
        """The catalog of the schema the model was shown (None: a schema given as text)."""

    @property
    def linked(self) -> bool:
        """Whether the schema was linked to the question (the answer checks need it)."""

    @property
    def evidence(self) -> Evidence:
        """What the answer checks read (:func:`tablerag.nl2sql.evidence.gather_evidence`)."""

    @property
    def findings(self) -> Sequence[Finding]:
        """The answer checks' findings on the query that ran."""

    @property
    def rate(self) -> RateProblem | None:
        """The problem with the rate it computes (:func:`tablerag.nl2sql.ratio.rate_problem`)."""

    def with_sql(self, sql: str) -> Attempt:
        """The same attempt with ``sql`` mended (its derived facts stay those of what ran)."""


Ran = Attempt
"""The name the empty-result stages knew the context by."""

QuestionNote = Callable[[str, dt.date], str]
ValueNote = Callable[[NoteInput], Sequence[str]]
TableNote = Callable[[TableNoteInput], Sequence[str]]
QueryMend = Callable[[str, Mapping[Any, Any], str], str]
"""``(sql, canonical formats, dialect) -> sql``: a rewrite every query goes through."""
ReplyMend = Callable[[str, str], Fixed | None]
RefusalMend = Callable[..., Fixed | None]
"""``(sql, issues, *, dialect) -> Fixed | None``: the gate's issues say what to mend."""
EmptyMend = Callable[[Attempt], Fixed | None]
FoundMend = Callable[[Attempt], Fixed | None]
Doubt = Callable[[Attempt], str | None]


def _rollups(n: NoteInput) -> list[str]:
    parents = rollups(n.question, n.linked, n.catalog, n.engine)
    n.covered.update(r.value.lower() for r in parents)
    return [rollup_note(r) for r in parents]


def _definitions(n: NoteInput) -> list[str]:
    return [definition_note(d) for d in definition_rows(n.question, n.linked, n.catalog, n.engine)]


def _spellings(n: NoteInput) -> list[str]:
    found = spellings(n.question, n.linked, n.catalog, n.engine, n.covered)
    return [spelling_note(s) for s in found]


def _slash_dates(n: NoteInput) -> list[str]:
    shown = [t for t in n.linked.shown_table_names if t in n.catalog.tables]
    return slash_date_notes(
        n.question, [(t, c) for t in shown for c in n.catalog.tables[t].columns]
    )


def _labels(n: TableNoteInput) -> list[str]:
    return label_notes(n.catalog, n.tables, n.engine) if n.engine is not None else []


def _unjoined(r: Ran) -> str | None:
    # COUNT(*) over no rows is 0, not empty: a join no key supports is asked about when
    # nothing at all was found
    if not found_nothing(r.rows):
        return None
    return unjoined(r.sql, r.edges, dialect=r.engine.dialect)


def _unclip(sql: str, dialect: str) -> Fixed | None:
    return unclip(sql, dialect=dialect)


def _table_columns(catalog: SchemaCatalog) -> dict[str, frozenset[str]]:
    return {
        name.lower(): frozenset(c.name.lower() for c in info.columns)
        for name, info in catalog.tables.items()
    }


def _distinct(a: Attempt) -> Fixed | None:
    if not a.linked or a.catalog is None:
        return None
    columns = _table_columns(a.catalog)
    for finding in a.findings:
        values = dict(finding.values)
        if finding.code != "definition_ignored" or "DISTINCT" not in values.get("missing", ""):
            continue
        known = set().union(*columns.values())
        key = distinct_key(values["definition"], known, key_columns(a.catalog.tables.values()))
        counted = count_distinct(a.sql, key, columns, dialect=a.engine.dialect) if key else None
        if counted is not None:
            note = (
                f"tablerag counted distinct {key}, as {values['document']} defines {values['term']}"
            )
            return Fixed(counted, note)
    return None


def _denominator(a: Attempt) -> Fixed | None:
    if not a.linked or a.catalog is None:
        return None
    columns = _table_columns(a.catalog)
    known = set().union(*columns.values())
    stored = {
        c.name.lower(): c.samples for t in a.catalog.tables.values() for c in t.columns if c.samples
    }  # the values the data holds name the denominator's set, however the text joins them
    for d in a.evidence.definitions:
        wanted = d.denominator or denominator_set(d.text, known, stored)
        if wanted is not None and (
            wider := widen(a.sql, wanted, columns, dialect=a.engine.dialect)
        ):
            note = f"tablerag divided by {wanted.said()}, as {d.document} defines {d.term}"
            return Fixed(wider, note)
    return None


def _rate(a: Attempt) -> str | None:
    return a.rate.doubt if a.rate is not None else None


def _recheck(a: Attempt) -> str | None:
    if not a.linked:
        return None
    doubts = [f for f in a.findings if f.code in REPAIRABLE]
    if not doubts:
        return None
    return "it ran, but " + "; ".join(f.says("en") for f in doubts)


QUESTION_NOTES: tuple[Stage[QuestionNote], ...] = (
    Stage(
        "dates",
        "note",
        "relative time words ('last month') dated in the question: the model miscopied the date "
        "the prompt states",
        dated,
    ),
)
VALUE_NOTES: tuple[Stage[ValueNote], ...] = (
    Stage(
        "rollup",
        "note",
        "a parent row of a hierarchy (华东) that facts never point at: filter its descendants",
        _rollups,
    ),
    Stage(
        "definitions",
        "note",
        "a metric the question names is defined in a document table: quote the definition",
        _definitions,
    ),
    Stage(
        "definition_passages",
        "note",
        "a metric the question names is defined in a document's prose (客单价 = … ÷ …), not in a "
        "table: quote the passage",
        lambda n: prose_definitions(n.question, n.passages),
    ),
    Stage(
        "spelling",
        "note",
        "a value the question names is stored with another spelling the samples do not show",
        _spellings,
    ),
    Stage(
        "slash_dates",
        "note",
        "a date the question writes 03/05/2026, read day first by the model over a column whose "
        "file wrote MM/DD/YYYY: the date in the data's order",
        _slash_dates,
    ),
)
TABLE_NOTES: tuple[Stage[TableNote], ...] = (
    Stage(
        "years",
        "note",
        "a table with one column per year: how a change or a 'how many years' count is written",
        lambda n: year_notes(n.catalog, n.tables, n.question),
    ),
    Stage(
        "scale",
        "note",
        "a figure the question scales ($1,500 thousand) over a table stating its unit",
        lambda n: scale_notes(n.catalog, n.tables, n.question),
    ),
    Stage(
        "labels",
        "note",
        "the row labels of a small report table, which the schema's cut samples hide",
        _labels,
    ),
    Stage(
        "prose_definitions",
        "note",
        "a retrieved passage explains how to count the metric the question names: quote it",
        lambda n: prose_definitions(n.question, n.passages),
    ),
)
REPLY_MENDS: tuple[Stage[ReplyMend], ...] = (
    Stage(
        "unclip",
        "mend",
        "a literal copied from a cut sample value ('Total Property…') read as the prefix it is",
        _unclip,
    ),
)
REFUSAL_MENDS: tuple[Stage[RefusalMend], ...] = (
    Stage(
        "requalify",
        "mend",
        "a column under the wrong alias moved to the one FROM item that has it",
        requalify,
    ),
    Stage(
        "respell",
        "mend",
        "a column written with other case or underscores (pet_type for PetType), respelled",
        respell,
    ),
    Stage(
        "from_mysql",
        "mend",
        "MySQL date functions (DATE_SUB, CURDATE) written for another dialect, translated",
        from_mysql,
    ),
    Stage(
        "add_join",
        "mend",
        "a column of a table one key away: the join the gate names is added",
        add_join,
    ),
    Stage(
        "rejoin",
        "mend",
        "a table joined on a column it lacks (category ON product_code): joined through the bridge",
        rejoin,
    ),
)
EMPTY_MENDS: tuple[Stage[EmptyMend], ...] = (
    Stage(
        "stored_labels",
        "mend",
        "a query found nothing for a label the column stores with other case or a longer text",
        lambda r: stored_labels(r.sql, r.engine),
    ),
    Stage(
        "rebridge",
        "mend",
        "a query found nothing through a join no key supports, where one table keys both ends",
        lambda r: rebridge(r.sql, r.edges, dialect=r.engine.dialect),
    ),
)
EMPTY_DOUBTS: tuple[Stage[Doubt], ...] = (
    Stage(
        "unjoined",
        "doubt",
        "a query found nothing through a join no key supports: name the bridge, ask again",
        _unjoined,
    ),
    Stage(
        "past_the_data",
        "doubt",
        "a query found nothing for a date past the data's last one: say where the data ends",
        lambda r: past_the_data(r.sql, r.engine, r.question),
    ),
    Stage(
        "label_elsewhere",
        "doubt",
        "a query found nothing for a label another shown table stores: name that table",
        lambda r: label_elsewhere(r.sql, r.engine, r.tables),
    ),
)
UNITS = Stage(
    "units",
    "mend",
    "an amount summed from a column stored in 分 read as 元, or '超过100元' compared with it as "
    "100: the amounts in the unit the question asks for, from the catalog's units",
    None,
)
"""Run by the path on every query before it runs (:mod:`tablerag.nl2sql.units`)."""
FORMATS = Stage(
    "formats",
    "mend",
    "a column mixing '2026-09' and '202609' read in one format in every query",
    lambda sql, canonical, dialect: canonicalize_formats(sql, canonical, dialect=dialect),
)
"""Run on every query, the model's or mended (:mod:`tablerag.nl2sql.canonical`)."""
QUERY_MENDS: tuple[Stage[QueryMend], ...] = (FORMATS,)
FOUND_MENDS: tuple[Stage[FoundMend], ...] = (
    Stage(
        "distinct",
        "mend",
        "a query counted rows where the metric's definition counts distinct keys (按 order_id "
        "去重): the counts rewritten as COUNT(DISTINCT key)",
        _distinct,
    ),
    Stage(
        "denominator",
        "mend",
        "a rate divided by fewer values than its definition's denominator admits (status 为 PAID "
        "或 REFUND): the denominator's comparison rewritten as column IN (those values)",
        _denominator,
    ),
)
"""Mends of a query that found rows, each on what the one before left (their notes join)."""
RATE: Stage[Doubt] = Stage(
    "rate",
    "doubt",
    "the question asks for a rate the query does not compute, or every row's rate is 0 or 1",
    _rate,
)
"""Its answer also carries the caveat when the repair round does not mend it (the path reads
:attr:`Attempt.rate` of the query it keeps)."""
FOUND_DOUBTS: tuple[Stage[Doubt], ...] = (
    RATE,
    Stage(
        "recheck",
        "doubt",
        "a query an answer check doubts (a definition not followed, a count asked but an amount "
        "summed, one day for a month, a period never asked): asked again once with the reason",
        _recheck,
    ),
)
"""Doubts of a query that found rows, the first with a reason wins (the answer checks'
repairable doubts, :data:`tablerag.nl2sql.checks.REPAIRABLE`, are asked about once)."""
LABEL_ROUND = Stage(
    "label_round",
    "doubt",
    "the loop's query found nothing for a label only an unshown table stores: ask over it",
    None,
)
"""Run by the loop (:func:`tablerag.loop.tablesql.answer_over_tables`)."""
COMPOSE = Stage(
    "compose",
    "mend",
    "the loop's final answer echoed the trace's 'question -> answer' lines or left out a part a "
    "step answered: the echoes dropped, the parts put back",
    None,
)
TIERS = Stage(
    "tiers",
    "note",
    "the loop's answer left matching each SQL row's rate to the policy's thresholds to the reader",
    None,
)
CAVEATS = Stage(
    "caveats",
    "note",
    "a step's SQL answer warned that its rows are not the rate asked for, and the loop's "
    "composed answer dropped the warning: kept",
    None,
)
"""``compose``, ``tiers`` and ``caveats`` run, in this order, on the loop's final answer: the
loop binds them to its functions (:data:`tablerag.loop.finish.FINISH`, through :func:`bound`)."""


def bound(stage: Stage[Any], run: F) -> Stage[F]:
    """``stage``, registered here, with the function a pipeline above this package runs it by
    (the loop's stages: this package cannot import the loop)."""
    return Stage(stage.name, stage.family, stage.reason, run)


STAGES: tuple[Stage[Any], ...] = (
    *QUESTION_NOTES,
    *VALUE_NOTES,
    *TABLE_NOTES,
    *QUERY_MENDS,
    UNITS,
    *REPLY_MENDS,
    *REFUSAL_MENDS,
    *EMPTY_MENDS,
    *FOUND_MENDS,
    *EMPTY_DOUBTS,
    *FOUND_DOUBTS,
    LABEL_ROUND,
    COMPOSE,
    TIERS,
    CAVEATS,
)
NAMES: tuple[str, ...] = tuple(s.name for s in STAGES)


@dataclass(frozen=True)
class Switches:
    """Which stages run: all but those in ``off``.

    Example:
        >>> Switches().on("rollup"), Switches(frozenset({"rollup"})).on("rollup")
        (True, False)
    """

    off: frozenset[str] = frozenset()

    def on(self, name: str) -> bool:
        """Whether the stage ``name`` runs (a name must be registered)."""
        assert name in NAMES, f"unregistered stage {name!r}"
        return name not in self.off

    def enabled(self, stages: Sequence[Stage[F]]) -> list[Stage[F]]:
        """The stages of a pipeline that run, in order."""
        return [s for s in stages if self.on(s.name)]


ALL_ON = Switches()


def switches(off: Sequence[str] = (), overrides: Mapping[str, bool] | None = None) -> Switches:
    """The switches of a profile (its stages ``off``) with per-name ``overrides`` on top.

    A family name (``notes``, ``mends``, ``doubts``) stands for all its stages; names are
    applied in order, so ``{"notes": False, "rollup": True}`` runs the roll-up note alone.

    Raises:
        ConfigError: an unknown stage or family name (with the closest one).

    Example:
        >>> sorted(switches(["rate"], {"spelling": False}).off)
        ['rate', 'spelling']
        >>> switches(["rate"], {"doubts": True}).off
        frozenset()
        >>> "dates" in switches((), {"notes": False, "dates": True}).off
        False
    """
    closed = set(_expand(off))
    for name, on in (overrides or {}).items():
        names = _expand([name])
        closed = closed - set(names) if on else closed | set(names)
    return Switches(frozenset(closed))


def _expand(names: Sequence[str]) -> list[str]:
    out: list[str] = []
    for name in names:
        if name in FAMILIES:
            out += [s.name for s in STAGES if s.family == FAMILIES[name]]
        elif name in NAMES:
            out.append(name)
        else:
            known = [*FAMILIES, *NAMES]
            close = difflib.get_close_matches(name, known, n=1)
            hint = f" Did you mean {close[0]!r}?" if close else ""
            raise ConfigError(
                f"Unknown stage {name!r} in the 'stages' setting; use one of "
                f"{', '.join(known)}.{hint}"
            )
    return out


def describe() -> list[tuple[str, str, str]]:
    """(name, family, reason) of every stage, in pipeline order (for docs and the CLI)."""
    return [(s.name, s.family, s.reason) for s in STAGES]


__all__ = [
    "ALL_ON",
    "CAVEATS",
    "COMPOSE",
    "EMPTY_DOUBTS",
    "EMPTY_MENDS",
    "FAMILIES",
    "FOUND_DOUBTS",
    "FOUND_MENDS",
    "NAMES",
    "QUERY_MENDS",
    "QUESTION_NOTES",
    "RATE",
    "REFUSAL_MENDS",
    "REPLY_MENDS",
    "STAGES",
    "TABLE_NOTES",
    "TIERS",
    "VALUE_NOTES",
    "Attempt",
    "NoteInput",
    "Ran",
    "Stage",
    "Switches",
    "TableNoteInput",
    "bound",
    "describe",
    "switches",
]
