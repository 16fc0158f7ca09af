"""SQL over the tables a sub-question's chunks map to (TableRAG's chunk → table mapping).

The catalog is cut down to those tables, plus the best few tables the graph linker finds for the
sub-question in the whole catalog (a retrieved chunk can come from a document table that only
describes the data, e.g. a metric definition, while the facts sit in a table no chunk ranked),
before linking; the model sees their schemas, with the joins the linker proposes, and nothing else.
The linker's additions (its seed tables, and the bridges joining them) are capped: in a
catalog of many look-alike tables (one per report, each with ``item``, ``2019``, ``2018``) it
matches the question's years in all of them, and every extra table is noise the model reads
and pays for.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import replace
from decimal import Decimal

from tablerag.answer import Answer, Language, SQLAttempt
from tablerag.linking.catalog import SchemaCatalog, is_text_column
from tablerag.linking.fkgraph import FKGraph
from tablerag.linking.linker import LinkedSchema, link
from tablerag.linking.profile import is_numeric_type
from tablerag.linking.render import ident, render_full
from tablerag.llm.base import LLM
from tablerag.nl2sql.definitions import definition_note, definition_rows
from tablerag.nl2sql.literals import LabelHome, all_zero, found_nothing, label_homes
from tablerag.nl2sql.lookup import literal, quote, rows
from tablerag.nl2sql.path import MIN_CONFIDENCE, REWRITE_COST, NL2SQLOptions, answer_with_sql
from tablerag.nl2sql.schema_context import SchemaContext, keys_between, schema_context
from tablerag.sql.engines.base import SQLEngine
from tablerag.sql.sensitive import sanitize_sample
from tablerag.tokens import count_tokens

LINKED_EXTRA = 2
"""The linker's groups of key-joined tables added to the retrieved ones, best first."""
LABEL_TABLES = 2
LABEL_ROWS = 20
LABEL_CHARS = 60
_YEAR = re.compile(r"(?<!\d)(?:19|20)\d{2}(?!\d)")
_HOW_MANY_YEARS = re.compile(r"how many (?:of the )?years|有几年|哪几年|多少年", re.I)
_SCALES = {"thousand": Decimal(1_000), "million": Decimal(1_000_000), "billion": Decimal(10**9)}
_SCALED_FIGURE = re.compile(
    r"(?<![\w.])\$?\s?(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?\s*(thousand|million|billion)s?\b", re.I
)
_TABLE_UNIT = re.compile(r"\bin (thousand|million|billion)s\b", re.I)


def restrict(catalog: SchemaCatalog, tables: Iterable[str]) -> SchemaCatalog:
    """The part of ``catalog`` about ``tables`` (unknown names are ignored).

    Keys between kept tables, their profiles, values and the glossary are kept, so the linker
    still proposes joins between them.
    """
    keep = [t for t in dict.fromkeys(tables) if t in catalog.tables]
    names = set(keep)
    return SchemaCatalog(
        tables={t: catalog.tables[t] for t in keep},
        profiles={k: v for k, v in catalog.profiles.items() if k[0] in names},
        graph=FKGraph(
            keep, [e for e in catalog.edges if e.table in names and e.ref_table in names]
        ),
        values=catalog.values.restricted(names) if catalog.values is not None else None,
        glossary=dict(catalog.glossary),
    )


def table_schemas(
    question: str,
    catalog: SchemaCatalog,
    tables: Sequence[str],
    *,
    max_tokens: int,
    engine: SQLEngine | None = None,
    linked_extra: int = LINKED_EXTRA,
) -> SchemaContext:
    """Schema text of ``tables`` (and the linker's best tables for ``question``) in ``max_tokens``.

    ``linked_extra`` caps the linker's tables that are not among ``tables``.

    When the linker finds nothing in the question to choose between them, the retrieval
    already chose: the tables are shown whole (samples dropped if over the budget). With the
    engine, value notes (roll-ups, definitions, spellings) follow the schema as on the NL2SQL
    path, then the row labels of small retrieved tables (:func:`label_notes`). Definition rows
    are looked up in the whole catalog: the glossary table that defines 退货率 is a document
    table no chunk of the sub-question maps to, and the cut-down catalog would lose it.
    """
    if not tables:
        return SchemaContext("", (), 0)
    linked = link(question, catalog)
    sub = restrict(catalog, [*tables, *linked_tables(linked, catalog, tables, linked_extra)])
    if not sub.tables:
        return SchemaContext("", (), 0)
    defined = (
        [definition_note(d) for d in definition_rows(question, linked, catalog, engine)]
        if engine
        else []
    )
    if defined:
        max_tokens = max(max_tokens - count_tokens("\n".join(defined)), 0)
    context = schema_context(question, sub, max_tokens=max_tokens, engine=engine)
    if not context.tables:
        text = render_full(sub, samples=True)
        samples = text.tokens <= max_tokens
        if not samples:
            text = render_full(sub, samples=False)
        names = tuple(sub.tables)
        context = SchemaContext(
            text.text, names, text.tokens, samples, edges=keys_between(sub, names)
        )
    shown = [t for t in tables if t in context.tables]
    notes = [
        *(n for n in defined if n not in context.notes),
        *year_notes(sub, shown, question),
        *scale_notes(sub, shown, question),
        *(label_notes(sub, shown, engine) if engine else []),
    ]
    if not notes:
        return context
    full = context.text + "\n\n" + "\n".join(notes)
    return replace(context, text=full, tokens=count_tokens(full), notes=(*context.notes, *notes))


def linked_tables(
    linked: LinkedSchema, catalog: SchemaCatalog, tables: Sequence[str], linked_extra: int
) -> list[str]:
    """The linker's seed tables that ``tables`` lack, from its best ``linked_extra`` groups of
    tables joined by keys, and the bridge tables joining them to ``tables`` (a category table
    is no use without the product table between it and the sales).

    A group is a connected part of the key graph: in a star schema the facts and dimensions a
    question names come together ("退货率最高的三个品类" needs refunds, sales and categories;
    a cap of two tables left out the categories), while keyless look-alike tables (one per
    report) count one each.
    """
    part = catalog.graph.component
    groups: list[int | str] = []
    extra = []
    for t in linked.tables:
        if not t.is_seed or t.name in tables or t.score <= 0:
            continue  # a seed of score 0 is the linker's fallback: it found nothing
        group: int | str = part.get(t.name, t.name)  # a table off the graph is its own group
        if group not in groups:
            if len(groups) == linked_extra:
                continue
            groups.append(group)
        extra.append(t.name)
    if not extra:
        return []
    nodes, _ = catalog.graph.join_tree([*tables, *extra])
    return [*extra, *(n for n in nodes if n not in tables and n not in extra)]


def year_notes(catalog: SchemaCatalog, tables: Sequence[str], question: str = "") -> list[str]:
    """A note for each of the first :data:`LABEL_TABLES` tables that hold one column per year.

    A report table (``item``, ``col_2019``, ``col_2018``) has no ``year`` and no ``change``
    column, and the model wrote ``SELECT change FROM t`` or counted rows for "how many years
    did X exceed …" (11 of 23 wrong TAT-QA arithmetic and count answers of the loop, first 64
    questions). The note says how those are written over year columns: the count for a "how
    many years" question, the change for any other (given both, the model wrote the count for
    "What was the change in …" in 2 of 6 TAT-QA change questions; with one, in none), both
    without a question. The count names the row filter: given the formula alone, the model
    wrote none in 10 of 16 "how many years" TAT-QA questions, and 4 with it (2 more right). A
    table with a year in two columns (one measure per year twice) gets none: "one column per
    year" would be false. The change is spelled for the two years the question names when both
    are columns, else for the latest two.

    Example:
        >>> from tablerag.linking.catalog import build_catalog
        >>> from tablerag.types import ColumnInfo, TableInfo
        >>> cols = [ColumnInfo("item", "VARCHAR"), ColumnInfo("col_2019", "BIGINT"),
        ...         ColumnInfo("col_2018", "BIGINT")]
        >>> cat = build_catalog([TableInfo("t", "t.csv", tuple(cols), 3)])
        >>> note = year_notes(cat, ["t"])[0]
        >>> note.startswith("-- t has one column per year (col_2019, col_2018)")
        True
        >>> "the change from 2018 to 2019 is col_2019 - col_2018;" in note
        True
        >>> "CAST(col_2019 > x AS INTEGER) + CAST(col_2018 > x AS INTEGER) in the one row" in note
        True
        >>> note.endswith("(WHERE item = its label).")
        True
        >>> year_notes(cat, ["t"], "What was the change in revenue?")[0].endswith("col_2018.")
        True
        >>> "change" in year_notes(cat, ["t"], "How many years did revenue exceed $5m?")[0][-60:]
        False
    """
    asked = set(_YEAR.findall(question))
    counts = bool(_HOW_MANY_YEARS.search(question))
    notes: list[str] = []
    for name in tables[:LABEL_TABLES]:
        years: list[tuple[str, str]] = []
        for c in catalog.tables[name].columns:
            found = _YEAR.findall(c.name)
            if len(found) == 1 and is_numeric_type(c.type):
                years.append((found[0], c.name))
        if len(years) < 2 or len({y for y, _ in years}) < len(years):
            continue
        named = [y for y in years if y[0] in asked]
        (new_year, new), (old_year, old) = sorted(named if len(named) > 1 else years)[::-1][:2]
        columns = ", ".join(ident(c) for _, c in years)
        change = f"the change from {old_year} to {new_year} is {ident(new)} - {ident(old)}"
        count = " + ".join(f"CAST({ident(c)} > x AS INTEGER)" for _, c in years)
        label = next((c.name for c in catalog.tables[name].columns if is_text_column(c)), None)
        counting = f'"how many years" adds {count}'
        if label is not None:
            counting += f" in the one row it asks about (WHERE {ident(label)} = its label)"
        how = [change] if question and not counts else [counting] if counts else [change, counting]
        notes.append(
            f"-- {ident(name)} has one column per year ({columns}) and no year or change column: "
            + "; ".join(how)
            + "."
        )
    return notes


def scale_notes(catalog: SchemaCatalog, tables: Sequence[str], question: str) -> list[str]:
    """The amounts the question names with a scale word, in the unit of each table that has one.

    The model scales a figure the question names ("exceed $1,500 thousand" written
    ``> 1500000``) whatever unit the table's cells are in. The note gives the figure as the
    cells write it, for the first :data:`LABEL_TABLES` tables whose description names a unit
    ("Amounts in millions": $2,000 thousand is 2). On 200 TAT-QA questions it entered the
    prompts of 11 and changed 4 answers, none lost (1 newly right, through the model's 0/1
    clamp rather than the note); the wrong thresholds seen there were over tables that state
    no unit.

    Example:
        >>> from tablerag.linking.catalog import build_catalog
        >>> from tablerag.types import ColumnInfo, TableInfo
        >>> t = TableInfo("t", "t.csv", (ColumnInfo("col_2019", "BIGINT"),), 3,
        ...               description="Income taxes. Amounts in thousands.")
        >>> scale_notes(build_catalog([t]), ["t"], "How many years did X exceed $1,500 thousand?")
        ['-- t holds amounts in thousands: $1,500 thousand is 1500 in its cells.']
        >>> scale_notes(build_catalog([t]), ["t"], "Did X exceed $2.5 million?")
        ['-- t holds amounts in thousands: $2.5 million is 2500 in its cells.']
        >>> scale_notes(build_catalog([t]), ["t"], "Did X exceed 1,500?")
        []
    """
    figures = [
        (m.group(0).strip(), Decimal(m.group(1).replace(",", "") + (m.group(2) or "")), m.group(3))
        for m in _SCALED_FIGURE.finditer(question)
    ]
    notes: list[str] = []
    for name in tables[:LABEL_TABLES] if figures else ():
        unit = _TABLE_UNIT.search(catalog.tables[name].description)
        if unit is None:
            continue
        per = unit.group(1).lower()
        said = [
            f"{text} is {(value * _SCALES[word.lower()] / _SCALES[per]).normalize():f}"
            for text, value, word in figures
        ]
        notes.append(f"-- {ident(name)} holds amounts in {per}s: {'; '.join(said)} in its cells.")
    return notes


def label_notes(catalog: SchemaCatalog, tables: Sequence[str], engine: SQLEngine) -> list[str]:
    """Every row label of the first :data:`LABEL_TABLES` small retrieved tables, as a note.

    A report table (one row per line item: ``Statutory federal income tax rate``, …,
    ``Effective income tax rate``) is read through its label column, and the schema shows three
    samples of it cut to 30 characters; the model then filters on a label it can see rather
    than the one the question means. Tables of at most :data:`LABEL_ROWS` rows whose first text
    column holds a different value in every row get the whole list (values cut to 60
    characters and sanitised like every sample; columns whose values the schema already lists
    are skipped).
    """
    notes: list[str] = []
    for name in tables[:LABEL_TABLES]:
        info = catalog.tables[name]
        if not 0 < info.row_count <= LABEL_ROWS:
            continue
        column = next((c.name for c in info.columns if is_text_column(c)), None)
        profile = catalog.profile(name, column) if column else None
        if column is None or profile is None or profile.enum_values or not profile.is_unique:
            continue
        got = rows(engine, f"SELECT {quote(column)} FROM {quote(name)} LIMIT {LABEL_ROWS}")
        labels = [
            sanitize_sample(str(r[0]), limit=LABEL_CHARS) for r in got or () if r[0] is not None
        ]
        if labels:
            notes.append(f"-- {name}.{column} (all rows): " + ", ".join(literal(v) for v in labels))
    return notes


def answer_over_tables(
    question: str,
    *,
    llm: LLM,
    engine: SQLEngine,
    catalog: SchemaCatalog,
    tables: Sequence[str],
    language: Language,
    options: NL2SQLOptions,
    max_tokens: int,
) -> tuple[Answer, SchemaContext]:
    """Write, gate and run SQL for ``question`` over ``tables`` (see :func:`answer_with_sql`).

    A query that found nothing (or counted 0) because it filtered on a label that only a table
    the model was not shown stores (:func:`~tablerag.nl2sql.literals.label_homes`; retrieval
    mapped the question to a look-alike report) is written once more over that table alone
    (its row labels and year columns noted). A shown table that stores it is named in the
    NL2SQL repair round instead (:func:`~tablerag.nl2sql.literals.label_elsewhere`). The answer
    keeps both rounds' attempts; the first round's answer stands when the second finds nothing
    either.

    Never raises for model or SQL failures: they come back as an answer with status ``error``.
    """

    def ask(over: Sequence[str], extra: int = LINKED_EXTRA) -> tuple[Answer, SchemaContext]:
        schema = table_schemas(
            question, catalog, over, max_tokens=max_tokens, engine=engine, linked_extra=extra
        )
        answer = answer_with_sql(
            question, llm=llm, engine=engine, schema=schema, language=language, options=options
        )
        return answer, schema

    answer, schema = ask(tables)
    homes = [h for h in _homes(answer, catalog, engine.dialect) if h.table not in schema.tables]
    if not homes:
        return answer, schema
    again, wider = ask([h.table for h in homes], extra=0)
    if again.status != "ok" or found_nothing(again.table.rows if again.table else []):
        return answer, schema
    where = "; ".join(f"{h.table}.{h.column} stores {literal(h.label)}" for h in homes)
    first, *rest = again.sql_attempts or [SQLAttempt(sql=again.sql or "")]
    noted = first.model_copy(
        update={"note": f"asked again with the table that stores the label ({where})"}
    )
    timings = dict(answer.timings_ms)
    for stage, ms in again.timings_ms.items():
        timings[stage] = round(timings.get(stage, 0.0) + ms, 3)
    update = {
        "sql_attempts": [*answer.sql_attempts, noted, *rest],
        "timings_ms": timings,
        # the first round's query counts among the model's queries, as a repair round's does
        "confidence": max(MIN_CONFIDENCE, round(again.confidence - REWRITE_COST, 3)),
    }
    return again.model_copy(update=update), wider


def _homes(answer: Answer, catalog: SchemaCatalog, dialect: str) -> list[LabelHome]:
    """Where the labels of a query that found nothing live (none for any other answer)."""
    rows_ = answer.table.rows if answer.table is not None else []
    empty = answer.status == "no_data" or (answer.status == "ok" and all_zero(rows_))
    if not empty or not answer.sql:
        return []
    return label_homes(answer.sql, catalog.values, dialect)
