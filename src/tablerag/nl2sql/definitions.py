"""Definition notes: rows of document tables that the question names, quoted for the SQL model.

A metric glossary is usually a table in a document ("毛利 | SUM(net_amt) − SUM(cost_amt) / 100 |
财务部"). Queried as a table it only distracts the model; quoted as a comment next to the schema
it tells the model how to compute the metric. A row is quoted when the question names the value
of one of its cells exactly and another cell holds text (a formula, a rule); rows of numbers
(targets, prices) are data, not definitions, and are left to the tables.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import PurePath

from tablerag.linking.catalog import SchemaCatalog
from tablerag.linking.lexicon import translate
from tablerag.linking.linker import LinkedSchema, is_document_table, link
from tablerag.nl2sql.lookup import literal, quote, rows, specific_matches
from tablerag.sql.engines.base import SQLEngine
from tablerag.sql.sensitive import sanitize_sample

MAX_ROWS = 3
MAX_CELL_CHARS = 100
MIN_TEXT_CHARS = 6
"""A row is a definition when another of its cells holds at least this much text."""


@dataclass(frozen=True)
class Glossary:
    """The document tables of another place than the one asked: a metric glossary in the
    workspace's files ("GMV | Σ(数量×单价) | 状态为 PAID 或 REFUND") defines what a connected
    database's query must compute. Its rows are read through its own engine."""

    catalog: SchemaCatalog
    engine: SQLEngine


@dataclass(frozen=True)
class DefinitionRow:
    """One row of a document table, named by the question."""

    document: str
    """File name of the document the table came from."""
    table: str
    cells: tuple[tuple[str, str], ...]
    """(column header, cell text) of the non-empty cells, in column order, both sanitised."""
    glossary: Glossary | None = field(default=None, compare=False, repr=False)
    """Where the row was read when it is not the place asked (None: the same place)."""


def definition_rows(
    question: str,
    linked: LinkedSchema,
    catalog: SchemaCatalog,
    engine: SQLEngine,
    *,
    skip_linked: bool = True,
) -> tuple[DefinitionRow, ...]:
    """Rows of document tables (not linked themselves) whose cell the question names, in
    either language ("return rate" names a 退货率 row; see ``lexicon.translate``).

    Args:
        question: the user's question.
        linked: the linker's answer (its value matches and tables).
        catalog: the linking catalog (tables, their sources and columns).
        engine: the read-only engine the rows are read through.
        skip_linked: leave out tables the linker chose (the SQL prompt shows them already).

    Returns:
        At most :data:`MAX_ROWS` definition rows, in the order of the value matches.
    """
    found: list[DefinitionRow] = []
    for m in specific_matches(translate(question, catalog.terms), linked.values):
        info = catalog.tables.get(m.table)
        shown = skip_linked and m.table in linked.table_names
        if info is None or shown or not is_document_table(info):
            continue
        names = [c.name for c in info.columns]
        headers = [sanitize_sample(c.original or c.name, fold=False) for c in info.columns]
        # the index holds values lower-cased ("gmv" for GMV): compare as it does
        where = f"lower(trim({quote(m.column)})) = {literal(m.value)}"
        got = rows(
            engine,
            f"SELECT {', '.join(map(quote, names))} FROM {quote(m.table)} "
            f"WHERE {where} LIMIT {MAX_ROWS}",
        )
        for row in got or ():
            kept = [(n, h, _cell(v)) for n, h, v in zip(names, headers, row, strict=True)]
            cells = tuple((h, text) for _, h, text in kept if text)
            if _seen(found, m.table, cells) or not any(
                _is_text(text) for n, _, text in kept if n != m.column
            ):
                continue
            found.append(DefinitionRow(PurePath(info.source).name, m.table, cells))
            if len(found) == MAX_ROWS:
                return tuple(found)
    return tuple(found)


def glossary_rows(
    question: str, glossary: Glossary | None, found: Sequence[DefinitionRow] = ()
) -> tuple[DefinitionRow, ...]:
    """The definition rows of ``glossary``'s document tables the question names, besides
    ``found`` (the place asked's own), at most :data:`MAX_ROWS` in all: the glossary is
    linked on its own, and a table of it the linker chose is read all the same (there it is
    the only table, not a distraction among the data's).

    Example:
        >>> glossary_rows("GMV 是多少？", None)
        ()
    """
    if glossary is None or len(found) >= MAX_ROWS:
        return ()
    linked = link(question, glossary.catalog)
    rows_ = definition_rows(question, linked, glossary.catalog, glossary.engine, skip_linked=False)
    out = [replace(r, glossary=glossary) for r in rows_ if not _seen([*found], r.table, r.cells)]
    return tuple(out[: MAX_ROWS - len(found)])


def _cell(value: object) -> str:
    """A cell as the model may see it: stored text is untrusted (see ``sanitize_sample``); a
    formula keeps its own punctuation (folding "100，status" to "100,status" cost the demo's
    毛利 query)."""
    return "" if value is None else sanitize_sample(str(value), limit=MAX_CELL_CHARS, fold=False)


def _is_text(value: str) -> bool:
    return len(value) >= MIN_TEXT_CHARS and any(ch.isalpha() for ch in value)


def _seen(found: list[DefinitionRow], table: str, cells: tuple[tuple[str, str], ...]) -> bool:
    return any(d.table == table and d.cells == cells for d in found)


def definition_note(row: DefinitionRow) -> str:
    """The schema comment quoting one definition row.

    Example:
        >>> cells = (("指标", "毛利"), ("计算公式", "净额 − 成本/100"))
        >>> definition_note(DefinitionRow("指标口径.md", "t", cells))
        '-- 指标口径.md: 指标 = 毛利; 计算公式 = 净额 − 成本/100'
    """
    return f"-- {row.document}: " + "; ".join(f"{h} = {v}" for h, v in row.cells)
