"""Every note, mend, doubt and check of the answer pipeline, registered in one place.

A *note* adds a line to what the model reads (a fact about the question's values or tables), a
*mend* rewrites SQL (or the loop's final answer) without another model call, a *doubt* sends the
loop's query that ran back to the model once because its result cannot be the answer (the NL2SQL
path has none: a query of its own that ran is final, and the answer checks judge it), a *check*
judges what the model wrote or what a query found (a finding that lowers the answer's
confidence, a reply not run, an explanation replaced). Each stage handles one failure, lives
in the module named after it, and is listed here with its name and the reason it exists; the
pipelines below (one signature each, like sqlglot's optimizer ``RULES``) are the order in which
:mod:`tablerag.nl2sql.path`, :mod:`.schema_context` and the TableRAG loop run them.

Any stage can be switched off by name, or a whole family at once (``notes``, ``mends``,
``doubts``, ``checks``), through :class:`Switches`: a model profile
(:mod:`tablerag.llm.profiles`) chooses the defaults and the ``stages`` setting overrides them. A
stage that is off is skipped: the path then behaves as if the failure it handles could not
happen.
"""

from __future__ import annotations

import datetime as dt
import difflib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from tablerag.answer.steps import ALL_ON, FAMILIES, Family, Stage, Switches, bound
from tablerag.errors import ConfigError
from tablerag.nl2sql.autofix import (
    Fixed,
    add_join,
    from_mysql,
    pin_today,
    rejoin,
    requalify,
    respell,
    unclip,
)
from tablerag.nl2sql.canonical import canonicalize_formats
from tablerag.nl2sql.checks import (
    Check,
    Evidence,
    Finding,
    asked_for,
    dates_read,
    definitions,
    invented,
    labelled,
    named,
    negation,
    plausibility,
    quantity,
    referent,
    relevance,
    units_read,
)
from tablerag.nl2sql.dates import dated
from tablerag.nl2sql.definitions import Glossary, definition_note, definition_rows, glossary_rows
from tablerag.nl2sql.explanation import Explanation, Reply, cut_in_sql, ungrounded
from tablerag.nl2sql.joins import rebridge
from tablerag.nl2sql.labels import label_notes
from tablerag.nl2sql.literals import stored_labels
from tablerag.nl2sql.prose_definitions import prose_definitions
from tablerag.nl2sql.rollup import rollup_note, rollups
from tablerag.nl2sql.scale import scale_notes
from tablerag.nl2sql.spelling import spelling_note, spellings
from tablerag.nl2sql.typed import column_types, keep_fractions, whole_days, whole_periods
from tablerag.nl2sql.units import catalog_units, in_major_units
from tablerag.nl2sql.years import year_notes
from tablerag.rag.answer import DOC_CHECKS

if TYPE_CHECKING:
    from tablerag.errors import Issue
    from tablerag.linking.catalog import SchemaCatalog
    from tablerag.linking.fkgraph import JoinEdge
    from tablerag.linking.linker import LinkedSchema
    from tablerag.sql.engines.base import SQLEngine
    from tablerag.types import Hit


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
    glossary: Glossary | None = None
    """The document tables of another place than the one asked (the workspace's files)."""


@dataclass(frozen=True)
class TableNoteInput:
    """What a table note of the loop reads: the tables retrieval chose, in its order, and the
    passages it retrieved with them."""

    question: str
    catalog: SchemaCatalog
    tables: Sequence[str]
    engine: SQLEngine | None
    passages: Sequence[Hit] = ()


@dataclass(frozen=True)
class Query:
    """What a mend of a query before it runs reads besides the SQL: the question, the dialect,
    the canonical format of each mixed-format column, the ``today`` option, the catalog."""

    question: str
    dialect: str
    canonical: Mapping[Any, Any] = field(default_factory=dict)
    today: dt.date | None = None
    catalog: SchemaCatalog | None = None


@dataclass(frozen=True)
class Refusal:
    """A query the gate refused: its SQL, the gate's issues, the dialect, and the refusal
    mends that are on (a mend may try the others on part of the issues)."""

    sql: str
    issues: Sequence[Issue]
    dialect: str
    mends: Sequence[RefusalMend] = ()

    def only(self, issues: Sequence[Issue]) -> Refusal:
        """The same refusal with only ``issues``."""
        return Refusal(self.sql, issues, self.dialect, self.mends)


class Attempt(Protocol):
    """A query that ran, as every stage after its run reads it: the one context of the empty-
    result mends. The path builds it once per query
    (:class:`tablerag.nl2sql.attempt.QueryAttempt`); what it derives (the evidence, the answer
    checks' findings) is computed on first use and shared by the stages."""

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

    def with_sql(self, sql: str) -> Attempt:
        """The same attempt with ``sql`` mended (its derived facts stay those of what ran)."""


QuestionNote = Callable[[str, dt.date], str]
ValueNote = Callable[[NoteInput], Sequence[str]]
TableNote = Callable[[TableNoteInput], Sequence[str]]
QueryMend = Callable[[str, Query], str]
"""``(sql, Query) -> sql``: a rewrite every query goes through, which it does not note."""
ReplyMend = Callable[[str, Query], Fixed | None]
"""``(sql, Query) -> Fixed | None``: a noted rewrite of the model's reply (and, for the
amount mends, of every mended query)."""
RefusalMend = Callable[[Refusal], Fixed | None]
"""``(Refusal) -> Fixed | None``: the gate's issues say what to mend."""
EmptyMend = Callable[[Attempt], Fixed | None]
ReplyCheck = Callable[[Reply], bool]
"""``(Reply) -> refused``: the reply's SQL is not run (the model is asked again)."""
ExplanationCheck = Callable[[Explanation], bool]
"""``(Explanation) -> refused``: the template from the rows explains them instead."""


def _rollups(n: NoteInput) -> list[str]:
    parents = rollups(n.question, n.linked, n.catalog, n.engine)
    n.covered.update(r.value.lower() for r in parents)
    return [rollup_note(r) for r in parents]


def _definitions(n: NoteInput) -> list[str]:
    own = definition_rows(n.question, n.linked, n.catalog, n.engine)
    return [definition_note(d) for d in (*own, *glossary_rows(n.question, n.glossary, own))]


def _spellings(n: NoteInput) -> list[str]:
    found = spellings(n.question, n.linked, n.catalog, n.engine, n.covered)
    return [spelling_note(s) for s in found]


def _labels(n: TableNoteInput) -> list[str]:
    return label_notes(n.catalog, n.tables, n.engine) if n.engine is not None else []


def _unclip(sql: str, q: Query) -> Fixed | None:
    return unclip(sql, dialect=q.dialect)


def _units(sql: str, q: Query) -> Fixed | None:
    return in_major_units(q.question, sql, catalog_units(q.catalog), dialect=q.dialect)


def _pin_today(sql: str, q: Query) -> str:
    return pin_today(sql, q.today, dialect=q.dialect) if q.today is not None else sql


def _one_kind(r: Refusal) -> Fixed | None:
    """When the issues are of two kinds ("r.status: write s.status" and "category_name: add
    JOIN dim_category ..."), each of which some mend reads alone, the first kind mended now
    (the gate's next look names the rest, and the path mends again): the local model, given
    both at once, swapped its product table for the category table."""
    if len(r.issues) < 2:
        return None
    alone = [next((m for m in r.mends if m(r.only([i])) is not None), None) for i in r.issues]
    first = alone[0]
    if first is None or None in alone:
        return None
    return first(r.only([i for i, m in zip(r.issues, alone, strict=True) if m is first]))


QUESTION_NOTES: tuple[Stage[QuestionNote], ...] = (
    Stage(
        "dates",
        "note",
        "relative time words ('last month') dated in the question: the model miscopied the date "
        "the prompt states",
        dated,
    ),
)
DEFINITIONS: Stage[ValueNote] = Stage(
    "definitions",
    "note",
    "a metric the question names is defined in a document table: quote the definition",
    _definitions,
)
"""Also run by the loop over the whole catalog (:func:`tablerag.loop.tablesql.table_schemas`:
the glossary table is a document table no chunk of a sub-question maps to)."""
VALUE_NOTES: tuple[Stage[ValueNote], ...] = (
    Stage(
        "rollup",
        "note",
        "a parent row of a hierarchy (华东) that facts never point at: filter its descendants",
        _rollups,
    ),
    DEFINITIONS,
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
        lambda r: requalify(r.sql, r.issues, dialect=r.dialect),
    ),
    Stage(
        "respell",
        "mend",
        "a column written with other case or underscores (pet_type for PetType), respelled",
        lambda r: respell(r.sql, r.issues, dialect=r.dialect),
    ),
    Stage(
        "from_mysql",
        "mend",
        "MySQL date functions (DATE_SUB, CURDATE) written for another dialect, translated",
        lambda r: from_mysql(r.sql, r.issues, dialect=r.dialect),
    ),
    Stage(
        "add_join",
        "mend",
        "a column of a table one key away: the join the gate names is added",
        lambda r: add_join(r.sql, r.issues, dialect=r.dialect),
    ),
    Stage(
        "rejoin",
        "mend",
        "a table joined on a column it lacks (category ON product_code): joined through the bridge",
        lambda r: rejoin(r.sql, r.issues, dialect=r.dialect),
    ),
    Stage(
        "one_kind",
        "mend",
        "a refusal naming issues of two kinds, each of which a mend above reads alone: the first "
        "kind mended now, the rest at the gate's next look",
        _one_kind,
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
AMOUNT_MENDS: tuple[Stage[ReplyMend], ...] = (
    Stage(
        "units",
        "mend",
        "an amount summed from a column stored in 分 read as 元, or '超过100元' compared with it "
        "as 100: the amounts in the unit the question asks for, from the catalog's units",
        _units,
    ),
)
"""Run on the model's query (after the reply mends and the type mends) and on every mended
one, their notes joined (:mod:`tablerag.nl2sql.units`)."""
TYPE_MENDS: tuple[Stage[ReplyMend], ...] = (
    Stage(
        "fractions",
        "mend",
        "a division of whole numbers (SUM(fen / 100), COUNT(a) / COUNT(b)) that PostgreSQL and "
        "SQLite truncate: the fraction kept, from the catalog's column types",
        lambda sql, q: keep_fractions(sql, column_types(q.catalog), dialect=q.dialect),
    ),
    Stage(
        "whole_days",
        "mend",
        "a timestamp column compared with a date-only upper bound (BETWEEN … AND '2026-12-31') "
        "stops at that day's midnight: the whole day read, from the catalog's column types",
        lambda sql, q: whole_days(sql, column_types(q.catalog), dialect=q.dialect),
    ),
    Stage(
        "whole_periods",
        "mend",
        "a date column compared with a month or a year written as text (day = '2026-05', day "
        "LIKE '2026-05-%'), which the database refuses: read as that whole period",
        lambda sql, q: whole_periods(sql, column_types(q.catalog), dialect=q.dialect),
    ),
)
"""Run on the model's query (after the reply mends) and on every mended one, before the
amount mends, their notes joined (:mod:`tablerag.nl2sql.typed`)."""
QUERY_MENDS: tuple[Stage[QueryMend], ...] = (
    Stage(
        "formats",
        "mend",
        "a column mixing '2026-09' and '202609' read in one format in every query",
        lambda sql, q: canonicalize_formats(sql, q.canonical, dialect=q.dialect),
    ),
    Stage(
        "pin_today",
        "mend",
        "CURRENT_DATE (NOW(), CURRENT_TIMESTAMP) asks the database's clock, not the day the "
        "`today` option sets (a sample's or a snapshot's): read as that day",
        _pin_today,
    ),
)
"""Run on every query, the model's or mended, in this order (:mod:`tablerag.nl2sql.canonical`,
:func:`tablerag.nl2sql.autofix.pin_today`)."""
REPLY_CHECKS: tuple[Stage[ReplyCheck], ...] = (
    Stage(
        "cut_reply",
        "check",
        "a reply cut off at its length limit inside its SQL block holds a query cut short: not "
        "run, the model asked again",
        cut_in_sql,
    ),
)
"""Checks of the model's reply before its SQL is read (:mod:`tablerag.nl2sql.explanation`)."""
ANSWER_CHECKS: tuple[Stage[Check], ...] = (
    Stage(
        "relevance",
        "check",
        "a query that reads no table, none the question linked to, or ignores a value the "
        "question names: the answer doubted",
        relevance,
    ),
    Stage(
        "plausibility",
        "check",
        "a result that cannot be the answer (all 0, a count beyond the table, a totals row "
        "summed, a figure 1000x its column, a rate over 100, rows picked by LIMIT, rows "
        "that can only repeat the query's own filter value, names compared in alphabetical "
        "order, a column subtracted from itself): doubted",
        plausibility,
    ),
    Stage(
        "followed",
        "check",
        "a metric definition from the documents the query does not follow (doubted) or follows "
        "(cited)",
        definitions,
    ),
    Stage(
        "asked_for",
        "check",
        "a count asked but an amount summed (or the other way), one day for a month, another "
        "period than the one named or only part of it (`< '2026-09-30'` for 2026-09), a period "
        "never asked, a formula applied row by row: doubted",
        asked_for,
    ),
    Stage(
        "quantity",
        "check",
        "a question asking how many or how much answered by text, or by the MAX/MIN/SUM/AVG of "
        "an identifier (MAX(学员编号) as 最多学员数): doubted",
        quantity,
    ),
    Stage(
        "invented",
        "check",
        "a filter on a string the question never mentions (course = 'BK202' for a question about "
        "the dormitory), neither matched by the value index nor named by a definition: doubted",
        invented,
    ),
    Stage(
        "negation",
        "check",
        "a question asking for things with none of something answered by <> on a joined table "
        "(a country showing one other cartoon kept beside the excluded one): doubted",
        negation,
    ),
    Stage(
        "named",
        "check",
        "a question asking which or each (哪个城市, 各品类) answered by one row of figures that "
        "names nothing (the grouping dropped): doubted",
        named,
    ),
    Stage(
        "labelled",
        "check",
        "things answered by their identifiers alone (哪些商店没雇人？ → 商店ID) where the table "
        "they identify keeps a name for each row and the question does not ask for the "
        "identifier: doubted",
        labelled,
    ),
    Stage(
        "referent",
        "check",
        "a question that opens by pointing back (他们的名字是什么？, Show their ages.) asked with "
        "nothing before it: what it asks about is not in it, the answer doubted",
        referent,
    ),
    Stage(
        "dates_read",
        "check",
        "a date the question writes 03/05/2026 compared in the other order than its column's "
        "file wrote dates: doubted",
        dates_read,
    ),
    Stage(
        "units_read",
        "check",
        "an amount reported in a minor unit (分) the question does not ask for, or amounts in "
        "different units added: doubted",
        units_read,
    ),
)
"""The answer checks every SQL answer that found rows goes through, in order
(:mod:`tablerag.nl2sql.checks`); their findings' weights are in
:mod:`tablerag.answer.confidence`."""
EXPLANATION_CHECKS: tuple[Stage[ExplanationCheck], ...] = (
    Stage(
        "grounded_explanation",
        "check",
        "the model's explanation of the rows was cut off, quotes nothing of the result or states "
        "a number from nowhere: the template from the rows instead",
        ungrounded,
    ),
)
LABEL_ROUND = Stage(
    "label_round",
    "doubt",
    "the loop's query found nothing for a label only an unshown table stores: ask over it",
    None,
)
"""Bound to its function by the loop (:data:`tablerag.loop.tablesql.ROUNDS`)."""
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
"""``compose`` and ``tiers`` run, in this order, on the loop's final answer: the
loop binds them to its functions (:data:`tablerag.loop.finish.FINISH`, through :func:`bound`)."""
SQL_FAILED = Stage(
    "sql_failed",
    "check",
    "every step's SQL failed and the documents answered alone: the loop's answer lacks its "
    "figures, unsure",
    None,
)
SQL_DOUBTED = Stage(
    "sql_doubted",
    "check",
    "the answer checks doubt every SQL result the loop's answer uses: unsure, with their reason",
    None,
)
CONFLICT = Stage(
    "conflict",
    "check",
    "a step's tables and documents answered the same thing differently: the loop's answer is "
    "unsure, both said",
    None,
)
LOOP_UNGROUNDED = Stage(
    "loop_ungrounded",
    "check",
    "the loop's answer states numbers no step, row, passage or the question holds: noted, its "
    "confidence capped",
    None,
)
"""The loop's verdicts on its final answer, in this order: the loop binds them to its
functions (:data:`tablerag.loop.verdicts.VERDICTS`)."""


STAGES: tuple[Stage[Any], ...] = (
    *QUESTION_NOTES,
    *VALUE_NOTES,
    *TABLE_NOTES,
    *QUERY_MENDS,
    *TYPE_MENDS,
    *AMOUNT_MENDS,
    *REPLY_MENDS,
    *REFUSAL_MENDS,
    *EMPTY_MENDS,
    *REPLY_CHECKS,
    *ANSWER_CHECKS,
    *EXPLANATION_CHECKS,
    *DOC_CHECKS,
    LABEL_ROUND,
    COMPOSE,
    TIERS,
    SQL_FAILED,
    SQL_DOUBTED,
    CONFLICT,
    LOOP_UNGROUNDED,
)
NAMES: tuple[str, ...] = tuple(s.name for s in STAGES)
REMOVED: frozenset[str] = frozenset(
    {
        *("unjoined", "past_the_data", "label_elsewhere", "rate", "recheck", "rate_caveat"),
        *("caveats", "distinct", "denominator", "slash_dates"),
    }
)
"""Names of steps that were removed (issue 29): a setting naming one says so."""


def switches(off: Sequence[str] = (), overrides: Mapping[str, bool] | None = None) -> Switches:
    """The switches of a profile (its stages ``off``) with per-name ``overrides`` on top.

    A family name (``notes``, ``mends``, ``doubts``) stands for all its stages; names are
    applied in order, so ``{"notes": False, "rollup": True}`` runs the roll-up note alone.

    Raises:
        ConfigError: an unknown stage or family name (with the closest one).

    Example:
        >>> sorted(switches(["label_round"], {"spelling": False}).off)
        ['label_round', 'spelling']
        >>> switches(["label_round"], {"doubts": True}).off
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
        elif name in REMOVED:
            raise ConfigError(
                f"Stage {name!r} was removed (it changed no answer on any evaluation set; "
                "docs/stages.md, 'Removed steps'); delete it from the 'stages' setting."
            )
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
    "AMOUNT_MENDS",
    "ANSWER_CHECKS",
    "COMPOSE",
    "DEFINITIONS",
    "CONFLICT",
    "DOC_CHECKS",
    "EMPTY_MENDS",
    "EXPLANATION_CHECKS",
    "FAMILIES",
    "Family",
    "LABEL_ROUND",
    "LOOP_UNGROUNDED",
    "NAMES",
    "QUERY_MENDS",
    "QUESTION_NOTES",
    "REFUSAL_MENDS",
    "REPLY_CHECKS",
    "REPLY_MENDS",
    "SQL_DOUBTED",
    "SQL_FAILED",
    "STAGES",
    "TABLE_NOTES",
    "TIERS",
    "TYPE_MENDS",
    "VALUE_NOTES",
    "Attempt",
    "NoteInput",
    "Query",
    "Refusal",
    "Stage",
    "Switches",
    "TableNoteInput",
    "bound",
    "describe",
    "switches",
]
