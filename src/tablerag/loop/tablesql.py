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

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace

from tablerag.answer import Answer, Language, SQLAttempt
from tablerag.answer.confidence import confidence
from tablerag.linking.catalog import SchemaCatalog
from tablerag.linking.fkgraph import FKGraph
from tablerag.linking.linker import LinkedSchema, link
from tablerag.linking.render import render_full
from tablerag.llm.base import LLM
from tablerag.nl2sql.literals import LabelHome, all_zero, found_nothing, label_homes
from tablerag.nl2sql.lookup import literal
from tablerag.nl2sql.path import NL2SQLOptions, answer_with_sql
from tablerag.nl2sql.schema_context import SchemaContext, keys_between, schema_context
from tablerag.nl2sql.stages import (
    ALL_ON,
    DEFINITIONS,
    LABEL_ROUND,
    TABLE_NOTES,
    NoteInput,
    Stage,
    Switches,
    TableNoteInput,
    bound,
)
from tablerag.sql.engines.base import SQLEngine
from tablerag.tokens import count_tokens
from tablerag.types import Hit

LINKED_EXTRA = 2
"""The linker's groups of key-joined tables added to the retrieved ones, best first."""


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
    stages: Switches = ALL_ON,
    passages: Sequence[Hit] = (),
) -> SchemaContext:
    """Schema text of ``tables`` (and the linker's best tables for ``question``) in ``max_tokens``.

    ``linked_extra`` caps the linker's tables that are not among ``tables``.

    When the linker finds nothing in the question to choose between them, the retrieval
    already chose: the tables are shown whole (samples dropped if over the budget). With the
    engine, value notes (roll-ups, definitions, spellings) follow the schema as on the NL2SQL
    path, then the table notes (:data:`~tablerag.nl2sql.stages.TABLE_NOTES`: year columns,
    scaled figures, the row labels of small retrieved tables, the ``passages`` that explain a
    metric the question names). Definition rows are looked up
    in the whole catalog: the glossary table that defines 退货率 is a document table no chunk
    of the sub-question maps to, and the cut-down catalog would lose it.
    """
    if not tables:
        return SchemaContext("", (), 0)
    linked = link(question, catalog)
    sub = restrict(catalog, [*tables, *linked_tables(linked, catalog, tables, linked_extra)])
    if not sub.tables:
        return SchemaContext("", (), 0)
    noted = NoteInput(question, linked, catalog, engine) if engine else None
    defined = [line for s in stages.enabled((DEFINITIONS,)) if noted for line in s.run(noted)]
    if defined:
        max_tokens = max(max_tokens - count_tokens("\n".join(defined)), 0)
    context = schema_context(question, sub, max_tokens=max_tokens, engine=engine, stages=stages)
    if not context.tables:
        text = render_full(sub, samples=True)
        samples = text.tokens <= max_tokens
        if not samples:
            text = render_full(sub, samples=False)
        names = tuple(sub.tables)
        context = SchemaContext(
            text.text, names, text.tokens, samples, edges=keys_between(sub, names)
        )
    context = replace(context, passages=tuple(passages))  # the answer checks read them too
    shown = [t for t in tables if t in context.tables]
    given = TableNoteInput(question, sub, shown, engine, passages)
    notes = [
        *(n for n in defined if n not in context.notes),
        *(line for note in stages.enabled(TABLE_NOTES) for line in note.run(given)),
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
    passages: Sequence[Hit] = (),
) -> tuple[Answer, SchemaContext]:
    """Write, gate and run SQL for ``question`` over ``tables`` (see :func:`answer_with_sql`);
    ``passages`` are the step's retrieved chunks, for the table notes.

    A query that found nothing (or counted 0) because it filtered on a label that only a table
    the model was not shown stores (:func:`~tablerag.nl2sql.literals.label_homes`; retrieval
    mapped the question to a look-alike report) is written once more over that table alone
    (its row labels and year columns noted). The answer keeps both rounds' attempts; the first
    round's answer stands when the second finds nothing either.

    Never raises for model or SQL failures: they come back as an answer with status ``error``.
    """

    def ask(over: Sequence[str], extra: int = LINKED_EXTRA) -> tuple[Answer, SchemaContext]:
        schema = table_schemas(
            question,
            catalog,
            over,
            max_tokens=max_tokens,
            engine=engine,
            linked_extra=extra,
            stages=options.stages,
            passages=passages,
        )
        answer = answer_with_sql(
            question, llm=llm, engine=engine, schema=schema, language=language, options=options
        )
        return answer, schema

    answered = ask(tables)
    again = Again(catalog, engine, options, ask)
    for stage in options.stages.enabled(ROUNDS):
        answered = stage.run(answered, again)
    return answered


Answered = tuple[Answer, SchemaContext]


@dataclass(frozen=True)
class Again:
    """What a further round of the loop's SQL reads: the catalog, the engine, the path's
    options, and how to ask the sub-question over other tables (``ask(tables, extra)``)."""

    catalog: SchemaCatalog
    engine: SQLEngine
    options: NL2SQLOptions
    ask: Callable[..., Answered]


Round = Callable[[Answered, Again], Answered]
"""``((answer, schema), Again) -> (answer, schema)``: a further round after the first."""


def _label_round(answered: Answered, r: Again) -> Answered:
    """Over the tables that store the labels a query found nothing for, asked once more."""
    answer, schema = answered
    homes = [h for h in _homes(answer, r.catalog, r.engine.dialect) if h.table not in schema.tables]
    if not homes:
        return answer, schema
    again, wider = r.ask([h.table for h in homes], extra=0)
    if again.status not in ("ok", "unsure") or found_nothing(
        again.table.rows if again.table else []
    ):
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
        "confidence": confidence(again.confidence, written=2, base=r.options.confidence),
    }
    return again.model_copy(update=update), wider


ROUNDS: tuple[Stage[Round], ...] = (bound(LABEL_ROUND, _label_round),)
"""The further rounds of the loop's SQL, in order (registered in :mod:`tablerag.nl2sql.stages`)."""


def _homes(answer: Answer, catalog: SchemaCatalog, dialect: str) -> list[LabelHome]:
    """Where the labels of a query that found nothing live (none for any other answer)."""
    rows_ = answer.table.rows if answer.table is not None else []
    empty = answer.status == "no_data" or (answer.status in ("ok", "unsure") and all_zero(rows_))
    if not empty or not answer.sql:
        return []
    return label_homes(answer.sql, catalog.values, dialect)
