"""tablerag: answer questions over documents and tables; numbers from SQL, answers with sources."""

from __future__ import annotations

from tablerag.errors import (
    ConfigError,
    EngineError,
    ProviderError,
    QueryFailed,
    QueryTimeout,
    RetrievalError,
    SourceError,
    SQLRejected,
    TableragError,
    UnknownBackendError,
    WorkspaceError,
)
from tablerag.service import QA, ask
from tablerag.settings import Settings, load_settings
from tablerag.types import Chunk, ColumnInfo, Document, Problem, SourceReport, TableInfo
from tablerag.workspace import Workspace

__all__ = [
    "Chunk",
    "ColumnInfo",
    "ConfigError",
    "Document",
    "EngineError",
    "Problem",
    "ProviderError",
    "QA",
    "QueryFailed",
    "QueryTimeout",
    "RetrievalError",
    "SQLRejected",
    "Settings",
    "SourceError",
    "SourceReport",
    "TableInfo",
    "TableragError",
    "UnknownBackendError",
    "Workspace",
    "WorkspaceError",
    "ask",
    "load_settings",
]
__version__ = "0.1.0"
