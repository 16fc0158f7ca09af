"""Where a workspace's SQL runs: its own tables, and each database it queries in place.

A workspace holds any mix of sources. Tables read from files are stored in schema ``data`` of
its DuckDB file: one place, joinable with each other. Each ingested database is another place,
reflected at ingest and queried where it lives, read-only, in its dialect, by its own engine.
:class:`SourceSet` groups the catalog by place, opens a place's engine on first use (a database
that is down fails only the questions and queries that need it), and finds the place of a query
(:meth:`SourceSet.locate`) or of a question (:meth:`SourceSet.choose`).

In a workspace of several places, the combined catalog (:attr:`SourceSet.catalog`, what the
router and the linker see) names each table of a database ``<label>.<table>``: a table name two
places share is two tables there, never one. File tables keep their names. A label is the
database's own name (the stem of a SQLite or DuckDB file, the database of a server URL), made
unique in the workspace; :data:`FILES` names the workspace's own tables.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Literal

import sqlglot
from sqlglot import exp
from sqlglot.errors import SqlglotError

from tablerag.errors import Issue, SQLRejected
from tablerag.sql.engines import SQLEngine, open_engine
from tablerag.sql.engines.exposure import EXPOSURE
from tablerag.sql.engines.scrub import is_reserved_schema
from tablerag.sql.policy import ExecutionPolicy
from tablerag.store.workspace import SourceRecord
from tablerag.types import TableInfo

if TYPE_CHECKING:
    from tablerag.linking.catalog import SchemaCatalog, TableSample

FILES = "files"
"""The label of the workspace's own tables (read from files, stored in its DuckDB file)."""

CROSS_SHARE = 0.8
"""A question is about two places when the second one's best linked table scores at least this
share of the best one's and each place holds a table the question names that the other lacks."""

_DIALECTS = {
    "duckdb": "duckdb",
    "sqlite": "sqlite",
    "postgresql": "postgres",
    "postgres": "postgres",
    "mysql": "mysql",
    "mariadb": "mysql",
}


@dataclass(frozen=True)
class SQLSource:
    """One place SQL runs: the workspace's own tables, or one database queried in place."""

    label: str
    """Its qualifier in a workspace of several places (``files``, ``hr``, ``sales``...)."""
    location: str
    """The workspace folder, or the database URL as stored (never with its password)."""
    kind: Literal["files", "database"]
    dialect: str | None
    """sqlglot dialect of its SQL; None for a plugin's engine."""
    tables: tuple[TableInfo, ...]
    """Its tables under their own names."""

    @property
    def shown(self) -> str:
        """How messages name it: ``the workspace's files`` or ``hr (sqlite:///hr.db)``."""
        return (
            "the workspace's files" if self.kind == "files" else f"{self.label} ({self.location})"
        )

    def table(self, name: str) -> TableInfo | None:
        """Its table called ``name`` (case-insensitive), or None."""
        low = name.lower()
        return next((t for t in self.tables if t.name.lower() == low), None)


@dataclass(frozen=True)
class Located:
    """The place a query runs in, and the query as that place's engine reads it."""

    source: SQLSource
    sql: str


@dataclass(frozen=True)
class Choice:
    """The place a question is answered in, and the places that compete with it."""

    source: SQLSource
    needs: tuple[SQLSource, ...] = ()
    """Places holding other tables the question names too: no single query can answer it."""
    alike: tuple[SQLSource, ...] = ()
    """Places holding a table of the same name that fits the question as well: ask which."""
    tables: tuple[str, ...] = ()
    """The best table of ``source``, then of each place in ``needs`` (combined-catalog names)."""


def group_sources(
    workspace: Path, tables: Sequence[TableInfo], records: Sequence[SourceRecord]
) -> tuple[SQLSource, ...]:
    """The places of a workspace: its stored tables (one place), then each database in order.

    Example:
        >>> from tablerag.types import ColumnInfo
        >>> t = lambda n, s, stored: TableInfo(n, s, (ColumnInfo("x", "INT"),), 1, stored=stored)
        >>> places = group_sources(Path("ws"), [t("sales", "/a/sales.csv", True),
        ...     t("employees", "sqlite:///hr.db", False)], [])
        >>> [(p.label, p.kind, p.dialect, [x.name for x in p.tables]) for p in places]
        [('files', 'files', 'duckdb', ['sales']), ('hr', 'database', 'sqlite', ['employees'])]
    """
    formats = {r.location: r.format for r in records}
    stored = tuple(t for t in tables if t.stored)
    out: list[SQLSource] = []
    taken: set[str] = set()
    if stored:
        out.append(SQLSource(FILES, str(workspace), "files", "duckdb", stored))
        taken.add(FILES)
    by_location: dict[str, list[TableInfo]] = {}
    for t in tables:
        if not t.stored:
            by_location.setdefault(t.source, []).append(t)
    order = {r.location: i for i, r in enumerate(records)}
    for location in sorted(by_location, key=lambda loc: (order.get(loc, len(order)), loc)):
        label = _unique(source_label(location), taken)
        taken.add(label)
        scheme = formats.get(location) or location.split(":", 1)[0].split("+", 1)[0].lower()
        dialect = _DIALECTS.get(scheme)
        out.append(SQLSource(label, location, "database", dialect, tuple(by_location[location])))
    return tuple(out)


def source_label(location: str) -> str:
    """A short SQL name for a database URL: its file's stem or its database name.

    Example:
        >>> source_label("sqlite:///data/hr.db"), source_label("postgresql://u:***@h:5432/Sales")
        ('hr', 'sales')
        >>> source_label("duckdb:////abs/2026 shop.duckdb"), source_label("postgresql://h")
        ('db_2026_shop', 'postgresql')
        >>> source_label("postgresql://h/tablerag"), source_label("sqlite:///pg_stats.db")
        ('db_tablerag', 'db_pg_stats')

    A label never names tablerag's own schema or a system one (``tablerag``, ``pg_*``,
    ``information_schema``): no source can shadow them.
    """
    scheme, _, rest = location.partition("://")
    tail = rest.split("?", 1)[0]
    if "/" in tail:
        name = tail.rsplit("/", 1)[1]
        name = name.rsplit(".", 1)[0] if "." in name else name
    else:
        name = ""
    text = re.sub(r"\W+", "_", name.lower()).strip("_") or scheme.split("+", 1)[0].lower()
    reserved = is_reserved_schema(text) or text == EXPOSURE
    return f"db_{text}" if text[:1].isdigit() or reserved else text


def _unique(label: str, taken: set[str]) -> str:
    if label not in taken:
        return label
    n = 2
    while f"{label}_{n}" in taken:
        n += 1
    return f"{label}_{n}"


def qualify(source: SQLSource, table: TableInfo) -> TableInfo:
    """``table`` as the combined catalog names it: ``<label>.<name>`` (its keys too).

    Example:
        >>> from tablerag.types import ColumnInfo, ForeignKey
        >>> src = SQLSource("hr", "sqlite:///hr.db", "database", "sqlite", ())
        >>> t = TableInfo("staff", "sqlite:///hr.db", (ColumnInfo("dept", "INT"),), 3,
        ...     foreign_keys=(ForeignKey(("dept",), "depts", ("id",)),))
        >>> q = qualify(src, t); q.name, q.foreign_keys[0].ref_table
        ('hr.staff', 'hr.depts')
    """
    if source.kind == "files":
        return table
    keys = tuple(
        replace(fk, ref_table=f"{source.label}.{fk.ref_table}") for fk in table.foreign_keys
    )
    return replace(table, name=f"{source.label}.{table.name}", foreign_keys=keys)


class SourceSet:
    """The places of one workspace, their catalogs, and their engines opened on first use.

    Args:
        sources: the places (:func:`group_sources`).
        samples: column samples of the stored tables (the workspace's profile cache).
        glossary: the workspace's business terms.
        terms: (English, Chinese) names of one metric, from the workspace's semantic model.
        policy: default limits of every engine.
        allow_writable_role: let a database role that can write run queries (operator override).
    """

    def __init__(
        self,
        sources: Sequence[SQLSource],
        *,
        samples: Mapping[str, TableSample] | None = None,
        glossary: Mapping[str, tuple[str, ...]] | None = None,
        terms: Sequence[tuple[str, str]] = (),
        policy: ExecutionPolicy | None = None,
        allow_writable_role: bool = False,
    ) -> None:
        self.sources = tuple(sources)
        self._samples = dict(samples or {})
        self._glossary = dict(glossary or {})
        self._terms = tuple(terms)
        self.policy = policy or ExecutionPolicy()
        self._allow_writable_role = allow_writable_role
        self._engines: dict[str, SQLEngine] = {}
        self._catalogs: dict[str, SchemaCatalog] = {}
        self._combined: SchemaCatalog | None = None

    @property
    def is_mixed(self) -> bool:
        """More than one place: combined-catalog names of database tables are qualified."""
        return len(self.sources) > 1

    def source(self, label: str) -> SQLSource | None:
        """The place called ``label`` (case-insensitive), or None."""
        return next((s for s in self.sources if s.label == label.lower()), None)

    # -- catalogs ------------------------------------------------------------------------------

    @property
    def catalog(self) -> SchemaCatalog | None:
        """The linking catalog of every place (names qualified when mixed); None: no tables."""
        if not self.sources:
            return None
        if not self.is_mixed:
            return self.catalog_of(self.sources[0])
        if self._combined is None:
            from tablerag.linking.catalog import combine

            # File tables keep their names: their own catalog is reused, not built twice.
            self._combined = combine(
                [
                    self.catalog_of(s)
                    if s.kind == "files"
                    else self._build([qualify(s, t) for t in s.tables], stored=False)
                    for s in self.sources
                ]
            )
        return self._combined

    def catalog_of(self, source: SQLSource) -> SchemaCatalog:
        """The linking catalog of one place, under its tables' own names (for its prompts)."""
        found = self._catalogs.get(source.label)
        if found is None:
            found = self._catalogs[source.label] = self._build(
                source.tables, source.kind == "files"
            )
        return found

    def _build(self, tables: Sequence[TableInfo], stored: bool) -> SchemaCatalog:
        # The linking stack (and its numpy, jieba, bm25s) is imported when a catalog is first
        # needed: `tablerag sql` finds a query's source by name and needs none of it.
        from tablerag.linking.catalog import build_catalog

        samples = self._samples if stored else {}
        return build_catalog(
            tables,
            samples=samples,
            glossary=self._glossary,
            terms=self._terms,
            rules=self.policy.sensitive,
        )

    def source_of(self, name: str) -> tuple[SQLSource, str] | None:
        """The place and own name of a combined-catalog table name, or None."""
        if not self.is_mixed:
            only = self.sources[0] if self.sources else None
            return (only, name) if only is not None and only.table(name) else None
        label, _, rest = name.partition(".")
        source = self.source(label) if rest else None
        if source is not None and source.kind == "database" and source.table(rest):
            return source, rest
        files = self.source(FILES)
        if files is not None and files.table(name):
            return files, name
        return None

    # -- engines -------------------------------------------------------------------------------

    def engine(self, source: SQLSource) -> SQLEngine:
        """The read-only engine of ``source``, opened on first use and kept.

        Raises:
            ConfigError: the database cannot be reached or its driver is missing (the message
                says how to fix it), or its role can write.
            WorkspaceError: the workspace file is locked.
            SourceError: the database file is gone.
        """
        found = self._engines.get(source.label)
        if found is None:
            target: str | Path = (
                Path(source.location) if source.kind == "files" else source.location
            )
            found = open_engine(
                target,
                catalog=list(source.tables),
                policy=self.policy,
                allow_writable_role=self._allow_writable_role,
            )
            self._engines[source.label] = found
        return found

    def opened(self) -> list[SQLEngine]:
        """The engines opened so far."""
        return list(self._engines.values())

    def close(self) -> None:
        """Close every engine opened (idempotent)."""
        engines, self._engines = list(self._engines.values()), {}
        for engine in engines:
            engine.close()

    # -- finding the place ---------------------------------------------------------------------

    def locate(self, sql: str) -> Located:
        """The place whose tables ``sql`` reads, and the SQL without place qualifiers.

        A table is found by its own name (``employees``, ``sales.orders``) or qualified by its
        place's label (``hr.employees``). A name no place holds is left to the gate of the
        place the other names point at (it refuses it with its "Did you mean").

        Raises:
            SQLRejected: the tables are in two places (``cross_source``: one query runs on one
                database), or a name two places share is not qualified (``ambiguous_source``).
        """
        if len(self.sources) == 1:
            return Located(self.sources[0], sql)
        tree = _parse(sql, [s.dialect for s in self.sources])
        if tree is None or not self.sources:
            return Located(self._default(), sql)
        refs = _table_refs(tree)
        found: list[tuple[exp.Table, list[tuple[SQLSource, bool]]]] = []
        for table in refs:
            where = self._where(table)
            if where:
                found.append((table, where))
        if not found:
            return Located(self._default(), sql)
        common = set.intersection(*({s.label for s, _ in where} for _, where in found))
        if not common:
            raise SQLRejected(sql, [_cross_issue(found)])
        if len(common) > 1:
            raise SQLRejected(sql, [_ambiguous_issue(found, common, self)])
        source = self.source(common.pop())
        assert source is not None
        strip = [t for t, where in found for s, qualified in where if s is source and qualified]
        if not strip:
            return Located(source, sql)
        return Located(source, _unqualified(sql, source, strip))

    def _where(self, table: exp.Table) -> list[tuple[SQLSource, bool]]:
        """The places holding ``table``, each with True when the label qualifies it there."""
        parts = [p.name for p in table.parts]
        if len(parts) > 1:
            source = self.source(parts[0])
            if source is not None and source.table(".".join(parts[1:])):
                return [(source, True)]
        full = ".".join(parts)
        exact = [(s, False) for s in self.sources if s.table(full)]
        if exact or len(parts) == 1:
            return exact
        return [(s, False) for s in self.sources if s.table(parts[-1])]

    def _default(self) -> SQLSource:
        return self.source(FILES) or self.sources[0]

    def choose(self, question: str) -> Choice | None:
        """The place a question is answered in (None: no tables, or nothing links).

        One place: that place. Several: the question is linked against the combined catalog
        and the place of the best table answers it. Another place whose best table scores
        nearly as high (:data:`CROSS_SHARE`) competes: as :attr:`Choice.alike` when that
        table has the same name (which one is meant?), as :attr:`Choice.needs` when both
        tables are named by the question ("employees" of one place, "orders" of another: no
        single query can answer it). A question that names a source's label ("… in hr", as
        the options of an ask-back do) stays in that source.
        """
        if len(self.sources) == 1:
            return Choice(self.sources[0])
        catalog = self.catalog
        if catalog is None:
            return None
        from tablerag.linking.linker import link

        linked = link(question, catalog)
        best: dict[str, tuple[float, str]] = {}
        for t in linked.tables:
            place = self.source_of(t.name)
            if place is None or not t.is_seed:
                continue
            label = place[0].label
            if label not in best or t.score > best[label][0]:
                best[label] = (t.score, t.name)
        said = {s.label for s in self.sources if _says(question, s.label)}
        if said & best.keys():  # "... (in hr)": the question names its source
            best = {label: v for label, v in best.items() if label in said}
        if not best:
            return None
        ranked = sorted(best, key=lambda lab: -best[lab][0])
        first = self.source(ranked[0])
        assert first is not None
        top, top_name = best[ranked[0]]
        needs: list[SQLSource] = []
        alike: list[SQLSource] = []
        tables = [top_name]
        for label in ranked[1:]:
            score, name = best[label]
            other = self.source(label)
            if other is None or score < CROSS_SHARE * top:
                continue
            if _own(name) == _own(top_name):
                alike.append(other)
            elif _named(question, name) and _named(question, top_name):
                needs.append(other)
                tables.append(name)
        return Choice(first, tuple(needs), tuple(alike), tuple(tables))


def _says(question: str, label: str) -> bool:
    """Whether the question names a source label as a word of its own.

    Example:
        >>> _says("how many staff (in hr)?", "hr"), _says("在hr中有多少员工", "hr")
        (True, True)
        >>> _says("how many three-letter words", "hr")
        False
    """
    pattern = rf"(?<![A-Za-z0-9_]){re.escape(label)}(?![A-Za-z0-9_])"
    return re.search(pattern, question, flags=re.IGNORECASE) is not None


def _own(name: str) -> str:
    """A combined-catalog name without its place label, lowercased."""
    return name.partition(".")[2].lower() if "." in name else name.lower()


def _named(question: str, table: str) -> bool:
    """Whether the question names the table itself (its last part, or that without a plural s).

    Example:
        >>> _named("How many employees placed orders?", "shop.orders"), _named("hi", "hr.t")
        (True, False)
    """
    name = table.rsplit(".", 1)[-1].lower()
    words = set(re.findall(r"\w+", question.lower()))
    stems = {w[:-1] if w.endswith("s") else w for w in words}
    singular = name[:-1] if name.endswith("s") else name
    return name in words or singular in stems or (len(name) > 1 and name in question.lower())


def _parse(sql: str, dialects: Sequence[str | None]) -> exp.Expr | None:
    """The first parse of ``sql`` that works, in the places' dialects, then the generic one."""
    for dialect in [*dict.fromkeys(dialects), None]:
        try:
            trees = sqlglot.parse(sql, read=dialect)
        except SqlglotError:
            continue
        parsed = [t for t in trees if t is not None]
        if parsed:
            return parsed[0]
    return None


def _table_refs(tree: exp.Expr) -> list[exp.Table]:
    """Tables the statement reads, without the names of its CTEs and table functions."""
    ctes = {c.alias_or_name.lower() for c in tree.find_all(exp.CTE)}
    out = []
    for t in tree.find_all(exp.Table):
        if not t.name or isinstance(t.this, exp.Func):
            continue
        if not t.db and t.name.lower() in ctes:
            continue
        out.append(t)
    return out


def _ref(table: exp.Table) -> str:
    return ".".join(p.name for p in table.parts)


def _cross_issue(found: Sequence[tuple[exp.Table, list[tuple[SQLSource, bool]]]]) -> Issue:
    where: dict[str, list[str]] = {}
    for table, places in found:
        for s, _ in places:
            where.setdefault(s.shown, []).append(_ref(table))
    parts = "; ".join(f"{', '.join(dict.fromkeys(t))} in {s}" for s, t in where.items())
    return Issue(
        "cross_source",
        f"This query reads tables of different sources ({parts}); one query runs on one "
        "database, so query each source on its own and combine the results yourself.",
        detail={"sources": list(where)},
    )


def _ambiguous_issue(
    found: Sequence[tuple[exp.Table, list[tuple[SQLSource, bool]]]],
    common: set[str],
    sources: SourceSet,
) -> Issue:
    table = next(_ref(t) for t, where in found if len(where) > 1)
    places = [s for s in sources.sources if s.label in common]
    names = " or ".join(f"{s.label}.{table}" for s in places)
    return Issue(
        "ambiguous_source",
        f"Table {table!r} is in {len(places)} sources ({'; '.join(s.shown for s in places)}); "
        f"name the one you mean ({names}) or pass --db URL.",
        detail={"table": table, "sources": [s.label for s in places]},
    )


def _unqualified(sql: str, source: SQLSource, tables: Sequence[exp.Table]) -> str:
    """``sql`` with the place label removed from ``tables``, in the place's dialect."""
    try:
        tree = sqlglot.parse_one(sql, read=source.dialect)
    except SqlglotError:
        tree = None
    if tree is None:
        raise SQLRejected(
            sql,
            [
                Issue(
                    "parse_error",
                    f"The query could not be read as {source.dialect or 'SQL'}; write it in the "
                    f"dialect of {source.shown}.",
                )
            ],
        )
    wanted = {_ref(t).lower() for t in tables}
    for t in _table_refs(tree):
        parts = [p.name for p in t.parts]
        if _ref(t).lower() not in wanted or parts[0].lower() != source.label:
            continue
        rest = parts[1:]
        t.set("catalog", None)
        t.set("db", exp.to_identifier(rest[0]) if len(rest) == 2 else None)
        t.set("this", exp.to_identifier(rest[-1]))
    return tree.sql(dialect=source.dialect)


__all__ = [
    "CROSS_SHARE",
    "FILES",
    "Choice",
    "Located",
    "SQLSource",
    "SourceSet",
    "group_sources",
    "qualify",
    "source_label",
]
