"""The workspace's semantic model: Ossie ``semantic_model`` entries, one row each (issue 30).

The rows hold plain JSON; :mod:`tablerag.semantic.ossie` parses and checks them (the store sits
below it and knows nothing of the format). Replacing is all or nothing, inside the caller's
transaction.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import duckdb


@dataclass(frozen=True)
class StoredModel:
    """One semantic model as stored: its Ossie data and where it came from."""

    name: str
    version: str
    origin: str
    imported_at: str
    data: dict[str, Any]


def replace_models(
    con: duckdb.DuckDBPyConnection,
    models: Sequence[dict[str, Any]],
    *,
    version: str,
    origin: str,
    keep_others: bool = True,
) -> None:
    """Store ``models`` (Ossie ``semantic_model`` entries, each with a ``name``), replacing
    those of the same names (and every other one unless ``keep_others``). Call it inside a
    transaction: a failure leaves the previous model whole."""
    if not keep_others:
        con.execute("DELETE FROM tablerag.knowledge")
    row = con.execute("SELECT coalesce(max(ordinal), 0) FROM tablerag.knowledge").fetchone()
    start = int(row[0]) if row else 0
    now = dt.datetime.now(dt.UTC).replace(tzinfo=None)
    for i, model in enumerate(models, start=1):
        name = str(model["name"])
        old = con.execute(
            "SELECT ordinal FROM tablerag.knowledge WHERE model_name = ?", [name]
        ).fetchone()
        con.execute("DELETE FROM tablerag.knowledge WHERE model_name = ?", [name])
        con.execute(
            "INSERT INTO tablerag.knowledge VALUES (?, ?, ?, ?, ?, ?)",
            [
                name,
                int(old[0]) if old else start + i,
                version,
                origin,
                now,
                json.dumps(model, ensure_ascii=False),
            ],
        )


def read_models(con: duckdb.DuckDBPyConnection) -> list[StoredModel]:
    """Every stored semantic model, in file order."""
    rows = con.execute(
        "SELECT model_name, version, origin, strftime(imported_at, '%Y-%m-%d %H:%M:%S'), model "
        "FROM tablerag.knowledge ORDER BY ordinal, model_name"
    ).fetchall()
    return [StoredModel(r[0], r[1], r[2], r[3], json.loads(r[4])) for r in rows]


def forget_models(con: duckdb.DuckDBPyConnection) -> int:
    """Delete every stored semantic model; returns how many there were."""
    row = con.execute("SELECT count(*) FROM tablerag.knowledge").fetchone()
    con.execute("DELETE FROM tablerag.knowledge")
    return int(row[0]) if row else 0


def drop_model(con: duckdb.DuckDBPyConnection, name: str) -> None:
    """Delete the stored semantic model called ``name`` (inside the caller's transaction)."""
    con.execute("DELETE FROM tablerag.knowledge WHERE model_name = ?", [name])
