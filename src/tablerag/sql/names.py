"""How each engine resolves an identifier, and the names the gate refuses to compare.

The gate compares names with Python's ``str.lower()``; the engines do not. Measured on the
engines the tests run (DuckDB 1.x in process, SQLite 3, PostgreSQL 15 in a UTF-8 database,
MariaDB 10.11 with ``lower_case_table_names=0``; ``tests/sql/test_names.py`` re-measures it):

- DuckDB and SQLite match every identifier case-insensitively in ASCII only, quoted or not:
  ``BOOKINGS`` is ``bookings``, but ``CAFÉ`` is not ``café`` and the Kelvin sign ``K``
  (U+212A) is not ``k`` - while ``"booKings".lower()`` is ``"bookings"`` in Python.
- PostgreSQL folds unquoted identifiers to lower case in ASCII only and compares the result
  exactly: ``Bookings`` is ``bookings``, ``"Bookings"`` is another name.
- MariaDB/MySQL: table names and table aliases are compared exactly (on Linux), but the gate
  runs every catalog table under the catalog's own spelling (the written name becomes its
  alias), and CTE names compare case-insensitively: after the gate, ASCII case does not
  matter. Column names compare without case in Unicode letter pairs (``CAFÉ`` finds ``café``),
  but with accents (``cafe`` does not) and without special foldings (Kelvin sign, ``ſ``).
- No engine folds fullwidth letters, ``ſ`` (U+017F), dotless ``ı`` or Cyrillic homoglyphs to
  ASCII: those are other names everywhere, and only a reader (or the gate's lower-casing) is
  misled.

:func:`name_key` is the engine's comparison key of one identifier. :func:`name_issues` refuses
the identifiers of a query the gate could resolve differently from its engine: invisible or
compatibility characters, mixed scripts and homoglyph spellings, letters the engine folds
differently from Python, and any two names (of the query or the catalog) that are one name to
the gate but two to the engine, or the reverse. Once a query passes, Python's lower-case
comparison agrees with the engine on every name in play, so the resolver can use it.
"""

from __future__ import annotations

import unicodedata
from collections import defaultdict
from collections.abc import Iterable, Iterator
from typing import Literal

from sqlglot import exp

from tablerag.errors import Issue
from tablerag.sql.exposed import ExposedCatalog, ExposedTable

Kind = Literal["table", "column"]
"""The name spaces that fold differently on MySQL: tables, aliases of tables, CTEs and schemas;
columns and column aliases."""

DIALECTS = ("duckdb", "sqlite", "postgres", "mysql")

_CJK = frozenset({"CJK", "HIRAGANA", "KATAKANA", "HANGUL", "BOPOMOFO", "IDEOGRAPHIC"})
"""Scripts written together with Latin letters in real schemas (``球队id``, ``商品code``)."""

HOMOGLYPHS = frozenset(
    "аеорсухіјѕһԁԛԝАВЕКМНОРСТУХІЈЅ"  # Cyrillic
    "αινορυχΑΒΕΖΗΙΚΜΝΟΡΤΥΧ"  # Greek
    "ɑɡɩɪʏ"  # Latin-looking IPA letters
)  # fmt: skip
"""Letters of other scripts that read as Latin ones (Cyrillic ``о``, Greek ``ο``...)."""


def _ascii_lower(name: str) -> str:
    return "".join(chr(ord(c) + 32) if "A" <= c <= "Z" else c for c in name)


def _mysql_char(ch: str) -> str:
    up = ch.upper()
    return up if len(up) == 1 and up.lower() == ch.lower() else ch


def _mysql_column_key(name: str) -> str:
    """How MariaDB compares column names (measured): case-insensitive for letters with a simple
    upper/lower pair (``CAFÉ`` is ``café``), accent-sensitive (``cafe`` is not ``café``), and
    not folding special letters (the Kelvin sign is not ``k``, ``ſ`` not ``s``, ``STRASSE``
    not ``straße``)."""
    return "".join(_mysql_char(c) for c in name)


def name_key(name: str, *, quoted: bool, dialect: str, kind: Kind = "column") -> str:
    """The key ``dialect`` compares the identifier ``name`` by: two identifiers name the same
    object there exactly when their keys are equal.

    Example:
        >>> name_key("BooKings", quoted=True, dialect="duckdb")
        'bookings'
        >>> name_key("boo\\u212aings", quoted=False, dialect="duckdb")  # Kelvin sign kept
        'boo\\u212aings'
        >>> name_key("Bookings", quoted=True, dialect="postgres"), name_key(
        ...     "Bookings", quoted=False, dialect="postgres")
        ('Bookings', 'bookings')
        >>> name_key("CAFé", quoted=True, dialect="mysql", kind="column")
        'CAFÉ'
    """
    if dialect == "postgres":
        return name if quoted else _ascii_lower(name)
    if dialect == "mysql" and kind == "column":
        return _mysql_column_key(name)
    return _ascii_lower(name)


def gate_key(name: str) -> str:
    """The key the gate compares names by (its resolver, sqlglot's scopes, the catalog)."""
    return name.lower()


def _script(ch: str) -> str:
    try:
        word = unicodedata.name(ch).split()[0]
    except ValueError:
        return "UNKNOWN"
    return "CJK" if word in _CJK else word


def _invisible(ch: str) -> bool:
    category = unicodedata.category(ch)
    if category in {"Cc", "Cf", "Co", "Cs", "Cn", "Zl", "Zp"}:
        return True
    if category == "Zs" and ch != " ":
        return True
    # variation selectors, combining grapheme joiner, Hangul fillers: default-ignorable
    return ch in "\u034f\u115f\u1160\u3164\uffa0" or "\ufe00" <= ch <= "\ufe0f"


_SPACE_PROBLEM = "it starts or ends with a space (MariaDB ignores trailing spaces in names)"


def character_problem(name: str, dialect: str) -> str | None:
    """Why the identifier ``name`` cannot be resolved safely in ``dialect``, or None.

    Example:
        >>> character_problem("bookings", "duckdb") is None
        True
        >>> character_problem("boo\\u212aings", "duckdb")
        "it is written with U+212A (KELVIN SIGN), which reads as 'K'; write 'booKings'"
        >>> character_problem("b\\u043eokings", "postgres")
        'it mixes CYRILLIC and LATIN letters (U+043E CYRILLIC SMALL LETTER O)'
        >>> character_problem("CAFÉ", "sqlite")
        "Python reads 'É' as 'é' in lower case, sqlite does not"
        >>> character_problem("球队id", "sqlite") is None
        True
    """
    if name.isascii() and name.isprintable():  # the usual name: only its ends can mislead
        return None if name == name.strip() else _SPACE_PROBLEM
    for ch in name:
        if _invisible(ch):
            return f"it contains the invisible character U+{ord(ch):04X}"
    if name != name.strip():
        return _SPACE_PROBLEM
    plain = unicodedata.normalize("NFKC", name)
    changed = [c for c in name if unicodedata.normalize("NFKC", c) != c]
    # fullwidth brackets and digits in a Chinese name (``金额（元）``) mislead neither Python
    # nor an engine; a compatibility letter (the Kelvin sign, ``ſ``, fullwidth ``ｃ``) or a
    # decomposed accent reads as another name
    if plain != name and (not changed or any(unicodedata.category(c)[0] in "LM" for c in changed)):
        odd = changed[0] if changed else next(c for c in name if unicodedata.combining(c))
        shown = unicodedata.normalize("NFKC", odd)
        what = unicodedata.name(odd, "a compatibility character")
        return (
            f"it is written with U+{ord(odd):04X} ({what}), which reads as {shown!r}; "
            f"write {plain!r}"
        )
    letters = [c for c in name if unicodedata.category(c).startswith("L")]
    scripts = sorted({_script(c) for c in letters} - {"CJK"})
    if len(scripts) > 1:
        odd = next(c for c in letters if _script(c) not in {"LATIN", "CJK"})
        return (
            f"it mixes {' and '.join(scripts)} letters "
            f"(U+{ord(odd):04X} {unicodedata.name(odd, '?')})"
        )
    if letters and scripts and scripts != ["LATIN"] and all(c in HOMOGLYPHS for c in letters):
        return f"its {scripts[0]} letters read as the Latin word {_skeleton(name)!r}"
    for ch in name:
        if ch.isascii():
            continue
        if dialect == "mysql":
            if _mysql_char(ch) != _mysql_char(ch.lower()):
                return f"Python reads {ch!r} as {ch.lower()!r} in lower case, {dialect} does not"
        elif ch.lower() != ch:
            return f"Python reads {ch!r} as {ch.lower()!r} in lower case, {dialect} does not"
    return None


_LATIN_OF = {
    **dict(zip("аеорсухіјѕһԁԛԝ", "aeopcyxijshdqw", strict=True)),
    **dict(zip("АВЕКМНОРСТУХІЈЅ", "ABEKMHOPCTYXIJS", strict=True)),
    **dict(zip("αινορυχ", "aivopux", strict=True)),
    **dict(zip("ΑΒΕΖΗΙΚΜΝΟΡΤΥΧ", "ABEZHIKMNOPTYX", strict=True)),
    **dict(zip("ɑɡɩɪʏ", "agiiy", strict=True)),
}


def _skeleton(name: str) -> str:
    return "".join(_LATIN_OF.get(c, c) for c in name)


def _kind(ident: exp.Identifier) -> Kind:
    parent = ident.parent
    if isinstance(parent, exp.Column):
        return "column" if parent.this is ident else "table"
    if isinstance(parent, exp.TableAlias):
        return "table" if parent.this is ident else "column"
    if isinstance(parent, exp.Table | exp.CTE | exp.Schema):
        return "table"
    return "column"


def _identifiers(tree: exp.Expr) -> Iterator[tuple[exp.Identifier, Kind]]:
    for ident in tree.find_all(exp.Identifier):
        if isinstance(ident.this, str) and ident.this:
            yield ident, _kind(ident)


def _catalog_names(catalog: ExposedCatalog) -> dict[Kind, set[str]]:
    tables: set[str] = set()
    columns: set[str] = set()
    for t in catalog.tables:
        tables.add(t.name)
        if t.schema:
            tables.add(t.schema)
        columns.update(t.columns, t.hidden)
    return {"table": tables, "column": columns}


def name_issues(tree: exp.Expr, dialect: str, catalog: ExposedCatalog) -> list[Issue]:
    """Refusals for the identifiers of ``tree`` that ``dialect`` may resolve otherwise than
    the gate: see the module docstring. Names spelled exactly as in ``catalog`` pass the
    character checks (they name what the catalog names, in every engine).

    Example:
        >>> import sqlglot
        >>> cat = ExposedCatalog.from_mapping({"bookings": ["id"]})
        >>> tree = sqlglot.parse_one('WITH "Bookings" AS (SELECT 1 AS id) '
        ...                          'SELECT id FROM bookings', read="postgres")
        >>> [i.code for i in name_issues(tree, "postgres", cat)]
        ['ambiguous_name']
        >>> name_issues(tree, "duckdb", cat)
        []
    """
    known = _catalog_names(catalog)
    issues: list[Issue] = []
    seen: set[tuple[str, Kind]] = set()
    used: dict[Kind, dict[str, tuple[str, bool]]] = {"table": {}, "column": {}}
    for ident, kind in _identifiers(tree):
        name = ident.this
        used[kind].setdefault(name + ("\x00q" if ident.quoted else ""), (name, bool(ident.quoted)))
        if (name, kind) in seen or name in known[kind]:
            continue
        seen.add((name, kind))
        problem = character_problem(name, dialect)
        if problem:
            issues.append(
                Issue(
                    "confusable_name",
                    f"The name {name!r} cannot be checked safely: {problem}. Rename it with "
                    "plain letters of one script, spelled as in the catalog.",
                    _span(ident),
                    {"name": name},
                )
            )
    if issues:
        return issues
    kinds: tuple[Kind, ...] = ("table", "column")
    for kind in kinds:
        issues += _ambiguities(used[kind].values(), known[kind], dialect, kind)
    return issues


def _ambiguities(
    written: Iterable[tuple[str, bool]], catalog: set[str], dialect: str, kind: Kind
) -> list[Issue]:
    """Names that are one name to the gate and two to the engine, or the reverse."""
    by_gate: dict[str, set[str]] = defaultdict(set)
    by_engine: dict[str, set[str]] = defaultdict(set)
    spelled: dict[str, str] = {}
    for name, quoted in written:
        key = name_key(name, quoted=quoted, dialect=dialect, kind=kind)
        by_gate[gate_key(name)].add(key)
        by_engine[key].add(gate_key(name))
        spelled.setdefault(key, f'"{name}"' if quoted else name)
    mine = set(by_gate)
    for name in catalog:  # a catalog name is stored as the engine keeps it: quoted, exact
        key = name_key(name, quoted=True, dialect=dialect, kind=kind)
        if gate_key(name) in mine or key in by_engine:
            by_gate[gate_key(name)].add(key)
            by_engine[key].add(gate_key(name))
            spelled.setdefault(key, name)
    for gate, keys in by_gate.items():
        if len(keys) > 1:
            names = sorted(spelled.get(k, k) for k in keys)
            return [
                _ambiguous(
                    names,
                    f"the gate reads them as one name ({gate!r}), {dialect} as different names",
                )
            ]
    for key, gates in by_engine.items():
        if len(gates) > 1:
            return [
                _ambiguous(
                    sorted(gates),
                    f"{dialect} reads them as one name ({key!r}), the gate as different names",
                )
            ]
    return []


def _ambiguous(names: list[str], why: str) -> Issue:
    return Issue(
        "ambiguous_name",
        f"The names {', '.join(repr(n) for n in names)} differ only by case, quoting or "
        f"accents: {why}. Rename the CTE, alias or column so that no two names differ only "
        "that way, and write catalog names as the catalog spells them.",
        detail={"names": names},
    )


def _span(node: exp.Expr) -> tuple[int, int] | None:
    meta = node.meta
    if "start" in meta and "end" in meta:
        return (int(meta["start"]), int(meta["end"]) + 1)
    return None


def masked_columns(table: ExposedTable) -> tuple[str, ...]:
    """The visible columns of ``table`` that results masking applies to, as the exposed catalog
    marks them (``ExposedTable.masked``: columns whose values hold e-mails, phone, ID or card
    numbers inside other text); none when the catalog marks none.

    The gate allows such a column only where the mask holds
    (:func:`tablerag.sql.functions.mask_context_denial`).
    """
    return tuple(getattr(table, "masked", ()))
