"""TAT-QA (hybrid table + text QA over financial reports) in its original JSON format.

Each element of ``tatqa_dataset_*.json`` is one context: a table (rows of strings, header rows
included), its paragraphs, and questions with answer type (span, multi-span, arithmetic,
count), where the answer comes from (table, text, table-text), the scale (thousand, million,
billion, percent or none) and, for arithmetic, the derivation.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tablerag.errors import ConfigError

ANSWER_TYPES: tuple[str, ...] = ("arithmetic", "count", "multi-span", "span")
SCALES: tuple[str, ...] = ("", "thousand", "million", "billion", "percent")


@dataclass(frozen=True)
class TatQuestion:
    """One TAT-QA question with its gold annotation."""

    uid: str
    question: str
    answer: Any
    """A string or a number, or a list of strings for span and multi-span answers."""
    answer_type: str
    answer_from: str
    scale: str
    derivation: str
    rel_paragraphs: tuple[str, ...]
    context_uid: str

    def annotation(self) -> dict[str, Any]:
        """The gold as the official metric takes it (``answer``, ``answer_type``, ``scale``)."""
        return {"answer": self.answer, "answer_type": self.answer_type, "scale": self.scale}


@dataclass(frozen=True)
class TatParagraph:
    """One paragraph of a context."""

    uid: str
    order: int
    text: str


@dataclass(frozen=True)
class TatContext:
    """One report excerpt: its table, paragraphs and questions."""

    uid: str
    table: tuple[tuple[str, ...], ...]
    paragraphs: tuple[TatParagraph, ...]
    questions: tuple[TatQuestion, ...]


def tatqa_file(path: str | Path) -> Path:
    """The question file at ``path``: the file itself, or the dev (else first) JSON in a folder.

    Raises:
        ConfigError: nothing to read there.
    """
    p = Path(path).expanduser()
    if p.is_file():
        return p
    if p.is_dir():
        for name in ("tatqa_dataset_dev.json", "tatqa_dataset_test_gold.json"):
            if (p / name).is_file():
                return p / name
        found = sorted(p.glob("tatqa_dataset_*.json"))
        if found:
            return found[0]
    raise ConfigError(
        f"No TAT-QA file at {str(p)!r}; pass --path with the folder holding "
        "tatqa_dataset_dev.json or the file itself."
    )


def load_tatqa(path: str | Path) -> list[TatContext]:
    """Read every context of a TAT-QA file (or of the dev file in a folder).

    Raises:
        ConfigError: the file is missing or not in the TAT-QA format.
    """
    file = tatqa_file(path)
    try:
        data = json.loads(file.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise ConfigError(f"{str(file)!r} is not readable JSON ({exc}); check --path.") from exc
    if not isinstance(data, list):
        raise ConfigError(f"{str(file)!r} is not a TAT-QA file (a JSON list of contexts).")
    try:
        return [_context(item) for item in data]
    except (KeyError, TypeError, ValueError) as exc:
        raise ConfigError(
            f"{str(file)!r} is not in the TAT-QA format ({type(exc).__name__}: {exc}); "
            "pass the original tatqa_dataset_*.json."
        ) from exc


def _context(item: dict[str, Any]) -> TatContext:
    uid = str(item["table"]["uid"])
    table = tuple(tuple(str(c) for c in row) for row in item["table"]["table"])
    paragraphs = tuple(
        TatParagraph(str(p.get("uid", "")), int(p["order"]), str(p["text"]))
        for p in item["paragraphs"]
    )
    questions = tuple(
        TatQuestion(
            uid=str(q["uid"]),
            question=str(q["question"]),
            answer=q["answer"],
            answer_type=str(q["answer_type"]),
            answer_from=str(q.get("answer_from", "")),
            scale=str(q.get("scale") or ""),
            derivation=str(q.get("derivation") or ""),
            rel_paragraphs=tuple(str(o) for o in q.get("rel_paragraphs") or ()),
            context_uid=uid,
        )
        for q in item.get("questions", ())
    )
    return TatContext(uid, table, paragraphs, questions)
