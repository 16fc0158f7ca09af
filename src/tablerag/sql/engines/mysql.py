"""MySQL/MariaDB engine: an account that can only SELECT, read-only transactions, a server-side
time limit (``max_statement_time`` on MariaDB, ``max_execution_time`` on MySQL)."""

from __future__ import annotations

import contextlib
import importlib
import logging
import re
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import replace
from typing import Any

import sqlglot
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError
from sqlglot import TokenType, exp

from tablerag.errors import ConfigError, QueryFailed, QueryTimeout
from tablerag.sql.engines.base import ALLOW_HINT, Rows, SQLEngine
from tablerag.sql.engines.limits import Watchdog, engine_failure, fetch_capped
from tablerag.sql.engines.lineage import hide_derived, hide_opaque
from tablerag.sql.engines.scrub import scrub_message
from tablerag.sql.exposed import ExposedCatalog
from tablerag.sql.policy import ExecutionPolicy
from tablerag.types import ColumnInfo, TableInfo

log = logging.getLogger(__name__)

INSTALL_HINT = 'pip install "tablerag[mysql]"'
"""How to install the driver (PyMySQL) when it is missing."""

SQL_MODE = (
    "ONLY_FULL_GROUP_BY,STRICT_TRANS_TABLES,NO_ZERO_IN_DATE,NO_ZERO_DATE,"
    "ERROR_FOR_DIVISION_BY_ZERO,NO_ENGINE_SUBSTITUTION"
)
"""The session's ``sql_mode``: the server must read SQL as the gate rendered it (sqlglot's
``mysql`` dialect), so a server configured with ANSI_QUOTES (``"x"`` a name, not a string),
PIPES_AS_CONCAT (``||`` concatenation, not OR) or NO_BACKSLASH_ESCAPES (``'a\\'`` not closed) is
put back to the default reading for our connection."""

READ_PRIVILEGES = frozenset({"SELECT", "SHOW VIEW", "USAGE", "SHOW DATABASES"})
"""Privileges that only read; any other privilege of the account refuses start-up."""

TIMEOUT_ERRORS = frozenset({1969, 3024, 1028, 1317})
"""Server errors of a statement stopped by its time limit: MariaDB's ``max_statement_time``
(1969), MySQL's ``max_execution_time`` (3024), and an interrupted query (1317, 1028)."""

LIMIT_ERRORS = frozenset({1969, 3024})
"""The server's own time limit (MariaDB ``max_statement_time``, MySQL ``max_execution_time``);
an interrupted query (1317, 1028) is a timeout only once the limit has passed."""

LOST_CONNECTION = frozenset({2006, 2013})
"""Client errors of a session the server closed (gone away, lost during the query)."""

_PRIVILEGES = """
    SELECT GRANTEE, PRIVILEGE_TYPE, '*.*' FROM information_schema.USER_PRIVILEGES
    UNION ALL SELECT GRANTEE, PRIVILEGE_TYPE, CONCAT(TABLE_SCHEMA, '.*')
        FROM information_schema.SCHEMA_PRIVILEGES
    UNION ALL SELECT GRANTEE, PRIVILEGE_TYPE, CONCAT(TABLE_SCHEMA, '.', TABLE_NAME)
        FROM information_schema.TABLE_PRIVILEGES
    UNION ALL SELECT GRANTEE, PRIVILEGE_TYPE,
        CONCAT(TABLE_SCHEMA, '.', TABLE_NAME, '.', COLUMN_NAME)
        FROM information_schema.COLUMN_PRIVILEGES
"""


def _timeout(policy: ExecutionPolicy, sql: str) -> QueryTimeout:
    return QueryTimeout(
        f"The query ran longer than {policy.time_limit_ms} ms and was stopped; add filters or "
        "aggregate more.",
        engine="mysql",
        sql=sql,
        time_limit_ms=policy.time_limit_ms,
    )


def _code(exc: BaseException) -> int:
    """The MySQL error number of a driver error (0 when it has none)."""
    return exc.args[0] if exc.args and isinstance(exc.args[0], int) else 0


def load_driver() -> Any:
    """The PyMySQL module.

    Raises:
        ConfigError: PyMySQL is not installed (the message names the extra).
    """
    try:
        return importlib.import_module("pymysql")
    except ImportError as exc:
        raise ConfigError(
            f"MySQL/MariaDB needs the driver PyMySQL; install it with {INSTALL_HINT}."
        ) from exc


def connect_arguments(url: str) -> dict[str, Any]:
    """PyMySQL ``connect`` arguments of a ``mysql://`` or ``mariadb://`` URL.

    Example:
        >>> args = connect_arguments("mysql+pymysql://reader:pw@db.internal:3307/sales")
        >>> args["host"], args["port"], args["user"], args["database"]
        ('db.internal', 3307, 'reader', 'sales')

    Raises:
        ConfigError: not a URL, or it names no database.
    """
    try:
        parsed = make_url(url)
    except (ArgumentError, ValueError) as exc:
        raise ConfigError(
            f"Malformed MySQL URL ({exc}); write mysql://user:password@host:3306/dbname."
        ) from exc
    if not parsed.database:
        raise ConfigError(
            "The MySQL URL names no database; write mysql://user:password@host:3306/dbname."
        )
    query = {k: v if isinstance(v, str) else v[-1] for k, v in parsed.query.items()}
    return {
        "host": parsed.host or "localhost",
        "port": parsed.port or 3306,
        "user": parsed.username or "",
        "password": parsed.password or "",
        "database": parsed.database,
        "unix_socket": query.get("unix_socket"),
        "charset": "utf8mb4",
    }


def connect_message(exc: BaseException, where: str, user: str, database: str) -> str:
    """One sentence with the fix for a failed MySQL/MariaDB login (no password in it).

    Example:
        >>> import pymysql
        >>> connect_message(pymysql.err.OperationalError(1049, "Unknown database 'x'"),
        ...                 "db:3306", "bob", "x")
        "Database 'x' does not exist on MySQL at db:3306; check the database name in the URL."
    """
    code = _code(exc)
    if code in (2003, 2002, 2005):
        return (
            f"Cannot connect to MySQL at {where}: the connection was refused or timed out; check "
            "that the server is running and that host and port in the URL are right."
        )
    if code == 1045:
        return (
            f"MySQL at {where} rejected the login of user {user!r}; check the user name and "
            "password in the URL."
        )
    if code == 1049:
        return (
            f"Database {database!r} does not exist on MySQL at {where}; check the database name "
            "in the URL."
        )
    if code == 1044:
        return (
            f"User {user!r} may not use database {database!r} on MySQL at {where}; grant it "
            "SELECT on the database or use another account."
        )
    text = str(exc.args[1]) if len(exc.args) > 1 else str(exc)
    return f"Cannot connect to MySQL at {where} ({text}); check the URL."


def write_reasons(rows: list[tuple[str, str, str]], grantees: set[str]) -> list[str]:
    """What the grantees' privileges allow beyond reading, one entry per object.

    Example:
        >>> write_reasons([("'bob'@'%'", "SELECT", "shop.*"), ("'bob'@'%'", "INSERT", "shop.*"),
        ...                ("'bob'@'%'", "DELETE", "shop.*"), ("'eve'@'%'", "FILE", "*.*")],
        ...               {"'bob'@'%'"})
        ['has DELETE, INSERT on shop.*']
    """
    found: dict[str, set[str]] = {}
    for grantee, privilege, on in rows:
        if grantee.lower() in grantees and privilege.upper() not in READ_PRIVILEGES:
            found.setdefault(on, set()).add(privilege.upper())
    return [f"has {_listed(sorted(p))} on {on}" for on, p in sorted(found.items())]


def _listed(names: list[str], most: int = 6) -> str:
    """``a, b, c`` or, past ``most`` names, ``a, b, ... and 30 more``."""
    if len(names) <= most:
        return ", ".join(names)
    return f"{', '.join(names[:most])} and {len(names) - most} more"


_GRANT = re.compile(
    r"^GRANT (?P<privileges>.+?) ON (?:(?:TABLE|FUNCTION|PROCEDURE|PACKAGE(?: BODY)?) )?"
    r"(?P<on>\S+) TO (?P<rest>.*)$",
    re.IGNORECASE | re.DOTALL,
)


def granted(line: str) -> list[tuple[str, str]]:
    """``(privilege, object)`` pairs of one ``SHOW GRANTS`` line (a role grant gives none).

    Example:
        >>> granted("GRANT SELECT, INSERT (`a`, `b`) ON `shop`.`orders` TO `bob`@`%`")
        [('SELECT', 'shop.orders'), ('INSERT', 'shop.orders')]
        >>> granted("GRANT USAGE ON *.* TO `bob`@`%` WITH GRANT OPTION")
        [('USAGE', '*.*'), ('GRANT OPTION', '*.*')]
        >>> granted("GRANT `editor` TO `bob`@`%`")
        []
    """
    m = _GRANT.match(line.strip())
    if m is None:
        return []
    on = m.group("on").replace("`", "")
    privileges, depth, part = [], 0, ""
    for ch in m.group("privileges") + ",":
        depth += (ch == "(") - (ch == ")")
        if ch == "," and depth == 0:
            privileges.append(part.split("(")[0].strip().upper())
            part = ""
        else:
            part += ch
    if "WITH GRANT OPTION" in m.group("rest").upper():
        privileges.append("GRANT OPTION")
    return [(p, on) for p in privileges if p]


READABLE_COLUMNS = (
    "SELECT TABLE_NAME, COLUMN_NAME FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = "
    "DATABASE() AND FIND_IN_SET('select', PRIVILEGES) > 0 ORDER BY TABLE_NAME, ORDINAL_POSITION "
    f"LIMIT {2**64 - 1}"
)
"""The columns of the URL's database the account may SELECT (``PRIVILEGES`` is its own); the
explicit LIMIT keeps the session's ``sql_select_limit`` (the row cap of generated SQL) off it."""


def ident(name: str) -> str:
    """A MySQL identifier in backticks.

    Example:
        >>> ident("my`table")
        '`my``table`'
    """
    return "`" + name.replace("`", "``") + "`"


def grant_statements(
    database: str,
    catalog: ExposedCatalog,
    readable: list[tuple[str, str]],
    account: str,
    levels: Mapping[str, str] | None = None,
    column_grants: frozenset[tuple[str, str]] | None = None,
) -> list[str]:
    """The narrowest statements that leave ``account`` unable to read the hidden columns it can
    read (``readable``: table, column).

    ``levels`` says, per lower-cased table, where its SELECT comes from: ``"column"`` (column
    grants: revoking the hidden columns is enough, the default), ``"table"`` (SELECT on the
    table: replaced by a grant of the exposed columns) or ``"database"`` (SELECT on the
    database or globally: revoked there, and each table must then be granted on its own).
    MySQL keeps column grants apart from table grants, so a hidden column granted both ways
    (``"both"``) is revoked both ways; ``column_grants`` (lower-cased table, column) then says
    which hidden columns hold a column grant.

    Example:
        >>> cat = ExposedCatalog.from_mapping({"shop.customers": ["id", "phone"]},
        ...                                   hidden={"shop.customers": ["phone"]})
        >>> grant_statements("shop", cat, [("customers", "phone")], "'bob'@'%'")
        ["REVOKE SELECT (`phone`) ON `shop`.`customers` FROM 'bob'@'%';"]
        >>> for s in grant_statements("shop", cat, [("customers", "phone")], "'bob'@'%'",
        ...                           {"customers": "table"}):
        ...     print(s)
        REVOKE SELECT ON `shop`.`customers` FROM 'bob'@'%';
        GRANT SELECT (`id`) ON `shop`.`customers` TO 'bob'@'%';
    """
    levels = levels or {}
    out: list[str] = []
    columns: dict[str, list[str]] = {}
    for table, column in readable:
        columns.setdefault(table, []).append(column)
    if "database" in levels.values():
        out.append(f"REVOKE SELECT ON {ident(database)}.* FROM {account};")
    for table, hidden in sorted(columns.items()):
        name = f"{ident(database)}.{ident(table)}"
        level = levels.get(table.lower(), "column")
        if level == "both" and column_grants is not None:
            hidden = [c for c in hidden if (table.lower(), c.lower()) in column_grants]
        if level in ("column", "both") and hidden:
            out.append(
                f"REVOKE SELECT ({', '.join(ident(c) for c in hidden)}) ON {name} FROM {account};"
            )
        if level == "column":
            continue
        if level in ("table", "both"):
            out.append(f"REVOKE SELECT ON {name} FROM {account};")
        exposed = catalog.table(table, schema=database)
        if exposed is not None and exposed.columns:
            shown = ", ".join(ident(c) for c in exposed.columns)
            out.append(f"GRANT SELECT ({shown}) ON {name} TO {account};")
    return out


_LEVELS = """
    SELECT TABLE_NAME, 'table', '' FROM information_schema.TABLE_PRIVILEGES
        WHERE GRANTEE = %s AND PRIVILEGE_TYPE = 'SELECT' AND TABLE_SCHEMA = DATABASE()
    UNION ALL SELECT '*', 'database', '' FROM information_schema.SCHEMA_PRIVILEGES
        WHERE GRANTEE = %s AND PRIVILEGE_TYPE = 'SELECT' AND TABLE_SCHEMA = DATABASE()
    UNION ALL SELECT '*', 'database', '' FROM information_schema.USER_PRIVILEGES
        WHERE GRANTEE = %s AND PRIVILEGE_TYPE = 'SELECT'
    UNION ALL SELECT TABLE_NAME, 'column', COLUMN_NAME FROM information_schema.COLUMN_PRIVILEGES
        WHERE GRANTEE = %s AND PRIVILEGE_TYPE = 'SELECT' AND TABLE_SCHEMA = DATABASE()
"""
"""Where the account's SELECT on the URL's database comes from: (table, level, column)."""


def select_levels(
    rows: list[tuple[str, str, str]], readable: list[tuple[str, str]]
) -> dict[str, str]:
    """``levels`` of :func:`grant_statements` from :data:`_LEVELS` rows, for the tables of
    ``readable`` (table, hidden column): ``"column"`` only counts when a hidden column itself
    is granted.

    Example:
        >>> rows = [("a", "table", ""), ("a", "column", "phone"), ("b", "column", "id")]
        >>> select_levels(rows, [("a", "phone"), ("b", "phone"), ("c", "x")])
        {'a': 'both', 'b': 'column', 'c': 'column'}
        >>> select_levels([("*", "database", "")], [("a", "x")])
        {'a': 'database'}
    """
    whole = {str(t).lower() for t, level, _ in rows if level == "table"}
    database = any(level == "database" for _, level, _ in rows)
    columns = {(str(t).lower(), str(c).lower()) for t, level, c in rows if level == "column"}
    out: dict[str, str] = {}
    for table, column in readable:
        key = table.lower()
        by_column = (key, column.lower()) in columns or out.get(key) in ("both", "column")
        if database:
            out[key] = "database"
        elif key in whole:
            out[key] = "both" if by_column else "table"
        else:
            out[key] = "column"  # a column grant, or one through a role or PUBLIC
    return out


def account_write_reasons(
    run: Callable[[str], list[tuple[Any, ...]]], error: type[BaseException]
) -> list[str]:
    """What the connected account can do beyond reading (empty when it only reads).

    Read from ``information_schema`` (the account's own grants) and from ``SHOW GRANTS`` for
    the account and every role granted to it (``information_schema`` does not show a role's
    privileges on MariaDB). Used by the engine at start-up and by ingest.

    Args:
        run: runs one statement on the account's connection and returns its rows.
        error: the driver's error class (a ``SHOW GRANTS`` it refuses is skipped).
    """
    row = run("SELECT CURRENT_USER()")
    user, _, host = str(row[0][0] if row else "").rpartition("@")
    me = f"'{user}'@'{host}'".lower()
    roles = sorted(
        {str(r[0]) for r in run("SELECT ROLE_NAME FROM information_schema.APPLICABLE_ROLES")}
    )
    rows = [(str(g), str(p), str(o)) for g, p, o in run(_PRIVILEGES)]
    targets = ["CURRENT_USER()", *(f"'{r.replace(chr(39), '')}'" for r in roles), "PUBLIC"]
    for target in targets:  # PUBLIC: MariaDB 10.11+ grants every account has
        try:
            lines = run(f"SHOW GRANTS FOR {target}")
        except error:
            continue  # a role granted through another role, or PUBLIC before MariaDB 10.11
        rows += [(me, p, on) for line in lines for p, on in granted(str(line[0]))]
    reasons = write_reasons(rows, {me})
    known = [on for grantee, p, on in rows if grantee.lower() == me and p.upper() != "USAGE"]
    if "*.*" not in known:  # a global grant shows every database: nothing to explain then
        databases = [str(r[0]) for r in run("SHOW DATABASES")]
        reasons += [
            f"has privileges on database {name} that none of its grants explain (an "
            "anonymous-user row of mysql.db, which may allow CREATE and INSERT, as MariaDB's "
            "default rows for `test` and `test\\_%` do); remove them with DELETE FROM mysql.db "
            "WHERE User = '' and FLUSH PRIVILEGES"
            for name in unexplained_databases(databases, known)
        ]
    return reasons


_SYSTEM_DATABASES = frozenset({"information_schema", "performance_schema", "mysql", "sys"})


def unexplained_databases(databases: list[str], objects: list[str]) -> list[str]:
    r"""The databases the account sees (``SHOW DATABASES``) that no grant object explains.

    A database-level grant may be a pattern (``test\_%.*``: ``_`` and ``%`` are wildcards,
    a backslash escapes them). A database shown that no grant covers is reachable through a
    row the account cannot see, such as mysql.db's anonymous-user rows, which apply to every
    account.

    Example:
        >>> unexplained_databases(["shop", "test", "test_1", "information_schema"],
        ...                       ["shop.orders", "shop.customers.id"])
        ['test', 'test_1']
        >>> unexplained_databases(["test_1"], ["test\\_%.*"])
        []
    """
    patterns = [_like(on.split(".")[0]) for on in objects if "." in on]
    return [
        name
        for name in databases
        if name.lower() not in _SYSTEM_DATABASES and not any(p.fullmatch(name) for p in patterns)
    ]


def _like(pattern: str) -> re.Pattern[str]:
    """A MySQL database-name pattern (``_``, ``%``, backslash escapes) as a regex."""
    out, escaped = "", False
    for ch in pattern:
        if escaped:
            out += re.escape(ch)
            escaped = False
        elif ch == "\\":
            escaped = True
        elif ch == "%":
            out += ".*"
        elif ch == "_":
            out += "."
        else:
            out += re.escape(ch)
    return re.compile(out, re.IGNORECASE | re.DOTALL)


def statement_issue(sql: str, partial: frozenset[str] = frozenset()) -> str | None:
    """Why the engine will not send ``sql`` to the server, or None.

    The gate renders one SELECT without comments; anything else reached the engine around it.
    Refused here: a statement that is not a SELECT (``HANDLER t READ`` reads every column, the
    ungranted ones included), a comment (``/*! ... */`` runs as SQL on MySQL), and a ``USING``
    or ``NATURAL`` join over a table in ``partial`` (MariaDB does not check column privileges
    in them, and the account cannot know the unreadable columns' names).

    Example:
        >>> statement_issue("SELECT name FROM stores") is None
        True
        >>> statement_issue("HANDLER stores READ FIRST")[:40]
        'MySQL runs one SELECT statement per quer'
        >>> statement_issue("SELECT a.name FROM stores a JOIN stores b USING (phone)",
        ...                 frozenset({"stores"}))[:58]
        'MySQL does not check column privileges in USING or NATURAL'
    """
    single = (
        "MySQL runs one SELECT statement per query here, without comments; write the question "
        "as a single SELECT."
    )
    try:
        tokens = sqlglot.tokenize(sql, read="mysql")
    except sqlglot.errors.TokenError:
        return single
    if not tokens or tokens[0].token_type not in _STARTS or any(t.comments for t in tokens):
        return single
    if not partial:
        return None
    try:
        tree = sqlglot.parse_one(sql, read="mysql")
    except sqlglot.errors.ParseError:
        return single
    joins = [j for j in tree.find_all(exp.Join) if j.args.get("using") or j.args.get("method")]
    tables = sorted({t.name for t in tree.find_all(exp.Table) if t.name.lower() in partial})
    if joins and tables:
        return (
            "MySQL does not check column privileges in USING or NATURAL joins, and this "
            f"account may read only some columns of {', '.join(tables)}; join ON visible "
            "columns instead."
        )
    return None


_STARTS = frozenset({TokenType.SELECT, TokenType.WITH, TokenType.L_PAREN})


class MySQLEngine(SQLEngine):
    """Run generated SQL on MySQL or MariaDB through an account that can only read.

    At start-up the engine reads the account's privileges (``information_schema``) and refuses
    to run when any of them goes beyond reading (:data:`READ_PRIVILEGES`), unless
    ``allow_writable_role`` is set by the operator. The session reads SQL as the gate renders it
    (:data:`SQL_MODE`), defaults to read-only transactions and caps the rows of a SELECT
    (``sql_select_limit``); every query runs in ``START TRANSACTION READ ONLY``, is stopped by
    the server after ``time_limit_ms`` (``max_statement_time`` / ``max_execution_time``) and is
    rolled back. The connection allows one statement per call and no ``LOAD DATA LOCAL``.

    Raises:
        ConfigError: the driver is missing, the server cannot be reached or refuses the login,
            the database does not exist, or the account can write and no override was given.
    """

    dialect = "mysql"

    def __init__(
        self,
        url: str,
        *,
        policy: ExecutionPolicy | None = None,
        allow_writable_role: bool = False,
    ) -> None:
        super().__init__(policy)
        self._driver = load_driver()
        self._args = connect_arguments(url)
        self._database: str = self._args["database"]
        self._lock = threading.Lock()
        self._limits: tuple[int, int] | None = None
        self._partial: frozenset[str] = frozenset()
        self._con = self._connect()
        try:
            self.is_mariadb = "mariadb" in str(self._con.get_server_info()).lower()
            self.write_reasons = self.writable()
        except self._driver.Error as exc:
            self._con.close()
            raise ConfigError(f"Cannot inspect the MySQL account: {exc.args[-1]}.") from exc
        user = self._args["user"]
        if self.write_reasons and not allow_writable_role:
            self._con.close()
            raise ConfigError(
                f"MySQL user {user!r} can write ({'; '.join(self.write_reasons)}); connect as "
                "a user that can only SELECT the exposed tables (see docs/threat-model.md), or, "
                "if you accept the risk, set allow_writable_role (tablerag.toml, "
                "TABLERAG_ALLOW_WRITABLE_ROLE=true, tablerag ingest --allow-writable-role)."
            )
        if self.write_reasons:
            log.warning(
                "MySQL user %r can write (%s); running anyway on operator override",
                user,
                "; ".join(self.write_reasons),
            )

    @property
    def schema(self) -> str | None:
        """The URL's database: unqualified table names are read there."""
        return self._database

    def _connect(self) -> Any:
        args = self._args
        where = f"{args['host']}:{args['port']}"
        try:
            con = self._driver.connect(
                **args,
                connect_timeout=10,
                autocommit=True,
                local_infile=False,
                client_flag=0,  # no CLIENT.MULTI_STATEMENTS: one statement per call
                init_command=f"SET SESSION sql_mode = '{SQL_MODE}'",
            )
            with con.cursor() as cur:
                cur.execute("SET SESSION TRANSACTION READ ONLY")
        except self._driver.Error as exc:
            raise ConfigError(connect_message(exc, where, args["user"], args["database"])) from exc
        self._limits = None
        return con

    def writable(self) -> list[str]:
        """What the connected account can do beyond reading (empty when it only reads)."""
        with self._con.cursor() as cur:

            def run(sql: str) -> list[tuple[Any, ...]]:
                cur.execute(sql)
                return list(cur.fetchall())

            return account_write_reasons(run, self._driver.Error)

    def readable_hidden(self, catalog: ExposedCatalog) -> list[tuple[str, str]]:
        """(table, column) of every hidden column of ``catalog`` the account may SELECT."""
        hidden = {(t.name.lower(), h.lower()) for t in catalog.tables for h in t.hidden}
        if not hidden:
            return []
        with self._lock, self._con.cursor() as cur:
            cur.execute(READABLE_COLUMNS)
            rows = cur.fetchall()
        return [(str(t), str(c)) for t, c in rows if (str(t).lower(), str(c).lower()) in hidden]

    def partial_tables(self) -> frozenset[str]:
        """Lower-cased names of the tables and views of the URL's database the account may
        read only some columns of (column grants): ``SELECT * ... LIMIT 0`` is refused there.

        MySQL and MariaDB show such an account neither the other columns' names (not in
        ``information_schema``, not in ``SHOW COLUMNS``) nor any error that tells them apart
        from unknown names, and MariaDB does not check column privileges in ``USING`` or
        ``NATURAL`` joins: the engine refuses those joins over these tables
        (:func:`statement_issue`) and marks them ``partial`` in the catalog.
        """
        partial: set[str] = set()
        with self._lock, self._con.cursor() as cur:
            cur.execute(
                "SELECT TABLE_NAME FROM information_schema.TABLES WHERE TABLE_SCHEMA = "
                f"DATABASE() LIMIT {2**64 - 1}"
            )
            names = [str(r[0]) for r in cur.fetchall()]
            for name in names:
                try:
                    cur.execute(f"SELECT * FROM {ident(self._database)}.{ident(name)} LIMIT 0")
                    cur.fetchall()
                except self._driver.Error:
                    partial.add(name.lower())  # refused, or a broken view: assume the worst
        return frozenset(partial)

    def _expose(self, catalog: ExposedCatalog) -> None:
        """Mark the tables the account reads only partly (:meth:`partial_tables`), and refuse
        an account that can read a hidden column (column privileges are the exposure layer
        here, as on PostgreSQL), unless ``policy.allow_readable_hidden_columns`` is set.

        Raises:
            ConfigError: with the statements that grant only the exposed columns.
        """
        self._partial = self.partial_tables()
        if self._partial:
            marked = ExposedCatalog(
                replace(t, partial=True) if t.name.lower() in self._partial else t
                for t in catalog.tables
            )
            self._catalog = catalog = marked
        readable = self.readable_hidden(catalog)
        if not readable:
            return
        user = self._args["user"]
        tables = ", ".join(sorted({f"{self._database}.{t}" for t, _ in readable}))
        if self.policy.allow_readable_hidden_columns:
            log.warning(
                "MySQL user %r can read %d hidden column(s) of %s; the gate alone keeps them "
                "out (operator override allow_readable_hidden_columns)",
                user,
                len(readable),
                tables,
            )
            return
        with self._con.cursor() as cur:
            cur.execute("SELECT CURRENT_USER()")
            row = cur.fetchone()
            name, _, host = str(row[0] if row else f"{user}@%").rpartition("@")
            account = f"'{name}'@'{host}'"
            cur.execute(_LEVELS, [account] * 4)
            found = [(str(t), str(k), str(c)) for t, k, c in cur.fetchall()]
        levels = select_levels(found, readable)
        granted = frozenset((t.lower(), c.lower()) for t, k, c in found if k == "column")
        statements = "\n".join(
            grant_statements(self._database, catalog, readable, account, levels, granted)
        )
        whole = (
            f" (the SELECT on {ident(self._database)}.* is replaced by grants per table: grant "
            "each other table its columns too)"
            if "database" in levels.values()
            else ""
        )
        table, column = readable[0]
        raise ConfigError(
            f"MySQL user {user!r} can read {len(readable)} column(s) that tablerag hides (in "
            f"{tables}); the database must not let generated SQL read them. Run as an "
            f"administrator{whole}:\n{statements}\n"
            + ALLOW_HINT.format(example=f"{table}.{column}")
            + ", or set allow_readable_hidden_columns if you accept that only the SQL gate "
            "keeps them out."
        )

    def _with_lineage(self, catalog: ExposedCatalog) -> ExposedCatalog:
        """Hide each view column computed from a hidden column, for the views whose definition
        the account may read (``information_schema.VIEWS`` shows it with SHOW VIEW; without it
        the view's own column grants are the guard)."""
        with self._lock, self._con.cursor() as cur:
            cur.execute(
                "SELECT TABLE_SCHEMA, TABLE_NAME, VIEW_DEFINITION FROM information_schema.VIEWS "
                f"WHERE TABLE_SCHEMA = DATABASE() LIMIT {2**64 - 1}"
            )
            found = [(str(s), str(v), str(q or "")) for s, v, q in cur.fetchall()]
            views = [(s, v, q) for s, v, q in found if q.strip()]
            opaque = [(s, v) for s, v, q in found if not q.strip()]
            if opaque:  # no SHOW VIEW: the view cannot be traced, so it is hidden (issue 28)
                catalog = hide_opaque(
                    catalog, opaque, rules=self.policy.sensitive, default=self._database
                )
            if not views:
                return catalog
            cur.execute(
                "SELECT TABLE_SCHEMA, TABLE_NAME, COLUMN_NAME, COLUMN_TYPE FROM "
                "information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() "
                f"LIMIT {2**64 - 1}"
            )
            columns = [(str(s), str(t), str(c), str(y)) for s, t, c, y in cur.fetchall()]
        return hide_derived(catalog, views, columns, dialect="mysql", default=self._database)

    def introspect(self) -> list[TableInfo]:
        """Tables, views and columns of the URL's database that the account may read."""
        with self._lock, self._con.cursor() as cur:
            cur.execute(
                "SELECT TABLE_NAME, COLUMN_NAME, COLUMN_TYPE FROM information_schema.COLUMNS "
                "WHERE TABLE_SCHEMA = DATABASE() ORDER BY TABLE_NAME, ORDINAL_POSITION "
                f"LIMIT {2**64 - 1}"  # an explicit LIMIT: the session's sql_select_limit is not
            )
            rows = cur.fetchall()
        tables: dict[str, list[ColumnInfo]] = {}
        for table, column, typ in rows:
            tables.setdefault(str(table), []).append(ColumnInfo(str(column), str(typ)))
        return [TableInfo(name, "mysql", tuple(cols), 0) for name, cols in tables.items()]

    def _session_limits(self, policy: ExecutionPolicy) -> None:
        """Set the server-side time limit and the SELECT row cap when they change."""
        wanted = (policy.time_limit_ms, policy.max_rows + 1)
        if self._limits == wanted:
            return
        ms, rows = wanted
        timer = (
            f"max_statement_time = {ms / 1000:.3f}"
            if self.is_mariadb
            else f"max_execution_time = {ms}"
        )
        with self._con.cursor() as cur:
            cur.execute(f"SET SESSION {timer}, SESSION sql_select_limit = {rows}")
        self._limits = wanted

    @contextmanager
    def _read_only(self) -> Iterator[Any]:
        """An unbuffered cursor inside ``START TRANSACTION READ ONLY``, always rolled back.

        Rows stream from the server as they are fetched (PyMySQL's ``SSCursor``). When the call
        stops early (byte cap, time limit) the unread rest is not drained: the connection is
        closed, which ends the transaction on the server, and the next query opens a new one.
        """
        cur = self._con.cursor(self._driver.cursors.SSCursor)
        cur.execute("START TRANSACTION READ ONLY")
        try:
            yield cur
        except self._driver.Error:
            with contextlib.suppress(self._driver.Error):
                cur.close()
                self._rollback()
            raise
        except BaseException:
            self._abandon()
            raise
        cur.close()  # reads what is left: the end of the result (sql_select_limit rows at most)
        self._rollback()

    def _rollback(self) -> None:
        with self._con.cursor() as plain:
            plain.execute("ROLLBACK")

    def _abandon(self) -> None:
        """Close the connection without reading what the server still sends (PyMySQL would
        read an unbuffered result to its end before closing; its pending result is marked
        done first)."""
        pending = getattr(self._con, "_result", None)
        if pending is not None:
            pending.unbuffered_active = False
        with contextlib.suppress(Exception):
            self._con.close()
        self._limits = None

    def _reopen(self) -> None:
        with contextlib.suppress(self._driver.Error):
            self._con.close()
        self._con = self._connect()

    def _kill_query(self) -> None:
        """``KILL QUERY`` the running statement of our connection, from a second connection
        (the watchdog's cancel: the first one is waiting on the server)."""
        thread = self._con.thread_id()
        other = self._driver.connect(**self._args, connect_timeout=5, autocommit=True)
        try:
            with other.cursor() as cur:
                cur.execute(f"KILL QUERY {int(thread)}")
        finally:
            other.close()

    def _query(
        self, sql: str, policy: ExecutionPolicy, dog: Watchdog
    ) -> tuple[tuple[str, ...], Rows]:
        try:
            self._con.ping(reconnect=False)
        except self._driver.Error:
            self._reopen()  # the server dropped us, or a stopped query closed it: set up again
        self._session_limits(policy)
        with self._read_only() as cur:
            cur.execute(sql)  # no arguments: the text is sent as it is, no % escapes
            columns = tuple(str(d[0]) for d in cur.description or ())
            rows = fetch_capped(
                cur.fetchmany,
                policy,
                engine="mysql",
                sql=sql,
                deadline=dog.deadline,
                timed_out=lambda: _timeout(policy, sql),
            )
            return columns, rows

    def _run(self, sql: str, policy: ExecutionPolicy) -> tuple[tuple[str, ...], Rows]:
        """Run ``sql`` streaming its rows under the byte cap and the time limit: the server's
        own (``max_statement_time``/``max_execution_time``) and a client :class:`Watchdog`
        that sends ``KILL QUERY`` from a second connection past the limit."""
        issue = statement_issue(sql, self._partial)
        if issue is not None:
            raise QueryFailed(issue, engine="mysql", sql=sql)
        with self._lock, Watchdog(policy.time_limit_ms, self._kill_query) as dog:
            try:
                try:
                    return self._query(sql, policy, dog)
                except self._driver.OperationalError as exc:
                    if _code(exc) not in LOST_CONNECTION or dog.fired:
                        raise
                    self._reopen()  # the server dropped the session: open it again, once
                    return self._query(sql, policy, dog)
            except self._driver.Error as exc:
                if dog.fired:  # killed mid-stream: the connection is not reused
                    self._abandon()
                code = _code(exc)
                late = time.monotonic() >= dog.deadline
                if dog.fired or code in LIMIT_ERRORS or (code in TIMEOUT_ERRORS and late):
                    raise _timeout(policy, sql) from exc
                if code in LOST_CONNECTION or code == 0:  # dropped twice, or closed
                    self._abandon()
                    raise QueryFailed(
                        "MySQL closed the connection during the query (the server restarted, "
                        "or an administrator ended the session); run it again, and if it keeps "
                        "happening ask the database administrator.",
                        engine="mysql",
                        sql=sql,
                    ) from exc
                if code in TIMEOUT_ERRORS:  # interrupted before the limit: someone killed it
                    raise QueryFailed(
                        "MySQL stopped the query before it finished (an administrator or the "
                        "server killed it); run it again, and if it keeps happening ask the "
                        "database administrator.",
                        engine="mysql",
                        sql=sql,
                    ) from exc
                failed = QueryFailed(
                    engine_failure("MySQL", self.driver_message(exc)),
                    engine="mysql",
                    sql=sql,
                )
        # raised outside the handler: the driver's error, which quotes raw cell values, is
        # neither its cause nor its context (no traceback or log record carries it)
        raise failed

    def driver_message(self, exc: BaseException) -> str:
        """The server's message (without PyMySQL's error-code tuple), scrubbed."""
        args = exc.args
        text = str(args[1]) if len(args) > 1 else str(exc)
        return scrub_message(text, self.catalog)

    def close(self) -> None:
        """Close the connection (idempotent)."""
        if self._con.open:
            self._con.close()
