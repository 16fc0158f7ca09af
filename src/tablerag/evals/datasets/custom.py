"""A user's own evaluation questions, as JSONL or YAML.

One object per question: ``id`` and ``question`` (required), and any of ``sql`` (gold SQL),
``answer`` (the gold answer, or a list of answers), ``sources`` (gold source files or chunk
ids), ``route`` (the expected intent) and ``category``. JSONL is one object a line; YAML is a
list of objects (or ``{questions: [...]}``) and needs PyYAML.

Each task takes the questions that carry its gold (:data:`GOLD_FIELDS`) and refuses a file in
which none do.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tablerag.errors import ConfigError
from tablerag.evals.runner import Case

FIELDS = ("id", "question", "sql", "answer", "sources", "route", "category")
GOLD_FIELDS = {
    "sql": "sql",
    "tableqa": "answer",
    "retrieval": "sources",
    "routing": "route",
}
"""The field a task scores against."""


@dataclass(frozen=True)
class CustomQuestion:
    """One question of a user's file."""

    qid: str
    question: str
    sql: str | None = None
    answer: tuple[str, ...] | None = None
    sources: tuple[str, ...] | None = None
    route: str | None = None
    category: str = ""


def _strings(value: Any, where: str, name: str) -> tuple[str, ...]:
    if isinstance(value, str | int | float) and not isinstance(value, bool):
        return (str(value),)
    if isinstance(value, list) and all(
        isinstance(v, str | int | float) and not isinstance(v, bool) for v in value
    ):
        return tuple(str(v) for v in value)
    raise ConfigError(f"{where}: {name!r} must be a string or a list of strings; fix it.")


def parse_question(obj: Any, where: str) -> CustomQuestion:
    """One question object, checked.

    Raises:
        ConfigError: not an object, a missing ``id``/``question``, an unknown field or a field
            of the wrong type.

    Example:
        >>> parse_question({"id": 1, "question": "How many?", "answer": 3}, "f:1")
        CustomQuestion(qid='1', question='How many?', sql=None, answer=('3',), sources=None, \
route=None, category='')
    """
    if not isinstance(obj, dict):
        raise ConfigError(f"{where}: expected an object with 'id' and 'question'; fix it.")
    unknown = sorted(set(obj) - set(FIELDS))
    if unknown:
        raise ConfigError(f"{where}: unknown field(s) {unknown}; use only {', '.join(FIELDS)}.")
    if obj.get("id") in (None, "") or not isinstance(obj.get("question"), str):
        raise ConfigError(f"{where}: every question needs an 'id' and a 'question' string.")
    sql = obj.get("sql")
    if sql is not None and not isinstance(sql, str):
        raise ConfigError(f"{where}: 'sql' must be a string; fix it.")
    route = obj.get("route")
    if route is not None and not isinstance(route, str):
        raise ConfigError(f"{where}: 'route' must be a string; fix it.")
    return CustomQuestion(
        qid=str(obj["id"]),
        question=obj["question"],
        sql=sql,
        answer=_strings(obj["answer"], where, "answer") if "answer" in obj else None,
        sources=_strings(obj["sources"], where, "sources") if "sources" in obj else None,
        route=route,
        category=str(obj.get("category") or ""),
    )


def load_custom(path: str | Path) -> list[CustomQuestion]:
    """The questions of a ``.jsonl`` (or ``.json`` list) or ``.yaml``/``.yml`` file.

    Raises:
        ConfigError: missing file, bad syntax (with the line), a bad question, a repeated id, or
            YAML without PyYAML installed.
    """
    file = Path(path).expanduser()
    if not file.is_file():
        raise ConfigError(f"No question file at {str(file)!r}; pass a .jsonl or .yaml --path.")
    text = file.read_text(encoding="utf-8-sig")
    if file.suffix.lower() in (".yaml", ".yml"):
        items = [(f"{file}#{n}", obj) for n, obj in enumerate(_yaml_list(text, file), start=1)]
    elif file.suffix.lower() == ".json":
        items = [(f"{file}#{n}", obj) for n, obj in enumerate(_json_list(text, file), start=1)]
    else:
        items = list(_jsonl(text, file))
    questions = [parse_question(obj, where) for where, obj in items]
    seen: set[str] = set()
    for q in questions:
        if q.qid in seen:
            raise ConfigError(f"{file}: the id {q.qid!r} is used twice; ids must be unique.")
        seen.add(q.qid)
    return questions


def _jsonl(text: str, file: Path) -> list[tuple[str, Any]]:
    out: list[tuple[str, Any]] = []
    for n, line in enumerate(text.splitlines(), start=1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        try:
            out.append((f"{file}:{n}", json.loads(line)))
        except json.JSONDecodeError as exc:
            raise ConfigError(f"{file}:{n} is not JSON ({exc.msg}); one object per line.") from exc
    return out


def _json_list(text: str, file: Path) -> list[Any]:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ConfigError(f"{file} is not valid JSON ({exc}); fix it or use JSONL.") from exc
    return _questions_list(data, file)


def _yaml_list(text: str, file: Path) -> list[Any]:
    try:
        import yaml
    except ModuleNotFoundError as exc:
        raise ConfigError(
            f"Reading {file.name!r} needs PyYAML; run `pip install pyyaml` or convert the file "
            "to JSONL."
        ) from exc
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise ConfigError(f"{file} is not valid YAML ({exc}); fix it.") from exc
    return _questions_list(data, file)


def _questions_list(data: Any, file: Path) -> list[Any]:
    if isinstance(data, dict) and isinstance(data.get("questions"), list):
        data = data["questions"]
    if not isinstance(data, list):
        raise ConfigError(f"{file} must hold a list of questions (or {{questions: [...]}}).")
    return data


def custom_cases(questions: Sequence[CustomQuestion], task: str) -> list[Case]:
    """The questions that carry ``task``'s gold, as cases.

    The gold is the SQL text (``sql``), the tuple of answers (``tableqa``), the tuple of sources
    (``retrieval``) or the route (``routing``); category = ``category``, else the route for
    routing, else ``custom``.

    Raises:
        ConfigError: an unknown task, or no question carries its gold field.

    Example:
        >>> qs = [CustomQuestion("1", "Hi", route="chitchat"), CustomQuestion("2", "Sum?")]
        >>> custom_cases(qs, "routing")
        [Case(case_id='1', question='Hi', gold='chitchat', category='chitchat', context={})]
    """
    if task not in GOLD_FIELDS:
        raise ConfigError(
            f"The custom format has no gold for task {task!r}; use one of {', '.join(GOLD_FIELDS)}."
        )
    name = GOLD_FIELDS[task]
    cases = [
        Case(
            q.qid,
            q.question,
            getattr(q, name),
            category=q.category or (q.route or "" if task == "routing" else "") or "custom",
        )
        for q in questions
        if getattr(q, name) is not None
    ]
    if not cases:
        raise ConfigError(
            f"No question in the file has {name!r}, which the {task} task scores against; "
            f"add it to the questions."
        )
    return cases
