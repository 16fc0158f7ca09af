"""Read-only engines for generated SQL, and ``open_engine`` to pick one from a path or URL.

Engines are the registry's ``engine`` backends (:mod:`tablerag.registry`), named by URL scheme:
the built-ins ``duckdb``, ``sqlite`` and ``postgresql``, and any a plugin adds through the
entry-point group ``tablerag.engine``.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tablerag import registry
from tablerag.errors import ConfigError, ResourceLimitExceeded
from tablerag.layout import DATA_SCHEMA, DB_FILE
from tablerag.sql.credentials import connect_parsed, connect_url
from tablerag.sql.engines.base import CatalogArg, SQLEngine
from tablerag.sql.engines.duckdb import DuckDBEngine
from tablerag.sql.engines.reach import unreachable_message
from tablerag.sql.engines.sqlite import SQLiteEngine
from tablerag.sql.policy import ExecutionPolicy

if TYPE_CHECKING:
    from sqlalchemy.engine import URL

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

    A URL's backend name (its scheme without the driver: ``postgresql+psycopg`` is
    ``postgresql``) is looked up in the registry's ``engine`` kind; a workspace folder or a
    ``.duckdb`` file is ``duckdb`` and a SQLite file ``sqlite``. A plugin's engine is called as
    ``factory(target, policy=policy)`` with the URL as written and must build an
    :class:`SQLEngine`.

    Args:
        target: a workspace folder (its DuckDB file, schema ``data``), a ``.duckdb`` or
            SQLite file, or a URL: ``duckdb:///path``, ``sqlite:///path``, ``postgresql://...``.
            A URL may name its password with ``?password_env=VAR`` or ``?password_file=PATH``
            (:mod:`tablerag.sql.credentials`).
        catalog: tables generated SQL may read; introspected from the database when None.
        policy: default limits of the engine.
        allow_writable_role: PostgreSQL and MySQL: run even if the role can write (operator
            override).
        catalog_options: ``sensitive=[...]``, ``allow=[...]``, ``hide_sensitive=False``.

    Raises:
        UnknownBackendError: no engine for the URL's scheme (the message suggests the closest).
        ConfigError: not a URL, missing file, a server that cannot be reached or refuses the
            login (one sentence with the fix), a driver not installed (the message names the
            extra), a password variable or file that is missing, a PostgreSQL role that can
            write, or a plugin's factory that built no SQLEngine.
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
            return _build("duckdb", path / DB_FILE, schema=DATA_SCHEMA, policy=policy)
        if path.is_file() and path.read_bytes()[:16] == b"SQLite format 3\x00":
            return _build("sqlite", path, policy=policy)
        return _build("duckdb", path, schema=None, policy=policy)
    from sqlalchemy.engine import make_url  # URL parsing only; a workspace or file needs none
    from sqlalchemy.exc import ArgumentError

    try:
        url = make_url(target)
    except ArgumentError as exc:
        raise ConfigError(
            f"{target!r} is not a database URL ({exc}); use e.g. sqlite:///file.db."
        ) from exc
    backend = url.get_backend_name()
    url = connect_parsed(url)  # ?password_env= / ?password_file= (tablerag.sql.credentials)
    arguments = _URL_ARGUMENTS.get(backend)
    if arguments is None:  # a plugin's scheme: its factory reads the URL as written
        return _build(backend, connect_url(target), policy=policy)
    location, options = arguments(url, allow_writable_role)
    try:
        return _build(backend, location, policy=policy, **options)
    except ConfigError as exc:
        better = unreachable_message(backend, url, exc.__cause__)
        if better is None:
            raise
        raise ConfigError(better) from exc.__cause__


def _file(url: URL, _: bool) -> tuple[object, dict[str, Any]]:
    return Path(url.database or ""), {}


def _duckdb_file(url: URL, _: bool) -> tuple[object, dict[str, Any]]:
    return Path(url.database or ""), {"schema": None}  # an outside file: every schema


def _postgresql(url: URL, allow_writable_role: bool) -> tuple[object, dict[str, Any]]:
    conninfo = url.set(drivername="postgresql").render_as_string(hide_password=False)
    return conninfo, {"allow_writable_role": allow_writable_role}


def _mysql(url: URL, allow_writable_role: bool) -> tuple[object, dict[str, Any]]:
    return url.render_as_string(hide_password=False), {"allow_writable_role": allow_writable_role}


_URL_ARGUMENTS: dict[str, Callable[[URL, bool], tuple[object, dict[str, Any]]]] = {
    "duckdb": _duckdb_file,
    "mariadb": _mysql,
    "mysql": _mysql,
    "postgresql": _postgresql,
    "sqlite": _file,
}
"""How a built-in scheme's URL becomes its engine's first argument and options."""

_SCHEMES_HINT = (
    "Use postgresql://, mysql://, sqlite:/// or duckdb:///, or the scheme of an installed engine "
    "plugin (entry-point group 'tablerag.engine')."
)


_EXTRAS = {"mysql": "mysql", "mariadb": "mysql"}
"""The extra of tablerag that installs the driver of an engine backend."""


def _missing_driver(backend: str, exc: ImportError) -> str:
    """The sentence for an engine whose driver is not installed, naming what to install.

    Example:
        >>> _missing_driver("mysql", ModuleNotFoundError("no", name="pymysql"))[-48:]
        "install it with `pip install 'tablerag[mysql]'`."
    """
    driver = exc.name or str(exc)
    extra = _EXTRAS.get(backend)
    how = f"`pip install 'tablerag[{extra}]'`" if extra else f"`pip install {driver}`"
    return (
        f"The {backend} engine needs the driver {driver!r}, which is not installed; install "
        f"it with {how}."
    )


def _build(backend: str, location: object, **options: Any) -> SQLEngine:
    """The engine the registry's ``engine`` backend ``backend`` builds for ``location``."""
    try:
        factory = registry.get("engine", backend, hint=_SCHEMES_HINT)
        engine = factory(location, **options)
    except ImportError as exc:  # an optional driver (e.g. PyMySQL for mysql://)
        raise ConfigError(_missing_driver(backend, exc)) from exc
    if not isinstance(engine, SQLEngine):
        raise ConfigError(
            f"The engine backend {backend!r} built a {type(engine).__name__}, not an SQLEngine; "
            "fix the plugin's factory."
        )
    return engine
