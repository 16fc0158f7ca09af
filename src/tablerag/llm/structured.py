"""Pure helpers for structured output: find the JSON in a reply, explain why it is invalid."""

from __future__ import annotations

import json
import re
from typing import Any

from pydantic import ValidationError

_FENCE = re.compile(r"```(?:json|JSON)?\s*\n?(.*?)```", re.DOTALL)


def extract_json(text: str) -> str:
    """The JSON object or array inside a model reply (code fences and chatter removed).

    Small models wrap JSON in fences or add a sentence around it. This returns the first
    balanced ``{...}`` or ``[...]`` that parses; if none parses, the stripped text itself,
    so that the validator reports a useful error.

    Example:
        >>> extract_json('Sure! ```json\\n{"a": 1}\\n``` Hope it helps.')
        '{"a": 1}'
        >>> extract_json('The answer is {"sql": "SELECT \\'}\\'"} ok')
        '{"sql": "SELECT \\'}\\'"}'
        >>> extract_json("not json")
        'not json'
    """
    fenced = _FENCE.search(text)
    candidates = [fenced.group(1).strip()] if fenced else []
    candidates.append(text.strip())
    decoder = json.JSONDecoder()
    for candidate in candidates:
        for start, char in enumerate(candidate):
            if char not in "{[":
                continue
            try:
                _, end = decoder.raw_decode(candidate, start)
            except json.JSONDecodeError:
                continue
            return candidate[start:end]
    return text.strip()


def validation_feedback(error: ValidationError) -> str:
    """A short message for the model that says what was wrong with its JSON (max 5 problems).

    Example:
        >>> from pydantic import BaseModel
        >>> class Reply(BaseModel):
        ...     sql: str
        >>> try:
        ...     Reply.model_validate_json('{"query": 1}')
        ... except ValidationError as exc:
        ...     print(validation_feedback(exc))
        Your reply was not valid JSON for the requested fields:
        - sql: Field required
        Reply again with only the corrected JSON object.
    """
    lines = []
    for item in error.errors()[:5]:
        where = ".".join(str(p) for p in item["loc"]) or "(the whole reply)"
        lines.append(f"- {where}: {item['msg']}")
    return (
        "Your reply was not valid JSON for the requested fields:\n"
        + "\n".join(lines)
        + "\nReply again with only the corrected JSON object."
    )


def json_instruction(schema: dict[str, Any]) -> str:
    """A system message asking for one JSON object that follows ``schema``.

    Example:
        >>> json_instruction({"type": "object"})
        'Answer with one JSON object only, no prose, following this JSON schema: {"type":"object"}'
    """
    compact = json.dumps(schema, ensure_ascii=False, separators=(",", ":"))
    return f"Answer with one JSON object only, no prose, following this JSON schema: {compact}"
