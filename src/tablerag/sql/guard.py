"""The parser guard: refuse SQL too deeply nested for sqlglot before anything parses it.

sqlglot parses and renders with recursive descent, about twenty Python frames per level of
brackets, so ``SELECT ((((...1...))))`` forty levels deep, or forty nested subqueries, runs out
of Python's stack (``RecursionError``) in every engine path. :func:`nesting_issues` counts the
bracket depth with the tokenizer (which does not recurse; brackets inside strings, quoted names
and comments do not count) and refuses more than :data:`MAX_NESTING` levels; :func:`too_deep`
is the refusal when the parser runs out of stack anyway (``CASE`` nested without brackets).
"""

from __future__ import annotations

import sqlglot

from tablerag.errors import Issue

MAX_NESTING = 24
"""Most levels of brackets (subqueries, expressions, function calls) the gate reads.

sqlglot needs about twenty frames per level: forty-three levels overflow Python's default
stack of 1000 frames from the top, and the gate runs a hundred frames or more below that (the
answering loop, the engine, the API); twenty-four levels leave room for both and for the stages
that parse the executed SQL again. Real queries stay well below (Spider and CHASE: at most 6).
"""


def nesting_depth(sql: str, dialect: str) -> int:
    """The deepest level of brackets in ``sql``, outside strings, quoted names and comments.

    Raises:
        sqlglot.errors.TokenError: when ``sql`` does not tokenize (an unclosed quote).

    Example:
        >>> nesting_depth("SELECT (1 + (2)) FROM t WHERE s = '(((('", "duckdb")
        2
        >>> nesting_depth("SELECT 1", "duckdb")
        0
    """
    depth = deepest = 0
    for token in sqlglot.tokenize(sql, read=dialect):
        if token.token_type == sqlglot.TokenType.L_PAREN:
            depth += 1
            deepest = max(deepest, depth)
        elif token.token_type == sqlglot.TokenType.R_PAREN:
            depth -= 1
    return deepest


def nesting_issues(sql: str, dialect: str, limit: int = MAX_NESTING) -> list[Issue]:
    """A ``too_deep`` issue when ``sql`` nests more than ``limit`` levels of brackets.

    Raises:
        sqlglot.errors.TokenError: when ``sql`` does not tokenize (an unclosed quote).

    Example:
        >>> nesting_issues("SELECT " + "(" * 30 + "1" + ")" * 30, "duckdb")[0].message
        'The query nests 30 levels deep (at most 24); write it with fewer nested subqueries.'
        >>> nesting_issues("SELECT (1)", "duckdb")
        []
    """
    depth = nesting_depth(sql, dialect)
    if depth <= limit:
        return []
    return [
        Issue(
            "too_deep",
            f"The query nests {depth} levels deep (at most {limit}); "
            "write it with fewer nested subqueries.",
            detail={"depth": depth, "limit": limit},
        )
    ]


def too_deep() -> Issue:
    """The refusal of SQL whose tree ran out of Python's stack (``RecursionError``).

    Example:
        >>> too_deep().code
        'too_deep'
    """
    return Issue(
        "too_deep",
        "The query nests too deeply for the gate to read; write it with fewer nested "
        "subqueries, CASE expressions or brackets.",
    )


def bad_encoding(exc: UnicodeError) -> Issue:
    """The refusal of SQL that is not valid text (a lone surrogate, a bad encoding).

    Example:
        >>> bad_encoding(UnicodeEncodeError("utf-8", "\\ud800", 0, 1, "surrogates")).code
        'bad_character'
    """
    return Issue(
        "bad_character",
        f"The SQL is not valid Unicode text ({getattr(exc, 'reason', exc)}); "
        "remove the broken character.",
    )
