"""Layer 3, the AST gate: decide from the sqlglot tree whether generated SQL may run.

``validate`` collects every issue (code, message, span) so a repair loop can feed them back to
the model; ``check`` raises :class:`~tablerag.errors.SQLRejected` or returns the SQL to run: the
accepted tree with tables qualified, the outer LIMIT enforced and comments dropped, rendered in
the engine's dialect. Anything the gate cannot parse or understand is rejected (fail closed).
"""

from __future__ import annotations

import contextlib
import difflib
import re
from dataclasses import dataclass, field

import sqlglot
from sqlglot import exp
from sqlglot.errors import ErrorLevel, OptimizeError, ParseError, TokenError
from sqlglot.optimizer.scope import Scope, ScopeType, find_all_in_scope, traverse_scope

from tablerag.errors import Issue, SQLRejected
from tablerag.sql.exposed import ExposedCatalog, ExposedTable
from tablerag.sql.functions import (
    ALLOWED_TABLE_FUNCTIONS,
    CATALOG_MESSAGE,
    CATALOG_TYPE_DIALECTS,
    catalog_type,
    function_denial,
    function_name,
    mask_context_denial,
    nested_key_denial,
)
from tablerag.sql.guard import bad_encoding, nesting_issues, too_deep
from tablerag.sql.names import masked_columns, name_issues
from tablerag.sql.policy import ExecutionPolicy
from tablerag.sql.rewrite import enforce_limit, render, sqlite_limit_all

_BAD_CHARS = re.compile(
    r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]"
)
_SURROGATE = re.compile("[\ud800-\udfff]")
"""Half of a character (a lone surrogate): text decoded wrongly; no driver can send it."""

MAX_LISTED_TABLES = 3
"""Tables named in an unknown-column message ("it is a column of a, b, c")."""
MAX_LISTED_COLUMNS = 30
"""Above this many columns in FROM, an unknown-column message does not list them."""
_KEYISH = re.compile(
    r"(?:_[iI][dD]|[^\W_](?:ID|Id)|[\u4e00-\u9fff]id|^[A-Za-z]id)$"
    r"|.(?i:code|key|_no)$|.(?:编码|编号|代码)$"
)
"""A column name that reads as a foreign key (a join hint is only given on one of these):
``cust_id``, ``StuID``, ``球队id``, ``uid``, ``product_code``, ``order_no``, ``商品编码``. A bare
``id`` is left out: two tables' ``id`` columns are their own keys, not a join; so are words that
merely end in "id" (``valid``, ``paid``). Same verdicts as before on all 634 Spider and CHASE
column names."""

_FORBIDDEN_NAMES = (
    "Insert", "Update", "Delete", "Merge", "Create", "Drop", "Alter", "AlterColumn", "Command",
    "Copy", "Pragma", "Set", "SetItem", "Use", "Transaction", "Commit", "Rollback", "Attach",
    "Detach", "Describe", "Summarize", "Show", "TruncateTable", "Grant", "Revoke", "Analyze",
    "Cache", "Uncache", "Refresh", "LoadData", "Kill", "Export", "Install", "Comment", "Declare",
    "Into", "Lock", "Parameter", "Placeholder", "SessionParameter", "Execute", "Prepare",
)  # fmt: skip
_FORBIDDEN: tuple[type[exp.Expr], ...] = tuple(
    getattr(exp, n) for n in _FORBIDDEN_NAMES if isinstance(getattr(exp, n, None), type)
)
_CODES = {
    "Into": ("select_into", "SELECT INTO writes a table"),
    "Lock": ("locking_clause", "FOR UPDATE/SHARE locks rows"),
    "Parameter": ("parameter", "parameters and placeholders cannot be bound here"),
    "Placeholder": ("parameter", "parameters and placeholders cannot be bound here"),
    "SessionParameter": ("parameter", "session variables are not readable"),
}


@dataclass
class GateResult:
    """What the gate decided: all issues, and when there are none the SQL to run."""

    issues: list[Issue] = field(default_factory=list)
    sql: str | None = None
    expression: exp.Expr | None = None
    executed: str | None = None
    """The SQL the engine runs: :attr:`sql` with every table reference qualified to the
    exposure catalog when the gate was given one (else the same text)."""


def validate(
    sql: str,
    *,
    dialect: str,
    catalog: ExposedCatalog,
    policy: ExecutionPolicy | None = None,
) -> list[Issue]:
    """Every reason the gate refuses ``sql``; an empty list means it may run.

    Example:
        >>> cat = ExposedCatalog.from_mapping({"orders": ["id", "amount"]})
        >>> validate("SELECT amount FROM orders", dialect="duckdb", catalog=cat)
        []
        >>> [i.code for i in validate("DELETE FROM orders", dialect="duckdb", catalog=cat)]
        ['statement_not_allowed']
        >>> validate("SELECT amont FROM orders", dialect="duckdb", catalog=cat)[0].message
        "Unknown column 'amont'. Did you mean 'amount'?"
    """
    return gate(sql, dialect=dialect, catalog=catalog, policy=policy).issues


def check(
    sql: str,
    *,
    dialect: str,
    catalog: ExposedCatalog,
    policy: ExecutionPolicy | None = None,
) -> str:
    """Return the SQL to execute for ``sql``, or raise when the gate refuses it.

    The returned SQL is the accepted tree rendered again (tables qualified, comments dropped,
    outer ``LIMIT`` at most ``policy.max_rows + 1`` so the engine can tell a result was cut).

    Raises:
        SQLRejected: with all issues found.

    Example:
        >>> cat = ExposedCatalog.from_mapping({"orders": ["id"]}, schema="data")
        >>> check("select id from orders -- hi", dialect="duckdb", catalog=cat,
        ...       policy=ExecutionPolicy(max_rows=10))
        'SELECT id FROM data.orders LIMIT 11'
    """
    result = gate(sql, dialect=dialect, catalog=catalog, policy=policy)
    if result.issues or result.sql is None:
        raise SQLRejected(sql, result.issues)
    return result.sql


def gate(
    sql: str,
    *,
    dialect: str,
    catalog: ExposedCatalog,
    policy: ExecutionPolicy | None = None,
    exposure: str | None = None,
) -> GateResult:
    """Run every check; see :func:`validate` and :func:`check`.

    With ``exposure`` (the engine's exposure catalog, e.g. DuckDB's database of views over the
    exposed columns), :attr:`GateResult.executed` names every table through it:
    ``exposure.schema.table``. Shown SQL (:attr:`GateResult.sql`) keeps the user's names.

    Example:
        >>> cat = ExposedCatalog.from_mapping({"orders": ["id"]}, schema="data")
        >>> r = gate("SELECT id FROM orders", dialect="duckdb", catalog=cat, exposure="x")
        >>> r.sql, r.executed
        ('SELECT id FROM data.orders LIMIT 1001', 'SELECT id FROM x.data.orders LIMIT 1001')

    SQL nested too deeply for sqlglot is refused before it is parsed (the parser guard,
    :mod:`tablerag.sql.guard`); a tree that runs out of Python's stack anyway, or text that is
    not valid Unicode, is refused too, never raised.
    """
    policy = policy or ExecutionPolicy()
    issues = _text_issues(sql, policy)
    if issues:
        return GateResult(issues)
    try:
        return _gate(sql, dialect, catalog, policy, exposure)
    except RecursionError:
        return GateResult([too_deep()])
    except UnicodeError as exc:
        return GateResult([bad_encoding(exc)])


def _gate(
    sql: str, dialect: str, catalog: ExposedCatalog, policy: ExecutionPolicy, exposure: str | None
) -> GateResult:
    issues: list[Issue] = []
    with contextlib.suppress(TokenError):  # the parser reports it, with its position
        issues += nesting_issues(sql, dialect)
    if issues:
        return GateResult(issues)
    statement = _parse_one(sql, dialect, issues)
    if statement is None:
        return GateResult(issues)
    issues += _statement_issues(statement, dialect, policy)
    if issues:
        return GateResult(issues)
    issues += name_issues(statement, dialect, catalog)
    if issues:
        return GateResult(issues)
    tree = statement.copy()
    if dialect == "sqlite":
        sqlite_limit_all(tree)
    real: list[exp.Table] = []
    try:
        issues += _catalog_issues(tree, dialect, catalog, real, policy.mask_personal_data)
    except OptimizeError as exc:
        issues.append(
            Issue(
                "unsupported_query",
                f"The gate cannot resolve this query ({exc}). "
                "Rewrite it more simply, e.g. with explicit table aliases.",
            )
        )
    if issues:
        return GateResult(issues)
    shown = enforce_limit(tree, policy.max_rows + 1)
    text = render(shown, dialect)
    if not exposure:
        return GateResult([], text, shown, text)
    for table in real:
        table.set("catalog", exp.to_identifier(exposure))
    return GateResult([], text, shown, render(enforce_limit(tree, policy.max_rows + 1), dialect))


def _text_issues(sql: str, policy: ExecutionPolicy) -> list[Issue]:
    if len(sql) > policy.max_sql_chars:
        return [
            Issue(
                "too_long",
                f"The SQL has {len(sql)} characters, more than the "
                f"{policy.max_sql_chars} allowed; write a shorter query.",
            )
        ]
    broken = _SURROGATE.search(sql)
    if broken:
        return [
            Issue(
                "bad_character",
                f"The SQL contains U+{ord(broken.group()):04X}, half of a broken character "
                "(bad encoding); remove it.",
                (broken.start(), broken.end()),
            )
        ]
    bad = _BAD_CHARS.search(sql)
    if bad:
        return [
            Issue(
                "bad_character",
                f"The SQL contains the invisible or control character "
                f"U+{ord(bad.group()):04X}; remove it.",
                (bad.start(), bad.end()),
            )
        ]
    return []


def _offset(sql: str, line: int, col: int) -> int:
    lines = sql.split("\n")
    return sum(len(x) + 1 for x in lines[: max(line - 1, 0)]) + max(col - 1, 0)


def _parse_one(sql: str, dialect: str, issues: list[Issue]) -> exp.Expr | None:
    try:
        parsed = sqlglot.parse(sql, read=dialect, error_level=ErrorLevel.IMMEDIATE)
    except ParseError as exc:
        first = exc.errors[0] if exc.errors else {}
        line, col = first.get("line"), first.get("col")
        where = None
        if isinstance(line, int) and isinstance(col, int):
            at = _offset(sql, line, col) + 1
            where = (max(at - len(str(first.get("highlight") or "")), 0), at)
        desc = str(first.get("description") or exc).split("\n")[0]
        issues.append(
            Issue(
                "parse_error",
                f"The SQL does not parse as {dialect}: {desc}. Fix the syntax.",
                where,
            )
        )
        return None
    except TokenError as exc:
        issues.append(
            Issue(
                "parse_error",
                f"The SQL does not tokenize as {dialect}: {exc}. Check quotes and brackets.",
            )
        )
        return None
    statements = [s for s in parsed if s is not None]
    if not statements:
        issues.append(Issue("empty", "The SQL is empty; write one SELECT statement."))
        return None
    if len(statements) > 1:
        issues.append(
            Issue(
                "multiple_statements",
                f"Found {len(statements)} statements; send "
                "exactly one SELECT statement, without ';' in between.",
            )
        )
        return None
    return statements[0]


@dataclass(frozen=True)
class JoinHint:
    """How to join ``table`` to the FROM item ``alias``: on their shared column ``key``, or,
    with a bridge ``via``, join ``via`` on its shared column ``via_key`` with ``alias`` and
    then ``table`` on ``key``, the column ``via`` shares with it (fact → product → category)."""

    table: str
    key: str
    alias: str
    via: str = ""
    via_key: str = ""

    def joins(self, name: str | None = None, via_name: str | None = None) -> list[exp.Join]:
        """The JOIN clauses, as trees (built, not parsed: no table name can break them):
        ``JOIN table [AS name] ON name.key = alias.key``, or through the bridge first."""
        if not self.via:
            return [_join(self.table, name, self.key, self.alias)]
        bridge = via_name or self.via
        return [
            _join(self.via, via_name, self.via_key, self.alias),
            _join(self.table, name, self.key, bridge),
        ]

    def sql(self, dialect: str, name: str | None = None, via_name: str | None = None) -> str:
        """:meth:`joins` as text.

        Example:
            >>> JoinHint("dim_category", "category_code", "p").sql("duckdb")
            'JOIN dim_category ON dim_category.category_code = p.category_code'
            >>> JoinHint("dim_category", "category_code", "s", "dim_product", "product_code"
            ...          ).sql("duckdb")  # doctest: +NORMALIZE_WHITESPACE
            'JOIN dim_product ON dim_product.product_code = s.product_code
             JOIN dim_category ON dim_category.category_code = dim_product.category_code'
        """
        return " ".join(j.sql(dialect=dialect) for j in self.joins(name, via_name))


def _join(table: str, name: str | None, key: str, other: str) -> exp.Join:
    alias = exp.TableAlias(this=exp.to_identifier(name)) if name else None
    node = exp.Table(this=exp.to_identifier(table), alias=alias)
    on = exp.EQ(this=exp.column(key, table=name or table), expression=exp.column(key, table=other))
    return exp.Join(this=node, on=on)


def _one_key(ours: set[str], theirs: set[str]) -> str | None:
    """The one key-like column two tables share (lower-case), else None."""
    keys = [c for c in ours & theirs if _KEYISH.search(c)]
    return keys[0] if len(keys) == 1 else None


def span(node: exp.Expr) -> tuple[int, int] | None:
    """Character offsets (start, end) of ``node`` in the parsed text, when sqlglot kept them."""
    for candidate in (node, node.this if isinstance(node.this, exp.Expr) else None):
        meta = candidate.meta if candidate is not None else {}
        if "start" in meta and "end" in meta:
            return (int(meta["start"]), int(meta["end"]) + 1)
    ident = node.find(exp.Identifier)
    if ident is not None and ident is not node:
        return span(ident)
    return None


def _statement_issues(statement: exp.Expr, dialect: str, policy: ExecutionPolicy) -> list[Issue]:
    issues: list[Issue] = []
    root = statement.unnest() if isinstance(statement, exp.Subquery) else statement
    if isinstance(root, exp.Pivot):
        return [
            Issue(
                "statement_not_allowed",
                "The PIVOT statement is not allowed (its columns are found only when it runs, "
                "so the gate cannot check them); write it as SELECT ... FROM t PIVOT (agg(x) "
                "FOR col IN ('a', 'b')), or with GROUP BY and CASE: SELECT k, sum(CASE WHEN "
                "col = 'a' THEN x END) AS a FROM t GROUP BY k.",
                span(root),
                {"statement": "PIVOT"},
            )
        ]
    if not isinstance(root, exp.Query) or isinstance(root, exp.Subquery):
        kind = root.name.upper() if isinstance(root, exp.Command) else root.key.upper()
        return [
            Issue(
                "statement_not_allowed",
                f"{kind} statements are not allowed; only one "
                "read-only SELECT (WITH ... SELECT) may run.",
                span(root),
                {"statement": kind},
            )
        ]
    for node in statement.walk():
        if isinstance(node, _FORBIDDEN):
            name = type(node).__name__
            code, why = _CODES.get(
                name, ("not_read_only", f"{name.upper()} changes data or settings")
            )
            issues.append(
                Issue(code, f"{why}; only read-only SELECT is allowed.", span(node), {"node": name})
            )
        elif (
            isinstance(node, exp.With)
            and node.args.get("recursive")
            and not (policy.allow_recursive)
        ):
            issues.append(
                Issue(
                    "recursive_cte",
                    "WITH RECURSIVE is not allowed (it can run "
                    "for ever); use joins and GROUP BY instead.",
                    span(node),
                )
            )
        elif isinstance(node, exp.Table) and isinstance(node.this, exp.Func):
            name = function_name(node.this)
            if name not in ALLOWED_TABLE_FUNCTIONS:
                issues.append(
                    Issue(
                        "table_function_not_allowed",
                        f"Table function {name!r} is "
                        "not allowed; read from the catalog tables only.",
                        span(node.this),
                        {"function": name},
                    )
                )
        if isinstance(node, exp.DataType) and dialect in CATALOG_TYPE_DIALECTS:
            # CAST, TRY_CAST, ::, typed literals (regclass 'x'), arrays of it, column lists
            target = catalog_type(node)
            if target:
                issues.append(
                    Issue(
                        "catalog_cast",
                        f"{CATALOG_MESSAGE} (here: {target}).",
                        span(node) or span(node.parent or node),
                        {"type": target},
                    )
                )
        nested = nested_key_denial(node)
        if nested:
            issues.append(
                Issue(
                    "sensitive_key",
                    f"The {nested}; leave it out (read only keys that hold no personal or "
                    "secret data, named as literals).",
                    span(node),
                )
            )
        if isinstance(node, exp.Func):
            denial = function_denial(node, dialect)
            if denial:
                issues.append(
                    Issue(
                        "function_not_allowed",
                        f"The {denial}; use ordinary SQL functions only.",
                        span(node),
                        {"function": function_name(node)},
                    )
                )
    return issues


class _Resolver:
    """Resolves tables and columns of one query against the exposed catalog."""

    def __init__(
        self, tree: exp.Expr, dialect: str, catalog: ExposedCatalog, masking: bool = True
    ) -> None:
        self.tree, self.dialect, self.catalog, self.masking = tree, dialect, catalog, masking
        self.issues: list[Issue] = []
        self.masked_out: dict[int, set[str]] = {}
        """Output names of a query (by ``id``) that carry a masked column as it is."""
        self.real: dict[int, ExposedTable | None] = {}
        self.cte_refs: dict[int, Scope | exp.Table] = {}

    # -- tables ---------------------------------------------------------------------------
    def classify_tables(self, scopes: list[Scope]) -> None:
        for scope in scopes:
            ctes = {k.lower(): v for k, v in scope.cte_sources.items()}
            for table in scope.tables:
                if not table.args.get("db") and table.name.lower() in ctes:
                    self.cte_refs[id(table)] = ctes[table.name.lower()]
        for table in self.tree.find_all(exp.Table):
            if isinstance(table.this, exp.Func) or id(table) in self.cte_refs:
                continue
            found = self.real[id(table)] = self._resolve_table(table)
            alias = table.args.get("alias")
            if found and found.hidden and isinstance(alias, exp.TableAlias) and alias.columns:
                self.issues.append(
                    _renaming_issue(table, found.name, "a column list after its alias")
                )

    def check_aliases(self, scope: Scope) -> None:
        """Two FROM items of one query named alike up to case (``customers AS x, (...) AS X``)
        are refused: MariaDB keeps them apart (table aliases are case-sensitive there) and
        resolved ``x.password`` to the table while the gate's case-insensitive lookup took
        the derived table; elsewhere the engine refuses them anyway."""
        query = scope.expression
        if not isinstance(query, exp.Select):
            return
        items = [query.args.get("from_")] + list(query.args.get("joins") or [])
        names = [
            item.this.alias_or_name
            for item in items
            if isinstance(item, exp.From | exp.Join) and item.this.alias_or_name
        ]
        seen: dict[str, str] = {}
        for name in names:
            other = seen.setdefault(name.lower(), name)
            if other is not name:
                self.issues.append(
                    Issue(
                        "ambiguous_name",
                        f"Two FROM items are named {other!r} and {name!r}; give each table "
                        "or subquery its own alias (differing in more than case).",
                        detail={"names": [other, name]},
                    )
                )
                return

    def check_positions(self, scope: Scope) -> None:
        """DuckDB's ``#N`` reads the N-th column of FROM, hidden ones included on a database
        without an exposure layer; refused over a table with hidden columns."""
        hiding = [
            self.real[id(src)]
            for _node, src in scope.selected_sources.values()
            if isinstance(src, exp.Table) and self.hidden_in(src)
        ]
        if not hiding:
            return
        for node in find_all_in_scope(scope.expression, exp.PositionalColumn):
            found = hiding[0]
            assert found is not None
            self.issues.append(_renaming_issue(node, found.name, "a positional reference (#N)"))

    def _resolve_table(self, table: exp.Table) -> ExposedTable | None:
        shown = ".".join(p for p in (table.catalog, table.db, table.name) if p)
        if table.args.get("catalog") is not None:
            found = None
        else:
            found = self.catalog.table(table.name, schema=table.db or None)
        if found is None:
            hint = difflib.get_close_matches(shown.lower(), self.catalog.names(), n=1)
            tail = f" Did you mean {hint[0]!r}?" if hint else " Use a table from the catalog."
            self.issues.append(
                Issue(
                    "unknown_table",
                    f"Unknown table {shown!r}.{tail}",
                    span(table),
                    {"table": shown, "suggestion": hint},
                )
            )
            return None
        if found.schema and not table.db:
            table.set("db", exp.to_identifier(found.schema))
        if self.dialect == "mysql" and (table.name, table.db) != (found.name, found.schema):
            # names are case-sensitive there: run the catalog's spelling, keep the written
            # one as the alias that columns are qualified with
            if not table.alias:
                table.set("alias", exp.TableAlias(this=table.this.copy()))
            table.set("this", exp.to_identifier(found.name))
            table.set("db", exp.to_identifier(found.schema) if found.schema else None)
        return found

    # -- columns --------------------------------------------------------------------------
    def outputs(self, source: exp.Expr | Scope, node: exp.Expr | None) -> set[str] | None:
        """Lower-cased column names a FROM item provides; None when it cannot be known."""
        alias = node.args.get("alias") if node is not None else None
        if isinstance(alias, exp.TableAlias) and alias.columns:
            return {c.name.lower() for c in alias.columns}
        if isinstance(source, exp.Table):
            if id(source) in self.cte_refs:
                return self.outputs(self.cte_refs[id(source)], None)
            if isinstance(source.this, exp.Func):
                return None
            found = self.real.get(id(source))
            return {c.lower() for c in found.columns} if found else None
        if isinstance(source, Scope):
            query = source.expression
            cte_alias = (
                query.parent.args.get("alias") if isinstance(query.parent, exp.CTE) else None
            )
            if isinstance(cte_alias, exp.TableAlias) and cte_alias.columns:
                return {c.name.lower() for c in cte_alias.columns}
            while isinstance(query, exp.SetOperation):
                query = query.left
            if not isinstance(query, exp.Select):
                return None
            if any(
                isinstance(s, exp.Star) or (isinstance(s, exp.Column) and s.is_star)
                for s in query.selects
            ):
                return None if not source.selected_sources else self._star_outputs(source)
            return {n.lower() for n in query.named_selects if n}
        return None

    def _star_outputs(self, scope: Scope) -> set[str] | None:
        out: set[str] = set()
        for node, src in scope.selected_sources.values():
            cols = self.outputs(src, node)
            if cols is None:
                return None
            out |= cols
        if isinstance(scope.expression, exp.Select):
            out |= {n.lower() for n in scope.expression.named_selects if n and n != "*"}
        return out

    def hidden_in(self, source: exp.Expr | Scope) -> set[str]:
        if isinstance(source, exp.Table) and self.real.get(id(source)):
            found = self.real[id(source)]
            return {c.lower() for c in found.hidden} if found else set()
        return set()

    def check_column(self, scope: Scope, column: exp.Column) -> None:
        name, qualifier = column.name.lower(), column.table.lower()
        candidates: list[str] = []
        hidden: set[str] = set()
        if not qualifier and self._reachable_hidden(scope, name):
            # hidden wins over a nearer source, an alias or a source of unknown columns: an
            # engine may resolve the name outwards (PostgreSQL and MariaDB read a WHERE name
            # in a subquery as the outer table's column when no alias can be meant there)
            self._column_issue(column, name, [], {name})
            return
        current: Scope | None = scope
        while current is not None:
            sources = {k.lower(): v for k, v in current.selected_sources.items()}
            picked = [sources[qualifier]] if qualifier in sources else []
            if not qualifier:
                picked = list(sources.values())
            if any(name in self.hidden_in(src) for _, src in picked):
                # hidden wins over any other source that might also provide the name
                self._column_issue(column, name, [], {name})
                return
            for node, src in picked:
                cols = self.outputs(src, node)
                if cols is None or name in cols:
                    if name in self.masked_in(src, node):
                        self.check_masked(column)
                    return
                candidates += sorted(cols)
                hidden |= self.hidden_in(src)
            if qualifier and picked:
                break
            if not qualifier and name in _aliases_visible_to(current.expression, column):
                return
            if current.scope_type in _SELF_CONTAINED and not _recursive(current):
                break  # a CTE or derived table sees no column of the query around it
            current = current.parent
        in_from = self._in_from(scope, name) if qualifier else []
        self._column_issue(column, name, candidates, hidden, in_from, scope)

    def _reachable_hidden(self, scope: Scope, name: str) -> bool:
        """Whether a table that an unqualified ``name`` in ``scope`` can reach (its FROM, and
        the enclosing queries' up to a CTE or derived table) has a hidden column ``name``."""
        current: Scope | None = scope
        while current is not None:
            if any(name in self.hidden_in(src) for _, src in current.selected_sources.values()):
                return True
            if current.scope_type in _SELF_CONTAINED and not _recursive(current):
                return False
            current = current.parent
        return False

    # -- masked columns -------------------------------------------------------------------
    def masked_in(self, source: exp.Expr | Scope, node: exp.Expr | None = None) -> set[str]:
        """Lower-cased names of the columns of a FROM item that results masking applies to:
        the ones the exposed catalog marks (``ExposedTable.masked``) and, through a derived
        table or CTE, the outputs that carry one as it is."""
        if not self.masking:
            return set()
        if isinstance(source, exp.Table) and id(source) in self.cte_refs:
            return self.masked_in(self.cte_refs[id(source)], None)
        if isinstance(source, exp.Table):
            found = self.real.get(id(source))
            return {c.lower() for c in masked_columns(found)} if found else set()
        if isinstance(source, Scope):
            out = self.masked_out.get(id(source.expression), set())
            alias = node.args.get("alias") if node is not None else None
            if out and isinstance(alias, exp.TableAlias) and alias.columns:
                return {c.name.lower() for c in alias.columns} | out
            return out
        return set()

    def check_masked(self, column: exp.Expr) -> None:
        """Refuse ``column`` (a masked column) anywhere but where the mask holds; a select item
        of an inner query carries the mask to that query's output."""
        denial = mask_context_denial(column)
        if denial:
            self.issues.append(
                Issue(
                    "masked_column",
                    f"Column {column.sql()!r} is masked in results, and {denial}; select it as "
                    "it is, count it, group by it, take its length() or test it IS NULL.",
                    span(column),
                    {"column": column.sql()},
                )
            )
            return
        item = column.parent if isinstance(column.parent, exp.Alias) else column
        query = item.parent
        if not isinstance(query, exp.Select) or item.arg_key != "expressions":
            return
        out = item.alias_or_name.lower()
        node: exp.Expr | None = query
        while isinstance(node, exp.Select | exp.SetOperation):
            self.masked_out.setdefault(id(node), set()).add(out)
            node = node.parent
        if isinstance(node, exp.Subquery) and not isinstance(node.parent, exp.From | exp.Join):
            self.check_masked(node)  # a scalar subquery: its value stands where it is used

    def check_masked_order(self, select: exp.Select) -> None:
        """``ORDER BY 1`` or ``ORDER BY alias`` of a select item that carries a masked column
        orders by the hidden value as surely as ``ORDER BY notes`` (refused likewise)."""
        masked = self.masked_out.get(id(select))
        order = select.args.get("order")
        if not masked or not isinstance(order, exp.Order):
            return
        names = [s.alias_or_name.lower() for s in select.selects]
        for item in order.expressions:
            key = item.this if isinstance(item, exp.Ordered) else item
            picked = None
            if isinstance(key, exp.Literal) and key.is_int and 0 < int(key.name) <= len(names):
                picked = names[int(key.name) - 1]
            elif isinstance(key, exp.Column) and not key.table:
                picked = key.name.lower()
            if picked is not None and picked in masked:
                self.issues.append(
                    Issue(
                        "masked_column",
                        f"ORDER BY {key.sql()!r} orders by a column that is masked in results, "
                        "which reveals the order of the hidden values; order by another column.",
                        span(key),
                        {"column": key.sql()},
                    )
                )

    def _in_from(self, scope: Scope, name: str) -> list[str]:
        """The alias of each FROM item of ``scope`` (or an enclosing one) that has the column."""
        current: Scope | None = scope
        while current is not None:
            found = [
                alias
                for alias, (node, src) in current.selected_sources.items()
                if name in (self.outputs(src, node) or set()) and name not in self.hidden_in(src)
            ]
            if found:
                return found
            current = current.parent
        return []

    def _column_issue(
        self,
        column: exp.Column,
        name: str,
        candidates: list[str],
        hidden: set[str],
        in_from: list[str] | None = None,
        scope: Scope | None = None,
    ) -> None:
        if name in hidden:
            self.issues.append(
                Issue(
                    "sensitive_column",
                    f"Column {column.name!r} is hidden "
                    "because it holds personal or secret data; leave it out.",
                    span(column),
                    {"column": column.name},
                )
            )
            return
        ident = column.this
        if (
            self.dialect == "sqlite"
            and not column.table
            and isinstance(ident, exp.Identifier)
            and ident.quoted
        ):
            # SQLite reads a double-quoted word that names no column as a string literal.
            column.replace(exp.Literal.string(ident.this))
            return
        if column.table and not candidates:
            self.issues.append(
                Issue(
                    "unknown_column",
                    f"Unknown table or alias "
                    f"{column.table!r} in {column.sql()!r}; use an alias from "
                    "the FROM clause.",
                    span(column),
                    {"column": column.sql()},
                )
            )
            return
        if in_from:
            # qualified by the wrong alias: another FROM item has the column
            written = [f"{alias}.{self._original(name)}" for alias in in_from]
            fix = f"write {' or '.join(written[:MAX_LISTED_TABLES])}"
            rejoin = self._rejoin_hint(scope, column, in_from) if scope else None
            if rejoin is not None:
                fix = (
                    f"{rejoin.table} cannot be joined on it; join it through {rejoin.via}: "
                    + rejoin.sql(self.dialect, name=column.table)
                )
            self.issues.append(
                Issue(
                    "unknown_column",
                    f"Unknown column {column.sql()!r}: {column.table} has no column "
                    f"{column.name!r}; {fix}.",
                    span(column),
                    {
                        "column": column.sql(),
                        "suggestion": written,
                        "tables": [],
                        # one FROM item has it: the repair can move the column there itself
                        "requalify": in_from[0] if len(in_from) == 1 else None,
                        "rejoin": rejoin,
                    },
                )
            )
            return
        elsewhere = self.tables_with(name)
        hint = [] if elsewhere else difflib.get_close_matches(name, candidates, n=1)
        join = self._join_hint(scope, elsewhere[0]) if scope and len(elsewhere) == 1 else None
        tail = self._column_tail(elsewhere, hint, candidates, join)
        detail: dict[str, object] = {"column": column.name, "suggestion": hint, "tables": elsewhere}
        if join is not None:
            detail["join"] = join
        self.issues.append(
            Issue("unknown_column", f"Unknown column {column.name!r}.{tail}", span(column), detail)
        )

    def tables_with(self, name: str) -> list[str]:
        """Names of the exposed tables that have a readable column ``name`` (lower-case)."""
        return [t.name for t in self.catalog.tables if name in {c.lower() for c in t.columns}]

    def _join_hint(self, scope: Scope, table: str) -> JoinHint | None:
        """The join to ``table`` on the one key-like column that a FROM item of ``scope``
        shares with it; None when there is no such single column.

        Told only "join that table (on its key)", the local model swapped the product table
        for the category table instead of adding it (the demo's 退货率 question).
        """
        target = next((t for t in self.catalog.tables if t.name == table), None)
        if target is None:
            return None
        theirs = {c.lower(): c for c in target.columns}
        sources = {
            alias: self.outputs(src, node) or set()
            for alias, (node, src) in scope.selected_sources.items()
        }
        for alias, columns in sources.items():
            key = _one_key(columns, set(theirs))
            if key is not None:
                return JoinHint(table, theirs[key], alias)
        named = {
            node.name.lower()
            for node, _ in scope.selected_sources.values()
            if isinstance(node, exp.Table)
        }
        return self._bridge_hint(sources, named | {table.lower()}, target.name, theirs)

    def _rejoin_hint(self, scope: Scope, column: exp.Column, in_from: list[str]) -> JoinHint | None:
        """How to join the table of a JOIN whose ON compares ``column`` (which that table
        lacks) with the same column of a FROM item: through the one bridge table keyed to
        both; None when ``column`` is not so compared or there is no single bridge.

        ``JOIN dim_category AS d ON s.product_code = d.product_code`` was told "write
        s.product_code", which compares a column with itself; the local model wrote the same
        query three repairs running (issue 23). The product table between them is the fix.
        """
        join, eq = column.find_ancestor(exp.Join), column.parent
        joined = join.this if join is not None else None
        if not isinstance(eq, exp.EQ) or not isinstance(joined, exp.Table):
            return None
        if join is None or joined.alias_or_name.lower() != column.table.lower():
            return None
        other = eq.expression if eq.this is column else eq.this
        mine = {a.lower(): a for a in in_from}
        if not isinstance(other, exp.Column) or other.name.lower() != column.name.lower():
            return None
        target = self.real.get(id(joined))
        alias = mine.get(other.table.lower())
        if target is None or alias is None or alias not in scope.selected_sources:
            return None
        node, src = scope.selected_sources[alias]
        named = {
            n.name.lower() for n, _ in scope.selected_sources.values() if isinstance(n, exp.Table)
        }
        theirs = {c.lower(): c for c in target.columns}
        sources = {alias: self.outputs(src, node) or set()}
        return self._bridge_hint(sources, named | {target.name.lower()}, target.name, theirs)

    def _bridge_hint(
        self, sources: dict[str, set[str]], taken: set[str], table: str, theirs: dict[str, str]
    ) -> JoinHint | None:
        """The join to ``table`` through the one table (not in FROM) that shares one key-like
        column with a FROM item and another with ``table``; None unless exactly one such path.

        "各品类的退款" read ``category_name`` over the refund and sales tables; the product
        table between them and the category table was the model's to find, and it joined the
        category table on the product code instead.
        """
        found: list[JoinHint] = []
        for bridge in self.catalog.tables:
            if bridge.name.lower() in taken:
                continue
            cols = {c.lower(): c for c in bridge.columns}
            onward = _one_key(set(cols), set(theirs))
            if onward is None:
                continue
            for alias, columns in sources.items():
                back = _one_key(columns, set(cols) - {onward})
                if back is not None:
                    found.append(JoinHint(table, theirs[onward], alias, bridge.name, cols[back]))
        # one bridge table (reached from any FROM item that has its key) is one way to read it
        return found[0] if len({h.via for h in found}) == 1 else None

    def _column_tail(
        self, elsewhere: list[str], hint: list[str], candidates: list[str], join: JoinHint | None
    ) -> str:
        """How to fix an unknown column: the table that has it (and the join to it), a close
        name, or the choices."""
        if join:
            return (
                f" It is a column of {elsewhere[0]}, not of the tables in FROM: add "
                f"{join.sql(self.dialect)} and read the column there."
            )
        if elsewhere:
            shown = ", ".join(elsewhere[:MAX_LISTED_TABLES])
            return (
                f" It is a column of {shown}, not of the tables in FROM: join that table "
                "(on its key) and read the column there."
            )
        if hint:
            # lower-case as matched: a small model given 'PetType' wrote pet_type again
            return f" Did you mean {hint[0]!r}?"
        choices = sorted(set(candidates))
        if choices and len(choices) <= MAX_LISTED_COLUMNS:
            return (
                " Columns of the tables in FROM: "
                + ", ".join(self._original(c) for c in choices)
                + "."
            )
        return " Use a column of the tables in FROM."

    def _original(self, lowered: str) -> str:
        """A catalog column name in its own spelling (candidates are lower-cased)."""
        for t in self.catalog.tables:
            for c in t.columns:
                if c.lower() == lowered:
                    return c
        return lowered

    def check_joins(self, scope: Scope) -> None:
        """USING and NATURAL joins compare columns by name without naming them as Column
        nodes (and MariaDB checks no column privilege for them): refused whenever a table of
        the scope has hidden columns, or columns the account cannot read whose names the
        catalog does not know (``ExposedTable.partial``, MySQL column grants), whichever
        columns they name."""
        query = scope.expression
        if not isinstance(query, exp.Select):
            return
        hiding = [
            found.name
            for _node, src in scope.selected_sources.values()
            if isinstance(src, exp.Table)
            for found in (self.real.get(id(src)),)
            if found is not None and (found.hidden or getattr(found, "partial", False))
        ]
        if not hiding:
            return
        for join in query.args.get("joins") or []:
            if join.args.get("using") or join.args.get("method") == "NATURAL":
                how = "NATURAL" if join.args.get("method") == "NATURAL" else "USING"
                self.issues.append(
                    Issue(
                        "sensitive_column",
                        f"Table {hiding[0]!r} has columns hidden for privacy, and a {how} "
                        "join compares columns by name where the gate cannot check them; "
                        "join with ON a.column = b.column on visible columns instead.",
                        span(join),
                        {"table": hiding[0], "join": how},
                    )
                )

    def check_stars(self, scope: Scope) -> None:
        for star in find_all_in_scope(scope.expression, exp.Star):
            if isinstance(star.parent, exp.Count):
                continue
            holder = star.parent if isinstance(star.parent, exp.Column) else None
            qualifier = holder.table.lower() if holder is not None else ""
            for alias, (node, src) in scope.selected_sources.items():
                if qualifier and alias.lower() != qualifier:
                    continue
                masked = self.masked_in(src, node)
                if masked:  # * carries the masked columns to this query's output
                    query: exp.Expr | None = scope.expression
                    while isinstance(query, exp.Select | exp.SetOperation):
                        self.masked_out.setdefault(id(query), set()).update(masked)
                        query = query.parent
                if self.hidden_in(src):
                    table = self.real[id(src)] if isinstance(src, exp.Table) else None
                    shown = table.name if table else alias
                    self.issues.append(
                        Issue(
                            "star_over_sensitive",
                            f"Table {shown!r} has "
                            "columns hidden for privacy; list the columns you "
                            "need instead of *.",
                            span(holder or star),
                            {"table": shown},
                        )
                    )


def _renaming_issue(node: exp.Expr, table: str, how: str) -> Issue:
    return Issue(
        "sensitive_column",
        f"Table {table!r} has columns hidden for privacy, and {how} could reach them by "
        "position; name the columns you need (rename them with AS in the select list).",
        span(node),
        {"table": table},
    )


_SELF_CONTAINED = (ScopeType.CTE, ScopeType.DERIVED_TABLE)
"""Scopes whose columns come from their own FROM only (a lateral subquery or a correlated one
in an expression reads the enclosing query's columns; these do not)."""


def _recursive(scope: Scope) -> bool:
    """True for a scope inside ``WITH RECURSIVE`` (its recursive member reads the CTE itself,
    which only the enclosing scope lists as a source)."""
    with_ = scope.expression.find_ancestor(exp.With)
    return bool(with_ is not None and with_.args.get("recursive"))


def _aliases_visible_to(query: exp.Expr, column: exp.Column) -> set[str]:
    """Aliases of other projections of ``query`` (GROUP BY / HAVING / lateral alias use)."""
    if not isinstance(query, exp.Select):
        return set()
    return {
        p.alias.lower()
        for p in query.selects
        if isinstance(p, exp.Alias) and all(c is not column for c in p.find_all(exp.Column))
    }


def _clause_columns(scope: Scope) -> list[exp.Column]:
    """Columns of ``scope`` that sqlglot leaves out of ``scope.columns``: every unqualified one
    in HAVING and QUALIFY, and those in ORDER BY or DISTINCT ON named like an output column.

    PostgreSQL reads a HAVING name, or a name inside an ORDER BY expression, as an input
    column, not as the output alias of that name: ``SELECT name AS password ... ORDER BY
    password || ''`` orders by the hidden column there. They are resolved like any other
    column, where a hidden column of that name wins over the alias (and is refused).
    """
    if not isinstance(scope.expression, exp.Select):
        return []
    return list(find_all_in_scope(scope.expression, exp.Column))


def _catalog_issues(
    tree: exp.Expr,
    dialect: str,
    catalog: ExposedCatalog,
    real: list[exp.Table],
    masking: bool = True,
) -> list[Issue]:
    """Every catalog issue of ``tree``; ``real`` receives its references to exposed tables."""
    scopes = traverse_scope(tree)
    resolver = _Resolver(tree, dialect, catalog, masking)
    resolver.classify_tables(scopes)
    if resolver.issues:
        return resolver.issues
    for scope in scopes:
        resolver.check_aliases(scope)
    if resolver.issues:
        return resolver.issues
    seen: set[int] = set()
    for scope in scopes:  # innermost first: each column is checked in its own scope
        resolver.check_stars(scope)
        resolver.check_joins(scope)
        resolver.check_positions(scope)
        for column in list(scope.columns) + _clause_columns(scope):
            if id(column) not in seen and not column.is_star:
                seen.add(id(column))
                resolver.check_column(scope, column)
    for select in tree.find_all(exp.Select):
        resolver.check_masked_order(select)
    real += [t for t in tree.find_all(exp.Table) if resolver.real.get(id(t)) is not None]
    return resolver.issues
