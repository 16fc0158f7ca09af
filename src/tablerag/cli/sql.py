"""``tablerag sql``: run one SELECT through the same gate and read-only engine as NL2SQL."""

from __future__ import annotations

import sys
from contextlib import ExitStack
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.table import Table

from tablerag.cli._common import (
    DEFAULT_WORKSPACE,
    JsonOpt,
    WorkspaceOpt,
    console,
    err_console,
    open_workspace,
    print_json,
    shown,
)
from tablerag.cli.export import CsvOpt, XlsxOpt, save_or_exit
from tablerag.errors import (
    EngineError,
    QueryTimeout,
    ResourceLimitExceeded,
    SQLRejected,
    TableragError,
)
from tablerag.redact import redact_secrets, url_secrets

if TYPE_CHECKING:
    from tablerag.settings import Settings
    from tablerag.sql.engines import SQLEngine
    from tablerag.sql.policy import ExecutionPolicy
    from tablerag.sql.result import ResultSet
    from tablerag.types import TableInfo

EXIT_OK, EXIT_ERROR, EXIT_REJECTED, EXIT_LIMIT = 0, 1, 3, 4


def _db_catalog(workspace: Path, db: str, settings: Settings) -> list[TableInfo]:
    """The tables of ``--db`` as a workspace source would expose them (issue 28).

    The database ingested in ``workspace`` under the same URL gives its recorded catalog (the
    descriptions file's flags merged, hidden columns known by content); any other is reflected
    now, its sample values read into memory for the content rules and never stored, and the
    flags a descriptions file in ``workspace`` gives its tables are applied.

    Raises:
        ConfigError: the URL is malformed or not supported.
        SourceError: the database cannot be reached or read.
    """
    from dataclasses import replace

    from tablerag.ingest.database import redact_url, reflect_database
    from tablerag.layout import DB_FILE
    from tablerag.store.annotations import flagged_columns

    here = (workspace / DB_FILE).is_file()
    if here:
        with open_workspace(workspace) as ws:
            known = [t for t in ws.tables() if t.source == redact_url(db)]
        if known:
            return known
    tables = reflect_database(
        db, sample_values=settings.sample_values, timeout_s=settings.sql_time_limit_ms / 1000
    )
    if here:
        with open_workspace(workspace) as ws:
            flags = {t.name: {f.lower() for f in flagged_columns(ws.con, t.name)} for t in tables}
        tables = [
            replace(
                t,
                columns=tuple(
                    replace(c, sensitive=c.sensitive or c.name.lower() in flags[t.name])
                    for c in t.columns
                ),
            )
            for t in tables
        ]
    if db.split(":", 1)[0].split("+", 1)[0].lower() in ("postgresql", "postgres"):
        # named as the engine names them (schema.table): its refusal then prints the exact
        # GRANT for each table, as it did when it introspected the database itself
        tables = [t if "." in t.name else replace(t, name=f"public.{t.name}") for t in tables]
    return tables


def _engine(
    workspace: Path, db: str | None, policy: ExecutionPolicy, query: str
) -> tuple[SQLEngine, str]:
    """The engine ``query`` runs on, and the query as it reads it.

    Without ``--db`` the source is found from the tables the query names (a database ingested
    in place, or the workspace's own tables); a source label qualifying a table
    (``hr.employees``) picks its source and is removed.

    Raises:
        SQLRejected: the query reads tables of two sources, or a name two sources share.
        ConfigError: the database cannot be reached.
    """
    from tablerag.settings import load_settings
    from tablerag.sources import SourceSet, group_sources
    from tablerag.sql.engines import open_engine

    settings = load_settings(workspace if workspace.is_dir() else None)
    writable = settings.allow_writable_role  # the operator's override
    if db:  # the same exposure as a workspace source: flags, content rules (issue 28)
        catalog = _db_catalog(workspace, db, settings)
        return open_engine(db, catalog=catalog, policy=policy, allow_writable_role=writable), query
    with open_workspace(workspace) as ws:  # read the catalog, then release the file
        tables, records, path = ws.tables(), ws.sources(), ws.path
    sources = SourceSet(
        group_sources(path, tables, records), policy=policy, allow_writable_role=writable
    )
    if not sources.sources:
        return open_engine(path, catalog=[], policy=policy), query
    located = sources.locate(query)
    return sources.engine(located.source), located.sql


def _fail(exc: TableragError, as_json: bool, secrets: tuple[str, ...] = ()) -> int:
    """Print ``exc`` (no password of ``--db``'s URL, not even a piece); return the exit code."""
    code = EXIT_ERROR
    if isinstance(exc, SQLRejected):
        code = EXIT_REJECTED
    elif isinstance(exc, QueryTimeout | ResourceLimitExceeded):
        code = EXIT_LIMIT
    if as_json:
        issues = [vars(i) for i in exc.issues] if isinstance(exc, SQLRejected) else []
        sql = exc.sql if isinstance(exc, SQLRejected | EngineError) else None
        error = {"type": type(exc).__name__, "message": str(exc), "sql": sql, "issues": issues}
        print_json({"error": _redacted(error, secrets)})
    elif isinstance(exc, SQLRejected):
        err_console.print("[bold red]rejected:[/] the SQL gate refused this query", highlight=False)
        for issue in exc.issues:
            where = f" at {issue.span[0]}" if issue.span else ""
            said = redact_secrets(issue.message, secrets)
            err_console.print(f"  {issue.code}{where}: {shown(said)}", highlight=False)
    else:
        said = redact_secrets(str(exc), secrets)
        err_console.print(f"[bold red]error:[/] {shown(said)}", highlight=False)
    return code


def _redacted(value: Any, secrets: tuple[str, ...]) -> Any:
    """``value`` (JSON-ready) with :func:`redact_secrets` applied to every string in it."""
    if isinstance(value, str):
        return redact_secrets(value, secrets)
    if isinstance(value, dict):
        return {k: _redacted(v, secrets) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_redacted(v, secrets) for v in value]
    return value


def _show(result: ResultSet, as_json: bool, max_rows: int) -> None:
    if as_json:
        print_json(
            {
                "columns": result.columns,
                "rows": result.rows,
                "truncated": result.truncated,
                "elapsed_ms": result.elapsed_ms,
                "sql": result.sql_executed,
                "masked_columns": result.masked_columns,
            }
        )
        return
    table = Table(*(shown(c) for c in result.columns))
    for row in result.rows:
        table.add_row(*("NULL" if v is None else shown(v) for v in row))
    console.print(table)
    console.print(f"[dim]{shown(result.sql_executed)}[/]", highlight=False)
    if result.truncated:
        err_console.print(
            f"[yellow]truncated:[/] more than {max_rows} rows; showing the first "
            f"{max_rows} (raise --max-rows or aggregate).",
            highlight=False,
        )


def sql(
    query: Annotated[
        str,
        typer.Argument(
            help="One SELECT statement, or '-' to read it from standard input. SQL that starts "
            "with a '--' comment is taken as the query too; after a bare '--' every word is.",
            show_default=False,
        ),
    ],
    workspace: WorkspaceOpt = DEFAULT_WORKSPACE,
    db: Annotated[
        str | None,
        typer.Option(
            "--db",
            help="Query this database instead: postgresql://, sqlite:///, duckdb:/// URL. "
            "Without it the query runs on the ingested source holding its tables.",
        ),
    ] = None,
    as_json: JsonOpt = False,
    max_rows: Annotated[int, typer.Option("--max-rows", min=1, help="Row cap.")] = 1000,
    timeout_ms: Annotated[int, typer.Option("--timeout-ms", min=1, help="Time limit.")] = 10_000,
    csv_path: CsvOpt = None,
    xlsx_path: XlsxOpt = None,
) -> None:
    """Run one read-only SELECT. Exit 0 rows, 3 rejected by the gate, 4 stopped by a limit.

    SQL beginning with a '--' comment works as the argument
    (tablerag sql $'-- top\\nSELECT 1'), after '--' (tablerag sql -w ws -- "...") or from
    standard input (echo "..." | tablerag sql -).
    """
    from tablerag.settings import load_settings
    from tablerag.sql.policy import ExecutionPolicy
    from tablerag.sql.sensitive import rules_from

    if query == "-":
        query = sys.stdin.read()

    secrets = url_secrets(db) if db else ()
    try:
        settings = load_settings(workspace if workspace.is_dir() else None)
    except TableragError as exc:
        raise typer.Exit(_fail(exc, as_json, secrets)) from exc
    policy = ExecutionPolicy(
        max_rows=max_rows,
        time_limit_ms=timeout_ms,
        sensitive=rules_from(settings),
        allow_readable_hidden_columns=settings.allow_readable_hidden_columns,
    )
    from tablerag.store.lock import reading
    from tablerag.store.workspace import require

    try:
        with ExitStack() as stack:
            if db is None:  # a reader's lock from the catalog read to the query's end (issue 22)
                require(workspace)  # not in a folder that holds no workspace: no lock file there
                stack.enter_context(reading(workspace))
            engine, query = _engine(workspace, db, policy, query)
            with engine:
                result = engine.execute(query, policy)
    except TableragError as exc:
        raise typer.Exit(_fail(exc, as_json, secrets)) from exc
    _show(result, as_json, max_rows)
    if csv_path is not None or xlsx_path is not None:
        save_or_exit(
            result.columns,
            result.rows,
            truncated=result.truncated,
            csv_path=csv_path,
            xlsx_path=xlsx_path,
        )
    raise typer.Exit(EXIT_LIMIT if result.truncated else EXIT_OK)


def register(app: typer.Typer) -> None:
    """Add ``tablerag sql`` to ``app``."""
    # an unknown "option" is the query: SQL may start with a "--" comment
    app.command("sql", context_settings={"ignore_unknown_options": True})(sql)
