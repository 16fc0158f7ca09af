"""The workspace: one folder, one DuckDB file holding the user's tables and tablerag's own state."""

from __future__ import annotations

import contextlib
import difflib
import json
import re
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from types import TracebackType
from typing import Any, Self

import duckdb

from tablerag.errors import ConfigError, WorkspaceError
from tablerag.layout import DB_FILE
from tablerag.store import lock
from tablerag.store.annotations import Annotation
from tablerag.store.catalog import COLUMN_FIELDS, column_from_row
from tablerag.store.migrations import MIGRATIONS
from tablerag.store.staging import STAGE_PREFIX
from tablerag.types import Chunk, ColumnInfo, ForeignKey, Problem, TableInfo

DEFAULT_PATH = Path(".tablerag")
SCHEMA_VERSION = len(MIGRATIONS)


@dataclass(frozen=True)
class SourceRecord:
    """One ingested source as the workspace remembers it."""

    source_id: str
    location: str
    kind: str
    format: str
    content_hash: str | None
    ingested_at: str
    rows_read: int
    rows_stored: int
    chunks: int
    tables: tuple[str, ...]
    problems: tuple[Problem, ...]


def _not_a_file(root: Path) -> None:
    if root.exists() and not root.is_dir():
        raise ConfigError(f"Workspace path {str(root)!r} is a file; give a folder instead.")


def require(root: Path) -> None:
    """Fail unless ``root`` is a workspace folder, before anything is written there (a reader's
    lock file left in a folder that holds no workspace would be litter).

    Raises:
        ConfigError: ``root`` is a file.
        WorkspaceError: ``root`` holds no workspace.
    """
    _not_a_file(root)
    if not (root / DB_FILE).exists():
        raise WorkspaceError(
            f"No workspace at {str(root)!r}. Run `tablerag ingest PATH --workspace "
            f"{root}` first, or pass the right --workspace."
        )


class Workspace:
    """A tablerag workspace folder.

    User tables live in the DuckDB schema ``data``; tablerag's own tables (sources, catalog,
    documents, chunks) in schema ``tablerag``. Open it with :meth:`open`; use it as a context
    manager so the DuckDB file is closed.
    """

    def __init__(self, path: Path, con: duckdb.DuckDBPyConnection, *, read_only: bool) -> None:
        self.path = path
        self.con = con
        self.read_only = read_only
        self._lock: lock.WorkspaceLock | None = None

    @property
    def db_path(self) -> Path:
        """The DuckDB file of this workspace."""
        return self.path / DB_FILE

    @classmethod
    def open(
        cls,
        path: str | Path = DEFAULT_PATH,
        *,
        create: bool = True,
        read_only: bool = False,
        wait_s: float | None = None,
    ) -> Self:
        """Open (and by default create) the workspace folder at ``path``.

        Many processes may read a workspace at once; a writer (``read_only=False``) has it to
        itself (:mod:`tablerag.store.lock`). The lock taken here is held until :meth:`close`.

        Args:
            path: the workspace folder.
            create: create the folder and its file when missing (not when ``read_only``).
            read_only: open for reading; other readers may open it at the same time.
            wait_s: seconds to wait while another process holds it; default
                :data:`~tablerag.store.lock.READ_WAIT_S` for a reader, 0 for a writer.

        Raises:
            WorkspaceError: the folder holds no workspace and ``create`` is false, another
                process still held it after ``wait_s`` (the message names it), the file is not
                a DuckDB file, or was written by a newer tablerag.
        """
        root = Path(path).expanduser()
        db = root / DB_FILE
        if db.exists() or not create or read_only:
            require(root)
        else:
            _not_a_file(root)
            root.mkdir(parents=True, exist_ok=True)
        wait = (lock.READ_WAIT_S if read_only else 0.0) if wait_s is None else wait_s
        deadline = time.monotonic() + wait
        try:
            return cls._open(root, db, read_only=read_only, deadline=deadline, wait_s=wait)
        except _NeedsUpgrade as exc:
            # A reader of a workspace an older tablerag wrote: upgrade it with one short write
            # (readers opened it read-write before issue 22, so `ask` still upgrades it).
            try:
                left = max(0.0, deadline - time.monotonic())
                cls.open(root, create=False, read_only=False, wait_s=left).close()
            except WorkspaceError:
                raise exc from None
            left = max(0.0, deadline - time.monotonic())
            return cls._open(
                root, db, read_only=True, deadline=time.monotonic() + left, wait_s=left
            )

    @classmethod
    def _open(
        cls, root: Path, db: Path, *, read_only: bool, deadline: float, wait_s: float
    ) -> Self:
        held = lock.acquire(root, exclusive=not read_only, wait_s=wait_s)
        try:
            con = _connect(root, db, read_only=read_only, deadline=deadline, wait_s=wait_s)
            ws = cls(root, con, read_only=read_only)
            ws._lock = held
            try:
                ws._migrate()
                if not read_only:
                    ws._drop_stray_stages()
            except BaseException:
                con.close()
                raise
        except BaseException:
            held.release()
            raise
        return ws

    def close(self) -> None:
        """Close the DuckDB connection and give the workspace's lock back (idempotent)."""
        self.con.close()
        if self._lock is not None:
            self._lock.release()

    def __enter__(self) -> Workspace:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    # -- schema ------------------------------------------------------------------------------

    def schema_version(self) -> int:
        """Number of migrations applied to this workspace."""
        row = self.con.execute(
            "SELECT value FROM tablerag.meta WHERE key = 'schema_version'"
        ).fetchone()
        return int(row[0]) if row else 0

    def _migrate(self) -> None:
        has_meta = self.con.execute(
            "SELECT count(*) FROM duckdb_tables() WHERE schema_name = 'tablerag' "
            "AND table_name = 'meta' AND database_name = current_database()"
        ).fetchone()
        version = self.schema_version() if has_meta and has_meta[0] else 0
        if version > SCHEMA_VERSION:
            raise WorkspaceError(
                f"Workspace {str(self.path)!r} has schema version {version}, newer than this "
                f"tablerag ({SCHEMA_VERSION}). Upgrade tablerag to open it."
            )
        if version == SCHEMA_VERSION:
            return
        if self.read_only:
            raise _NeedsUpgrade(
                f"Workspace {str(self.path)!r} needs an upgrade (schema {version} → "
                f"{SCHEMA_VERSION}); open it once without read-only mode (e.g. `tablerag ingest`)."
            )
        with self.transaction():
            self.con.execute("CREATE SCHEMA IF NOT EXISTS tablerag")
            self.con.execute(
                "CREATE TABLE IF NOT EXISTS tablerag.meta (key VARCHAR PRIMARY KEY, value VARCHAR)"
            )
            for script in MIGRATIONS[version:]:
                self.con.execute(script)
            self.con.execute(
                "INSERT OR REPLACE INTO tablerag.meta VALUES ('schema_version', ?)",
                [str(SCHEMA_VERSION)],
            )

    def _drop_stray_stages(self) -> None:
        """Drop staging tables a reader left in ``data`` when its caller never stored them.

        The CSV fast path builds its table in ``data`` under a ``_tablerag_stage_`` name and
        the store renames it; inside ``ingest`` a failure rolls it back, but a caller running
        the reader in autocommit could leave one. Nothing lists it; this reclaims the space.
        """
        stray = self.con.execute(
            "SELECT table_name FROM duckdb_tables() WHERE schema_name = 'data' "
            "AND database_name = current_database() AND starts_with(table_name, ?)",
            [STAGE_PREFIX],
        ).fetchall()
        for (name,) in stray:
            quoted = '"' + name.replace('"', '""') + '"'
            self.con.execute(f"DROP TABLE data.{quoted}")

    @contextmanager
    def transaction(self) -> Iterator[duckdb.DuckDBPyConnection]:
        """Run a block atomically: everything it wrote is kept, or nothing is."""
        self.con.execute("BEGIN TRANSACTION")
        try:
            yield self.con
        except BaseException:
            self.con.execute("ROLLBACK")
            raise
        try:
            self.con.execute("COMMIT")
        except duckdb.Error:
            # a failed COMMIT (a full disk) leaves the transaction open and aborted: every
            # later statement would answer "please ROLLBACK"
            with contextlib.suppress(duckdb.Error):
                self.con.execute("ROLLBACK")
            raise

    # -- reading -----------------------------------------------------------------------------

    def sources(self) -> list[SourceRecord]:
        """Every ingested source, oldest first."""
        rows = self.con.execute(
            """
            SELECT s.source_id, s.location, s.kind, s.format, s.content_hash,
                   strftime(s.ingested_at, '%Y-%m-%d %H:%M:%S'), s.rows_read, s.rows_stored,
                   s.chunks, s.problems,
                   coalesce((SELECT list(t.table_name ORDER BY t.table_name)
                             FROM tablerag.tables t WHERE t.source_id = s.source_id), [])
            FROM tablerag.sources s ORDER BY s.ingested_at, s.location
            """
        ).fetchall()
        return [
            SourceRecord(
                source_id=r[0],
                location=r[1],
                kind=r[2],
                format=r[3],
                content_hash=r[4],
                ingested_at=r[5],
                rows_read=r[6],
                rows_stored=r[7],
                chunks=r[8],
                problems=tuple(Problem(**p) for p in json.loads(r[9])),
                tables=tuple(r[10]),
            )
            for r in rows
        ]

    def tables(self) -> list[TableInfo]:
        """The catalog: every table of the workspace and of databases queried in place."""
        return self._tables()

    def table(self, name: str) -> TableInfo:
        """One table of the catalog by name.

        Raises:
            ConfigError: no such table (the message suggests close names).
        """
        found = self._tables(name)
        if not found:
            names = [t.name for t in self._tables()]
            close = difflib.get_close_matches(name, names, n=3)
            hint = f" Did you mean {', '.join(repr(c) for c in close)}?" if close else ""
            raise ConfigError(
                f"No table {name!r} in the workspace.{hint} `tablerag tables` lists them."
            )
        return found[0]

    def _tables(self, name: str | None = None) -> list[TableInfo]:
        where = "WHERE t.table_name = ?" if name is not None else ""
        params: list[Any] = [name] if name is not None else []
        rows = self.con.execute(
            f"""
            SELECT t.table_name, s.location, t.origin, t.page, t.row_count, t.description,
                   t.primary_key, t.foreign_keys, t.source_id, t.stored, t.checks
            FROM tablerag.tables t JOIN tablerag.sources s USING (source_id)
            {where}
            ORDER BY t.table_name, s.location
            """,
            params,
        ).fetchall()
        columns = self._columns({r[8] for r in rows})
        notes = self._annotations()
        infos = [
            TableInfo(
                name=r[0],
                source=r[1],
                origin=r[2],
                page=r[3],
                row_count=r[4],
                description=r[5],
                primary_key=tuple(r[6]),
                foreign_keys=tuple(
                    ForeignKey(tuple(fk["columns"]), fk["ref_table"], tuple(fk["ref_columns"]))
                    for fk in json.loads(r[7])
                ),
                columns=tuple(columns.get((r[8], r[0]), ())),
                stored=r[9],
                checks=tuple(json.loads(r[10] or "[]")),
            )
            for r in rows
        ]
        return [_annotate(t, notes) for t in infos] if notes else infos

    def _annotations(self) -> dict[tuple[str, str | None], Annotation]:
        rows = self.con.execute(
            "SELECT table_name, column_name, description, unit, sensitive, primary_key, "
            "foreign_keys FROM tablerag.annotations ORDER BY source_id"
        ).fetchall()
        return {  # names compared without regard to case, as a flag is meant (issue 28)
            (r[0].lower(), r[1].lower() if r[1] is not None else None): Annotation(
                table=r[0],
                column=r[1],
                description=r[2],
                unit=r[3],
                sensitive=r[4],
                primary_key=tuple(r[5]),
                foreign_keys=tuple(
                    ForeignKey(tuple(fk["columns"]), fk["ref_table"], tuple(fk["ref_columns"]))
                    for fk in json.loads(r[6])
                ),
            )
            for r in rows
        }

    def _columns(self, source_ids: set[str]) -> dict[tuple[str, str], list[ColumnInfo]]:
        out: dict[tuple[str, str], list[ColumnInfo]] = {}
        if not source_ids:
            return out
        rows = self.con.execute(
            f"SELECT source_id, table_name, {COLUMN_FIELDS} FROM tablerag.columns "
            "WHERE list_contains(?, source_id) ORDER BY source_id, table_name, ordinal",
            [sorted(source_ids)],
        ).fetchall()
        for r in rows:
            out.setdefault((r[0], r[1]), []).append(column_from_row(r[2:]))
        return out

    def chunks(self, source: str | None = None) -> Iterator[Chunk]:
        """Chunks in source and reading order; ``source`` filters by location or its suffix."""
        sql = (
            "SELECT chunk_id, source, ordinal, text, heading_path, page, table_name "
            "FROM tablerag.chunks"
        )
        params: list[Any] = []
        if source is not None:
            sql += " WHERE source = ? OR source LIKE ? OR source_id = ?"
            params = [source, f"%/{source.lstrip('/')}", source]
        cur = self.con.execute(sql + " ORDER BY source, ordinal", params)
        while batch := cur.fetchmany(1000):
            for r in batch:
                yield Chunk(
                    chunk_id=r[0],
                    source=r[1],
                    ordinal=r[2],
                    text=r[3],
                    heading_path=tuple(r[4]),
                    page=r[5],
                    table=r[6],
                )

    def summary(self) -> dict[str, Any]:
        """Counts for a quick look: sources, tables, rows (stored), documents, chunks, and the
        rows of the database tables queried in place."""
        row = self.con.execute(
            """
            SELECT (SELECT count(*) FROM tablerag.sources),
                   (SELECT count(*) FROM tablerag.tables),
                   (SELECT coalesce(sum(row_count), 0) FROM tablerag.tables WHERE stored),
                   (SELECT count(*) FROM tablerag.documents),
                   (SELECT count(*) FROM tablerag.chunks),
                   (SELECT count(*) FROM tablerag.chunks WHERE table_name IS NOT NULL),
                   (SELECT coalesce(sum(row_count), 0) FROM tablerag.tables
                    WHERE NOT stored AND row_count >= 0)
            """
        ).fetchone()
        assert row is not None
        return {
            "workspace": str(self.path),
            "sources": row[0],
            "tables": row[1],
            "rows": int(row[2]),
            "documents": row[3],
            "chunks": row[4],
            "table_chunks": row[5],
            "rows_in_place": int(row[6]),
        }


def _annotate(info: TableInfo, notes: dict[tuple[str, str | None], Annotation]) -> TableInfo:
    """Merge what people said about a table into what ingestion found (ingestion wins on facts,
    people win on descriptions)."""
    table_note = notes.get((info.name.lower(), None))
    columns = []
    for c in info.columns:
        note = notes.get((info.name.lower(), c.name.lower()))
        if note is not None:
            c = replace(
                c,
                description=c.description or note.description,
                unit=c.unit or note.unit,
                sensitive=c.sensitive or note.sensitive,
            )
        columns.append(c)
    if table_note is None:
        return replace(info, columns=tuple(columns))
    return replace(
        info,
        description=info.description or table_note.description,
        primary_key=info.primary_key or table_note.primary_key,
        foreign_keys=info.foreign_keys or table_note.foreign_keys,
        columns=tuple(columns),
    )


class _NeedsUpgrade(WorkspaceError):
    """A read-only open found a workspace an older tablerag wrote (``open`` upgrades it)."""


def _connect(
    root: Path, db: Path, *, read_only: bool, deadline: float, wait_s: float
) -> duckdb.DuckDBPyConnection:
    """Connect to the DuckDB file, retrying until ``deadline`` while another process holds its
    file lock (one that took no workspace lock: the SQL engine of an older session, the duckdb
    command line).

    Raises:
        WorkspaceError: still locked at the deadline (naming the holder), or not a DuckDB file.
    """
    while True:
        try:
            return duckdb.connect(str(db), read_only=read_only)
        except duckdb.IOException as exc:
            text = str(exc)
            if "lock" not in text.lower():
                raise WorkspaceError(f"Cannot open workspace file {str(db)!r}: {text}") from exc
            if time.monotonic() >= deadline:
                found = _LOCK_PID.search(text)
                raise WorkspaceError(
                    lock.busy_message(
                        root,
                        exclusive=not read_only,
                        waited_s=wait_s,
                        pid=int(found.group(1)) if found else None,
                    )
                ) from exc
            time.sleep(lock.POLL_S)
        except duckdb.Error as exc:
            raise WorkspaceError(
                f"{str(db)!r} is not a readable DuckDB file ({exc}). Move it away and re-ingest."
            ) from exc


_LOCK_PID = re.compile(r"\(PID (\d+)\)")
