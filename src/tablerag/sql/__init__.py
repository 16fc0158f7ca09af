"""The Text-to-SQL side: the SQL gate, read-only engines, masking and result sets."""

from __future__ import annotations

from tablerag.sql.exposed import ExposedCatalog, ExposedTable
from tablerag.sql.policy import ExecutionPolicy
from tablerag.sql.result import ResultSet
from tablerag.sql.validate import check, validate

__all__ = ["ExecutionPolicy", "ExposedCatalog", "ExposedTable", "ResultSet", "check", "validate"]
