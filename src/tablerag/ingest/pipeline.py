"""Ingest sources into a workspace: one transaction per source, a report for every source.

A source is a file (table or document) or a database URL. Each source is read, stored and
catalogued inside its own transaction: a changed source replaces its old version atomically, an
unchanged one is left alone, and a source that fails leaves the workspace as it was. The rows
of tablerag's own tables (sources, catalog, documents, chunks, annotations) are written by the
functions of :mod:`tablerag.store`, inside this module's transaction.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

import duckdb

from tablerag.errors import ConfigError, SourceError, TableragError, WorkspaceError
from tablerag.ingest import chunking, dockind, infer
from tablerag.ingest.database import is_database_url, redact_url, reflect_database_report
from tablerag.ingest.documents import DOCUMENT_SUFFIXES
from tablerag.ingest.limits import IngestLimits, applied
from tablerag.ingest.sampling import diverse_samples, quote_ident, withhold_samples
from tablerag.ingest.store import sanitize_table_name, store_table
from tablerag.ingest.tables import TABLE_SUFFIXES, stage_rows
from tablerag.ingest.views import derived_hidden
from tablerag.ingest.worker import IngestWorker, LocalReaders
from tablerag.settings import Settings, load_settings
from tablerag.sql.sensitive import WITHHELD, is_hidden_column, rules_from
from tablerag.store.annotations import (
    flagged_columns,
    is_descriptions_file,
    read_descriptions,
    read_glossary_section,
    record_annotations,
    unknown_names,
)
from tablerag.store.catalog import read_table, record_table
from tablerag.store.chunks import (
    add_chunks,
    replace_chunks,
    source_chunks,
    sources_with_chunks_of,
)
from tablerag.store.diskfull import disk_full_message, is_disk_full
from tablerag.store.documents import record_document
from tablerag.store.glossary import record_glossary
from tablerag.store.sources import (
    KnownSource,
    find_source,
    forget_source,
    record_source,
    sources_with_content,
)
from tablerag.store.staging import STAGE_PREFIX, StagedTable
from tablerag.types import (
    Chunk,
    ColumnInfo,
    Document,
    Problem,
    SourceReport,
    SourceStatus,
    TableInfo,
)

if TYPE_CHECKING:
    from tablerag.store.workspace import Workspace

log = logging.getLogger(__name__)

Progress = Callable[[str], None]
Readers = IngestWorker | LocalReaders


@dataclass(frozen=True)
class Target:
    """One thing to ingest, found from the command line."""

    location: str
    """Absolute file path, or the database URL with its password removed."""
    path: Path | None = None
    url: str | None = None
    explicit: bool = True
    """Named on the command line (an unsupported file is then a failure, not a skip)."""
    skipped: str = ""
    """Why the target is not read (a symlink out of its folder), reported as ``skipped``."""

    @property
    def format(self) -> str:
        if self.url is not None:
            return self.url.split(":", 1)[0].split("+", 1)[0]
        assert self.path is not None
        return self.path.suffix.lower().lstrip(".")


def absolute_file_url(url: str) -> str:
    """A ``sqlite:///`` or ``duckdb:///`` URL with a relative path made absolute (against the
    current folder), so the stored source opens from any folder; other URLs unchanged.

    Example:
        >>> import os
        >>> absolute_file_url("sqlite:///hr.db") == f"sqlite:///{os.getcwd()}/hr.db"
        True
        >>> absolute_file_url("duckdb:////data/f.duckdb?x=1"), absolute_file_url("sqlite:///:memory:")
        ('duckdb:////data/f.duckdb?x=1', 'sqlite:///:memory:')
        >>> absolute_file_url("postgresql://u@h/db")
        'postgresql://u@h/db'
    """
    scheme, sep, rest = url.partition(":///")
    if not sep or scheme.split("+", 1)[0].lower() not in ("sqlite", "duckdb"):
        return url
    path, q, query = rest.partition("?")
    if not path or path == ":memory:" or path.startswith("/"):
        return url
    return f"{scheme}:///{Path(path).expanduser().resolve()}{q}{query}"


def discover(
    targets: Sequence[str | Path | Target],
    *,
    exclude: Path | None = None,
    follow_symlinks: bool = False,
) -> list[Target]:
    """Expand command-line targets: folders recursively (hidden entries skipped), sorted.

    ``exclude`` is a folder never walked into (the workspace itself, when it lies inside a
    folder being ingested). A symlink inside a folder that points outside it is not followed
    unless ``follow_symlinks`` (the setting ``ingest_follow_symlinks``): a link to a file is
    reported ``skipped`` with the reason, a link to a folder is not walked. A target named on
    the command line is read wherever it points (the user chose it).

    Raises:
        ConfigError: a target is neither an existing path nor a database URL.
    """
    found: list[Target] = []
    for raw in targets:
        if isinstance(raw, Target):  # already discovered (e.g. by the CLI for its progress bar)
            found.append(raw)
            continue
        text = str(raw)
        if is_database_url(text):
            text = absolute_file_url(text)
            found.append(Target(location=redact_url(text), url=text))
            continue
        path = Path(text).expanduser()
        if path.is_dir():
            walk = _Walk(path.resolve(), exclude.resolve() if exclude else None, follow_symlinks)
            found.extend(sorted(walk.targets(path), key=lambda t: t.location))
        elif path.is_file():
            found.append(Target(location=str(path.resolve()), path=path.resolve()))
        else:
            raise ConfigError(
                f"{text!r} is neither an existing file or folder nor a database URL "
                "(postgresql://…, sqlite:///…, duckdb:///…). Check the path."
            )
    unique: dict[str, Target] = {}
    for t in found:
        unique.setdefault(t.location, t)
    return list(unique.values())


@dataclass
class _Walk:
    """One folder's walk: symlinks stay inside ``root`` unless followed on purpose, and a
    folder reached twice (a link loop) is walked once."""

    root: Path
    exclude: Path | None
    follow_symlinks: bool
    seen: set[Path] = field(default_factory=set)

    def targets(self, folder: Path) -> Iterator[Target]:
        real = folder.resolve()
        if real in self.seen:
            return
        self.seen.add(real)
        for entry in folder.iterdir():
            if entry.name.startswith((".", "~$")):
                continue
            resolved = entry.resolve()
            outside = entry.is_symlink() and not resolved.is_relative_to(self.root)
            if outside and not self.follow_symlinks and (entry.is_dir() or entry.is_file()):
                yield Target(
                    location=str(entry.absolute()),
                    path=resolved,
                    explicit=False,
                    skipped=f"{str(entry)!r} is a symlink to {str(resolved)!r}, outside the "
                    "folder being ingested; not followed (set ingest_follow_symlinks = true to "
                    "read such links, or name the target itself)",
                )
            elif entry.is_dir():
                if self.exclude is None or resolved != self.exclude:
                    yield from self.targets(entry)
            elif entry.is_file():
                yield Target(location=str(resolved), path=resolved, explicit=False)


def ingest_sources(
    ws: Workspace,
    targets: Sequence[str | Path | Target],
    *,
    settings: Settings | None = None,
    progress: Progress | None = None,
    readers: Readers | None = None,
) -> list[SourceReport]:
    """Ingest every target into ``ws`` and return one report per source.

    One bad source never spoils the others or the workspace: its transaction is rolled back and
    its report says why (``status == "failed"``). Files are read by an
    :class:`~tablerag.ingest.worker.IngestWorker` under the ``ingest_*`` limits (``readers``:
    another reader, e.g. :class:`~tablerag.ingest.worker.LocalReaders` to measure what the
    worker costs). Profiling the new tables and bringing the text index up to date follow in
    :func:`tablerag.service.ingest`.
    """
    settings = settings or load_settings(ws.path)
    reports: list[SourceReport] = []
    found = discover(targets, exclude=ws.path, follow_symlinks=settings.ingest_follow_symlinks)
    limits = IngestLimits.from_settings(settings)
    with readers or IngestWorker(limits, date_order=settings.date_order) as reading:
        for target in found:
            if progress:
                progress(target.location)
            reports.append(_ingest_one(ws, target, settings, reading))
    return reports


def _ingest_one(
    ws: Workspace, target: Target, settings: Settings, readers: Readers
) -> SourceReport:
    kind = "database" if target.url else "file"
    fmt = target.format
    if target.skipped:
        return SourceReport(
            source=target.location, kind=kind, status="skipped", error=target.skipped
        )
    if target.path is not None and fmt in ("yaml", "yml"):
        return SourceReport(  # a semantic model (Apache Ossie) is knowledge, not data
            source=target.location,
            kind=kind,
            status="skipped",
            error=f"Not data: a YAML file such as a semantic model; to use it, run "
            f"`tablerag knowledge import {target.location}`.",
        )
    if target.path is not None and f".{fmt}" not in TABLE_SUFFIXES | DOCUMENT_SUFFIXES:
        supported = ", ".join(sorted(TABLE_SUFFIXES | DOCUMENT_SUFFIXES))
        return SourceReport(
            source=target.location,
            kind=kind,
            status="failed" if target.explicit else "skipped",
            error=f"Unsupported file type {fmt or '(none)'!r}; supported: {supported}.",
        )
    try:
        fingerprint, size = _fingerprint(target)
        old = find_source(ws.con, target.location)
        if old is not None and old.content_hash == fingerprint:
            return SourceReport(source=target.location, kind=kind, status="unchanged")
        moved = _moved_from(ws.con, fingerprint) if old is None else None
        status: SourceStatus = "replaced" if old is not None or moved is not None else "added"
        with (
            ws.transaction() as con,
            infer.date_order(settings.date_order),
            applied(IngestLimits.from_settings(settings)),
        ):
            source_id = _source_id(target.location)
            if moved is not None:  # its tables are dropped first, so they keep their names
                forget_source(con, moved.source_id)
            forget_source(con, source_id)
            report = _load(con, target, source_id, settings, readers)
            record_source(
                con,
                source_id,
                target.location,
                kind=kind,
                format=target.format,
                content_hash=fingerprint or None,
                size_bytes=size,
                report=report,
            )
        if moved is not None:
            note = Problem(
                "", f"moved from {moved.location}", "same content: tables keep their names"
            )
            report = replace(report, problems=(note, *report.problems))
        return replace(report, status=status)
    except (TableragError, duckdb.Error, OSError) as exc:
        if is_disk_full(exc):  # every later source would fail alike: stop, say what to do
            kept = f"nothing of {target.location} was stored, the workspace is as it was before"
            raise WorkspaceError(disk_full_message(ws.path, kept)) from exc
        return _failed(ws, target, kind, exc)
    except Exception as exc:  # noqa: BLE001 - isolation edge: a parser bug must not stop the batch
        log.debug("unexpected failure reading %s", target.location, exc_info=True)
        return _failed(ws, target, kind, exc)


def _failed(ws: Workspace, target: Target, kind: str, exc: BaseException) -> SourceReport:
    message = str(exc) if isinstance(exc, TableragError) else f"{type(exc).__name__}: {exc}"
    kept = find_source(ws.con, target.location) is not None
    tail = "the previous version is kept" if kept else "nothing was stored"
    return SourceReport(
        source=target.location, kind=kind, status="failed", error=f"{message} ({tail})"
    )


def _moved_from(con: duckdb.DuckDBPyConnection, fingerprint: str) -> KnownSource | None:
    """The known source a new file is, moved or renamed: same bytes, its own file gone.

    Without this a moved folder left its old tables beside new copies (``t`` and ``t_2``).
    A copy (the old file still there) is a new source.
    """
    if not fingerprint:
        return None
    for known in sources_with_content(con, fingerprint):
        if not Path(known.location).exists():
            return known
    return None


def _fingerprint(target: Target) -> tuple[str, int | None]:
    if target.path is None:
        return "", None  # databases are re-reflected every time
    digest = hashlib.sha256()
    size = 0
    with target.path.open("rb") as fh:
        while block := fh.read(1 << 20):
            digest.update(block)
            size += len(block)
    return digest.hexdigest(), size


def _source_id(location: str) -> str:
    return hashlib.sha1(location.encode("utf-8")).hexdigest()[:12]


def _load(
    con: duckdb.DuckDBPyConnection,
    target: Target,
    source_id: str,
    settings: Settings,
    readers: Readers,
) -> SourceReport:
    if target.url is not None:
        return _load_database(con, target, source_id, settings)
    assert target.path is not None
    if is_descriptions_file(target.path):
        return _load_descriptions(con, target, source_id, settings)
    if target.path.suffix.lower() in TABLE_SUFFIXES:
        return _load_table_file(con, target, source_id, settings, readers)
    return _load_document(con, target, source_id, settings, readers)


def _load_table_file(
    con: duckdb.DuckDBPyConnection,
    target: Target,
    source_id: str,
    settings: Settings,
    readers: Readers,
) -> SourceReport:
    assert target.path is not None
    staged = readers.tables(target.path, con)
    problems: list[Problem] = []
    tables: list[TableInfo] = []
    chunks: list[Chunk] = []
    for st in staged:
        info = _store(con, st, source_id, settings)
        tables.append(info)
        problems.extend(st.problems)
        chunks.extend(
            _table_chunks(con, info, target.location, settings, start_ordinal=len(chunks))
        )
    add_chunks(con, chunks, source_id=source_id)
    return _report(target, tables, staged, chunks, problems)


def _load_document(
    con: duckdb.DuckDBPyConnection,
    target: Target,
    source_id: str,
    settings: Settings,
    readers: Readers,
) -> SourceReport:
    assert target.path is not None
    doc = readers.document(target.path)
    doc = Document(
        source=target.location, title=doc.title, blocks=doc.blocks, problems=doc.problems
    )
    problems = list(doc.problems)
    staged: list[StagedTable] = []
    tables: list[TableInfo] = []
    names: dict[int, str] = {}
    hidden: dict[int, set[int]] = {}
    stem = target.path.stem
    for idx, block in enumerate(doc.blocks):
        if block.kind != "table" or not block.rows:
            continue
        if len(block.rows) < 2:  # a header alone is not stored: its names decide
            columns = [ColumnInfo(str(h), "VARCHAR") for h in block.rows[0]]
            hidden[idx] = {
                i for i, c in enumerate(columns) if is_hidden_column(c, rules=rules_from(settings))
            }
            continue
        n = len(staged) + 1
        origin = f"table {n}" + (f" on page {block.page}" if block.page else "")
        st = stage_rows(
            con, f"{stem}_table_{n}", block.rows[0], block.rows[1:], origin=origin, page=block.page
        )
        if block.text:
            st.origin = f"{origin}: {block.text}"
        staged.append(st)
        info = _store(con, st, source_id, settings, description=block.text)
        tables.append(info)
        names[idx] = info.name
        hidden[idx] = _hidden_positions(con, info, settings)
        problems.extend(st.problems)
    choice = dockind.choose_kind(doc, settings.document_kinds)
    problems.append(choice.problem())
    chunks = chunking.chunk_document(
        doc,
        table_names=names,
        max_tokens=settings.chunk_size_tokens,
        hidden=hidden,
        kind=choice.kind,
    )
    pages = [b.page for b in doc.blocks if b.page is not None]
    record_document(
        con, source_id, title=doc.title, blocks=len(doc.blocks), pages=max(pages) if pages else None
    )
    add_chunks(con, chunks, source_id=source_id)
    return _report(target, tables, staged, chunks, problems)


def _load_descriptions(
    con: duckdb.DuckDBPyConnection, target: Target, source_id: str, settings: Settings
) -> SourceReport:
    assert target.path is not None
    notes = read_descriptions(target.path)
    terms = read_glossary_section(target.path)
    notes = record_annotations(con, source_id, notes)  # names as the catalog spells them
    record_glossary(con, source_id, terms)
    described = sorted({a.table for a in notes})
    problems = [
        Problem(
            "", f"descriptions of {len(described)} tables", "merged into the catalog", is_note=True
        )
    ]
    problems += unknown_names(con, notes)  # a misspelt flag must not fail silently (issue 28)
    flagged = {a.table for a in notes if a.sensitive and a.column is not None}
    rebuilt = _rechunk_tables(con, flagged, settings)
    if rebuilt:
        problems.append(
            Problem("", f"chunks of {len(rebuilt)} tables", "rebuilt without sensitive columns")
        )
    if terms:
        problems.append(Problem("", f"{len(terms)} glossary terms", "used to link questions"))
    return SourceReport(
        source=target.location, kind="file", status="added", problems=tuple(problems)
    )


def _load_database(
    con: duckdb.DuckDBPyConnection, target: Target, source_id: str, settings: Settings
) -> SourceReport:
    assert target.url is not None
    reflection = reflect_database_report(
        target.url,
        sample_values=settings.sample_values,
        timeout_s=settings.sql_time_limit_ms / 1000,
        allow_writable_role=settings.allow_writable_role,
    )
    tables = reflection.tables
    chunks: list[Chunk] = []
    rules = rules_from(settings)
    derived = derived_hidden(target.url, tables, settings)  # views over hidden columns
    for info in tables:  # no sample of a hidden column is recorded (issue 28)
        recorded = withhold_samples(con, info, rules)
        hide = derived.get(info.name, set())
        if hide:  # the marker keeps them hidden when the catalog is read back
            recorded = replace(
                recorded,
                columns=tuple(
                    replace(c, samples=(WITHHELD,)) if c.name in hide else c
                    for c in recorded.columns
                ),
            )
        record_table(con, recorded, source_id, stored=False, rows_read=None)
        chunks.extend(
            _table_chunks(con, info, target.location, settings, start_ordinal=len(chunks))
        )
    add_chunks(con, chunks, source_id=source_id)
    return SourceReport(
        source=target.location,
        kind="database",
        status="added",
        tables=tuple(t.name for t in tables),
        chunks=len(chunks),
        problems=tuple(reflection.problems),
    )


def _store(
    con: duckdb.DuckDBPyConnection,
    staged: StagedTable,
    source_id: str,
    settings: Settings,
    description: str = "",
) -> TableInfo:
    taken = {
        r[0]
        for r in con.execute(
            "SELECT table_name FROM duckdb_tables() WHERE schema_name = 'data' "
            "AND database_name = current_database()"
        ).fetchall()
    }
    name = sanitize_table_name(staged.name, taken)
    info = store_table(con, staged, name)  # drops the staged relation
    samples = _samples(con, info, settings.sample_values)
    info = replace(
        info,
        description=" ".join(d for d in (description, info.description) if d),
        columns=tuple(replace(c, samples=s) for c, s in zip(info.columns, samples, strict=True)),
    )
    recorded = withhold_samples(con, info, rules_from(settings))  # issue 28
    record_table(con, recorded, source_id, stored=True, rows_read=staged.rows_read)
    return info


_SAMPLE_GROUP = 64
"""Columns sampled from one narrow copy of a wider table."""


def _samples(con: duckdb.DuckDBPyConnection, info: TableInfo, k: int) -> list[tuple[str, ...]]:
    """:func:`~tablerag.ingest.sampling.diverse_samples` of every column of a stored table.

    It runs one query per column, and DuckDB binds all of a table's columns for each: a table
    wider than ``_SAMPLE_GROUP`` is sampled from narrow copies of its columns, group by group,
    so the time stays linear in the number of columns (issue 28: 5,000 columns took 45 s).
    """
    table = f"data.{quote_ident(info.name)}"
    if len(info.columns) <= _SAMPLE_GROUP:
        return diverse_samples(con, table, info.columns, k)
    out: list[tuple[str, ...]] = []
    narrow = quote_ident(f"{STAGE_PREFIX}sample_{info.name}"[:60])
    for start in range(0, len(info.columns), _SAMPLE_GROUP):
        group = info.columns[start : start + _SAMPLE_GROUP]
        listed = ", ".join(quote_ident(c.name) for c in group)
        con.execute(f"CREATE OR REPLACE TEMP TABLE {narrow} AS SELECT {listed} FROM {table}")
        try:
            out.extend(diverse_samples(con, narrow, group, k))
        finally:
            con.execute(f"DROP TABLE IF EXISTS {narrow}")
    return out


def _table_chunks(
    con: duckdb.DuckDBPyConnection,
    info: TableInfo,
    location: str,
    settings: Settings,
    *,
    start_ordinal: int,
) -> list[Chunk]:
    """The card and row chunks of a stored table, or the card of a database's table."""
    rows: list[list[str]] = []
    if info.stored and settings.table_chunk_rows:
        rows = _rows(con, info, limit=settings.table_chunk_rows)
    # a stored table's description is the note under it in its file (issue 29): on the card
    title, note = (info.origin, info.description) if info.stored else (info.description, "")
    return chunking.table_chunks(
        info.name,
        location,
        [c.name for c in info.columns],
        rows,
        title=title,
        page=info.page,
        max_tokens=settings.chunk_size_tokens,
        start_ordinal=start_ordinal,
        row_count=info.row_count,
        hidden=_hidden_positions(con, info, settings),
        note=note,
    )


def _rows(con: duckdb.DuckDBPyConnection, info: TableInfo, *, limit: int | None) -> list[list[str]]:
    cap = f" LIMIT {int(limit)}" if limit is not None else ""
    fetched = con.execute(
        f"SELECT * FROM data.{quote_ident(info.name)} ORDER BY rowid{cap}"
    ).fetchall()
    return [["" if v is None else str(v) for v in r] for r in fetched]


def _hidden_positions(
    con: duckdb.DuckDBPyConnection, info: TableInfo, settings: Settings
) -> set[int]:
    """Positions of the columns of ``info`` no chunk may show: the catalog's definition
    (:func:`~tablerag.sql.sensitive.is_hidden_column`: by name, by content of the samples, the
    operator's sensitive_columns/allow_columns) plus the columns a descriptions file already
    ingested flags ``sensitive``."""
    flagged = flagged_columns(con, info.name)
    rules = rules_from(settings)
    return {
        i
        for i, c in enumerate(info.columns)
        if is_hidden_column(
            replace(c, sensitive=c.sensitive or c.name in flagged), table=info.name, rules=rules
        )
    }


def _rechunk_tables(
    con: duckdb.DuckDBPyConnection, tables: set[str], settings: Settings
) -> list[str]:
    """Rebuild the chunks of ``tables`` already ingested, now that a descriptions file flags
    some of their columns sensitive (the descriptions may come after the data).

    Every source holding chunks of one of them gets its chunks again: a run of the table's
    chunks is replaced by chunks built from the stored table with the hidden columns left out,
    the source's other chunks are kept, and all are renumbered. Returns the tables rebuilt.
    """
    if not tables:
        return []
    rebuilt: list[str] = []
    for source_id in sources_with_chunks_of(con, tables):
        texts: list[tuple[str, tuple[str, ...], int | None, str | None]] = []
        done: set[str] = set()
        old = source_chunks(con, source_id)
        location = old[0].source
        for chunk in old:
            if chunk.table not in tables:
                texts.append((chunk.text, chunk.heading_path, chunk.page, chunk.table))
                continue
            if chunk.table in done:
                continue  # the rest of a run already rebuilt
            done.add(chunk.table)
            info = read_table(con, source_id, chunk.table)
            if info is None:
                continue  # chunks of a table the catalog no longer has: drop them
            texts.extend(
                (text, chunk.heading_path, chunk.page, chunk.table)
                for text in _rebuilt_texts(con, info, chunk, settings)
            )
        chunks = [
            Chunk(chunking.chunk_id(location, i, text), location, i, text, path, page, table)
            for i, (text, path, page, table) in enumerate(texts)
        ]
        replace_chunks(con, source_id, chunks)
        rebuilt.extend(sorted(done))
    return sorted(set(rebuilt))


def _rebuilt_texts(
    con: duckdb.DuckDBPyConnection, info: TableInfo, first: Chunk, settings: Settings
) -> list[str]:
    """The texts of a table's chunks built again from the workspace: a card and rows for a
    database's or a table file's table, the Markdown parts for a document's table (``first``:
    its first chunk as it stood, for the heading path)."""
    if not info.stored or Path(info.source).suffix.lower() in TABLE_SUFFIXES:
        return [c.text for c in _table_chunks(con, info, info.source, settings, start_ordinal=0)]
    header = [c.original or c.name for c in info.columns]
    return chunking.document_table_texts(
        info.name,
        info.description,
        first.heading_path,
        [header, *_rows(con, info, limit=None)],
        max_tokens=settings.chunk_size_tokens,
        hidden=_hidden_positions(con, info, settings),
    )


def _report(
    target: Target,
    tables: Sequence[TableInfo],
    staged: Sequence[StagedTable],
    chunks: Sequence[Chunk],
    problems: Sequence[Problem],
) -> SourceReport:
    rows_read = sum(s.rows_read for s in staged)
    rows_stored = sum(t.row_count for t in tables)
    if rows_read != rows_stored:
        raise SourceError(
            target.location,
            f"Read {rows_read} rows but stored {rows_stored}; nothing was kept. "
            "Please report this file.",
        )
    return SourceReport(
        source=target.location,
        kind="file",
        status="added",
        tables=tuple(t.name for t in tables),
        rows_read=rows_read,
        rows_stored=rows_stored,
        chunks=len(chunks),
        problems=tuple(problems),
    )
