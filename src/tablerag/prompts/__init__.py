"""Prompt templates as files (``tablerag/prompts/*.md``), rendered into chat messages.

A template is ``string.Template`` text (``${name}`` placeholders). A line of exactly five dashes
splits it: the part above is the system message, the part below the user message; a template
without the line is one user message. Every placeholder must be given, and no value may be
left over, so a renamed variable fails loudly instead of shipping an empty prompt.

Every value is untrusted text to the renderer: :func:`render` removes control, bidi and other
hidden characters from all of them (:func:`tablerag.lang.untrusted.clean`), and the values of
the data placeholders (:data:`DATA_PLACEHOLDERS`: schema text, passages, result rows, engine
errors) are also capped and fenced as data, with a fence the text cannot close.
The system part of a template that carries data says that fenced blocks are data.
"""

from __future__ import annotations

from functools import cache
from importlib import resources
from string import Template
from typing import NamedTuple

from tablerag.errors import ConfigError
from tablerag.lang.untrusted import clean, data_block
from tablerag.llm.base import Message

SEPARATOR = "-----"
PROMPT_NAMES: tuple[str, ...] = (
    "explain",
    "followup",
    "loop_decompose",
    "loop_direct",
    "nl2sql",
    "nl2sql_repair",
    "rag",
    "semantic_draft",
    "semantic_request",
    "translate",
)


class DataLimits(NamedTuple):
    """How :func:`render` frames the value of one data placeholder."""

    info: str
    """The fence's info string (``sql`` for schema text, ``text`` otherwise)."""
    limit: int
    """Most characters of the value (a backstop: callers cap each item first)."""
    line_limit: int | None
    """Most characters of one line (a result row, an answer), None for none."""


DATA_PLACEHOLDERS: dict[str, DataLimits] = {
    "schema": DataLimits("sql", 64_000, None),
    "passages": DataLimits("text", 64_000, None),
    "result": DataLimits("text", 16_000, 1_000),
    "error": DataLimits("text", 4_000, 1_000),
    "conversation": DataLimits("text", 16_000, 2_000),
}
"""The placeholders whose values come from data sources, with their framing."""


def prepare(name: str, value: str) -> str:
    """The text a placeholder receives: cleaned, and a data placeholder capped and fenced.

    Example:
        >>> prepare("question", "毛利\\u202e?")
        '毛利?'
        >>> print(prepare("error", "no such column x\\x1b[2J"))
        ```text
        no such column x[2J
        ```
    """
    framing = DATA_PLACEHOLDERS.get(name)
    if framing is None:
        return clean(value)
    return data_block(value, framing.info, limit=framing.limit, line_limit=framing.line_limit)


@cache
def load_template(name: str) -> str:
    """The raw text of the packaged template ``name`` (without ``.md``).

    Raises:
        ConfigError: no such template.
    """
    if name not in PROMPT_NAMES:
        raise ConfigError(
            f"Unknown prompt {name!r}; use one of {', '.join(PROMPT_NAMES)} (files in "
            "tablerag/prompts/)."
        )
    path = resources.files("tablerag.prompts").joinpath(f"{name}.md")
    return path.read_text(encoding="utf-8")


def fill(text: str, values: dict[str, str]) -> str:
    """Substitute ``${name}`` placeholders; every placeholder needs a value and vice versa.

    Example:
        >>> fill("Q: ${question}", {"question": "毛利?"})
        'Q: 毛利?'
        >>> fill("Q: ${question}", {})  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        tablerag.errors.ConfigError: Prompt placeholder 'question' has no value; ...
    """
    template = Template(text)
    wanted = set(template.get_identifiers())
    extra = sorted(set(values) - wanted)
    if extra:
        raise ConfigError(
            f"Prompt values {extra} are not used by the template; remove them or add "
            "${...} placeholders to the template."
        )
    try:
        return template.substitute(values)
    except KeyError as exc:
        name = exc.args[0]
        raise ConfigError(
            f"Prompt placeholder {name!r} has no value; pass {name}=... when rendering."
        ) from None


def render(name: str, **values: str) -> list[Message]:
    """The chat messages of template ``name`` filled with ``values``.

    Args:
        name: template name, e.g. ``nl2sql``.
        **values: one string per ``${placeholder}``.

    Returns:
        ``[system, user]`` messages, or ``[user]`` for a template without a system part.
        Every value went through :func:`prepare` (cleaned; data fenced).

    Raises:
        ConfigError: unknown template, missing or unused values.

    Example:
        >>> [m["role"] for m in render("nl2sql_repair", error="no such column x")]
        ['user']
    """
    text = fill(load_template(name), {k: prepare(k, v) for k, v in values.items()})
    lines = text.split("\n")
    if SEPARATOR in lines:
        cut = lines.index(SEPARATOR)
        system = "\n".join(lines[:cut]).strip()
        user = "\n".join(lines[cut + 1 :]).strip()
        return [{"role": "system", "content": system}, {"role": "user", "content": user}]
    return [{"role": "user", "content": text.strip()}]
