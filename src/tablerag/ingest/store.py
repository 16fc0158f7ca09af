"""Store a staged table as a typed table in the ``data`` schema, and name SQL objects well.

Types are proven over every value, in SQL (see ``tablerag.ingest.infer``): the first rows
propose a type per column; one ``CREATE TABLE AS`` converts each value that fits its proposal
and flags each that does not; flagged values that are null tokens are reported, and any other
misfit widens the type (or leaves the column text) and the table is built again. A clean table
costs one scan. ``load_typed`` also serves the CSV fast path, straight from ``read_csv``.
The caller owns the transaction; nothing here begins or commits one.
"""

from __future__ import annotations

import dataclasses
import re
import unicodedata
import uuid
from collections.abc import Mapping, Sequence

import duckdb

from tablerag.errors import SourceError
from tablerag.ingest import infer
from tablerag.store.staging import STAGE_PREFIX, StagedTable
from tablerag.types import ColumnInfo, Problem, TableInfo

#: DuckDB's reserved words; a name equal to one of them gets a trailing underscore.
RESERVED = frozenset(
    {
        "all",
        "analyse",
        "analyze",
        "and",
        "any",
        "array",
        "as",
        "asc",
        "asymmetric",
        "both",
        "case",
        "cast",
        "check",
        "collate",
        "column",
        "constraint",
        "create",
        "default",
        "deferrable",
        "desc",
        "describe",
        "distinct",
        "do",
        "else",
        "end",
        "except",
        "false",
        "fetch",
        "for",
        "foreign",
        "from",
        "group",
        "having",
        "in",
        "initially",
        "intersect",
        "into",
        "lambda",
        "lateral",
        "leading",
        "limit",
        "not",
        "null",
        "offset",
        "on",
        "only",
        "or",
        "order",
        "pivot",
        "pivot_longer",
        "pivot_wider",
        "placing",
        "primary",
        "qualify",
        "references",
        "returning",
        "select",
        "show",
        "some",
        "summarize",
        "symmetric",
        "table",
        "then",
        "to",
        "trailing",
        "true",
        "union",
        "unique",
        "unpivot",
        "using",
        "variadic",
        "when",
        "where",
        "window",
        "with",
    }
)
_MAX_NAME_BYTES = 63  # PostgreSQL's identifier limit, so names survive a move to PostgreSQL
_HEAD_ROWS = 1000
_MAX_ROUNDS = 4
_GROUP_COLUMNS = 128
"""Widest statement ``load_typed`` builds; a wider table is typed by groups of columns."""
_BITS = 60
_FORMULA = "regexp_full_match({v}, '=[A-Za-z_(\\$].*')"


def sanitize_table_name(name: str, taken: set[str]) -> str:
    """Make a SQL table name: lowercase snake_case, CJK kept, never empty, unique in ``taken``.

    ``taken`` is not changed; add the result to it yourself.

    Example:
        >>> sanitize_table_name("Sales Report (2026).csv", set())
        'sales_report_2026_csv'
        >>> sanitize_table_name("2026 销售", {"t_2026_销售"})
        't_2026_销售_2'
        >>> sanitize_table_name("Order", set()), sanitize_table_name("---", set())
        ('order_', 'table')
    """
    return _unique(_clean(name, fallback="table", digit_prefix="t_"), taken)


def sanitize_column_names(names: Sequence[str]) -> list[str]:
    """Make SQL column names for a header: cleaned like table names, empty -> ``col_<n>``, unique.

    Example:
        >>> sanitize_column_names(["Amount", "", "amount", "增长率 %", "2026 / Q1", "#"])
        ['amount', 'col_2', 'amount_2', '增长率_pct', 'col_2026_q1', 'num']
    """
    taken: set[str] = set()
    out = []
    for position, name in enumerate(names, start=1):
        clean = _unique(sanitize_column_name(name, position), taken)
        taken.add(clean)
        out.append(clean)
    return out


def sanitize_column_name(name: str, position: int) -> str:
    """Clean one header cell (not made unique); ``position`` (1-based) names an empty one.

    Example:
        >>> sanitize_column_name("  ", 3), sanitize_column_name("Unit Price (¥)", 1)
        ('col_3', 'unit_price')
    """
    return _clean(name, fallback=f"col_{position}", digit_prefix="col_")


def store_table(
    con: duckdb.DuckDBPyConnection,
    staged: StagedTable,
    target: str,
    *,
    source: str = "",
    replace: bool = False,
) -> TableInfo:
    """Create ``data."<target>"`` from a staged table, with inferred types, in source order.

    Problems found while typing (null tokens turned into NULL, formula-like text) are appended
    to ``staged.problems``. The staged table is used up: dropped after the copy, or renamed when
    the reader built the final table itself (``staged.final``: no copy), and dropped as well
    when the target exists and ``replace`` is false.

    Args:
        con: the workspace connection (the caller owns the transaction).
        staged: the rows a reader staged.
        target: the table name, usually from ``sanitize_table_name``.
        source: the source the table came from, recorded in the ``TableInfo``.
        replace: replace an existing table of that name instead of failing.

    Returns:
        The stored table's name, columns (type, original header, unit) and row count.

    Raises:
        SourceError: the table already exists and ``replace`` is false.
    """
    relation = staged.sql
    columns = _staged_columns(con, relation)
    names = sanitize_column_names([name for name, _ in columns])
    con.execute("CREATE SCHEMA IF NOT EXISTS data")
    table = f"data.{_q(target)}"
    exists = con.execute(
        "SELECT count(*) FROM duckdb_tables() WHERE schema_name = 'data' AND "
        "table_name = ? AND NOT temporary",
        [target],
    ).fetchone()
    if exists and exists[0] and not replace:
        con.execute(f"DROP TABLE IF EXISTS {relation}")
        raise SourceError(
            source or staged.name,
            f"Table {target!r} already exists; pass replace=True or choose another name.",
        )
    units: dict[str, str | None]
    if staged.final:  # the reader built the table: rename it, no copy
        con.execute(f"DROP TABLE IF EXISTS {table}")
        con.execute(f"ALTER TABLE {relation} RENAME TO {_q(target)}")
        _rename_columns(con, table, [old for old, _ in columns], names)
    elif staged.typed:
        select = ", ".join(
            f"{_q(old)} AS {_q(new)}" for (old, _), new in zip(columns, names, strict=True)
        )
        con.execute(f"CREATE OR REPLACE TABLE {table} AS SELECT {select} FROM {relation}")
        report_formulas(con, table, staged.problems)
    if staged.typed:
        units = {
            new: staged.units[old]
            for (old, _), new in zip(columns, names, strict=True)
            if old in staged.units
        }
    else:
        proposals = propose_types(con, relation, columns)
        decided = load_typed(
            con,
            relation,
            [],
            list(zip([c for c, _ in columns], names, strict=True)),
            proposals,
            table,
            staged.problems,
        )
        units = {
            new: decided[old].unit
            for (old, _), new in zip(columns, names, strict=True)
            if old in decided and decided[old].unit
        }
    con.execute(f"DROP TABLE IF EXISTS {relation}")
    return _table_info(con, staged, target, units, source)


def _rename_columns(
    con: duckdb.DuckDBPyConnection, table: str, old: Sequence[str], new: Sequence[str]
) -> None:
    """Rename the columns of ``table`` (quoted) from ``old`` to ``new``, even when they swap."""
    moves = [(i, a, b) for i, (a, b) in enumerate(zip(old, new, strict=True)) if a != b]
    for i, a, _ in moves:  # through names no column has, so a rename never hits a live name
        con.execute(f"ALTER TABLE {table} RENAME COLUMN {_q(a)} TO _tablerag_rename_{i}")
    for i, _, b in moves:
        con.execute(f"ALTER TABLE {table} RENAME COLUMN _tablerag_rename_{i} TO {_q(b)}")


def propose_types(
    con: duckdb.DuckDBPyConnection,
    relation: str,
    columns: Sequence[tuple[str, str]],
) -> dict[str, infer.ColumnType]:
    """Propose a type for every VARCHAR column of ``relation`` (quoted) from its first rows.

    Returns:
        Column name -> proposed type, for the VARCHAR columns (others are kept as they are).
    """
    text_columns = [name for name, type_ in columns if type_ == "VARCHAR"]
    if not text_columns:
        return {}
    head = con.execute(
        f"SELECT {', '.join(map(_q, text_columns))} FROM {relation} LIMIT {_HEAD_ROWS}"
    ).fetchall()
    proposed: dict[str, infer.ColumnType] = {}
    for index, name in enumerate(text_columns):
        values = [row[index] for row in head]
        if all(v is None or infer.is_null_token(v) for v in values):
            values += [
                r[0]
                for r in con.execute(
                    f"SELECT {_q(name)} FROM {relation} WHERE {_q(name)} IS NOT NULL AND NOT "
                    f"{infer.null_tokens_sql(_q(name))} LIMIT {_HEAD_ROWS}"
                ).fetchall()
            ]
        proposed[name] = propose(values)
    return proposed


def propose(values: Sequence[str | None]) -> infer.ColumnType:
    """The type a column's first values suggest (checked later against every value).

    Example:
        >>> propose(["1", "2", None, "N/A"]).sql_type, propose(["1", "x"]).sql_type
        ('BIGINT', 'VARCHAR')
    """
    shape = _fold(values)
    return infer.TEXT if shape is None else infer.column_type(shape)


def load_typed(
    con: duckdb.DuckDBPyConnection,
    source: str,
    params: Sequence[object],
    columns: Sequence[tuple[str, str]],
    proposals: dict[str, infer.ColumnType],
    target: str,
    problems: list[Problem],
    *,
    temporary: bool = False,
) -> dict[str, infer.ColumnType]:
    """Create ``target`` from ``source`` converting each column as proposed, losing nothing.

    One scan converts every value that fits its column's proposed type and flags those that do
    not, and the text cells that start with ``=``. When the flagged values are all null tokens
    they are reported (stored as NULL); otherwise the type is widened by the misfits (or becomes
    text) and the table is built again. ``source`` is read again only for flagged columns, and
    ``target`` only for text columns with a flagged cell (the formula report, as in
    ``report_formulas``). Nothing begins or commits.

    Args:
        con: the connection.
        source: a quoted relation or a table function call such as ``read_csv(?, ...)``.
        params: the parameters of ``source``.
        columns: (source column, target column) pairs, in order.
        proposals: source column -> proposed type (``infer.TEXT`` for a text column); a column
            without one is copied as is.
        target: the quoted table to create (replaced if it exists).
        problems: the report the null-token and formula lines are appended to.
        temporary: create a temp table.

    Returns:
        Source column -> the type it was stored with.
    """
    if len(columns) > _GROUP_COLUMNS:
        return _load_typed_wide(
            con, source, params, columns, proposals, target, problems, temporary=temporary
        )
    decided = dict(proposals)
    for attempt in range(_MAX_ROUNDS + 1):
        if attempt == _MAX_ROUNDS:  # still misfits after widening: stop typing those columns
            decided = {n: infer.TEXT if t.check else t for n, t in decided.items()}
        flagged = _flagged(columns, decided)
        con.execute(
            f"CREATE OR REPLACE {'TEMP ' if temporary else ''}TABLE {target} AS "
            f"{_typed_select(source, columns, decided)}",
            list(params),
        )
        if not flagged:
            return decided
        groups = _groups(len(flagged))
        row = con.execute(
            "SELECT " + ", ".join(f"bit_or(_bad_{g})" for g in range(groups)) + f" FROM {target}"
        ).fetchone()
        assert row is not None
        bits = [bool((row[k // _BITS] or 0) >> (k % _BITS) & 1) for k in range(len(flagged))]
        lost = [
            columns[i][0] for (i, misfit), bit in zip(flagged, bits, strict=True) if bit and misfit
        ]
        reports, exact = [], True
        for old in lost:
            column_type, col = decided[old], _q(old)
            token = infer.null_tokens_sql(col)
            misfit = (
                f"{col} IS NOT NULL AND NOT {token} AND NOT coalesce("
                f"{column_type.check_sql(col)} AND {column_type.cast_sql(col)} IS NOT NULL"
                ", false)"
            )
            # Rare (dirty columns only): read the source again for the report and the misfits.
            tokens, example = con.execute(
                f"SELECT count(*) FILTER (WHERE {token}), max({col}) FILTER (WHERE {token}) "
                f"FROM {source}",
                list(params),
            ).fetchone() or (0, None)
            misfits = [
                r[0]
                for r in con.execute(
                    f"SELECT {col} FROM {source} WHERE {misfit} LIMIT 20", list(params)
                ).fetchall()
            ]
            if misfits:
                exact = False
                wider = _fold(misfits, start=column_type.shape)
                decided[old] = infer.TEXT if wider is None else infer.column_type(wider)
            else:
                decided[old] = dataclasses.replace(column_type, null_tokens=tokens)
                reports.append(
                    Problem(
                        f"column {old!r}",
                        f"{tokens} value(s) such as {example!r} mean no value",
                        "stored as NULL",
                    )
                )
        if exact:
            problems.extend(reports)
            problems.extend(infer.ambiguous_dates(decided))
            texts = [
                columns[i][1]
                for (i, misfit), bit in zip(flagged, bits, strict=True)
                if bit and not misfit
            ]
            report_formulas(con, target, problems, texts)
            for group in range(groups):
                con.execute(f"ALTER TABLE {target} DROP COLUMN _bad_{group}")
            return decided
    raise AssertionError("unreachable: the last round types nothing")


def _load_typed_wide(
    con: duckdb.DuckDBPyConnection,
    source: str,
    params: Sequence[object],
    columns: Sequence[tuple[str, str]],
    proposals: dict[str, infer.ColumnType],
    target: str,
    problems: list[Problem],
    *,
    temporary: bool,
) -> dict[str, infer.ColumnType]:
    """``load_typed`` for a table wider than ``_GROUP_COLUMNS``: the source once as text, then
    each group of columns typed alone, then the groups side by side (``POSITIONAL JOIN``).

    DuckDB plans one statement of n converted columns in time that grows faster than n (a 4,000
    column CSV took 12 s in one statement, 100,000 never finished: issue 28); groups keep each
    statement small, so the whole is linear in the number of columns. Rows stay in order.
    """
    raw = _q(f"{STAGE_PREFIX}wide_{uuid.uuid4().hex[:12]}")
    con.execute(f"CREATE TEMP TABLE {raw} AS SELECT * FROM {source}", list(params))
    parts: list[str] = []
    decided: dict[str, infer.ColumnType] = {}
    try:
        for start in range(0, len(columns), _GROUP_COLUMNS):
            group = columns[start : start + _GROUP_COLUMNS]
            part = _q(f"{STAGE_PREFIX}part_{uuid.uuid4().hex[:12]}")
            parts.append(part)
            chosen = {old: proposals[old] for old, _ in group if old in proposals}
            decided |= load_typed(con, raw, [], group, chosen, part, problems, temporary=True)
        con.execute(
            f"CREATE OR REPLACE {'TEMP ' if temporary else ''}TABLE {target} AS "
            f"SELECT * FROM {' POSITIONAL JOIN '.join(parts)}"
        )
    finally:
        for part in parts:
            con.execute(f"DROP TABLE IF EXISTS {part}")
        con.execute(f"DROP TABLE IF EXISTS {raw}")
    return decided


def _flagged(
    columns: Sequence[tuple[str, str]], decided: dict[str, infer.ColumnType]
) -> list[tuple[int, bool]]:
    """The columns ``_typed_select`` flags, in bit order: (index, True) for each typed column
    (a value that does not fit), then (index, False) for each text column (a cell starting
    with ``=``, maybe a spreadsheet formula).

    Example:
        >>> _flagged([("a", "a"), ("b", "b"), ("c", "c")], {"a": infer.TEXT, "b": propose(["1"])})
        [(1, True), (0, False)]
    """
    proposed = [(i, decided[old]) for i, (old, _) in enumerate(columns) if old in decided]
    return [(i, True) for i, t in proposed if t.check] + [
        (i, False) for i, t in proposed if not t.check
    ]


def _typed_select(
    source: str, columns: Sequence[tuple[str, str]], decided: dict[str, infer.ColumnType]
) -> str:
    """SELECT converting the proposed columns, with ``_bad_<g>`` columns flagging cells.

    Three levels so each value is converted and checked once: the cast, the verdict, the
    output (the converted value where it fits, NULL and a flag bit where it does not). The
    verdict asks first what almost every value answers: is it the way DuckDB spells the
    converted value (CASE goes on with the rest of the rows only). A text cell that starts
    with ``=`` sets its column's flag bit too (see ``_flagged``).
    """
    inner, middle, outer = [], [], []
    for i, (old, new) in enumerate(columns):
        column_type = decided.get(old)
        c, x = f"_c_{i}", f"_x_{i}"
        if column_type is None or not column_type.check:
            inner.append(f"{_q(old)} AS {c}")
            middle.append(c)
            if column_type is not None:  # a text column: flag cells that may be formulas
                middle.append(f"coalesce(NOT starts_with({c}, '='), true) AS _ok_{i}")
            outer.append(f"{c} AS {_q(new)}")
            continue
        inner += [f"{_q(old)} AS {c}", f"{column_type.cast_sql(_q(old))} AS {x}"]
        canonical = column_type.canonical.replace("{x}", x).replace("{col}", c)
        fast = f"WHEN {canonical} = {c} THEN true " if canonical else ""
        middle += [
            c,
            x,
            f"CASE {fast}WHEN {c} IS NULL THEN true WHEN {x} IS NULL THEN false "
            f"ELSE {column_type.check_sql(c)} END AS _ok_{i}",
        ]
        outer += [f"CASE WHEN _ok_{i} THEN {x} END AS {_q(new)}"]
    # One BIGINT per 60 flagged columns marks the cells that did not fit or may be formulas
    # (bit k: k-th flagged column); far cheaper than keeping their text, and almost always zero.
    flagged = [i for i, _ in _flagged(columns, decided)]
    flags = []
    for group in range(_groups(len(flagged))):
        members = flagged[group * _BITS : (group + 1) * _BITS]
        bits = " + ".join(
            f"CASE WHEN _ok_{i} THEN 0 ELSE {1 << bit} END" for bit, i in enumerate(members)
        )
        all_ok = " AND ".join(f"_ok_{i}" for i in members)
        # CASE is lazy: the bits are added up only on the rare rows where something is flagged.
        flags.append(f"CASE WHEN {all_ok} THEN 0 ELSE {bits} END AS _bad_{group}")
    return (
        f"SELECT {', '.join(outer + flags)} FROM (SELECT {', '.join(middle)} FROM "
        f"(SELECT {', '.join(inner)} FROM {source}))"
    )


def _groups(flagged: int) -> int:
    return (flagged + _BITS - 1) // _BITS


def report_formulas(
    con: duckdb.DuckDBPyConnection,
    table: str,
    problems: list[Problem],
    columns: Sequence[str] | None = None,
) -> None:
    """Report text cells of ``table`` (quoted) that look like spreadsheet formulas.

    Args:
        con: the connection.
        table: the quoted table.
        problems: the report the lines are appended to.
        columns: the text columns to look at (default: every VARCHAR column).
    """
    texts = (
        [name for name, type_ in _staged_columns(con, table) if type_ == "VARCHAR"]
        if columns is None
        else list(columns)
    )
    if not texts:
        return
    parts = []
    for name in texts:
        test = f"CASE WHEN {_q(name)} LIKE '=%' THEN {_FORMULA.format(v=_q(name))} ELSE false END"
        parts += [f"count(*) FILTER (WHERE {test})", f"min({_q(name)}) FILTER (WHERE {test})"]
    row = con.execute(f"SELECT {', '.join(parts)} FROM {table}").fetchone()
    assert row is not None
    for index, name in enumerate(texts):
        count, example = row[2 * index], row[2 * index + 1]
        if count:
            problems.append(
                Problem(
                    f"column {name!r}",
                    f"{count} cell(s) hold spreadsheet formulas such as "
                    f"{example!r}, not their values",
                    "kept as text",
                )
            )


def _fold(values: Sequence[str | None], start: infer.Shape | None = None) -> infer.Shape | None:
    """Widen ``start`` by every value; None when only text holds them (or none is a value)."""
    shape = start
    tokens = []
    for value in dict.fromkeys(values):  # the join is order-free: judge each value once
        if value is not None and infer.is_null_token(value):
            tokens.append(value)
            continue
        if value is None or (shape is not None and infer.covers(shape, value)):
            continue
        current = infer.shape_of(value)
        if current is None:
            return None
        if current != shape:
            shape = current if shape is None else infer.join(shape, current)
            if shape is None:
                return None
    for token in tokens:
        shape = infer.widen(shape, token)
    return shape


def _staged_columns(con: duckdb.DuckDBPyConnection, relation: str) -> list[tuple[str, str]]:
    rows = con.execute(f"DESCRIBE {relation}").fetchall()
    return [(str(r[0]), str(r[1])) for r in rows]


def _table_info(
    con: duckdb.DuckDBPyConnection,
    staged: StagedTable,
    target: str,
    units: Mapping[str, str | None],
    source: str,
) -> TableInfo:
    table = f"data.{_q(target)}"
    stored = _staged_columns(con, table)
    count = con.execute(f"SELECT count(*) FROM {table}").fetchone()
    assert count is not None
    originals = list(staged.originals) + [""] * (len(stored) - len(staged.originals))
    columns = tuple(
        ColumnInfo(name=name, type=type_, original=originals[index], unit=units.get(name))
        for index, (name, type_) in enumerate(stored)
    )
    return TableInfo(
        name=target,
        source=source,
        columns=columns,
        row_count=int(count[0]),
        origin=staged.origin,
        page=staged.page,
        description=" ".join(staged.notes),
    )


def _clean(name: str, *, fallback: str, digit_prefix: str) -> str:
    text = unicodedata.normalize("NFKC", name)
    text = "".join(
        ch for ch in unicodedata.normalize("NFKD", text) if not unicodedata.combining(ch)
    )
    text = unicodedata.normalize("NFC", text).lower()
    text = text.replace("%", " pct ").replace("#", " num ")
    text = "".join(ch if ch.isalnum() else "_" for ch in text)
    text = re.sub(r"_+", "_", text).strip("_")
    if not text:
        return fallback
    if text[0].isdigit():
        text = digit_prefix + text
    if text in RESERVED:
        text += "_"
    return _truncate(text, _MAX_NAME_BYTES)


def _unique(name: str, taken: set[str]) -> str:
    if name not in taken:
        return name
    counter = 2
    while True:
        suffix = f"_{counter}"
        candidate = _truncate(name, _MAX_NAME_BYTES - len(suffix)) + suffix
        if candidate not in taken:
            return candidate
        counter += 1


def _truncate(text: str, max_bytes: int) -> str:
    while len(text.encode("utf-8")) > max_bytes:
        text = text[:-1]
    return text


def _q(name: str) -> str:
    """A quoted SQL identifier."""
    return '"' + name.replace('"', '""') + '"'
