"""``open_engine`` picks its engine through the registry's ``engine`` kind: built-ins, doubles
registered by name, entry-point plugins, and a "Did you mean" error for an unknown scheme."""

from __future__ import annotations

import sqlite3
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import duckdb
import pytest

from tablerag import registry
from tablerag.errors import ConfigError, UnknownBackendError
from tablerag.layout import DATA_SCHEMA, DB_FILE
from tablerag.sql.engines import SQLEngine, open_engine
from tablerag.sql.engines.duckdb import DuckDBEngine
from tablerag.sql.policy import ExecutionPolicy

POLICY = ExecutionPolicy(time_limit_ms=1000, max_rows=100)
Calls = list[tuple[object, dict[str, Any]]]


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    """A workspace folder, a DuckDB file with ``t(a) = 1`` and a SQLite file."""
    (tmp_path / "ws").mkdir()
    con = duckdb.connect(str(tmp_path / "ext.duckdb"))
    con.execute("CREATE TABLE t AS SELECT 1 AS a")
    con.close()
    lite = sqlite3.connect(tmp_path / "shop.db")
    lite.execute("CREATE TABLE t (a INTEGER)")
    lite.close()
    return {
        "ws": tmp_path / "ws",
        "duckdb": tmp_path / "ext.duckdb",
        "sqlite": tmp_path / "shop.db",
    }


@pytest.fixture
def spy(files: dict[str, Path]) -> Iterator[Callable[[str], Calls]]:
    """Register a recording engine factory under a name; every one is unregistered after."""
    names: list[str] = []

    def register(name: str) -> Calls:
        calls: Calls = []

        def factory(location: object, **options: Any) -> DuckDBEngine:
            calls.append((location, options))
            return DuckDBEngine(files["duckdb"], schema=None, policy=options.get("policy"))

        registry.register("engine", name, factory)
        names.append(name)
        return calls

    yield register
    for name in names:
        registry.unregister("engine", name)


def test_builtin_engines_are_registered() -> None:
    assert {"duckdb", "postgresql", "sqlite"} <= set(registry.names("engine"))
    assert registry.get("engine", "duckdb") is DuckDBEngine


def test_an_engine_registered_under_a_new_scheme_opens_its_urls(
    spy: Callable[[str], Calls],
) -> None:
    calls = spy("memo")
    with open_engine("memo://host/shop?mode=ro", policy=POLICY) as engine:
        assert engine.execute("SELECT a FROM t").rows == ((1,),)
    assert calls == [("memo://host/shop?mode=ro", {"policy": POLICY})]  # the URL as written


@pytest.mark.parametrize(
    ("target", "backend", "location", "options"),
    [
        pytest.param(
            "{ws}", "duckdb", "{ws}/" + DB_FILE, {"schema": DATA_SCHEMA}, id="workspace-folder"
        ),
        pytest.param("{duckdb}", "duckdb", "{duckdb}", {"schema": None}, id="duckdb-file"),
        pytest.param("duckdb:///{duckdb}", "duckdb", "{duckdb}", {"schema": None}, id="duckdb-url"),
        pytest.param("{sqlite}", "sqlite", "{sqlite}", {}, id="sniffed-sqlite-file"),
        pytest.param("sqlite:///{sqlite}", "sqlite", "{sqlite}", {}, id="sqlite-url"),
        pytest.param(
            "postgresql+psycopg://tr:p%40ss@db.example:5433/shop?sslmode=require",
            "postgresql",
            "postgresql://tr:p%40ss@db.example:5433/shop?sslmode=require",
            {"allow_writable_role": True},
            id="postgresql-conninfo",
        ),
    ],
)
def test_builtin_schemes_reach_their_engine_through_the_registry(
    spy: Callable[[str], Calls],
    files: dict[str, Path],
    target: str,
    backend: str,
    location: str,
    options: dict[str, Any],
) -> None:
    calls = spy(backend)  # replaces the built-in for this test: the registry is the only path
    names = {k: str(v) for k, v in files.items()}
    with open_engine(target.format(**names), policy=POLICY, allow_writable_role=True):
        pass
    expected = location.format(**names)
    [(got, got_options)] = calls
    assert (str(got), got_options) == (expected, {**options, "policy": POLICY})
    assert isinstance(got, Path) == (backend != "postgresql")


@pytest.mark.parametrize(
    ("url", "name", "hint"),
    [
        pytest.param("postgres://u@db.example/shop", "postgres", "Did you mean 'postgresql'?"),
        pytest.param("duckbd:///shop.duckdb", "duckbd", "Did you mean 'duckdb'?"),
        pytest.param(
            "oracle://u@db.example/shop", "oracle", "Known: duckdb, mariadb, mysql, postgresql"
        ),
    ],
)
def test_unknown_scheme_suggests_the_closest_and_says_how_to_fix(
    url: str, name: str, hint: str
) -> None:
    with pytest.raises(UnknownBackendError) as info:
        open_engine(url)
    assert (info.value.kind, info.value.name) == ("engine", name)
    message = str(info.value)
    assert message.startswith(f"Unknown engine backend {name!r}.")
    assert hint in message
    assert "Use postgresql://, mysql://, sqlite:/// or duckdb:///" in message


def test_a_factory_that_builds_no_engine_is_a_config_error() -> None:
    registry.register("engine", "broken", lambda location, **options: "not an engine")
    try:
        with pytest.raises(ConfigError, match="built a str, not an SQLEngine"):
            open_engine("broken://x")
    finally:
        registry.unregister("engine", "broken")


def test_an_entry_point_plugin_engine_is_found(
    tmp_path: Path, files: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    module = "tablerag_test_engine_plugin"
    (tmp_path / f"{module}.py").write_text(
        "from tablerag.sql.engines.duckdb import DuckDBEngine\n\n"
        "def open_plugdb(url, *, policy=None):\n"
        "    return DuckDBEngine(url.removeprefix('plugdb://'), schema=None, policy=policy)\n",
        encoding="utf-8",
    )
    dist = tmp_path / "tablerag_test_engine_plugin-0.1.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: tablerag-test-engine-plugin\nVersion: 0.1\n",
        encoding="utf-8",
    )
    (dist / "entry_points.txt").write_text(
        f"[tablerag.engine]\nplugdb = {module}:open_plugdb\n", encoding="utf-8"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        assert "plugdb" in registry.names("engine")
        with open_engine(f"plugdb://{files['duckdb']}") as engine:
            assert isinstance(engine, SQLEngine)
            assert engine.execute("SELECT a FROM t").rows == ((1,),)
    finally:
        sys.modules.pop(module, None)
