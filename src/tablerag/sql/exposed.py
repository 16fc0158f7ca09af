"""The catalog the SQL gate checks against: the tables and columns generated SQL may read."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace

from tablerag.sql.pii import holds_personal_data
from tablerag.sql.sensitive import DEFAULT_RULES, SensitiveRules, hidden_columns
from tablerag.types import TableInfo


@dataclass(frozen=True)
class ExposedTable:
    """One readable table: where it lives, its readable columns and the hidden ones."""

    name: str
    columns: tuple[str, ...]
    schema: str | None = None
    hidden: tuple[str, ...] = ()
    partial: bool = False
    """The database lets the account read only some columns and does not show it the others'
    names (MySQL/MariaDB column grants): columns exist beyond ``columns`` and ``hidden``, so a
    ``USING``/``NATURAL`` join or ``*`` over the table is refused."""
    masked: tuple[str, ...] = ()
    """Readable columns whose values hold personal data that results masking hides in place
    (e-mails, phone, ID or card numbers inside other text): the gate allows them only where
    the mask holds (:func:`tablerag.sql.functions.mask_context_denial`). Marked from sample
    values (:func:`tablerag.sql.pii.holds_personal_data`); a column ``allow_columns`` names is
    never marked."""

    @property
    def qualified(self) -> str:
        """``schema.name`` or ``name``."""
        return f"{self.schema}.{self.name}" if self.schema else self.name


class ExposedCatalog:
    """Tables and columns generated SQL may read; lookups are case-insensitive.

    Example:
        >>> cat = ExposedCatalog.from_mapping({"orders": ["id", "amount"]}, schema="data")
        >>> cat.table("ORDERS").qualified
        'data.orders'
        >>> cat.table("orders", schema="tablerag") is None
        True
    """

    def __init__(self, tables: Iterable[ExposedTable]) -> None:
        self._tables: dict[tuple[str | None, str], ExposedTable] = {}
        self._by_name: dict[str, list[ExposedTable]] = {}
        for t in tables:
            key = (t.schema.lower() if t.schema else None, t.name.lower())
            self._tables[key] = t
            self._by_name.setdefault(t.name.lower(), []).append(t)

    @classmethod
    def from_tables(
        cls,
        tables: Sequence[TableInfo],
        *,
        schema: str | None = None,
        hide_sensitive: bool = True,
        sensitive: Iterable[str] = (),
        allow: Iterable[str] = (),
        rules: SensitiveRules = DEFAULT_RULES,
    ) -> ExposedCatalog:
        """Build from catalog entries; names like ``sales.orders`` keep their schema.

        Args:
            tables: the catalog (workspace or reflected external database).
            schema: schema of unqualified names (``"data"`` for a workspace).
            hide_sensitive: hide the columns :func:`~tablerag.sql.sensitive.is_hidden` hides
                (off: none, for benchmarks of other people's schemas).
            sensitive: more ``table.column`` patterns to hide.
            allow: patterns to keep although they look sensitive.
            rules: the operator's settings (``sensitive_columns``, ``allow_columns``).
        """
        sensitive, allow = tuple(sensitive), tuple(allow)
        allowed = replace(rules, allow=rules.allow + allow)
        mark = hide_sensitive and rules.defaults
        out = []
        for t in tables:
            hidden = (
                hidden_columns(t, extra=sensitive, allow=allow, rules=rules)
                if hide_sensitive
                else ()
            )
            own_schema, _, name = t.name.rpartition(".")
            out.append(
                ExposedTable(
                    name=name,
                    schema=own_schema or schema,
                    columns=tuple(c.name for c in t.columns if c.name not in hidden),
                    hidden=hidden,
                    masked=tuple(
                        c.name
                        for c in t.columns
                        if mark
                        and c.name not in hidden
                        and not allowed.allows(t.name, c.name)
                        and any(holds_personal_data(s) for s in c.samples)
                    ),
                )
            )
        return cls(out)

    @classmethod
    def from_mapping(
        cls,
        tables: Mapping[str, Iterable[str]],
        *,
        schema: str | None = None,
        hidden: Mapping[str, Iterable[str]] | None = None,
        masked: Mapping[str, Iterable[str]] | None = None,
    ) -> ExposedCatalog:
        """Build from ``{"table": ["col", ...]}`` (tests, external catalogs)."""
        hidden, masked = hidden or {}, masked or {}
        out = []
        for full, cols in tables.items():
            own_schema, _, name = full.rpartition(".")
            secret = tuple(hidden.get(full, ()))
            shown = tuple(c for c in cols if c not in secret)
            personal = tuple(c for c in masked.get(full, ()) if c in shown)
            out.append(ExposedTable(name, shown, own_schema or schema, secret, masked=personal))
        return cls(out)

    @property
    def tables(self) -> list[ExposedTable]:
        """All exposed tables."""
        return list(self._tables.values())

    def with_masked(self, masked: Mapping[str, Iterable[str]]) -> ExposedCatalog:
        """This catalog with more columns marked masked (``{qualified table: columns}``);
        names that are not readable columns of the table are ignored.

        Example:
            >>> cat = ExposedCatalog.from_mapping({"t": ["id", "notes"]}, schema="data")
            >>> cat.with_masked({"data.t": ["notes", "nope"]}).table("t").masked
            ('notes',)
        """
        out = []
        for t in self._tables.values():
            more = {c.lower() for c in masked.get(t.qualified, ())}
            added = tuple(c for c in t.columns if c.lower() in more and c not in t.masked)
            out.append(replace(t, masked=t.masked + added) if added else t)
        return ExposedCatalog(out)

    def without_masked(self, allowed: SensitiveRules | None = None) -> ExposedCatalog:
        """This catalog with no column marked masked (masking is off), or only the columns
        ``allowed.allow`` names unmarked (the operator's ``allow_columns``).

        Example:
            >>> cat = ExposedCatalog.from_mapping({"t": ["a", "b"]}, masked={"t": ["a", "b"]})
            >>> cat.without_masked(SensitiveRules(allow=("t.a",))).table("t").masked
            ('b',)
        """
        if not any(t.masked for t in self._tables.values()):
            return self
        return ExposedCatalog(
            replace(
                t,
                masked=()
                if allowed is None
                else tuple(c for c in t.masked if not allowed.allows(t.qualified, c)),
            )
            for t in self._tables.values()
        )

    def table(self, name: str, *, schema: str | None = None) -> ExposedTable | None:
        """The exposed table called ``name`` (in ``schema`` if given), or None.

        An unqualified name resolves when exactly one exposed table has it.
        """
        if schema is not None:
            return self._tables.get((schema.lower(), name.lower()))
        found = self._by_name.get(name.lower(), [])
        return found[0] if len(found) == 1 else None

    def names(self) -> list[str]:
        """Qualified names of all tables, for "did you mean" suggestions."""
        return [t.qualified for t in self._tables.values()] + [
            t.name for t in self._tables.values()
        ]
