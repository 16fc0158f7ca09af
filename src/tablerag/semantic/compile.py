"""Compile a :class:`~tablerag.semantic.request.Request` into SQL with sqlglot.

The SQL is built, not written: the metric's expression (its caliber) with field references
replaced by the fields' expressions (a 分 column's field divides by 100, so the unit is right by
construction), metric references replaced by those metrics (their own filters pushed into
their aggregates), joins along the model's relationships from the one dataset every other is
reachable from (many → one only, so no row is counted twice), the time range as dates computed
by code, and every ``a / b`` of a metric as ``a * 1.0 / NULLIF(b, 0)`` (no integer division,
no division by zero). The result is rendered for the engine's dialect and still goes through
the engine's gate like any other SQL.
"""

from __future__ import annotations

import datetime as dt
import re
from collections import deque
from dataclasses import dataclass, field

import sqlglot
from sqlglot import exp
from sqlglot.errors import ParseError, TokenError

from tablerag.errors import ConfigError
from tablerag.semantic.knowledge import Caliber, Knowledge, MetricView
from tablerag.semantic.ossie import Dataset, OssieField, expression_for
from tablerag.semantic.request import HavingSpec, Request, describe_period, resolve_period
from tablerag.sql.division import with_fractions

_GRAIN_FORMATS = {"day": "%Y-%m-%d", "month": "%Y-%m", "year": "%Y"}
_MAX_DEPTH = 8
"""Most levels of metrics built from metrics (deeper is taken for a cycle)."""
_PLAIN = re.compile(r"^[a-z_][a-z0-9_]*$")


class NotCompiled(ConfigError):
    """The request (or an entry it uses) cannot be compiled; ``problems`` says why."""

    def __init__(self, problems: list[str]) -> None:
        self.problems = problems
        super().__init__("; ".join(problems))


@dataclass(frozen=True)
class UsedMetric:
    """A metric as the compiled query computes it."""

    view: MetricView
    caliber: Caliber
    unit: str | None


@dataclass(frozen=True)
class Compiled:
    """The SQL and what it followed (for the answer's reading and its ``knowledge`` list)."""

    sql: str
    dialect: str
    metrics: tuple[UsedMetric, ...]
    dimensions: tuple[str, ...]
    filters: tuple[str, ...]
    """The request's filters in words (``dim_region.region_name = 华东``)."""
    period: tuple[dt.date, dt.date] | None
    time_field: str | None
    fields: tuple[tuple[Dataset, OssieField], ...]
    """Every field the query reads (dimensions, filters, fields inside metrics)."""

    @property
    def period_text(self) -> str | None:
        return describe_period(*self.period) if self.period else None


@dataclass
class _Scope:
    """What one compilation collected while expanding expressions."""

    knowledge: Knowledge
    datasets: set[str] = field(default_factory=set)
    fields: dict[str, tuple[Dataset, OssieField]] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)


def compile_request(
    request: Request, knowledge: Knowledge, *, dialect: str, today: dt.date
) -> Compiled:
    """SQL for ``request`` in ``dialect`` (``duckdb``, ``sqlite``, ``postgres``, ``mysql``).

    Raises:
        NotCompiled: an unknown metric, field or caliber, a filter with no values, datasets the
            relationships cannot join without fan-out, or an expression that does not parse.
    """
    scope = _Scope(knowledge)
    if not request.metrics:
        raise NotCompiled(["the request names no metric"])
    used, trees = _metrics(request, scope)
    metric_datasets = set(scope.datasets)
    dims = [(ref, _field_ref(ref, scope, "dimension")) for ref in request.dimensions]
    where = [_request_filter(f.field, f.op, f.values, scope) for f in request.filters]
    period, time_field = None, None
    if request.time_range is not None:
        period, time_field, condition = _time_condition(request, used, scope, today)
        where.append(condition)
    if scope.problems:
        raise NotCompiled(scope.problems)
    # filters every metric shares go to WHERE; the others into their metric's aggregates
    shared = _shared([[c.sql() for c in conds] for _, _, conds in trees])
    projections: list[exp.Expr] = []
    aliases: dict[str, str] = {}
    for i, (ref, node) in enumerate(dims):
        assert node is not None
        expr = _grained(node, ref, request, knowledge)
        alias = _alias(ref, [r for r, _ in dims][:i])
        aliases[ref.lower()] = alias
        projections.append(exp.alias_(expr, alias, quoted=not _PLAIN.match(alias)))
    computed: dict[str, tuple[UsedMetric, exp.Expr]] = {}
    for metric, tree, conds in trees:
        own = [c for c in conds if c.sql() not in shared]
        if own:
            tree = _filtered(tree, exp.and_(*[c.copy() for c in own]))
        computed[metric.view.name.lower()] = (metric, tree)
        alias = metric.view.name
        aliases[alias.lower()] = alias
        projections.append(exp.alias_(tree, alias, quoted=not _PLAIN.match(alias)))
    base = _base(metric_datasets, scope)
    query = exp.select(*projections).from_(_table(knowledge.datasets[base]))
    for join in _joins(base, scope):
        query = query.join(join, join_type="left")
    for _, _, conds in trees[:1]:
        where += [c for c in conds if c.sql() in shared]
    where += [
        c for ds in sorted(scope.datasets) for c in _dataset_filters(knowledge.datasets[ds], scope)
    ]
    conditions = [c for c in where if c is not None]
    if conditions:
        query = query.where(exp.and_(*conditions))
    if dims:
        query = query.group_by(*[_grained(n, r, request, knowledge) for r, n in dims if n])
    if request.having and not dims:
        # over no dimension the condition keeps the one total or nothing: "no data" for a
        # rate below it, and no answer to the "which products" such a condition asks
        raise NotCompiled(
            [
                f"a condition on {request.having[0].metric!r} needs a dimension to keep rows "
                "of (which product, region, month…); over no dimension it keeps the one total "
                "or nothing"
            ]
        )
    having = [h for h in (_having(s, computed, scope) for s in request.having) if h is not None]
    if having:
        query = query.having(exp.and_(*having))
    query = _ordered(query, request, aliases, dims, used)
    if request.limit is not None:
        query = query.limit(request.limit)
    if scope.problems:
        raise NotCompiled(scope.problems)
    return Compiled(
        sql=query.sql(dialect=dialect),
        dialect=dialect,
        metrics=tuple(used),
        dimensions=tuple(r for r, _ in dims),
        filters=tuple(_describe_filter(f.field, f.op, f.values) for f in request.filters)
        + tuple(f"{h.metric} {h.op} {_plain(h.value)}" for h in request.having),
        period=period,
        time_field=time_field,
        fields=tuple(scope.fields.values()),
    )


def _metrics(
    request: Request, scope: _Scope
) -> tuple[list[UsedMetric], list[tuple[UsedMetric, exp.Expr, list[exp.Expr]]]]:
    """Each metric of the request: its caliber, expanded expression and filters."""
    knowledge = scope.knowledge
    used: list[UsedMetric] = []
    trees: list[tuple[UsedMetric, exp.Expr, list[exp.Expr]]] = []
    for name in request.metrics:
        view = knowledge.metric(name)
        if view is None:
            scope.problems.append(f"unknown metric {name!r}")
            continue
        caliber = view.caliber(request.calibers.get(view.name))
        tree = _metric_tree(view, caliber, scope, depth=0)
        home = view.metric.ext.get("dataset")
        if home and knowledge.dataset(str(home)) is not None:
            scope.datasets.add(str(home).lower())  # COUNT(*) reads this dataset's rows
        conditions = [_condition(f, scope, f"metric {view.name!r}") for f in caliber.filters]
        metric = UsedMetric(view, caliber, view.unit or caliber_unit(caliber, knowledge))
        used.append(metric)
        trees.append((metric, tree, [c for c in conditions if c is not None]))
    return used, trees


def _time_condition(
    request: Request, used: list[UsedMetric], scope: _Scope, today: dt.date
) -> tuple[tuple[dt.date, dt.date] | None, str | None, exp.Expr | None]:
    """The request's period (dates by code), the time field it applies to, its condition."""
    assert request.time_range is not None
    time_field = _time_field(used, scope)
    try:
        period = resolve_period(request.time_range, today)
    except ValueError as exc:
        scope.problems.append(str(exc))
        return None, time_field, None
    column = _field_ref(time_field, scope, "time dimension") if time_field else None
    if column is None:
        return period, time_field, None
    start, end = (exp.Literal.string(d.isoformat()) for d in period)
    condition = exp.and_(
        exp.GTE(this=column.copy(), expression=start),
        exp.LT(this=column.copy(), expression=end),
    )
    return period, time_field, condition


def parse_expression(text: str, read: str | None) -> exp.Expr:
    """One SQL expression (not a statement).

    Raises:
        NotCompiled: it does not parse, or is a statement.
    """
    try:
        tree = sqlglot.parse_one(text, read=read)
    except (ParseError, TokenError) as exc:
        first = str(exc).splitlines()[0]
        raise NotCompiled([f"expression {text!r} does not parse: {first}"]) from exc
    if isinstance(tree, exp.Query | exp.DDL | exp.DML | exp.Command):
        raise NotCompiled([f"{text!r} is a statement; an expression was expected"])
    return tree


def _metric_tree(view: MetricView, caliber: Caliber, scope: _Scope, *, depth: int) -> exp.Expr:
    if depth > _MAX_DEPTH:
        scope.problems.append(f"metric {view.name!r} refers to itself through other metrics")
        return exp.Null()
    found = expression_for(caliber.expression)
    if found is None:
        scope.problems.append(
            f"metric {view.name!r} has no expression tablerag can read (give an ANSI_SQL one)"
        )
        return exp.Null()
    try:
        tree = parse_expression(found[0], found[1])
    except NotCompiled as exc:
        scope.problems += [f"metric {view.name!r}: {p}" for p in exc.problems]
        return exp.Null()
    tree = _safe_division(tree)
    return _expand(tree, scope, f"metric {view.name!r}", depth=depth)


def _expand(tree: exp.Expr, scope: _Scope, where: str, *, depth: int = 0) -> exp.Expr:
    """``tree`` with ``dataset.field`` replaced by the field's expression and bare metric
    names by their metrics (filters inside)."""
    knowledge = scope.knowledge

    def replace(node: exp.Expr) -> exp.Expr:
        if not isinstance(node, exp.Column):
            return node
        if node.table:
            ds = knowledge.dataset(node.table)
            if ds is None:
                scope.problems.append(f"{where} names dataset {node.table!r}, which is not defined")
                return node
            scope.datasets.add(ds.name.lower())
            found = ds.field(node.name)
            if found is not None:
                return _field_expression(ds, found, scope)
            return exp.column(node.name, table=ds.name, quoted=not _PLAIN.match(node.name))
        view = knowledge.metric(node.name)
        if view is not None:
            caliber = view.caliber()
            inner = _metric_tree(view, caliber, scope, depth=depth + 1)
            conds = [_condition(f, scope, f"metric {view.name!r}") for f in caliber.filters]
            conds_ok = [c for c in conds if c is not None]
            if conds_ok:
                inner = _filtered(inner, exp.and_(*conds_ok))
            return exp.Paren(this=inner)
        owners = [ds for ds, f in knowledge.fields() if f.name.lower() == node.name.lower()]
        if len(owners) == 1:
            ds = owners[0]
            scope.datasets.add(ds.name.lower())
            found = ds.field(node.name)
            assert found is not None
            return _field_expression(ds, found, scope)
        how = "is ambiguous" if owners else "is neither a field nor a metric"
        scope.problems.append(f"{where}: {node.name!r} {how}; write it as dataset.field")
        return node

    return tree.transform(replace)


def _field_expression(ds: Dataset, f: OssieField, scope: _Scope) -> exp.Expr:
    scope.fields[f"{ds.name}.{f.name}".lower()] = (ds, f)
    found = expression_for(f.expression)
    if found is None:
        scope.problems.append(f"field {ds.name}.{f.name} has no expression tablerag can read")
        return exp.Null()
    try:
        tree = parse_expression(found[0], found[1])
    except NotCompiled as exc:
        scope.problems += [f"field {ds.name}.{f.name}: {p}" for p in exc.problems]
        return exp.Null()

    def qualify(node: exp.Expr) -> exp.Expr:
        if isinstance(node, exp.Column) and not node.table:
            return exp.column(node.name, table=ds.name, quoted=not _PLAIN.match(node.name))
        return node

    tree = tree.transform(qualify)
    return tree if isinstance(tree, exp.Column | exp.Literal) else exp.Paren(this=tree)


def _safe_division(tree: exp.Expr) -> exp.Expr:
    """Every ``a / b`` as ``a * 1.0 / NULLIF(b, 0)`` (:func:`tablerag.sql.division.fraction`):
    a ratio of counts is not integer division on PostgreSQL or SQLite, and an empty
    denominator gives NULL instead of an error."""
    return with_fractions(tree.copy(), lambda _: True)[0]


def _paren(node: exp.Expr) -> exp.Expr:
    return (
        node
        if isinstance(node, exp.Column | exp.Literal | exp.Func | exp.Paren)
        else (exp.Paren(this=node))
    )


def _filtered(tree: exp.Expr, condition: exp.Expr) -> exp.Expr:
    """Every outermost aggregate of ``tree`` reading only rows where ``condition`` holds."""
    tree = tree.copy()
    for agg in list(tree.find_all(exp.AggFunc)):
        if agg.find_ancestor(exp.AggFunc) is not None:
            continue
        arg = agg.this
        if isinstance(arg, exp.Distinct):
            arg.set("expressions", [_when(condition, e) for e in arg.expressions])
        elif isinstance(arg, exp.Star) or arg is None:
            agg.set("this", _when(condition, exp.Literal.number(1)))
        else:
            agg.set("this", _when(condition, arg))
    return tree


def _when(condition: exp.Expr, value: exp.Expr) -> exp.Expr:
    return exp.Case(ifs=[exp.If(this=condition.copy(), true=value.copy())])


def _condition(spec: str, scope: _Scope, where: str) -> exp.Expr | None:
    """A filter of a caliber: ``dataset.field`` of a boolean field, or a boolean expression."""
    try:
        tree = parse_expression(spec, None)
    except NotCompiled as exc:
        scope.problems += [f"{where}: filter {p}" for p in exc.problems]
        return None
    return _expand(tree, scope, f"{where} filter {spec!r}")


def _field_ref(ref: str, scope: _Scope, what: str) -> exp.Expr | None:
    found = scope.knowledge.field(ref)
    if found is None:
        scope.problems.append(f"unknown {what} {ref!r} (write dataset.field)")
        return None
    ds, f = found
    scope.datasets.add(ds.name.lower())
    return _field_expression(ds, f, scope)


def _request_filter(
    ref: str, op: str | None, values: list[str | int | float | bool], scope: _Scope
) -> exp.Expr | None:
    node = _field_ref(ref, scope, "filter field")
    if node is None:
        return None
    found = scope.knowledge.field(ref)
    assert found is not None
    if op is None:
        if not found[1].is_filter:
            scope.problems.append(f"filter on {ref!r} needs an operator and values")
            return None
        return node
    if not values:
        scope.problems.append(f"filter {ref} {op} has no value")
        return None
    literals = [_literal(v) for v in values]
    if op in ("in", "not in") or len(literals) > 1:
        inside = exp.In(this=node, expressions=literals)
        return exp.Not(this=inside) if op in ("not in", "!=") else inside
    ops: dict[str, type[exp.Expr]] = {
        "=": exp.EQ, "!=": exp.NEQ, ">": exp.GT, ">=": exp.GTE, "<": exp.LT, "<=": exp.LTE,
        "in": exp.EQ, "not in": exp.NEQ,
    }  # fmt: skip
    return ops[op](this=node, expression=literals[0])


def _having(
    spec: HavingSpec, computed: dict[str, tuple[UsedMetric, exp.Expr]], scope: _Scope
) -> exp.Expr | None:
    """``metric op value`` on the metric as the query computes it (its own filters inside);
    a value above 1 compared with a metric in % is read as a percentage."""
    found = computed.get(spec.metric.lower())
    if found is None:
        scope.problems.append(f"a condition on {spec.metric!r} needs it among the metrics")
        return None
    metric, tree = found
    value = spec.value / 100 if metric.unit == "%" and abs(spec.value) > 1 else spec.value
    ops: dict[str, type[exp.Expr]] = {
        "=": exp.EQ, "!=": exp.NEQ, ">": exp.GT, ">=": exp.GTE, "<": exp.LT, "<=": exp.LTE,
    }  # fmt: skip
    return ops[spec.op](this=_paren(tree.copy()), expression=exp.Literal.number(value))


def _plain(value: float) -> str:
    return f"{value:g}"


def _literal(value: str | int | float | bool) -> exp.Expr:
    if isinstance(value, bool):
        return exp.Boolean(this=value)
    if isinstance(value, int | float):
        return exp.Literal.number(value)
    return exp.Literal.string(value)


def _describe_filter(ref: str, op: str | None, values: list[str | int | float | bool]) -> str:
    if op is None:
        return ref
    return f"{ref} {op} {', '.join(str(v) for v in values)}"


def _dataset_filters(ds: Dataset, scope: _Scope) -> list[exp.Expr]:
    """Filters that always apply to a dataset (its extension's ``filters``)."""
    out = []
    for spec in ds.ext.get("filters") or []:
        cond = _condition(str(spec), scope, f"dataset {ds.name!r}")
        if cond is not None:
            out.append(cond)
    return out


def _time_field(used: list[UsedMetric], scope: _Scope) -> str | None:
    for metric in used:
        if metric.view.time_field:
            return metric.view.time_field
    knowledge = scope.knowledge
    for ds_name in sorted(scope.datasets):
        ds = knowledge.datasets[ds_name]
        for f in ds.fields or []:
            if f.is_time:
                return f"{ds.name}.{f.name}"
    scope.problems.append(
        "the request has a time range but no dataset it reads has a time dimension"
    )
    return None


def _grained(node: exp.Expr, ref: str, request: Request, knowledge: Knowledge) -> exp.Expr:
    found = knowledge.field(ref)
    if request.time_grain is None or found is None or not found[1].is_time:
        return node.copy()
    fmt = _GRAIN_FORMATS[request.time_grain]
    return exp.TimeToStr(this=node.copy(), format=exp.Literal.string(fmt))


def _alias(ref: str, before: list[str]) -> str:
    name = ref.rpartition(".")[2]
    taken = {r.rpartition(".")[2].lower() for r in before}
    return ref.replace(".", "_") if name.lower() in taken else name


def _shared(conditions: list[list[str]]) -> set[str]:
    if not conditions:
        return set()
    common = set(conditions[0])
    for conds in conditions[1:]:
        common &= set(conds)
    return common


def _edges(knowledge: Knowledge) -> dict[str, list[tuple[str, list[str], list[str]]]]:
    """Many → one join edges: dataset → [(other dataset, own columns, its columns)]."""
    out: dict[str, list[tuple[str, list[str], list[str]]]] = {}
    for rel in knowledge.relationships:
        out.setdefault(rel.from_.lower(), []).append(
            (rel.to.lower(), rel.from_columns, rel.to_columns)
        )
    return out


def _reach(base: str, knowledge: Knowledge) -> dict[str, tuple[str, list[str], list[str]]]:
    """Breadth-first parents of every dataset reachable from ``base``."""
    edges = _edges(knowledge)
    parents: dict[str, tuple[str, list[str], list[str]]] = {}
    queue, seen = deque([base]), {base}
    while queue:
        here = queue.popleft()
        for there, own, theirs in edges.get(here, []):
            if there not in seen:
                seen.add(there)
                parents[there] = (here, own, theirs)
                queue.append(there)
    return parents


def _base(metric_datasets: set[str], scope: _Scope) -> str:
    """The dataset the query starts from: one every needed dataset is reachable from."""
    for candidate in sorted(metric_datasets or scope.datasets):
        reach = _reach(candidate, scope.knowledge)
        if all(d == candidate or d in reach for d in scope.datasets):
            return candidate
    raise NotCompiled(
        [
            f"datasets {sorted(scope.datasets)} cannot be joined from one of them along the "
            "relationships (many → one); ask for them separately"
        ]
    )


def _joins(base: str, scope: _Scope) -> list[exp.Join]:
    knowledge = scope.knowledge
    parents = _reach(base, knowledge)
    path: list[str] = []
    for target in sorted(scope.datasets - {base}):
        chain = []
        node = target
        while node != base:
            chain.append(node)
            node = parents[node][0]
        for step in reversed(chain):
            if step not in path:
                path.append(step)
    joins = []
    for step in path:
        parent, own, theirs = parents[step]
        left = knowledge.datasets[parent].name
        right = knowledge.datasets[step].name
        on = exp.and_(
            *[
                exp.EQ(this=_col(a, left), expression=_col(b, right))
                for a, b in zip(own, theirs, strict=True)
            ]
        )
        joins.append(exp.Join(this=_table(knowledge.datasets[step]), on=on))
    return joins


def _col(name: str, table: str) -> exp.Column:
    return exp.column(name, table=table, quoted=not _PLAIN.match(name))


def _table(ds: Dataset) -> exp.Expr:
    table = exp.to_table(ds.table)
    if ds.table.lower() == ds.name.lower():
        return table
    return exp.alias_(table, ds.name, table=True, quoted=not _PLAIN.match(ds.name))


def _ordered(
    query: exp.Select,
    request: Request,
    aliases: dict[str, str],
    dims: list[tuple[str, exp.Expr | None]],
    used: list[UsedMetric],
) -> exp.Select:
    keys: list[exp.Expr] = []
    for order in request.order_by:
        alias = aliases.get(order.by.lower())
        if alias is not None:
            keys.append(exp.Ordered(this=exp.column(alias), desc=order.desc))
    if not keys and dims:
        knowledge_time = [r for r, _ in dims if r.lower() in aliases and _is_time(r, request)]
        if knowledge_time:
            keys = [exp.Ordered(this=exp.column(aliases[knowledge_time[0].lower()]), desc=False)]
        elif used:
            keys = [exp.Ordered(this=exp.column(used[0].view.name), desc=True)]
    return query.order_by(*keys) if keys else query


def _is_time(ref: str, request: Request) -> bool:
    return request.time_grain is not None or "date" in ref.lower() or "month" in ref.lower()


def units_of(text: str, knowledge: Knowledge, read: str | None = None) -> list[str]:
    """Problems of a metric expression that adds or subtracts amounts in different units.

    Example:
        >>> from tablerag.semantic.ossie import loads
        >>> k = Knowledge(loads('''version: 0.2.0.dev0
        ... semantic_model:
        ... - name: m
        ...   datasets:
        ...   - name: t
        ...     source: t
        ...     fields:
        ...     - {name: a, expression: {dialects: [{dialect: ANSI_SQL, expression: a}]},
        ...        custom_extensions: [{vendor_name: TABLERAG, data: '{"unit":"元"}'}]}
        ...     - {name: b, expression: {dialects: [{dialect: ANSI_SQL, expression: b}]},
        ...        custom_extensions: [{vendor_name: TABLERAG, data: '{"unit":"分"}'}]}'''))
        >>> units_of("SUM(t.a) - SUM(t.b)", k)
        ["SUM(t.a) - SUM(t.b) subtracts an amount in '分' from one in '元'; convert one first"]
    """
    try:
        tree = parse_expression(text, read)
    except NotCompiled:
        return []
    problems = []
    for node in tree.find_all(exp.Add, exp.Sub):
        left, right = _unit(node.this, knowledge), _unit(node.expression, knowledge)
        if left and right and left != right:
            verb = "adds" if isinstance(node, exp.Add) else "subtracts"
            link = "to" if isinstance(node, exp.Add) else "from"
            problems.append(
                f"{node.sql()} {verb} an amount in {right!r} {link} one in {left!r}; "
                "convert one first"
            )
    return problems


def caliber_unit(caliber: Caliber, knowledge: Knowledge) -> str | None:
    """The unit of a caliber's expression by its fields' units (None when they do not say)."""
    found = expression_for(caliber.expression)
    return unit_of(found[0], knowledge, found[1]) if found else None


def unit_of(text: str, knowledge: Knowledge, read: str | None = None) -> str | None:
    """The unit of a metric expression when the model says it (fields' units), else None."""
    try:
        return _unit(parse_expression(text, read), knowledge)
    except NotCompiled:
        return None


def _unit(node: exp.Expr, knowledge: Knowledge) -> str | None:
    if isinstance(node, exp.Paren):
        return _unit(node.this, knowledge)
    if isinstance(node, exp.Column) and node.table:
        found = knowledge.field(f"{node.table}.{node.name}")
        return str(found[1].ext["unit"]) if found and found[1].ext.get("unit") else None
    if isinstance(node, exp.Sum | exp.Avg | exp.Min | exp.Max):
        return _unit(node.this, knowledge)
    if isinstance(node, exp.Add | exp.Sub):
        left, right = _unit(node.this, knowledge), _unit(node.expression, knowledge)
        return left if left == right else None
    if isinstance(node, exp.Column):
        view = knowledge.metric(node.name)
        if view is not None:
            if view.unit:
                return view.unit
            return caliber_unit(view.caliber(), knowledge)
    return None


def value_probe(
    ref: str, values: list[str | int | float | bool], knowledge: Knowledge, *, dialect: str
) -> str:
    """SQL counting the rows whose field ``ref`` holds one of ``values`` (is the value in the
    data at all?).

    Raises:
        NotCompiled: ``ref`` is not a field of the model.
    """
    scope = _Scope(knowledge)
    node = _field_ref(ref, scope, "filter field")
    found = knowledge.field(ref)
    if node is None or found is None or scope.problems:
        raise NotCompiled(scope.problems or [f"unknown field {ref!r}"])
    query = (
        exp.select(exp.Count(this=exp.Star()))
        .from_(_table(found[0]))
        .where(exp.In(this=node, expressions=[_literal(v) for v in values]))
    )
    return query.sql(dialect=dialect)
