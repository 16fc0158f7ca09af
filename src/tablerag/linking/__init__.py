"""Schema linking: the few tables and columns a question needs, as compact DDL for a prompt.

Typical use (no LLM call anywhere)::

    from tablerag.linking import link, render_linked, workspace_catalog

    catalog = workspace_catalog(ws)            # profiles cached in tablerag.profiles
    linked = link("上月华东的毛利是多少", catalog)
    linked.table_names                         # ('fact_sales', 'dim_region', ...)
    linked.joins                               # JoinEdge(...) with .condition()
    linked.compact                             # the "maybe" tier: names, columns, joins
    prompt_schema = render_linked(catalog, linked).text

Other sources build a catalog with :func:`build_catalog` from ``TableInfo`` objects plus an
optional :class:`RowSource` (``DuckDBRows``, ``SQLiteRows``) for values and profiles.
"""

from __future__ import annotations

from tablerag.linking.cache import workspace_catalog
from tablerag.linking.catalog import SchemaCatalog, TableSample, build_catalog, combine
from tablerag.linking.databases import DatabaseOptions, database_scores
from tablerag.linking.fkgraph import FKGraph, JoinEdge, infer_edges
from tablerag.linking.linker import LinkedColumn, LinkedSchema, LinkedTable, LinkOptions, link
from tablerag.linking.profile import ColumnProfile, profile_column
from tablerag.linking.render import SchemaText, render_full, render_linked
from tablerag.linking.rows import DuckDBRows, RowSource, SQLiteRows
from tablerag.linking.tiers import CompactTable, TierOptions
from tablerag.linking.values import ValueIndex, ValueMatch

__all__ = [
    "ColumnProfile",
    "CompactTable",
    "DatabaseOptions",
    "DuckDBRows",
    "FKGraph",
    "JoinEdge",
    "LinkOptions",
    "LinkedColumn",
    "LinkedSchema",
    "LinkedTable",
    "RowSource",
    "SQLiteRows",
    "SchemaCatalog",
    "SchemaText",
    "TableSample",
    "TierOptions",
    "ValueIndex",
    "ValueMatch",
    "build_catalog",
    "combine",
    "database_scores",
    "infer_edges",
    "link",
    "profile_column",
    "render_full",
    "render_linked",
    "workspace_catalog",
]
