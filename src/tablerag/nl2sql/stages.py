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
from typing import TYPE_CHECKING, Any, Generic, Literal, TypeVar

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
from tablerag.nl2sql.dates import dated
from tablerag.nl2sql.definitions import definition_note, definition_rows
from tablerag.nl2sql.joins import rebridge, unjoined
from tablerag.nl2sql.labels import label_notes
from tablerag.nl2sql.literals import found_nothing, label_elsewhere, past_the_data, stored_labels
from tablerag.nl2sql.prose_definitions import prose_definitions
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


@dataclass(frozen=True)
class Ran:
    """A query that ran, as a doubt or an empty-result mend looks at it."""

    question: str
    sql: str
    rows: Sequence[Sequence[object]]
    engine: SQLEngine
    edges: Sequence[JoinEdge]
    tables: Sequence[str]
    """The tables the model was shown."""


QuestionNote = Callable[[str, dt.date], str]
ValueNote = Callable[[NoteInput], Sequence[str]]
TableNote = Callable[[TableNoteInput], Sequence[str]]
ReplyMend = Callable[[str, str], Fixed | None]
RefusalMend = Callable[..., Fixed | None]
"""``(sql, issues, *, dialect) -> Fixed | None``: the gate's issues say what to mend."""
EmptyMend = Callable[[Ran], Fixed | None]
Doubt = Callable[[Ran], str | None]


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
RATE = Stage(
    "rate",
    "doubt",
    "the question asks for a rate the query does not compute, or every row's rate is 0 or 1",
    None,
)
"""Run by the path itself (:func:`tablerag.nl2sql.ratio.rate_problem`): its answer also carries
the caveat when the repair round does not mend it."""
DISTINCT = Stage(
    "distinct",
    "mend",
    "a query counted rows where the metric's definition counts distinct keys (按 order_id "
    "去重): the counts rewritten as COUNT(DISTINCT key)",
    None,
)
"""Run by the path on a query that found rows (:mod:`tablerag.nl2sql.distinct`)."""
DENOMINATOR = Stage(
    "denominator",
    "mend",
    "a rate divided by fewer values than its definition's denominator admits (status 为 PAID 或 "
    "REFUND): the denominator's comparison rewritten as column IN (those values)",
    None,
)
"""Run by the path on a query that found rows (:mod:`tablerag.nl2sql.denominator`)."""
RECHECK = Stage(
    "recheck",
    "doubt",
    "a query an answer check doubts (a definition not followed, a count asked but an amount "
    "summed, one day for a month, a period never asked): asked again once with the reason",
    None,
)
"""Run by the path itself on a query that found rows (:data:`tablerag.nl2sql.checks.REPAIRABLE`);
the repaired query's answer is checked again."""
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
    None,
)
"""Run by the path on every query (:func:`tablerag.nl2sql.canonical.canonicalize_formats`)."""
LABEL_ROUND = Stage(
    "label_round",
    "doubt",
    "the loop's query found nothing for a label only an unshown table stores: ask over it",
    None,
)
"""Run by the loop (:func:`tablerag.loop.tablesql.answer_over_tables`)."""
TIERS = Stage(
    "tiers",
    "note",
    "the loop's answer left matching each SQL row's rate to the policy's thresholds to the reader",
    None,
)
"""Run by the loop on its final answer (:func:`tablerag.loop.run.row_rules`)."""

STAGES: tuple[Stage[Any], ...] = (
    *QUESTION_NOTES,
    *VALUE_NOTES,
    *TABLE_NOTES,
    FORMATS,
    UNITS,
    *REPLY_MENDS,
    *REFUSAL_MENDS,
    *EMPTY_MENDS,
    DISTINCT,
    DENOMINATOR,
    *EMPTY_DOUBTS,
    RATE,
    RECHECK,
    LABEL_ROUND,
    TIERS,
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
    "EMPTY_DOUBTS",
    "EMPTY_MENDS",
    "FAMILIES",
    "NAMES",
    "QUESTION_NOTES",
    "REFUSAL_MENDS",
    "REPLY_MENDS",
    "STAGES",
    "TABLE_NOTES",
    "VALUE_NOTES",
    "NoteInput",
    "Ran",
    "Stage",
    "Switches",
    "TableNoteInput",
    "describe",
    "switches",
]
