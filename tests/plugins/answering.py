"""Fixtures of the answering tests: the sample workspace, and golden files for prompts.

Golden files live in ``tests/golden/``. After an intended prompt change, rewrite them with
``pytest --update-goldens`` and review the diff.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

import duckdb
import pytest

from tablerag.linking.catalog import SchemaCatalog, build_catalog
from tablerag.linking.rows import DuckDBRows
from tablerag.service import Workspace
from tablerag.settings import Settings
from tablerag.sql.engines import SQLEngine, open_engine
from tablerag.types import TableInfo

Row = tuple[object, ...]
GOLDEN = Path(__file__).resolve().parent.parent / "golden"


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--update-goldens",
        action="store_true",
        default=False,
        help="Rewrite tests/golden files from the current output instead of comparing.",
    )


def build_sample_workspace(sample: Path, root: Path) -> Path:
    """Ingest the sample corpus into ``root`` with the hashing embedder; returns ``root``.
    Without the drafted semantic model: the tests of answers over it import the sample's
    model when they need one (``tests/semantic/test_ingest_draft.py`` tests the draft)."""
    with Workspace.open(root) as ws:
        settings = Settings(index_on_ingest=True, embedder="hashing", draft_on_ingest=False)
        reports = ws.ingest([sample], settings=settings)
    assert not [r for r in reports if r.status == "failed"]
    return root


@pytest.fixture(scope="session")
def sample_ws(sample_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sample corpus ingested once per session; tests only read it."""
    return build_sample_workspace(sample_dir, tmp_path_factory.mktemp("answer") / "ws")


@pytest.fixture
def golden(request: pytest.FixtureRequest):  # type: ignore[no-untyped-def]
    """``golden("prompts/x.txt", text)`` compares with (or rewrites) a golden file."""
    update = bool(request.config.getoption("--update-goldens", default=False))

    def check(name: str, text: str) -> None:
        path = GOLDEN / name
        if update or not path.exists():
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
            if not update:
                pytest.fail(f"golden file {name} was missing and has been written; rerun")
        assert text == path.read_text(encoding="utf-8"), (
            f"{name} differs; if the change is intended run pytest --update-goldens"
        )

    return check


@contextmanager
def duckdb_parts(
    path: Path,
    tables: Sequence[TableInfo],
    data: Sequence[tuple[str, Sequence[tuple[object, ...]]]],
) -> Iterator[tuple[SQLEngine, SchemaCatalog]]:
    """A DuckDB file at ``path`` holding ``data`` (DDL, rows to insert), its catalog and engine.

    Each item of ``data`` is ``("CREATE TABLE t (…)", rows)``; the rows go in with one
    ``INSERT INTO t VALUES (?, …)``.
    """
    con = duckdb.connect(str(path))
    for ddl, rows in data:
        con.execute(ddl)
        if rows:
            name = ddl.split()[2]
            marks = ", ".join("?" * len(rows[0]))
            con.executemany(f"INSERT INTO {name} VALUES ({marks})", rows)
    catalog = build_catalog(list(tables), rows=DuckDBRows(con, schema="main"))
    con.close()
    with open_engine(path, catalog=list(tables)) as engine:
        yield engine, catalog
