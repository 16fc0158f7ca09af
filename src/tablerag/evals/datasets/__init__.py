"""Readers of public datasets in their original formats, from any path."""

from __future__ import annotations

from tablerag.evals.datasets.spider import Dataset, LinkingCase, load_spider, read_tables_json

__all__ = ["Dataset", "LinkingCase", "load_spider", "read_tables_json"]
