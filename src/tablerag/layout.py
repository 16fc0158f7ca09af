"""The names of a workspace folder's parts, shared by the store that writes them and the engines
that read the user's tables from them (the only thing the SQL layer knows of a workspace)."""

from __future__ import annotations

DB_FILE = "workspace.duckdb"
"""The DuckDB file inside a workspace folder."""
DATA_SCHEMA = "data"
"""Its schema of the user's tables (generated SQL reads these only)."""
INTERNAL_SCHEMA = "tablerag"
"""Its schema of tablerag's own tables (owned by :mod:`tablerag.store`)."""
