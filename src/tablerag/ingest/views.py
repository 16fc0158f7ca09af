"""View columns of a database source that show a hidden column under another name.

The engine traces each view column to the table columns it is computed from
(:mod:`tablerag.sql.engines.lineage`) and hides it when one of them is hidden; ingest asks the
same engine, so that such a column's sample values are never recorded and the schema the model
reads leaves it out as the gate does.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

from tablerag.errors import TableragError
from tablerag.settings import Settings
from tablerag.sql.engines import open_engine
from tablerag.sql.policy import ExecutionPolicy
from tablerag.sql.sensitive import hidden_columns, rules_from
from tablerag.types import TableInfo

log = logging.getLogger(__name__)


def derived_hidden(
    url: str, tables: Sequence[TableInfo], settings: Settings
) -> dict[str, set[str]]:
    """``{table name: columns}`` the engine of ``url`` hides beyond what their own names,
    samples and the operator's rules hide: view columns computed from a hidden column, and the
    columns of a view whose definition the account cannot read. Empty when the engine cannot
    be opened (the query path then refuses or hides on its own)."""
    rules = rules_from(settings)
    policy = ExecutionPolicy(
        time_limit_ms=settings.sql_time_limit_ms,
        sensitive=rules,
        allow_readable_hidden_columns=True,  # only the catalog is read here, never a row
    )
    try:
        with open_engine(url, catalog=list(tables), policy=policy, allow_writable_role=True) as e:
            exposed = e.catalog
    except TableragError as exc:
        log.warning("could not trace the views of %s: %s", url.split("@")[-1], exc)
        return {}
    by_name = {t.qualified.lower(): t for t in exposed.tables}
    by_name.update({t.name.lower(): t for t in exposed.tables if t.name.lower() not in by_name})
    out: dict[str, set[str]] = {}
    for info in tables:
        table = by_name.get(info.name.lower()) or by_name.get(info.name.rpartition(".")[2].lower())
        if table is None:
            continue
        own = {h.lower() for h in hidden_columns(info, rules=rules)}
        extra = {h for h in table.hidden if h.lower() not in own}
        if extra:
            out[info.name] = extra
    return out
