"""Only ``tablerag.store`` writes SQL on tablerag's own schema.

Every string literal in ``src/tablerag`` outside ``store/`` is checked (parsed with :mod:`ast`,
so docstrings, comments and import paths do not count): one that names ``tablerag.<table>``
for an internal table, or ``tablerag.{…}`` in an f-string, next to a SQL keyword is SQL on the
store's tables and belongs in a function of :mod:`tablerag.store`.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

import tablerag

PACKAGE = Path(tablerag.__file__).parent
STORE = PACKAGE / "store"
SQL_KEYWORD = re.compile(
    r"\b(SELECT|INSERT|DELETE|UPDATE|FROM|JOIN|INTO|CREATE|ALTER|DROP|TABLE)\b", re.IGNORECASE
)
CREATED = re.compile(r"\b(?:CREATE|ALTER)\s+TABLE\s+(?:IF\s+NOT\s+EXISTS\s+)?tablerag\.(\w+)", re.I)
DYNAMIC = "\0"
"""Stands for a formatted value of an f-string (``f"FROM tablerag.{table}"``)."""


def _strings(tree: ast.AST) -> Iterator[tuple[int, str]]:
    """(line, text) of every string literal that is not a bare expression (a docstring)."""
    docstrings = {
        id(node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant | ast.JoinedStr)
    }
    inside_fstrings: set[int] = set()
    for node in ast.walk(tree):
        if id(node) in docstrings:
            continue
        if isinstance(node, ast.JoinedStr):
            parts = []
            for part in node.values:
                inside_fstrings.add(id(part))
                if isinstance(part, ast.Constant) and isinstance(part.value, str):
                    parts.append(part.value)
                else:
                    parts.append(DYNAMIC)
            yield node.lineno, "".join(parts)
        elif (
            isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and id(node) not in inside_fstrings
        ):
            yield node.lineno, node.value


def _modules(folder: Path) -> list[Path]:
    return sorted(folder.rglob("*.py"))


def internal_tables() -> frozenset[str]:
    """The tables the store creates in schema ``tablerag`` (migrations, meta, caches)."""
    names: set[str] = set()
    for path in _modules(STORE):
        for _, text in _strings(ast.parse(path.read_text(encoding="utf-8"))):
            names.update(m.lower() for m in CREATED.findall(text))
    return frozenset(names)


def sql_on_internal_tables(source: str, tables: frozenset[str]) -> list[tuple[int, str]]:
    """(line, literal) of each string in ``source`` that is SQL on an internal table."""
    named = re.compile(
        rf"\btablerag\.(?:{'|'.join(map(re.escape, sorted(tables)))})\b|tablerag\.\0"
    )
    return [
        (line, text)
        for line, text in _strings(ast.parse(source))
        if named.search(text) and SQL_KEYWORD.search(text)
    ]


def test_the_store_creates_the_internal_tables_the_check_looks_for() -> None:
    # If this fails the scan below would look for nothing: the CREATE TABLE statements moved.
    assert {"sources", "tables", "columns", "chunks", "profiles", "embeddings", "meta"} <= (
        internal_tables()
    )


@pytest.mark.parametrize(
    "code",
    [
        pytest.param('con.execute("SELECT * FROM tablerag.sources")', id="select"),
        pytest.param('con.execute("INSERT INTO tablerag.chunks " "VALUES (?)")', id="concatenated"),
        pytest.param('con.execute(f"DELETE FROM tablerag.{name} WHERE x = ?")', id="f-string"),
        pytest.param('con.execute(f"SELECT {c} FROM tablerag.profiles")', id="f-string-table"),
    ],
)
def test_sql_on_an_internal_table_is_found(code: str) -> None:
    assert sql_on_internal_tables(code, internal_tables())


@pytest.mark.parametrize(
    "code",
    [
        pytest.param('"""Vectors are cached in ``tablerag.embeddings``."""', id="docstring"),
        pytest.param("from tablerag.sources import x", id="import"),
        pytest.param('files("tablerag.profiles").joinpath("x.json")', id="resource-path"),
        pytest.param('con.execute("SELECT * FROM data.chunks")', id="user-table"),
    ],
)
def test_other_mentions_are_not_sql_on_the_store(code: str) -> None:
    assert sql_on_internal_tables(code, internal_tables()) == []


def test_no_module_outside_the_store_writes_sql_on_tablerags_own_tables() -> None:
    tables = internal_tables()
    found = [
        f"{path.relative_to(PACKAGE.parent)}:{line}: {text.strip()[:80]!r}"
        for path in _modules(PACKAGE)
        if STORE not in path.parents
        for line, text in sql_on_internal_tables(path.read_text(encoding="utf-8"), tables)
    ]
    assert not found, (
        "SQL on schema `tablerag` outside tablerag.store; move it into a function of "
        "src/tablerag/store/ and call that instead:\n" + "\n".join(found)
    )
