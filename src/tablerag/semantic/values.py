"""Filter values of a semantic model that the data does not hold.

A named filter ``is_paid: status = 'PAYED'`` compiles and passes the gate, and then every
answer that follows it finds nothing. :func:`filter_values` lists the text values the model's
filters compare a column with (named filters, a dataset's ``filters``, each caliber's
``filters``); :func:`absent_values` asks the data, through the gate, which of them no row
holds and says what the column does hold. ``tablerag knowledge check`` and ``import`` run it
when the data can be reached.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

import sqlglot
from sqlglot import exp
from sqlglot.errors import SqlglotError

from tablerag.errors import EngineError, SQLRejected
from tablerag.semantic.check import Finding
from tablerag.semantic.knowledge import Knowledge
from tablerag.semantic.ossie import Dataset, expression_for
from tablerag.sql.engines.base import SQLEngine

SHOWN_VALUES = 8
"""Values of a column a finding lists as what the data holds."""


@dataclass(frozen=True)
class FilterValue:
    """Text values one filter of one entry compares a table's column with."""

    kind: str
    name: str
    table: str
    column: str
    values: tuple[str, ...]


def filter_values(knowledge: Knowledge) -> list[FilterValue]:
    """Every (column, text values) the model's filters compare, with the entry they are in.

    Example:
        >>> from tablerag.semantic.ossie import loads
        >>> k = Knowledge(loads('''
        ... version: 0.2.0.dev0
        ... semantic_model:
        ... - name: m
        ...   datasets:
        ...   - name: orders
        ...     source: shop.orders
        ...     fields:
        ...     - {name: status, expression: {dialects: [{dialect: ANSI_SQL, expression: status}]}}
        ...     - name: is_paid
        ...       datatype: Boolean
        ...       expression: {dialects: [{dialect: ANSI_SQL, expression: "status = 'PAID'"}]}
        ...   metrics:
        ...   - name: n
        ...     expression: {dialects: [{dialect: ANSI_SQL, expression: COUNT(*)}]}
        ...     custom_extensions: [{vendor_name: TABLERAG,
        ...       data: '{"filters": ["orders.status IN (''PAID'', ''REFUND'')"]}'}]
        ... '''))
        >>> [(v.kind, v.name, v.table, v.column, v.values) for v in filter_values(k)]
        [('field', 'orders.is_paid', 'orders', 'status', ('PAID',)), \
('metric', 'n', 'orders', 'status', ('PAID', 'REFUND'))]
    """
    out: list[FilterValue] = []
    for ds, f in knowledge.fields():
        text = expression_for(f.expression) if f.is_filter else None
        if text is not None:
            out += _compared("field", f"{ds.name}.{f.name}", text[0], text[1], knowledge, ds)
    for ds in knowledge.datasets.values():
        for spec in ds.ext.get("filters") or []:
            out += _compared("dataset", ds.name, str(spec), None, knowledge, ds)
    for view in knowledge.metrics.values():
        for caliber in view.calibers:
            label = view.name if caliber.is_default else f"{view.name} ({caliber.name})"
            for spec in caliber.filters:
                out += _compared("metric", label, spec, None, knowledge, None)
    return out


def absent_values(
    knowledge: Knowledge, engine_for: Callable[[str], SQLEngine | None]
) -> list[Finding]:
    """A finding for each filter value no row of its column holds.

    Args:
        knowledge: the semantic model.
        engine_for: the engine that holds a table (by the name the dataset's source ends in),
            None when none does (that filter is not checked).
    """
    found: list[Finding] = []
    for fv in filter_values(knowledge):
        engine = engine_for(fv.table)
        if engine is None:
            continue
        column = exp.column(fv.column)
        held = (
            exp.select(column)
            .distinct()
            .from_(exp.to_table(fv.table))
            .where(
                exp.In(this=column.copy(), expressions=[exp.Literal.string(v) for v in fv.values])
            )
        )
        shown = exp.select(column.copy()).distinct().from_(exp.to_table(fv.table))
        try:
            present = {str(r[0]) for r in engine.execute(held.sql(dialect=engine.dialect)).rows}
            missing = [v for v in fv.values if v not in present]
            if not missing:
                continue
            rows = engine.execute(shown.limit(SHOWN_VALUES + 1).sql(dialect=engine.dialect)).rows
        except SQLRejected:
            continue  # a column the gate refuses: check_model names it
        except EngineError as exc:
            found.append(Finding(fv.kind, fv.name, f"its filter values could not be read: {exc}"))
            continue
        holds = [repr(str(r[0])) for r in rows[:SHOWN_VALUES] if r[0] is not None]
        more = ", …" if len(rows) > SHOWN_VALUES else ""
        found.append(
            Finding(
                fv.kind,
                fv.name,
                f"filter value{'s' if len(missing) > 1 else ''} "
                f"{', '.join(repr(v) for v in missing)} not in {fv.table}.{fv.column}, which "
                f"holds {', '.join(holds)}{more}; write the value as the data stores it",
            )
        )
    return found


def _compared(
    kind: str,
    name: str,
    text: str,
    dialect: str | None,
    knowledge: Knowledge,
    home: Dataset | None,
) -> list[FilterValue]:
    """The (column, values) pairs of one boolean expression: a bare column is ``home``'s; a
    ``dataset.field`` is that field's column when the field is one."""
    ref = knowledge.field(text.strip())
    if ref is not None:  # a named filter by name: checked as a field
        return []
    try:
        tree = sqlglot.parse_one(text, read=dialect)
    except (SqlglotError, ValueError):
        return []  # check_model names it
    out = []
    for column, values in _comparisons(tree):
        located = _column_of(column, knowledge, home)
        if located is not None and values:
            out.append(FilterValue(kind, name, located[0], located[1], tuple(values)))
    return out


def _comparisons(tree: exp.Expr) -> Iterator[tuple[exp.Column, list[str]]]:
    for node in tree.find_all(exp.EQ, exp.NEQ, exp.In):
        if isinstance(node, exp.In):
            literals = node.expressions
            column = node.this
        else:
            column, other = node.this, node.expression
            if isinstance(other, exp.Column):
                column, other = other, column
            literals = [other]
        if isinstance(column, exp.Column) and all(
            isinstance(v, exp.Literal) and v.is_string for v in literals
        ):
            yield column, [str(v.this) for v in literals]


def _column_of(
    column: exp.Column, knowledge: Knowledge, home: Dataset | None
) -> tuple[str, str] | None:
    """(table, column) a filter's column reads: ``dataset.field`` → the field's own column."""
    if column.table:
        found = knowledge.field(f"{column.table}.{column.name}")
        if found is None:
            return None
        ds, f = found
        text = expression_for(f.expression)
        try:
            inner = sqlglot.parse_one(text[0], read=text[1]) if text is not None else None
        except (SqlglotError, ValueError):
            return None
        return (ds.table, inner.name) if isinstance(inner, exp.Column) else None
    return (home.table, column.name) if home is not None else None


__all__ = ["FilterValue", "absent_values", "filter_values"]
