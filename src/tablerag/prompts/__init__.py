"""Prompt templates as files (``tablerag/prompts/*.md``), rendered into chat messages.

A template is ``string.Template`` text (``${name}`` placeholders). A line of exactly five dashes
splits it: the part above is the system message, the part below the user message; a template
without the line is one user message. Every placeholder must be given, and no value may be
left over, so a renamed variable fails loudly instead of shipping an empty prompt.
"""

from __future__ import annotations

from functools import cache
from importlib import resources
from string import Template

from tablerag.errors import ConfigError
from tablerag.llm.base import Message

SEPARATOR = "-----"
PROMPT_NAMES: tuple[str, ...] = (
    "explain",
    "loop_decompose",
    "loop_direct",
    "nl2sql",
    "nl2sql_repair",
    "rag",
)


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

    Raises:
        ConfigError: unknown template, missing or unused values.

    Example:
        >>> [m["role"] for m in render("nl2sql_repair", error="no such column x")]
        ['user']
    """
    text = fill(load_template(name), values)
    lines = text.split("\n")
    if SEPARATOR in lines:
        cut = lines.index(SEPARATOR)
        system = "\n".join(lines[:cut]).strip()
        user = "\n".join(lines[cut + 1 :]).strip()
        return [{"role": "system", "content": system}, {"role": "user", "content": user}]
    return [{"role": "user", "content": text.strip()}]
