"""What the answer checks (:mod:`tablerag.nl2sql.checks`) read, gathered for one query that ran.

The checks themselves are pure; this module reads what they need from the linker's answer and
the catalog the schema context carries (link scores, value matches, row counts, sampled
magnitudes, stored totals rows) and, through the read-only engine, the rows of the values the
question names and the metric definition rows of the documents. Every lookup goes through the
gate with the lookup policy; one the gate or the database refuses is simply left out.
"""

from __future__ import annotations

import re
import statistics
from collections.abc import Sequence
from pathlib import PurePath

import sqlglot
from sqlglot.errors import SqlglotError

from tablerag.lang.asks import excludes
from tablerag.lang.tokenize import light_stem, tokenize
from tablerag.lang.totals import TOTAL_LABELS
from tablerag.linking.catalog import SchemaCatalog, is_text_column
from tablerag.linking.fkgraph import is_idlike
from tablerag.linking.linker import LinkedSchema, is_document_table
from tablerag.linking.profile import ColumnProfile
from tablerag.linking.text import bigrams, han_text, name_words
from tablerag.linking.values import ValueMatch
from tablerag.nl2sql.checks import Definition, Evidence, tables_read
from tablerag.nl2sql.definitions import DefinitionRow, Glossary, definition_rows, glossary_rows
from tablerag.nl2sql.denominator import denominator_set
from tablerag.nl2sql.lookup import literal, quote, rows, specific_matches
from tablerag.nl2sql.prose_definitions import defining_passages
from tablerag.nl2sql.schema_context import SchemaContext
from tablerag.nl2sql.slashdates import date_readings
from tablerag.nl2sql.units import catalog_units
from tablerag.sql.engines.base import SQLEngine
from tablerag.sqltypes import type_family
from tablerag.types import ColumnInfo, Hit

MAX_VALUE_ROWS = 3
MAX_CELL_CHARS = 40
MAX_DEFINITION_ROWS = 50
"""Rows of a definitions table read to expand the terms a definition refers to."""
MAX_DEFINITION_CHARS = 120
CLOSING_MARKS = "；;，,。. "
"""Left off a quoted definition's end: the answer's sentence goes on after it."""
GENERIC_WORDS = frozenset(
    {
        "mani",
        "时候",
        "哪里",
        "什么样",
        "是不是",
        "change",
        "increase",
        "decrease",
        "difference",
        "变化",
        "增长",
        "much",
        "total",
        "number",
        "count",
        "list",
        "show",
        "were",
        "have",
        "there",
        "average",
        "highest",
        "lowest",
        "most",
        "least",
        "top",
        "each",
        "every",
        "all",
        "give",
        "find",
        "一共",
        "总共",
        "总",
        "平均",
        "最高",
        "最低",
        "最多",
        "最少",
        "每个",
        "各",
        "哪个",
        "所有",
        "分别",
        "多少钱",
        "排名",
        "前",
        "后",
    }
)
"""Question words that say how to aggregate, not what about (never named as uncovered)."""
_LATIN = re.compile(r"[A-Za-z]+")
_QUOTED = re.compile(r"'([^']{1,40})'")
_AGGREGATED = re.compile(r"\(\s*(?:distinct\s+)?([A-Za-z_][\w.]*)\s*\)", re.I)
_COMPARED = re.compile(r"([A-Za-z_][\w.]*)\s*(?:=|<>|!=|\bin\b|为|是)", re.I)
_DISTINCT = re.compile(r"\bdistinct\b|去重", re.I)
_SENTENCES = re.compile(r"(?<=[。；;！？!?])|\n+")
_FORMULA_MARK = re.compile(r"[=÷/]|divided by", re.I)


def _word_in(value: str) -> re.Pattern[str]:
    return re.compile(rf"(?<!\w){re.escape(value.lower())}(?!\w)")


def gather_evidence(
    question: str,
    sql: str,
    columns: Sequence[str],
    result_rows: Sequence[Sequence[object]],
    schema: SchemaContext,
    engine: SQLEngine,
) -> Evidence:
    """The evidence of one query that ran (only the query and rows when the schema context
    carries no linking, e.g. one built by hand).

    Args:
        question: the user's question.
        sql: the SQL the engine executed.
        columns: the result's column names.
        result_rows: the result's rows.
        schema: the schema context the model saw (with the linker's answer and the catalog).
        engine: the read-only engine the lookups go through.

    Returns:
        The evidence for :func:`~tablerag.nl2sql.checks.run_checks`.
    """
    try:
        tree = sqlglot.parse_one(sql, read=engine.dialect)
    except SqlglotError:
        tree = None
    base = Evidence(question, tree, tuple(columns), tuple(tuple(r) for r in result_rows))
    linked, catalog = schema.linked, schema.catalog
    if linked is None or catalog is None or not linked.tables:
        return base
    names = {n.lower(): n for n in catalog.tables}
    read = [names[t] for t in tables_read(tree) if t in names]
    scores = {t.name.lower(): t.score for t in linked.tables}
    scores |= {c.name.lower(): c.score for c in linked.compact if c.name.lower() not in scores}
    matches = _data_values(question, linked, catalog)
    return Evidence(
        question,
        tree,
        base.columns,
        base.rows,
        linked=scores,
        named=_named(linked, matches),
        table_words={t.lower(): _table_words(catalog, t) for t in read},
        question_words=question_words(question),
        name_words=frozenset(
            w
            for t in read
            for n in (t, *(c.name for c in catalog.tables[t].columns))
            for w in name_words(n)
        ),
        values=tuple(matches),
        value_cells={m.value: _cells(engine, catalog, m) for m in matches},
        table_names={n.lower(): _name_words(n) for n in catalog.tables},
        question_grams=question_grams(question),
        row_counts={t.lower(): catalog.tables[t].row_count for t in read},
        magnitudes=_magnitudes(catalog, read),
        totals=_totals(catalog, read),
        definitions=(
            *_definitions(question, linked, catalog, engine, schema.glossary, read),
            *_prose_definitions(question, schema.passages, catalog, read),
        ),
        date_readings=tuple(
            date_readings(question, [(t, c) for t in read for c in catalog.tables[t].columns])
        ),
        date_columns=frozenset(
            c.name.lower()
            for t in read
            for c in catalog.tables[t].columns
            if type_family(c.type) == "time"
        ),
        money_units=catalog_units(catalog),
        value_words=frozenset(m.value.lower() for m in linked.values),
        passages=tuple(h.text for h in schema.passages if _documents(h, catalog, read)),
        document_tables=frozenset(t.lower() for t in read if is_document_table(catalog.tables[t])),
        labels=id_labels(catalog, read),
    )


def id_labels(catalog: SchemaCatalog, read: Sequence[str]) -> dict[str, str]:
    """The identifier columns of the read tables that hold numbers (lower-case) →
    ``table.column`` of the name the table they identify keeps for each of its rows (``学生ID`` →
    ``高中生.姓名``). A code of letters (``breed_code`` 'BUL', ``币种代码`` 'USD') already reads as
    a name: left out.

    The table an identifier identifies is the one a foreign key of it references, else the
    read table it is unique in, else any table of the catalog it is unique in under the same
    name. Its name column is a text column called its rows' name (:func:`names_rows`) whose
    sampled values nearly all differ (:data:`NAME_DISTINCT`); hidden columns are not in the
    catalog and so never offered.
    """
    out: dict[str, str] = {}
    for table in read:
        for column in catalog.tables[table].columns:
            if (
                is_idlike(column.name)
                and _numbered(catalog, table, column)
                and column.name.lower() not in out
            ):
                label = next(
                    (
                        f"{owner}.{found}"
                        for owner in _identified(catalog, table, column.name)
                        if (found := _name_column(catalog, owner, column.name))
                    ),
                    "",
                )
                if label:
                    out[column.name.lower()] = label
    return out


def _numbered(catalog: SchemaCatalog, table: str, column: ColumnInfo) -> bool:
    """Whether a column holds numbers: typed so, or every sampled value is digits."""
    if type_family(column.type) == "number":
        return True
    profile = catalog.profile(table, column.name)
    samples = profile.samples if profile else ()
    return bool(samples) and all(s.strip().isdigit() for s in samples)


def _identified(catalog: SchemaCatalog, table: str, column: str) -> list[str]:
    """The tables whose rows ``table.column`` identifies, likeliest first."""
    low = column.lower()
    referenced = [
        e.ref_table
        for e in catalog.edges
        if e.table == table and tuple(c.lower() for c in e.columns) == (low,)
    ]
    unique = [
        name
        for name, info in catalog.tables.items()
        for c in info.columns
        if c.name.lower() == low and (p := catalog.profile(name, c.name)) and p.is_unique
    ]
    mine = [name for name in unique if name == table]
    return list(dict.fromkeys([*referenced, *mine, *unique]))


def _name_column(catalog: SchemaCatalog, table: str, key: str) -> str:
    """The column naming each row of ``table`` ("" when it has none): a text column called
    a name (:func:`names_rows`) whose sampled values nearly all differ."""
    return next(
        (
            c.name
            for c in catalog.tables[table].columns
            if c.name != key
            and is_text_column(c)
            and names_rows(table, c.name)
            and (p := catalog.profile(table, c.name)) is not None
            and _mostly_distinct(p)
            and not p.enum_values
        ),
        "",
    )


_NAME_WORDS = ("名称", "名字", "姓名", "name", "title", "名")


def names_rows(table: str, column: str) -> bool:
    """Whether ``column`` is called the name of ``table``'s rows: a bare name word (``name``,
    ``姓名``, ``名称``) or the table's own word before one (``船只名称`` in 船只, ``breed_name`` in
    breeds); not another thing's name (``customer_name`` in orders).

    Example:
        >>> names_rows("商店", "名称"), names_rows("船只", "船只名称")
        (True, True)
        >>> names_rows("breeds", "breed_name"), names_rows("Highschooler", "name")
        (True, True)
        >>> names_rows("orders", "customer_name"), names_rows("orders", "remark")
        (False, False)
    """
    low, own = column.lower(), table.lower()
    word = next((w for w in _NAME_WORDS if low.endswith(w)), None)
    if word is None:
        return False
    before = low[: -len(word)].rstrip("_ ")
    return not before or before in own or own in before


NAME_DISTINCT = 0.8
"""A name column: at least this share of its sampled values differ (people's names repeat)."""


def _mostly_distinct(profile: ColumnProfile) -> bool:
    """Whether nearly every sampled value of a column differs from the others."""
    held = profile.sampled_rows * (1 - profile.null_ratio)
    return held > 0 and profile.distinct_count >= NAME_DISTINCT * held


def _documents(hit: Hit, catalog: SchemaCatalog, read: Sequence[str]) -> bool:
    """Whether a passage is the documents' (prose, or a table cut from a document that the
    query does not read), not rows of a table cut into passages: a data table's show every
    stored value, and a read table's own values do not vouch for filtering on them."""
    info = catalog.tables.get(hit.table) if hit.table else None
    return info is None or (hit.table not in read and is_document_table(info))


def question_words(question: str) -> tuple[tuple[str, str], ...]:
    """The question's content words as (stem, as written), aggregation words left out.

    Example:
        >>> question_words("How many warranty claims were filed?")
        (('warranti', 'warranty'), ('claim', 'claims'), ('filed', 'filed'))
        >>> question_words("保修索赔一共有多少笔？")
        (('保修', '保修'), ('索赔', '索赔'))
    """
    written = {light_stem(w.lower()): w for w in _LATIN.findall(question)}
    out = []
    for token in dict.fromkeys(tokenize(question)):
        if token in GENERIC_WORDS or token.isdigit():
            continue
        if token.isascii() and len(token) >= 4:
            out.append((token, written.get(token, token)))
        elif not token.isascii() and len(token) >= 2:
            out.append((token, token))
    return tuple(out)


def _data_values(question: str, linked: LinkedSchema, catalog: SchemaCatalog) -> list[ValueMatch]:
    """Exact matches of the question's values in linked tables that hold data (a document
    table's cell is a definition or a rule, not a filter)."""
    shown = set(linked.shown_table_names)
    text = question.lower()
    out = []
    for m in specific_matches(question, linked.values):
        info = catalog.tables.get(m.table)
        if info is None or m.table not in shown or is_document_table(info) or len(m.value) < 2:
            continue
        if m.value.isascii() and not (tokenize(m.value) and _word_in(m.value).search(text)):
            continue  # "and" (an airport code), "large" inside "largest"
        out.append(m)
    return out


def _named(linked: LinkedSchema, matches: Sequence[ValueMatch]) -> frozenset[str]:
    by_name = {t.name.lower() for t in linked.tables if "name" in t.reasons}
    return frozenset(by_name | {m.table.lower() for m in matches})


def _table_words(catalog: SchemaCatalog, table: str) -> frozenset[str]:
    info = catalog.tables[table]
    words: set[str] = set(name_words(table)) | set(tokenize(info.description))
    texts = [info.description]
    for c in info.columns:
        words |= set(name_words(c.name)) | set(tokenize(c.original)) | set(tokenize(c.description))
        texts += [c.original, c.description, c.name]
    han = han_text(" ".join(texts) + " " + table)
    return frozenset(words | ({han} if han else set()))


def _name_words(table: str) -> frozenset[str]:
    """The words of a table's name: English words (not ``table``, no digits), Han bigrams."""
    latin = {w for w in name_words(table) if len(w) > 2 and not w.isdigit() and w != "table"}
    return frozenset(latin | bigrams(han_text(table)))


def question_grams(question: str) -> frozenset[str]:
    """The question's word stems and Han bigrams.

    Example:
        >>> sorted(question_grams("保修索赔 claims"))
        ['claim', '保修', '修索', '索赔']
    """
    stems = {light_stem(w.lower()) for w in _LATIN.findall(question)}
    return frozenset(stems | bigrams(han_text(question)))


def _cells(engine: SQLEngine, catalog: SchemaCatalog, m: ValueMatch) -> frozenset[str]:
    """The cells of the rows that store ``m.value`` (a code the SQL may filter on instead)."""
    names = [c.name for c in catalog.tables[m.table].columns]
    if m.column not in names:
        return frozenset()
    got = rows(
        engine,
        f"SELECT {', '.join(map(quote, names))} FROM {quote(m.table)} "
        f"WHERE lower(CAST({quote(m.column)} AS VARCHAR)) = {literal(m.value.lower())} "
        f"LIMIT {MAX_VALUE_ROWS}",
    )
    return frozenset(
        str(v).strip().lower()
        for row in got or ()
        for v in row
        if v is not None and 0 < len(str(v).strip()) <= MAX_CELL_CHARS
    )


def _magnitudes(catalog: SchemaCatalog, read: Sequence[str]) -> dict[str, float]:
    """Column → the median magnitude of its sampled numbers (the largest over the tables)."""
    out: dict[str, float] = {}
    for table in read:
        for (t, column), profile in catalog.profiles.items():
            if t != table:
                continue
            numbers = [abs(x) for x in map(_float, profile.samples) if x is not None]
            if len(numbers) >= 2 and (size := statistics.median(numbers)) > 0:
                out[column.lower()] = max(out.get(column.lower(), 0.0), size)
    return out


def _float(text: str) -> float | None:
    try:
        return float(text.replace(",", ""))
    except ValueError:
        return None


def _totals(catalog: SchemaCatalog, read: Sequence[str]) -> tuple[tuple[str, str, str], ...]:
    if catalog.values is None:
        return ()
    ours = set(read)
    return tuple(
        (t, c, label)
        for label in sorted(TOTAL_LABELS)
        for t, c in catalog.values.owners(label)
        if t in ours
    )


def _definitions(
    question: str,
    linked: LinkedSchema,
    catalog: SchemaCatalog,
    engine: SQLEngine,
    glossary: Glossary | None = None,
    read: Sequence[str] = (),
) -> tuple[Definition, ...]:
    """The definition rows the question names, the place asked's own and its glossary's
    (the workspace's files when a database is asked), as what a query following them has:
    the columns and quoted values of its text, and the values of the tables the query reads
    that its cells name ("状态为 PAID 或 REFUND 的订单") — those an aside or a sentence leaves
    out ("（不含 CANCELLED）", "CANCELLED 订单不计入") are what it must not select."""
    own = definition_rows(question, linked, catalog, engine)
    samples = _samples(catalog)
    out = []
    for row in (*own, *glossary_rows(question, glossary, own)):
        term, text = _term_and_text(row.cells)
        if not term or not text:
            continue
        where = row.glossary or Glossary(catalog, engine)
        referred = _referred(row, term, text, where.catalog, where.engine)
        expanded = text + " " + " ".join(referred)
        known = {c.name.lower() for info in catalog.tables.values() for c in info.columns}
        columns, literals, distinct = requirements(expanded, known)
        kept, left_out = _row_values(row.cells, catalog, read)
        literals = tuple(dict.fromkeys((*literals, *kept)))
        short = text[:MAX_DEFINITION_CHARS].rstrip(CLOSING_MARKS)
        divides = denominator_set(text, known, samples)
        out.append(
            Definition(
                term, short, row.document, row.table, columns, literals, distinct,
                others=left_out, denominator=divides,
            )
        )  # fmt: skip
    return tuple(out)


def _prose_definitions(
    question: str, passages: Sequence[Hit], catalog: SchemaCatalog, read: Sequence[str]
) -> tuple[Definition, ...]:
    """Definitions in passages' prose ("客单价 = 已支付订单的订单金额合计 ÷ 已支付订单数。已退款、
    已取消的订单不计入客单价"): what their formula sentences name — columns, quoted values, and
    values stored in the tables the query reads (已支付 of 订单状态) — is what a query following
    them has; values a sentence excludes (不计入, not counted) are what it must not select."""
    known = {c.name.lower() for info in catalog.tables.values() for c in info.columns}
    samples = _samples(catalog)
    out = []
    for term, hit in defining_passages(question, passages):
        sentences = _SENTENCES.split(hit.text)
        formula = " ".join(s for s in sentences if _FORMULA_MARK.search(s))
        excluding = " ".join(s for s in sentences if excludes(s))
        columns, literals, distinct = requirements(formula, known)
        stored = _stored_values(formula, catalog, read)
        left_out = [v for v in _stored_values(excluding, catalog, read) if v not in stored]
        text = _after_term(term, " ".join(formula.split()))[:MAX_DEFINITION_CHARS]
        text = text.rstrip(CLOSING_MARKS)
        document = PurePath(hit.source).name
        literals = tuple(dict.fromkeys((*literals, *stored)))
        out.append(
            Definition(
                term, text, document, "", columns, literals, distinct, hit.chunk_id,
                tuple(left_out), denominator_set(hit.text, known, samples),
            )
        )  # fmt: skip
    return tuple(out)


def _samples(catalog: SchemaCatalog) -> dict[str, tuple[str, ...]]:
    """The values the data holds per column (lower-case names): they name a denominator's set
    however a definition joins them ("status PAID or later REFUND")."""
    return {
        c.name.lower(): tuple(c.samples)
        for info in catalog.tables.values()
        for c in info.columns
        if c.samples
    }


_PIECES = re.compile(r"[。；;！？!?\n（）()]")


def _row_values(
    cells: Sequence[tuple[str, str]], catalog: SchemaCatalog, read: Sequence[str]
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The stored values of the ``read`` tables a definition row's cells keep, and those it
    leaves out (in a sentence or an aside that excludes: 不含, 不计入, excluding).

    Each sentence and each parenthesised aside of the cells (the term's cell aside) is read
    apart, so "状态为 PAID 或 REFUND 的订单（不含 CANCELLED）" keeps PAID and REFUND and leaves
    CANCELLED out.
    """
    kept: list[str] = []
    out: list[str] = []
    for piece in _PIECES.split(" ".join(v for _, v in cells[1:])):
        (out if excludes(piece) else kept).extend(_stored_values(piece, catalog, read))
    keep = tuple(dict.fromkeys(kept))
    return keep, tuple(v for v in dict.fromkeys(out) if v not in keep)


def _after_term(term: str, formula: str) -> str:
    """The formula without the term it opens with, as the answer says "{term} = {formula}".

    Example:
        >>> _after_term("退货率", "退货率 = 退款订单数 ÷ 已支付订单数"), _after_term("x", "a ÷ b")
        ('退款订单数 ÷ 已支付订单数', 'a ÷ b')
    """
    opening = re.match(rf"\s*{re.escape(term)}\s*[=：:]\s*", formula)
    return formula[opening.end() :] if opening else formula


def _stored_values(text: str, catalog: SchemaCatalog, read: Sequence[str]) -> tuple[str, ...]:
    """Values of text columns of the ``read`` tables that ``text`` names (two or more
    characters; a code like ``PAID`` only as a whole word)."""
    if catalog.values is None or not text:
        return ()
    tables = set(read)
    found = []
    for value, owners in catalog.values.items():
        if len(value) < 2 or not any(t in tables for t, _ in owners):
            continue
        if (value.isascii() and _word_in(value).search(text.lower())) or (
            not value.isascii() and value in text
        ):
            found.append(value)
    return tuple(found)


def _term_and_text(cells: Sequence[tuple[str, str]]) -> tuple[str, str]:
    """The term (the first cell) and its definition (the longest other cell)."""
    if len(cells) < 2:
        return "", ""
    return cells[0][1], max((v for _, v in cells[1:]), key=len)


def _referred(
    row: DefinitionRow, term: str, text: str, catalog: SchemaCatalog, engine: SQLEngine
) -> list[str]:
    """The definitions of the other terms ``text`` refers to ("销售额（净额） ÷ 订单数")."""
    info = catalog.tables.get(row.table)
    if info is None:
        return []
    names = [c.name for c in info.columns]
    got = rows(engine, f"SELECT {', '.join(map(quote, names))} FROM {quote(row.table)} "
               f"LIMIT {MAX_DEFINITION_ROWS}")  # fmt: skip
    out = []
    for cells in got or ():
        texts = ["" if v is None else str(v) for v in cells]
        other = texts[0].strip() if texts else ""
        if len(other) >= 2 and other != term and other in text:
            out.append(" ".join(texts[1:]))
    return out


def requirements(text: str, columns: set[str]) -> tuple[tuple[str, ...], tuple[str, ...], bool]:
    """What a query following the definition ``text`` has: the columns it aggregates or
    compares (among ``columns``), the values it quotes, and whether it counts distinct.

    Example:
        >>> r = requirements("SUM(net_amt) − SUM(cost_amt) / 100，status = 'PAID'",
        ...                  {"net_amt", "cost_amt", "status", "order_id"})
        >>> r
        (('net_amt', 'cost_amt', 'status'), ('PAID',), False)
        >>> requirements("COUNT(DISTINCT order_id)，按订单去重", {"order_id"})
        (('order_id',), (), True)
    """
    named = [m.group(1) for m in _AGGREGATED.finditer(text)]
    named += [m.group(1) for m in _COMPARED.finditer(text)]
    found = [n.rsplit(".", 1)[-1].lower() for n in named]
    return (
        tuple(dict.fromkeys(c for c in found if c in columns)),
        tuple(dict.fromkeys(_QUOTED.findall(text))),
        bool(_DISTINCT.search(text)),
    )
