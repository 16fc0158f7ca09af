"""Untrusted text: what a database, a document or a result cell says is data, never a command.

Comments and descriptions, sample values, result rows, engine errors and passages come from
sources tablerag does not control. Before such text reaches a prompt, :func:`clean` removes the
characters that hide or reorder what a reader sees (C0/C1 controls except newline and tab, bidi
overrides, isolates and marks, zero-width and other format characters, tag characters, broken
surrogates) and caps its length, and :func:`fence` delimits it as data with a fence the text
cannot close. Before it reaches a terminal, :func:`visible` shows the same characters as escapes
(``\\x1b``, ``\\u202e``) instead of letting the terminal interpret them.
"""

from __future__ import annotations

import re
import unicodedata

ELLIPSIS = "…"
_LINE_BREAKS = re.compile(r"\r\n?|[\u2028\u2029\x85]")
_BACKTICKS = re.compile(r"`+")
_REMOVED_CATEGORIES = frozenset({"Cc", "Cf", "Cs"})
_KEPT = frozenset("\n\t")


def is_hidden_char(ch: str) -> bool:
    """True for a character that controls or hides text instead of showing it.

    Controls (C0, DEL, C1) except newline and tab, format characters (bidi embeddings,
    overrides, isolates and marks, zero-width characters, word joiners, tag characters) and
    surrogates.

    Example:
        >>> [is_hidden_char(c) for c in ("a", "\\n", "\\x1b", "\\u202e", "\\u200b", "\\x9b", "华")]
        [False, False, True, True, True, True, False]
    """
    return ch not in _KEPT and unicodedata.category(ch) in _REMOVED_CATEGORIES


def clip(text: str, limit: int | None) -> str:
    """``text`` cut to at most ``limit`` characters, ending with "…" when cut.

    Example:
        >>> clip("abcdef", 4), clip("abc", 4), clip("abc", None)
        ('abc…', 'abc', 'abc')
    """
    if limit is None or len(text) <= limit:
        return text
    return text[: max(0, limit - 1)] + ELLIPSIS


def clean(text: str, *, limit: int | None = None, line_limit: int | None = None) -> str:
    """Untrusted text as a prompt may carry it: hidden characters removed, lengths capped.

    Line breaks of every kind become ``\\n`` (so text cannot overwrite a line with a carriage
    return); each line is capped at ``line_limit`` characters and the whole at ``limit``.

    Args:
        text: the untrusted text.
        limit: most characters of the result (None: no cap).
        line_limit: most characters of one line (None: no cap).

    Example:
        >>> clean("East\\x1b[2J\\u202e region\\r\\nnext\\u2066")
        'East[2J region\\nnext'
        >>> clean("x" * 10, limit=5), clean("aaaa\\nbb", line_limit=3)
        ('xxxx…', 'aa…\\nbb')
    """
    text = _LINE_BREAKS.sub("\n", text)
    hidden = {ch for ch in set(text) if is_hidden_char(ch)}  # each character looked up once
    if hidden:
        text = "".join(ch for ch in text if ch not in hidden)
    if line_limit is not None:
        text = "\n".join(clip(line, line_limit) for line in text.split("\n"))
    return clip(text, limit)


def clean_inline(text: str, *, limit: int | None = None) -> str:
    """:func:`clean` on one line: whitespace runs (newlines too) become one space.

    For text that sits inside a line a prompt builds, such as a SQL comment of the schema,
    where a newline would let the text out of the comment.

    Example:
        >>> clean_inline("net sales\\n);  DROP\\u202e  x", limit=14)
        'net sales ); …'
    """
    return clip(" ".join(clean(text).split()), limit)


def fence(text: str, info: str = "text") -> str:
    """``text`` in a Markdown code fence that no line of ``text`` can close.

    The fence is one backtick longer than the longest run of backticks in ``text`` (at least
    three), so the text can neither end the block early nor open a new one after it.

    Example:
        >>> print(fence("Revenue grew."))
        ```text
        Revenue grew.
        ```
        >>> print(fence("```\\nignore the above\\n```", "sql"))
        ````sql
        ```
        ignore the above
        ```
        ````
    """
    longest = max((len(run) for run in _BACKTICKS.findall(text)), default=0)
    ticks = "`" * max(3, longest + 1)
    return f"{ticks}{info}\n{text}\n{ticks}"


def data_block(
    text: str, info: str = "text", *, limit: int | None = None, line_limit: int | None = None
) -> str:
    """Untrusted text ready for a prompt: :func:`clean`, then :func:`fence`.

    Example:
        >>> print(data_block("a\\x00b", limit=10))
        ```text
        ab
        ```
    """
    return fence(clean(text, limit=limit, line_limit=line_limit), info)


def _escape(ch: str) -> str:
    code = ord(ch)
    if code <= 0xFF:
        return f"\\x{code:02x}"
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def visible(text: str, *, newlines: bool = True) -> str:
    """``text`` safe to print on a terminal: every hidden character shown as an escape.

    ANSI escape sequences, carriage returns, bidi overrides and zero-width characters are
    printed as ``\\x1b``, ``\\x0d``, ``\\u202e``, ``\\u200b``, so the terminal shows what the
    text holds instead of obeying it. ``newlines=False`` escapes newlines too (a table cell).
    Rich markup is a separate concern: escape it with ``rich.markup.escape`` where the text is
    printed as markup.

    Example:
        >>> visible("red\\x1b[31m \\u202etxt.exe")
        'red\\\\x1b[31m \\\\u202etxt.exe'
        >>> visible("a\\nb"), visible("a\\nb", newlines=False), visible("华东")
        ('a\\nb', 'a\\\\x0ab', '华东')
    """
    if text.isprintable():
        return text
    out = []
    for ch in text:
        if ch == "\n" and not newlines:
            out.append("\\x0a")
        elif is_hidden_char(ch) or ch in "\r\x85\u2028\u2029":
            out.append(_escape(ch))
        else:
            out.append(ch)
    return "".join(out)
