"""Read-only engines for generated SQL, and ``open_engine`` to pick one from a path or URL."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tablerag.errors import ConfigError, ResourceLimitExceeded
from tablerag.layout import DATA_SCHEMA, DB_FILE
from tablerag.sql.engines.base import CatalogArg, SQLEngine
from tablerag.sql.engines.duckdb import DuckDBEngine
from tablerag.sql.engines.sqlite import SQLiteEngine
from tablerag.sql.policy import ExecutionPolicy

__all__ = ["DuckDBEngine", "ResourceLimitExceeded", "SQLEngine", "SQLiteEngine", "open_engine"]


def open_engine(
    target: str | Path,
    *,
    catalog: CatalogArg = None,
    policy: ExecutionPolicy | None = None,
    allow_writable_role: bool = False,
    **catalog_options: Any,
) -> SQLEngine:
    """Open the read-only engine for a workspace folder, a database file or a database URL.

    Args:
        target: a workspace folder (its DuckDB file, schema ``data``), a ``.duckdb`` or
            SQLite file, or a URL: ``duckdb:///path``, ``sqlite:///path``, ``postgresql://...``.
        catalog: tables generated SQL may read; introspected from the database when None.
        policy: default limits of the engine.
        allow_writable_role: PostgreSQL only: run even if the role can write (operator override).
        catalog_options: ``sensitive=[...]``, ``allow=[...]``, ``hide_sensitive=False``.

    Raises:
        ConfigError: unknown URL scheme, missing file, or a PostgreSQL role that can write.
        WorkspaceError: the DuckDB file is locked or open read-write in this process.
    """
    engine = _open(str(target), policy, allow_writable_role)
    try:
        engine.use_catalog(catalog, **catalog_options) if catalog is not None else (
            engine.use_catalog(engine.introspect(), **catalog_options)
        )
    except BaseException:
        engine.close()
        raise
    return engine


def _open(target: str, policy: ExecutionPolicy | None, allow_writable_role: bool) -> SQLEngine:
    if "://" not in target:
        path = Path(target).expanduser()
        if path.is_dir():
            return DuckDBEngine(path / DB_FILE, schema=DATA_SCHEMA, policy=policy)
        if path.is_file() and path.read_bytes()[:16] == b"SQLite format 3\x00":
            return SQLiteEngine(path, policy=policy)
        return DuckDBEngine(path, schema=None, policy=policy)
    from sqlalchemy.engine import make_url  # URL parsing only; a workspace or file needs none
    from sqlalchemy.exc import ArgumentError

    try:
        url = make_url(target)
    except ArgumentError as exc:
        raise ConfigError(
            f"{target!r} is not a database URL ({exc}); use e.g. sqlite:///file.db."
        ) from exc
    backend = url.get_backend_name()
    if backend == "sqlite":
        return SQLiteEngine(Path(url.database or ""), policy=policy)
    if backend == "duckdb":
        return DuckDBEngine(Path(url.database or ""), schema=None, policy=policy)
    if backend == "postgresql":
        from tablerag.sql.engines.postgres import PostgresEngine

        conninfo = url.set(drivername="postgresql").render_as_string(hide_password=False)
        return PostgresEngine(conninfo, policy=policy, allow_writable_role=allow_writable_role)
    raise ConfigError(
        f"Unsupported database URL scheme {url.drivername!r}; use postgresql://, "
        "sqlite:/// or duckdb:///."
    )
