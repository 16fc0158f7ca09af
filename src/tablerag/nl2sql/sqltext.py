"""Find the SQL query in a model's reply: fenced blocks first, then the reply's own text.

Models wrap SQL in prose, fences, numbered steps or several alternatives. Candidates are cut from
the reply (fenced blocks, then everything from the first line that starts like a query) and each
is parsed with sqlglot; the first that parses into a query wins. Trailing prose after a query is
dropped line by line until the rest parses. What is returned is the model's text (stripped of
its final semicolon), not a re-rendering: the SQL gate parses and rewrites it again anyway. The
one edit: a space between an upper-case keyword and a Chinese name written against it
(``SELECT唱片公司 FROM管弦乐队``, as the local model writes now and then), outside quotes.

Several statements in one candidate (``SELECT 1; DROP TABLE t``) come back whole, so the gate
refuses them as a whole and says why; only prose after the semicolon (``Explanation``) is cut.
A candidate nested too deeply to parse (:mod:`tablerag.sql.guard`) gives no SQL at all.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator

import sqlglot
from sqlglot import exp
from sqlglot.errors import ParseError, TokenError

from tablerag.sql.guard import nesting_issues

FENCE = "```"
_SQLGLOT_LOG = logging.getLogger("sqlglot")
#: First words of a line that starts a statement; not only queries: a DELETE must reach the gate,
#: whose refusal tells the model precisely what is not allowed.
_STATEMENT_STARTS = (
    "select", "with", "(select", "from", "insert", "update", "delete", "merge", "drop", "create",
    "alter", "truncate", "attach", "detach", "copy", "pragma", "install", "load", "call", "set",
    "export", "import",
)  # fmt: skip
#: Lines dropped from the end of a candidate, at most, to get rid of trailing prose.
MAX_TRIM_LINES = 12
_HAN = "\u3400-\u9fff\uf900-\ufaff"
_KEYWORD_BEFORE_HAN = re.compile(
    r"(?<![A-Za-z0-9_])(SELECT|DISTINCT|FROM|WHERE|JOIN|ON|AND|OR|NOT|IN|AS|BY|HAVING|LIMIT|"
    rf"UNION|INTERSECT|EXCEPT|WHEN|THEN|ELSE|LIKE|BETWEEN)(?=[{_HAN}])"
)
_HAN_BEFORE_KEYWORD = re.compile(
    rf"(?<=[{_HAN}])(FROM|WHERE|JOIN|GROUP BY|ORDER BY|HAVING|LIMIT|UNION)(?=\s)"
)
_QUOTED = re.compile(r"('(?:[^']|'')*'|\"(?:[^\"]|\"\")*\"|`[^`]*`)")


def extract_sql(reply: str, *, dialect: str = "duckdb") -> str | None:
    """The first statement in ``reply`` that sqlglot can parse, or None.

    Args:
        reply: the model's whole answer.
        dialect: sqlglot dialect to parse with.

    Returns:
        The statement text without a trailing semicolon, or None when the reply holds none
        (or only SQL nested too deeply to parse). Statements other than queries are returned
        too, and so are several statements together: the SQL gate refuses them with a reason
        the model can act on.

    Example:
        >>> extract_sql("Here it is:\\n```sql\\nSELECT count(*) FROM t;\\n```\\nDone.")
        'SELECT count(*) FROM t'
        >>> extract_sql("SELECT a FROM t WHERE b > 1\\nThis counts the rows.")
        'SELECT a FROM t WHERE b > 1'
        >>> extract_sql("I cannot answer that.") is None
        True
        >>> extract_sql("```sql\\nDELETE FROM t\\n```")
        'DELETE FROM t'
        >>> extract_sql("SELECT 1; DROP TABLE t;")
        'SELECT 1; DROP TABLE t'
    """
    for candidate in _candidates(reply):
        found = _parse_prefix(candidate, dialect)
        if found is not None:
            return found
    return None


def space_keywords(sql: str) -> str:
    """Put a space between upper-case keywords and Chinese names written against them.

    Quoted strings and identifiers are left as they are.

    Example:
        >>> space_keywords("SELECT唱片公司 FROM管弦乐队 WHERE成立年份 < 2003")
        'SELECT 唱片公司 FROM 管弦乐队 WHERE 成立年份 < 2003'
        >>> space_keywords("SELECT 名字 FROM 歌手 WHERE 国家 = 'FROM法国' ORDER BY 年龄")
        "SELECT 名字 FROM 歌手 WHERE 国家 = 'FROM法国' ORDER BY 年龄"
        >>> space_keywords("SELECT 名字 FROM 歌手 WHERE 年龄ORDER BY x")
        'SELECT 名字 FROM 歌手 WHERE 年龄 ORDER BY x'
        >>> space_keywords('SELECT "AS别名" FROM t JOIN歌手 ON t.id = 歌手.id')
        'SELECT "AS别名" FROM t JOIN 歌手 ON t.id = 歌手.id'
    """
    parts = _QUOTED.split(sql)
    for i in range(0, len(parts), 2):  # even parts lie outside quotes
        spaced = _KEYWORD_BEFORE_HAN.sub(r"\1 ", parts[i])
        parts[i] = _HAN_BEFORE_KEYWORD.sub(r" \1", spaced)
    return "".join(parts)


def _candidates(reply: str) -> Iterator[str]:
    """Fenced blocks (any language tag), then the text from each line that starts a query."""
    parts = reply.split(FENCE)
    for block in parts[1::2]:
        first, _, rest = block.partition("\n")
        tag = first.strip().lower()
        yield rest if tag.isalpha() or not tag else block
    lines = reply.replace(FENCE, "\n").split("\n")
    for i, line in enumerate(lines):
        if space_keywords(line).strip().lower().startswith(_STATEMENT_STARTS):
            yield "\n".join(lines[i:])


def _parse_prefix(text: str, dialect: str) -> str | None:
    lines = space_keywords(text).strip().split("\n")
    for drop in range(min(MAX_TRIM_LINES, len(lines) - 1) + 1):
        candidate = "\n".join(lines[: len(lines) - drop]).strip()
        statement = _first_statement(candidate, dialect)
        if statement is not None:
            return statement
    return None


def _is_statement(tree: exp.Expr) -> bool:
    """A whole statement (query, DML, DDL), not prose parsed as an expression or a Command.

    sqlglot parses any text it does not know ("Load the data first.") as a ``Command``, so
    commands are not statements here.
    """
    if isinstance(tree, exp.Command):
        return False
    if isinstance(tree, exp.Query | exp.DML | exp.DDL):
        return True
    return type(tree).__module__.endswith((".ddl", ".dml"))


def _first_statement(text: str, dialect: str) -> str | None:
    """``text`` without its final semicolon when it starts with a statement (the statement
    alone when only prose follows its semicolon); None when it does not parse."""
    if not text:
        return None
    try:
        tokens = sqlglot.tokenize(text, read=dialect)
        if nesting_issues(text, dialect):
            return None  # too deep to parse here; nothing of it may run
        # Prose often parses as a Command, and sqlglot logs a warning about it each time.
        with _quiet(_SQLGLOT_LOG):
            trees = sqlglot.parse(text, read=dialect)
    except (ParseError, TokenError, RecursionError, UnicodeError):
        return None
    if not trees or trees[0] is None or not _is_statement(trees[0]):
        return None
    whole = text.rstrip().rstrip(";").rstrip()
    if len(trees) == 1 or any(_is_statement_like(t) for t in trees[1:]):
        # Several statements come back whole: the gate refuses them together ("Found 2
        # statements"), so the first of ``SELECT 1; DROP TABLE t`` never runs alone.
        return whole
    # A query, a semicolon, then a word or two of prose: keep the text up to the semicolon.
    semicolons = [t for t in tokens if t.token_type == sqlglot.TokenType.SEMICOLON]
    end = semicolons[0].start if semicolons else len(text)
    return text[:end].strip()


def _is_statement_like(tree: exp.Expr | None) -> bool:
    """Anything after a semicolon but prose read as an expression (``Explanation``): a
    statement, or a command sqlglot does not know (``CALL f()``, ``VACUUM``)."""
    return tree is not None and not isinstance(tree, exp.Condition | exp.Alias)


class _quiet:  # noqa: N801 - used like a function, as contextlib helpers are
    """Drop a logger's records below ERROR inside the block (a filter, so thread-safe enough:
    other threads lose at most sqlglot's own warnings for a few microseconds)."""

    def __init__(self, logger: logging.Logger) -> None:
        self.logger = logger

    def _filter(self, record: logging.LogRecord) -> bool:
        return record.levelno >= logging.ERROR

    def __enter__(self) -> None:
        self.logger.addFilter(self._filter)

    def __exit__(self, *exc_info: object) -> None:
        self.logger.removeFilter(self._filter)
