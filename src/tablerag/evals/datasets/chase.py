"""CHASE (Chinese, multi-turn, cross-database) in its original Spider-like format.

Interactions are read from every ``chase_dev*.json`` under the path; each turn becomes a case
whose history is the earlier turns of its interaction (later turns lean on them: "该频道").
Schemas come from ``tables.json``; the rebuilt SQLite databases declare no foreign keys, so the
schemas are read without the ones ``tables.json`` lists unless asked for: inference must do it.
"""

from __future__ import annotations

from pathlib import Path

from tablerag.errors import ConfigError
from tablerag.evals.datasets.spider import (
    Dataset,
    LinkingCase,
    databases,
    read_json,
    read_tables_json,
    without_missing_tables,
)


def load_chase(path: Path, *, keep_foreign_keys: bool = False) -> Dataset:
    """Read the CHASE dev interactions and schemas under ``path``.

    Raises:
        ConfigError: ``tables.json`` or the interaction files are missing or malformed.
    """
    schemas = read_tables_json(path / "tables.json", keep_foreign_keys=keep_foreign_keys)
    files = sorted(path.glob("chase_dev*.json"))
    if not files:
        raise ConfigError(f"No chase_dev*.json file under {str(path)!r}; check --path.")
    cases: list[LinkingCase] = []
    for file in files:
        for interaction in read_json(file):
            db = interaction["database_id"]
            if db not in schemas:
                continue
            history: list[str] = []
            for turn in interaction["interaction"]:
                cases.append(LinkingCase(db, turn["utterance"], turn["query"], tuple(history)))
                history.append(turn["utterance"])
    found = databases(path, sorted(schemas))
    return Dataset("chase", tuple(cases), without_missing_tables(schemas, found), found)
