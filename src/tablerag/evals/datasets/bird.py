"""BIRD (dev or Mini-Dev) in its original format: questions with evidence, gold SQL, schemas.

The folder holds a question file (``dev.json``, or Mini-Dev's ``mini_dev_sqlite.json``), the
schemas in Spider's format (``dev_tables.json``) and, when present, the databases as
``dev_databases/<db>/<db>.sqlite``. Each record has ``question_id``, ``db_id``, ``question``,
``evidence`` (the external-knowledge hint BIRD gives with the question), ``SQL`` and, in
Mini-Dev and the newer dev file, ``difficulty`` (simple, moderate, challenging).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from tablerag.errors import ConfigError
from tablerag.evals.datasets.spider import read_json, schema_from_record
from tablerag.types import TableInfo

QUESTION_FILES = ("dev.json", "mini_dev_sqlite.json", "dev/dev.json")
TABLE_FILES = ("dev_tables.json", "tables.json", "dev/dev_tables.json")
DATABASE_FOLDERS = ("dev_databases", "database", "dev/dev_databases")


@dataclass(frozen=True)
class BirdQuestion:
    """One BIRD question with its gold SQL."""

    question_id: str
    db_id: str
    question: str
    evidence: str
    sql: str
    difficulty: str = ""


@dataclass(frozen=True)
class BirdDataset:
    """Questions, schemas and the SQLite files found (databases may be missing)."""

    questions: tuple[BirdQuestion, ...]
    schemas: dict[str, list[TableInfo]]
    databases: dict[str, Path] = field(default_factory=dict)


def _first(root: Path, names: tuple[str, ...], what: str) -> Path:
    for name in names:
        if (root / name).exists():
            return root / name
    raise ConfigError(
        f"No {what} under {str(root)!r} (looked for {', '.join(names)}); pass BIRD's dev folder."
    )


def load_bird(path: Path) -> BirdDataset:
    """Read BIRD from its folder, or from its question file (the schemas sit beside it).

    Raises:
        ConfigError: the question or schema file is missing or malformed.
    """
    if path.is_file():
        root, questions_file = path.parent, path
    else:
        root, questions_file = path, _first(path, QUESTION_FILES, "BIRD question file")
    tables_file = _first(root, TABLE_FILES, "BIRD schema file (dev_tables.json)")
    schemas = {r["db_id"]: schema_from_record(r) for r in read_json(tables_file)}
    records = read_json(questions_file)
    if not isinstance(records, list):
        raise ConfigError(f"{str(questions_file)!r} is not a list of questions; check --path.")
    questions = []
    for i, r in enumerate(records):
        try:
            questions.append(
                BirdQuestion(
                    question_id=str(r.get("question_id", i)),
                    db_id=r["db_id"],
                    question=r["question"],
                    evidence=str(r.get("evidence") or ""),
                    sql=r.get("SQL") or r["query"],
                    difficulty=str(r.get("difficulty") or ""),
                )
            )
        except (KeyError, TypeError, AttributeError) as exc:
            raise ConfigError(
                f"Question {i} of {str(questions_file)!r} lacks {exc}; is this a BIRD file?"
            ) from exc
    found: dict[str, Path] = {}
    for folder in DATABASE_FOLDERS:
        for db in schemas:
            candidate = root / folder / db / f"{db}.sqlite"
            if db not in found and candidate.is_file():
                found[db] = candidate
    return BirdDataset(tuple(questions), schemas, found)
