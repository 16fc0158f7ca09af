"""tablerag as a Model Context Protocol server (the official ``mcp`` SDK): read-only tools for
assistants — ``ask``, ``run_sql``, ``search_documents``, ``list_tables``, ``describe_table``,
``list_sources`` — a schema resource per table and one prompt.

Every tool reads through the same runtime as the HTTP API: the gate, the read-only engines,
the masking and the caps hold for an assistant as for a person, so a prompt-injected assistant
still cannot write, read files or see a hidden column. A failure is a tool error whose text
says what to do (the gate's issues for refused SQL); nothing is raised past the server, and
the next call is answered. ``tablerag mcp`` serves it over stdio; ``tablerag serve`` at
``/mcp`` (streamable HTTP, behind the service's tokens).
"""

from __future__ import annotations

import inspect
from contextvars import ContextVar
from typing import Annotated, Any

from mcp.server import MCPServer
from mcp.server.mcpserver.exceptions import ResourceError, ToolError
from mcp_types import CallToolResult, TextContent, ToolAnnotations
from pydantic import BaseModel, Field

from tablerag import __version__
from tablerag.answer import Answer
from tablerag.api.schemas import AskOut, HitOut, SourceOut, SqlOut, TableOut
from tablerag.api.shapes import hits_out, sql_out, table_out, tables_named
from tablerag.errors import ConfigError, SQLRejected, TableragError
from tablerag.redact import redact_secrets
from tablerag.runtime import Runtime
from tablerag.sql.sensitive import rules_from

CALLER: ContextVar[str | None] = ContextVar("tablerag_mcp_caller", default=None)
"""The API token id of the HTTP request a tool call came in on (set by ``tablerag serve``'s
``/mcp`` guard; None over stdio or on loopback without tokens), logged with the answer."""

MAX_TEXT_ROWS = 20
"""Rows of a result written into a tool's short text form (the structured content has all the
rows the engine returned, up to ``max_returned_rows``)."""

MAX_QUESTION_CHARS = 4000
MAX_SQL_CHARS = 100_000

READ_ONLY = ToolAnnotations(
    read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False
)
"""Every tool reads; none changes the data or reaches outside the workspace's sources."""

INSTRUCTIONS = (
    "tablerag answers questions over an organisation's documents and tables. Numbers come from "
    "SQL run read-only over its tables; facts from its documents come with citations. Prefer "
    "`ask` for a question in words; use `list_tables`/`describe_table` and `run_sql` to check "
    "or extend a figure; `search_documents` for passages. Quote the SQL and the sources you used."
)

PROMPT = (
    "Answer the question below from the organisation's data and documents, with sources. "
    "Call `ask` first. If its status is not `ok`, read its reason, look at the tables "
    "(`describe_table`) and check the figure with `run_sql`. Give every number with the SQL it "
    "came from and every document fact with its citation (file, heading, page). Say plainly "
    "what the data cannot answer.\n\nQuestion: {question}"
)


class Hits(BaseModel):
    """The passages found, best first."""

    hits: list[HitOut]


class Tables(BaseModel):
    """The tables questions are answered from."""

    tables: list[TableOut]


class Sources(BaseModel):
    """The sources ingested into the workspace."""

    sources: list[SourceOut]


class TableSchema(BaseModel):
    """One table: columns (hidden ones left out), types, units, values, samples and keys."""

    table: TableOut
    text: str = Field(description="The same as plain text.")


def build(runtime: Runtime) -> MCPServer:
    """The MCP server over ``runtime`` (which the caller opens and closes)."""
    server: MCPServer = MCPServer(
        "tablerag", version=__version__, instructions=INSTRUCTIONS, log_level="WARNING"
    )
    rules = rules_from(runtime.settings)

    def tool(fn: Any) -> Any:
        """Register ``fn`` read-only, described by its docstring without its indentation."""
        return server.tool(annotations=READ_ONLY, description=inspect.getdoc(fn))(fn)

    @tool
    def ask(question: str, session: str | None = None) -> Annotated[CallToolResult, AskOut]:
        """Answer a question in words (Chinese or English) from the tables and documents.

        Returns the answer with its status (`ok` only when its checks passed; otherwise the
        reason comes first), the SQL it ran, the result rows, the cited passages, the path it
        took and its confidence.
        """
        return _ask(runtime, question, session)

    @tool
    def run_sql(sql: str) -> Annotated[CallToolResult, SqlOut]:
        """Run one read-only SELECT over the workspace's tables (see `list_tables`).

        The query goes through tablerag's gate: writes, file or network access, system tables
        and hidden columns are refused with the reason. Rows are capped and sensitive values
        masked.
        """
        return _run_sql(runtime, sql)

    @tool
    def search_documents(query: str, k: int = 5) -> Annotated[CallToolResult, Hits]:
        """Find the document passages most relevant to `query` (hybrid BM25 + embeddings).

        Each passage comes with its source file, heading path and page.
        """
        return _search(runtime, query, k)

    @tool
    def list_tables() -> Annotated[CallToolResult, Tables]:
        """List the tables questions are answered from: name, source and row count."""

        def read() -> Tables:
            with runtime.use() as gen:
                found = tables_named(gen.qa.sources.sources, None)
            return Tables(tables=[table_out(label, t) for label, t in found])

        out = _guarded(read)
        text = "\n".join(f"{t.name}  ({t.rows} rows, {t.source})" for t in out.tables)
        return _result(out, text or _NO_TABLES)

    @tool
    def describe_table(table: str) -> Annotated[CallToolResult, TableSchema]:
        """Describe one table: its columns with types, units, enum values and samples, its
        primary and foreign keys. Columns hidden by the operator are not listed."""
        out = _guarded(lambda: _describe(runtime, table, rules))
        return _result(out, out.text)

    @tool
    def list_sources() -> Annotated[CallToolResult, Sources]:
        """List the ingested sources: files and databases, their tables and passages."""

        def read() -> Sources:
            with runtime.use() as gen:
                records = gen.records
            return Sources(
                sources=[
                    SourceOut(
                        location=redact_secrets(r.location),
                        kind=r.kind,
                        format=r.format,
                        ingested_at=r.ingested_at,
                        tables=list(r.tables),
                        chunks=r.chunks,
                    )
                    for r in records
                ]
            )

        out = _guarded(read)
        text = "\n".join(
            f"{s.location} ({s.kind}): {len(s.tables)} tables, {s.chunks} passages"
            for s in out.sources
        )
        return _result(out, text or "No sources; ingest some with `tablerag ingest`.")

    @server.resource(
        "tablerag://tables/{table}/schema",
        name="table_schema",
        description="A table's columns, types, units, values and keys as plain text.",
        mime_type="text/plain",
    )
    def table_schema(table: str) -> str:
        try:
            return _describe(runtime, table, rules).text
        except TableragError as exc:
            raise ResourceError(str(exc)) from exc

    @server.prompt(name="answer_with_sources")
    def answer_with_sources(question: str) -> str:
        """Answer from the data and the documents, with sources."""
        return PROMPT.format(question=question)

    return server


def _ask(runtime: Runtime, question: str, session: str | None) -> CallToolResult:
    if not question.strip():
        raise ToolError("The question is empty; pass the question's text.")
    if len(question) > MAX_QUESTION_CHARS:
        raise ToolError(
            f"The question has {len(question)} characters; the limit is "
            f"{MAX_QUESTION_CHARS}. Ask a shorter question."
        )
    rq = runtime.request(question, session=session, origin="mcp")
    token_id = CALLER.get()
    answer = _guarded(lambda: runtime.serve(rq, token_id=token_id))
    envelope = AskOut(id=rq.id, **answer.model_dump())
    result = _result(envelope, answer_text(answer))
    if answer.budget_exhausted == "seconds":  # as the API's 504: what was done comes with it
        limit = f"{rq.deadline.seconds:g} s" if rq.deadline.seconds else "the time limit"
        result.content.insert(
            0,
            TextContent(
                type="text",
                text=f"The question's time limit ({limit}) ran out before an answer was found; "
                "ask a narrower question or raise answer_max_seconds.",
            ),
        )
        result.is_error = True
    return result


def _run_sql(runtime: Runtime, sql: str) -> CallToolResult:
    if not sql.strip():
        raise ToolError("The SQL is empty; pass one SELECT statement.")
    if len(sql) > MAX_SQL_CHARS:
        raise ToolError(f"The SQL is longer than {MAX_SQL_CHARS} characters; shorten it.")

    def run() -> SqlOut:
        with runtime.use() as gen:
            sources = gen.qa.sources
            if not sources.sources:
                raise ConfigError(_NO_TABLES)
            located = sources.locate(sql)
            result = sources.engine(located.source).execute(located.sql)
            return sql_out(located.source.label, result)

    out = _guarded(run)
    return _result(out, rows_text(out.columns, out.rows, out.truncated))


def _search(runtime: Runtime, query: str, k: int) -> CallToolResult:
    if not query.strip():
        raise ToolError("The search text is empty.")
    if not 1 <= k <= 50:
        raise ToolError("k must be between 1 and 50.")

    def find() -> Hits:
        with runtime.use() as gen:
            hits = gen.qa.search(query[:2000], k)
        return Hits(hits=hits_out(hits))

    found = _guarded(find)
    lines = [
        f"[{n}] {h.source}{_where(h.heading_path, h.page)}\n{h.text}"
        for n, h in enumerate(found.hits, 1)
    ]
    return _result(found, "\n\n".join(lines) or "No passage matched.")


_NO_TABLES = "The workspace has no tables; ingest some with `tablerag ingest`."


def _describe(runtime: Runtime, name: str, rules: Any) -> TableSchema:
    with runtime.use() as gen:
        found = tables_named(gen.qa.sources.sources, name)
        known = [t.name for _, t in tables_named(gen.qa.sources.sources, None)]
        catalog = gen.qa.catalog
        profiles = catalog.profiles if catalog is not None else {}
        if not found:
            raise ConfigError(f"No table {name!r}; `list_tables` lists them ({len(known)}).")
        label, info = found[0]
        out = table_out(label, info, rules, profiles=profiles, keep_hidden=False)
    return TableSchema(table=out, text=schema_text(out))


def _guarded(work: Any) -> Any:
    """``work()``, with tablerag's errors as tool errors (their sentence says what to do)."""
    try:
        return work()
    except SQLRejected as exc:
        raise ToolError(f"The gate refused the SQL: {exc}") from exc
    except TableragError as exc:
        raise ToolError(str(exc)) from exc


def _result(model: BaseModel, text: str) -> CallToolResult:
    return CallToolResult(
        content=[TextContent(type="text", text=text)],
        structured_content=model.model_dump(mode="json"),
    )


def _where(heading_path: list[str], page: int | None) -> str:
    parts = [" > ".join(heading_path)] if heading_path else []
    if page is not None:
        parts.append(f"p. {page}")
    return f" ({', '.join(parts)})" if parts else ""


def rows_text(columns: list[str], rows: list[list[Any]], truncated: bool) -> str:
    """A result as short text: a header, the first :data:`MAX_TEXT_ROWS` rows, the count.

    Example:
        >>> print(rows_text(["region", "n"], [["East", 3], ["West", 1]], False))
        region | n
        East | 3
        West | 1
        (2 rows)
    """
    lines = [" | ".join(columns)]
    lines += [" | ".join("" if v is None else str(v) for v in r) for r in rows[:MAX_TEXT_ROWS]]
    more = len(rows) - MAX_TEXT_ROWS
    tail = f"{len(rows)} rows" + (", more were cut at the row cap" if truncated else "")
    if more > 0:
        tail = f"first {MAX_TEXT_ROWS} of {tail}"
    return "\n".join([*lines, f"({tail})"])


def answer_text(answer: Answer) -> str:
    """An answer as short text: status (and why), the answer, its SQL, rows and sources."""
    head = f"status: {answer.status}"
    if answer.status != "ok" and answer.error:
        head += f" ({answer.error})"
    parts = [head, answer.answer]
    if answer.sql:
        parts.append(f"SQL: {answer.sql}")
    if answer.table is not None:
        t = answer.table
        parts.append(rows_text(t.columns, t.rows, t.truncated or t.row_count > len(t.rows)))
    parts += [f"[{c.n}] {c.source}{_where(c.heading_path, c.page)}" for c in answer.citations]
    return "\n".join(p for p in parts if p)


def schema_text(table: TableOut) -> str:
    """A table as plain text, one line a column."""
    lines = [f"{table.name} ({table.rows} rows, source {table.source})"]
    if table.description:
        lines.append(table.description)
    for c in table.columns or ():
        bits = [c.type]
        if c.unit:
            bits.append(f"unit {c.unit}")
        if c.name in table.primary_key:
            bits.append("primary key")
        if c.values:
            bits.append("values: " + ", ".join(c.values[:20]))
        elif c.samples:
            bits.append("e.g. " + ", ".join(c.samples[:5]))
        line = f"- {c.name}: " + "; ".join(bits)
        lines.append(line + (f" — {c.description}" if c.description else ""))
    lines += [f"FK {fk}" for fk in table.foreign_keys]
    return "\n".join(lines)


__all__ = ["build", "answer_text", "rows_text", "schema_text"]
