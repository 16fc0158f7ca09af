"""The one exception tree of tablerag.

Every error a user can meet is a ``TableragError`` whose message is one sentence that says what
went wrong and how to fix it. Adapters map driver and SDK errors at their boundary (``from exc``);
nothing above them sees ``duckdb.Error`` or ``psycopg.Error``.

```
TableragError
├── ConfigError              bad setting, unknown backend, missing extra, bad path or URL
│   └── UnknownBackendError  .kind, .name, .choices ("Did you mean 'duckdb'?")
├── WorkspaceError           workspace missing, locked, corrupt or from a newer version
├── SourceError              one source could not be read (.source); the others go on
├── ProviderError            LLM/embedder/reranker failed at runtime (.provider)
│   └── ProviderTimeout
├── EngineError              database failed at runtime (.engine, .sql)
│   ├── QueryTimeout         (.time_limit_ms)
│   └── QueryFailed
│       └── ResourceLimitExceeded  memory or temporary-disk limit
├── SQLRejected              our gate refused the SQL (.sql, .issues); feedback, not a crash
├── RetrievalError           index missing or stale, dimension mismatch, empty query
├── AgentError
│   └── BudgetExceeded       (.budget, .limit)
└── ServiceBusy              the server's queue is full or a client's rate limit is reached
                             (.retry_after_s)
```
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any


class TableragError(Exception):
    """Base class of every error tablerag raises on purpose."""


class ConfigError(TableragError):
    """A caller or operator mistake: bad setting, unknown backend, missing extra, bad path."""


class UnknownBackendError(ConfigError):
    """A ``backend:model`` spec names a backend that is not known."""

    def __init__(self, kind: str, name: str, choices: Sequence[str]) -> None:
        self.kind, self.name, self.choices = kind, name, list(choices)
        hint = difflib.get_close_matches(name, self.choices, n=1)
        tail = f" Did you mean {hint[0]!r}?" if hint else f" Known: {', '.join(self.choices)}."
        super().__init__(f"Unknown {kind} backend {name!r}.{tail}")


class WorkspaceError(TableragError):
    """The workspace folder is missing, locked, corrupt or written by a newer tablerag."""


class SourceError(TableragError):
    """One source (file or database) could not be read; the ingest of the others goes on."""

    def __init__(self, source: str, message: str) -> None:
        self.source = source
        super().__init__(message)


class ProviderError(TableragError):
    """An LLM, embedder or reranker failed at runtime."""

    def __init__(self, message: str, *, provider: str = "", status_code: int | None = None):
        self.provider, self.status_code = provider, status_code
        super().__init__(message)


class ProviderTimeout(ProviderError):
    """A provider call ran past its time limit."""


class EngineError(TableragError):
    """A database failed at runtime."""

    def __init__(self, message: str, *, engine: str = "", sql: str | None = None) -> None:
        self.engine, self.sql = engine, sql
        super().__init__(message)


class QueryTimeout(EngineError):
    """A query ran past ``sql_time_limit_ms`` and was stopped by the engine."""

    def __init__(
        self, message: str, *, engine: str = "", sql: str | None = None, time_limit_ms: int = 0
    ) -> None:
        super().__init__(message, engine=engine, sql=sql)
        self.time_limit_ms = time_limit_ms


class QueryFailed(EngineError):
    """The engine refused or failed to run a query (syntax, missing table, type error...)."""


class ResourceLimitExceeded(QueryFailed):
    """The engine stopped a query at a resource limit (memory, temporary disk)."""


@dataclass(frozen=True)
class Issue:
    """One problem the SQL gate found: a machine code, a sentence for humans, a position."""

    code: str
    message: str
    span: tuple[int, int] | None = None
    detail: dict[str, Any] = field(default_factory=dict)


class SQLRejected(TableragError):
    """The SQL gate refused a statement; ``issues`` says why, for the user or the repair loop."""

    def __init__(self, sql: str, issues: Sequence[Issue]) -> None:
        self.sql, self.issues = sql, list(issues)
        super().__init__("; ".join(i.message for i in self.issues) or "SQL rejected.")


class RetrievalError(TableragError):
    """The text index is missing, stale or built with another embedder, or the query is empty."""


class AgentError(TableragError):
    """The answering loop could not finish."""


class BudgetExceeded(AgentError):
    """A step, token or time budget ran out."""

    def __init__(self, budget: str, limit: float) -> None:
        self.budget, self.limit = budget, limit
        super().__init__(f"The {budget} budget ({limit}) ran out before an answer was found.")


class ServiceBusy(TableragError):
    """The server cannot take this request now: its queue is full, or the caller's rate limit
    is reached; ``retry_after_s`` says when to try again."""

    def __init__(self, message: str, *, retry_after_s: float = 1.0) -> None:
        self.retry_after_s = retry_after_s
        super().__init__(message)
