"""The limits every query of generated SQL runs under; safe by default, no I/O."""

from __future__ import annotations

from dataclasses import dataclass

from tablerag.errors import ConfigError
from tablerag.sql.sensitive import DEFAULT_RULES, SensitiveRules


@dataclass(frozen=True)
class ExecutionPolicy:
    """How much one query may do. Every field has a safe default.

    Example:
        >>> ExecutionPolicy().max_rows
        1000
        >>> ExecutionPolicy(max_rows=0)
        Traceback (most recent call last):
        ...
        tablerag.errors.ConfigError: max_rows must be at least 1 (got 0); pass a positive number.
    """

    max_rows: int = 1000
    """Most rows a query may return; the gate rewrites the outer LIMIT and the engine cuts."""
    time_limit_ms: int = 10_000
    """Wall-clock limit of one query; the engine interrupts it (interrupt / statement_timeout)."""
    memory_limit_mb: int = 1024
    """Memory a DuckDB query may use (DuckDB ``memory_limit``)."""
    threads: int = 2
    """Worker threads of the DuckDB engine."""
    allow_recursive: bool = False
    """Allow ``WITH RECURSIVE`` (off: recursion is the cheapest way to run for ever)."""
    mask_personal_data: bool = True
    """Mask e-mails, phone, ID and card numbers in results before anyone sees them."""
    max_sql_chars: int = 20_000
    """Longest SQL text the gate accepts."""
    max_result_bytes: int = 16 * 2**20
    """Most bytes a result may hold (one cell can pack a table: ``string_agg``, ``list``); also
    SQLite's longest string or blob."""
    allow_readable_hidden_columns: bool = False
    """PostgreSQL: run although the role can read columns tablerag hides (operator override;
    the gate alone keeps them out then)."""
    sensitive: SensitiveRules = DEFAULT_RULES
    """The operator's ``sensitive_columns`` and ``allow_columns``: the engine's exposed catalog
    (gate, exposure layer, masking, error messages) hides by them."""
    isolated: bool = True
    """Run DuckDB and SQLite queries in a worker process with an address-space limit and a hard
    wall-clock kill, so that one function call cannot pass the memory or time limit."""
    workers: int = 1
    """Most worker processes of one DuckDB or SQLite source running queries at once (more
    start only while queries overlap); each holds its own read-only session."""

    def __post_init__(self) -> None:
        for name in (
            "max_rows",
            "time_limit_ms",
            "memory_limit_mb",
            "threads",
            "max_sql_chars",
            "max_result_bytes",
            "workers",
        ):
            value = getattr(self, name)
            if value < 1:
                raise ConfigError(
                    f"{name} must be at least 1 (got {value}); pass a positive number."
                )
