"""Schema of tablerag's own tables, as an ordered list of migrations.

The workspace records the number of migrations applied in ``tablerag.meta``; opening a workspace
applies the missing ones in one transaction. Never edit a released migration: append a new one.
"""

from __future__ import annotations

MIGRATIONS: tuple[str, ...] = (
    # 1: sources, catalog, documents, chunks
    """
    CREATE SCHEMA IF NOT EXISTS data;
    CREATE TABLE tablerag.sources (
        source_id    VARCHAR PRIMARY KEY,
        location     VARCHAR NOT NULL UNIQUE,
        kind         VARCHAR NOT NULL,          -- 'file' | 'database'
        format       VARCHAR NOT NULL,          -- 'csv', 'xlsx', 'pdf', 'postgresql', ...
        content_hash VARCHAR,                   -- sha256 of the file bytes; NULL for databases
        size_bytes   BIGINT,
        ingested_at  TIMESTAMP NOT NULL,
        rows_read    BIGINT NOT NULL DEFAULT 0,
        rows_stored  BIGINT NOT NULL DEFAULT 0,
        chunks       INTEGER NOT NULL DEFAULT 0,
        problems     JSON NOT NULL DEFAULT '[]'
    );
    CREATE TABLE tablerag.tables (
        table_name   VARCHAR NOT NULL,
        source_id    VARCHAR NOT NULL,
        stored       BOOLEAN NOT NULL,          -- true: in schema data; false: queried in place
        origin       VARCHAR NOT NULL DEFAULT '',
        page         INTEGER,
        row_count    BIGINT NOT NULL,
        rows_read    BIGINT,
        description  VARCHAR NOT NULL DEFAULT '',
        primary_key  VARCHAR[] NOT NULL DEFAULT [],
        foreign_keys JSON NOT NULL DEFAULT '[]',
        PRIMARY KEY (source_id, table_name)
    );
    CREATE TABLE tablerag.columns (
        source_id    VARCHAR NOT NULL,
        table_name   VARCHAR NOT NULL,
        ordinal      INTEGER NOT NULL,
        column_name  VARCHAR NOT NULL,
        type         VARCHAR NOT NULL,
        original     VARCHAR NOT NULL DEFAULT '',
        unit         VARCHAR,
        samples      VARCHAR[] NOT NULL DEFAULT [],
        description  VARCHAR NOT NULL DEFAULT '',
        PRIMARY KEY (source_id, table_name, ordinal)
    );
    CREATE TABLE tablerag.documents (
        source_id    VARCHAR PRIMARY KEY,
        title        VARCHAR NOT NULL,
        blocks       INTEGER NOT NULL,
        pages        INTEGER
    );
    CREATE TABLE tablerag.chunks (
        chunk_id     VARCHAR PRIMARY KEY,
        source_id    VARCHAR NOT NULL,
        source       VARCHAR NOT NULL,
        ordinal      INTEGER NOT NULL,
        text         VARCHAR NOT NULL,
        heading_path VARCHAR[] NOT NULL DEFAULT [],
        page         INTEGER,
        table_name   VARCHAR,
        content_hash VARCHAR NOT NULL
    );
    """,
    # 2: descriptions people supplied (merged into the catalog on read)
    """
    CREATE TABLE tablerag.annotations (
        source_id    VARCHAR NOT NULL,
        table_name   VARCHAR NOT NULL,
        column_name  VARCHAR,                   -- NULL: the annotation is about the table
        description  VARCHAR NOT NULL DEFAULT '',
        unit         VARCHAR,
        sensitive    BOOLEAN NOT NULL DEFAULT false,
        primary_key  VARCHAR[] NOT NULL DEFAULT [],
        foreign_keys JSON NOT NULL DEFAULT '[]'
    );
    """,
    # 3: column profiles for schema linking (cache; rebuilt when the table changes)
    """
    CREATE TABLE tablerag.profiles (
        table_name   VARCHAR NOT NULL,
        source       VARCHAR NOT NULL,
        fingerprint  VARCHAR NOT NULL,          -- source content hash + row count + columns
        profiled_at  TIMESTAMP NOT NULL,
        profiles     JSON NOT NULL,             -- one object per column (ColumnProfile)
        distinct_values JSON NOT NULL,          -- {distinct: {column: [values]}, composite_key}
        PRIMARY KEY (table_name, source)
    );
    """,
    # 4: CHECK constraints of database tables (enum values and ranges for the catalog)
    """
    ALTER TABLE tablerag.tables ADD COLUMN checks JSON DEFAULT '[]';
    """,
    # 5: business terms of descriptions files (the words each term stands for, to seed linking)
    """
    CREATE TABLE tablerag.glossary (
        source_id    VARCHAR NOT NULL,
        term         VARCHAR NOT NULL,
        words        VARCHAR[] NOT NULL
    );
    """,
    # 6: the workspace's semantic model (Apache Ossie semantic models, issue 30)
    """
    CREATE TABLE tablerag.knowledge (
        model_name   VARCHAR PRIMARY KEY,
        ordinal      INTEGER NOT NULL,          -- order of the models in the exported file
        version      VARCHAR NOT NULL,          -- Ossie version of the file it came from
        origin       VARCHAR NOT NULL,          -- the file imported, or 'draft'
        imported_at  TIMESTAMP NOT NULL,
        model        JSON NOT NULL              -- one Ossie semantic_model entry
    );
    """,
    # 7: verified queries: question → SQL pairs people checked (issue 33)
    """
    CREATE TABLE tablerag.examples (
        example_id   VARCHAR PRIMARY KEY,
        question     VARCHAR NOT NULL,
        sql          VARCHAR NOT NULL,
        tables       VARCHAR[] NOT NULL DEFAULT [],
        source       VARCHAR NOT NULL,          -- the label of the source the SQL runs on
        verified_by  VARCHAR NOT NULL DEFAULT '',
        verified_at  VARCHAR NOT NULL,          -- ISO 8601, UTC
        origin       VARCHAR NOT NULL,          -- 'manual' | 'feedback' | 'import'
        case_id      VARCHAR UNIQUE             -- the logged answer it corrects (origin feedback)
    );
    """,
)

SERVICE_DB = "service.sqlite"
"""The service's own file in a workspace folder: query log, feedback, API tokens, sessions.

A separate SQLite file, not the workspace's DuckDB file: DuckDB lets a file be written by one
process only while no other process has it open, so a server (or ``tablerag ask``) writing its
log there would lock every other reader and ``tablerag ingest`` out. SQLite lets several
processes write one file, one short transaction at a time.
"""

SERVICE_MIGRATIONS: tuple[str, ...] = (
    # 1: answers (the query log), feedback, API tokens
    """
    CREATE TABLE answers (
        id                TEXT PRIMARY KEY,
        asked_at          TEXT NOT NULL,         -- ISO 8601, UTC
        origin            TEXT NOT NULL,         -- 'cli' | 'api' | 'library'
        session           TEXT,
        token_id          TEXT,
        question          TEXT NOT NULL,
        intent            TEXT,
        confidence        REAL,
        path              TEXT,
        status            TEXT NOT NULL,         -- answer status, or 'failed' / 'cancelled'
        tables            TEXT NOT NULL DEFAULT '[]',
        sql_attempts      TEXT NOT NULL DEFAULT '[]',
        row_count         INTEGER,
        chunk_ids         TEXT NOT NULL DEFAULT '[]',
        answer            TEXT NOT NULL DEFAULT '',
        findings          TEXT NOT NULL DEFAULT '[]',
        error             TEXT,
        timings_ms        TEXT NOT NULL DEFAULT '{}',
        llm_calls         INTEGER NOT NULL DEFAULT 0,
        prompt_tokens     INTEGER NOT NULL DEFAULT 0,
        completion_tokens INTEGER NOT NULL DEFAULT 0,
        generation        INTEGER
    );
    CREATE INDEX answers_asked_at ON answers (asked_at);
    CREATE INDEX answers_session ON answers (session);
    CREATE TABLE feedback (
        answer_id         TEXT NOT NULL REFERENCES answers (id) ON DELETE CASCADE,
        given_at          TEXT NOT NULL,
        rating            TEXT NOT NULL,         -- 'right' | 'wrong' | 'not_in_data'
        comment           TEXT NOT NULL DEFAULT '',
        token_id          TEXT
    );
    CREATE INDEX feedback_answer ON feedback (answer_id);
    CREATE TABLE tokens (
        token_id          TEXT PRIMARY KEY,
        name              TEXT NOT NULL,
        secret_sha256     TEXT NOT NULL UNIQUE,  -- the token itself is never stored
        created_at        TEXT NOT NULL,
        revoked_at        TEXT,
        rate_per_minute   INTEGER
    );
    """,
    # 2: conversations (issue 34): one row per session, one per turn
    """
    CREATE TABLE sessions (
        session_id        TEXT PRIMARY KEY,
        created_at        TEXT NOT NULL,         -- ISO 8601, UTC
        updated_at        TEXT NOT NULL,
        origin            TEXT NOT NULL          -- who opened it: 'cli' | 'api' | 'mcp' | 'library'
    );
    CREATE INDEX sessions_updated_at ON sessions (updated_at);
    CREATE TABLE turns (
        session_id        TEXT NOT NULL REFERENCES sessions (session_id) ON DELETE CASCADE,
        n                 INTEGER NOT NULL,      -- 1, 2, ... in the order they were answered
        asked_at          TEXT NOT NULL,
        answer_id         TEXT NOT NULL,         -- the query log's id of the answer
        question          TEXT NOT NULL,         -- as asked
        standalone        TEXT NOT NULL,         -- what it was resolved to (= question if alone)
        path              TEXT NOT NULL DEFAULT '',
        status            TEXT NOT NULL DEFAULT '',
        sql               TEXT,
        columns           TEXT NOT NULL DEFAULT '[]',
        row_count         INTEGER,
        filter_values     TEXT NOT NULL DEFAULT '[]',
        chunk_ids         TEXT NOT NULL DEFAULT '[]',
        answer            TEXT NOT NULL DEFAULT '',
        choices           TEXT NOT NULL DEFAULT '[]', -- [[label, question], ...] it offered
        PRIMARY KEY (session_id, n)
    );
    """,
)
