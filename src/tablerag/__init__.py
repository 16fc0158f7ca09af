"""tablerag: answer questions over documents and tables; numbers from SQL, answers with sources.

The exceptions load with the package; every other public name loads on first use (PEP 562), so
``import tablerag`` (and the command line's ``--help``) does not pay for duckdb, pydantic and
the question-answering stack.
"""

from __future__ import annotations

import typing as _typing
from importlib import import_module as _import_module

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

if _typing.TYPE_CHECKING:
    from tablerag.service import QA, Workspace, ask
    from tablerag.settings import Settings, load_settings
    from tablerag.types import Chunk, ColumnInfo, Document, Problem, SourceReport, TableInfo

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

#: Public names loaded on first access, and the module that defines each.
_LAZY: dict[str, str] = {
    "Chunk": "tablerag.types",
    "ColumnInfo": "tablerag.types",
    "Document": "tablerag.types",
    "Problem": "tablerag.types",
    "QA": "tablerag.service",
    "Settings": "tablerag.settings",
    "SourceReport": "tablerag.types",
    "TableInfo": "tablerag.types",
    "Workspace": "tablerag.service",
    "ask": "tablerag.service",
    "load_settings": "tablerag.settings",
}


if not _typing.TYPE_CHECKING:  # the type checker sees the imports above; a typo stays an error

    def __getattr__(name: str) -> object:
        """Import a lazily exported name on first access and keep it in the module."""
        module = _LAZY.get(name)
        if module is None:
            raise AttributeError(f"module 'tablerag' has no attribute {name!r}")
        value: object = getattr(_import_module(module), name)
        globals()[name] = value
        return value


def __dir__() -> list[str]:
    """The module's names, lazy exports included (for ``dir()`` and completion)."""
    return sorted(set(globals()) | set(__all__))
