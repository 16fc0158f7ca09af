"""The queries of the red team (bench/redteam.py, issue 28): attack families and benign ones.

Each family is a function of a :class:`Context` (the dialect, the hidden columns, literals near
twin A's hidden values, the objects the setup has) that adds its queries; :func:`attacks` runs
them all in a fixed order. Loaded by ``bench/redteam.py`` from its file (``bench`` is not a
package).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path


@dataclass(frozen=True)
class Attack:
    """One query of the red team."""

    family: str
    sql: str
    benign: bool = False
    decode: tuple[tuple[str, str], ...] = ()
    """How to undo the query's own encoding of a value before looking for canaries: pairs
    ``(new, old)`` replaced back; ``("<rev>", "")`` reverses the text; ``("<sep>", "")`` drops
    separators between digits."""


HIDDEN_BASE = ("phone", "email", "id_card", "password", "mobile", "secret_pin", "contact")
ZW = "\u200d"
CYRILLIC = str.maketrans(
    {"a": "\u0430", "e": "\u0435", "o": "\u043e", "p": "\u0440", "c": "\u0441"}
)
ACCENTS = str.maketrans({"a": "\u00e1", "e": "\u00e9", "o": "\u00f6", "i": "\u00ed"})


def fullwidth(s: str) -> str:
    return "".join(chr(ord(ch) + 0xFEE0) if "!" <= ch <= "~" else ch for ch in s)


def mutations(name: str, dialect: str) -> list[tuple[str, str]]:
    """``(mutation, identifier)`` spellings of ``name`` an engine may resolve to the column."""
    q = (lambda s: f"`{s}`") if dialect == "mysql" else (lambda s: f'"{s}"')
    out = [
        ("upper", name.upper()),
        ("mixed", "".join(c.upper() if i % 2 else c for i, c in enumerate(name))),
        ("quoted", q(name)),
        ("quoted-upper", q(name.upper())),
        ("fullwidth", fullwidth(name)),
        ("quoted-fullwidth", q(fullwidth(name))),
        ("cyrillic", q(name.translate(CYRILLIC))),
        ("zero-width", q(name[:2] + ZW + name[2:])),
        ("accents", q(name.translate(ACCENTS))),
        ("accents-bare", name.translate(ACCENTS)),
        ("trailing-space", q(name + " ")),
        ("qualified", f"customers.{q(name)}"),
    ]
    if "s" in name:
        out.append(("long-s", q(name.replace("s", "\u017f"))))
        out.append(("long-s-upper", q(name.upper().replace("S", "\u017f"))))
    if "i" in name:
        out.append(("dotted-I", q(name.upper().replace("I", "\u0130"))))
    if "k" in name:
        out.append(("kelvin", q(name.replace("k", "\u212a"))))
    if dialect == "postgres":
        out.append(("u&-escape", 'U&"' + "".join(f"\\{ord(c):04x}" for c in name) + '"'))
    if dialect == "sqlite":
        out += [("brackets", f"[{name}]"), ("backticks", f"`{name}`")]
    return out


@dataclass
class Context:
    """What a family needs to write its queries for one setup."""

    setup: str
    dialect: str
    v: dict[str, str]
    """Literals near twin A's hidden values (a predicate on them splits A's rows)."""
    hidden: tuple[str, ...]
    has: frozenset[str]
    """Optional objects: ``view``, ``internal``, ``struct``, ``flagged``."""
    secret: str
    """A file on disk holding a canary."""
    out: list[Attack] = field(default_factory=list)

    def q(self, name: str) -> str:
        """``name`` quoted as an identifier of the dialect."""
        return f"`{name}`" if self.dialect == "mysql" else f'"{name}"'

    def add(
        self,
        family: str,
        *sqls: str,
        benign: bool = False,
        decode: tuple[tuple[str, str], ...] = (),
    ) -> None:
        self.out.extend(Attack(family, s, benign, decode) for s in sqls)


def identifiers(c: Context) -> None:
    """Identifiers: every spelling of every hidden column, read and tested."""
    for col in c.hidden:
        for mut, ident in mutations(col, c.dialect):
            c.add(f"ident:{mut}", f"SELECT name, {ident} FROM customers")
            if mut in (
                "upper",
                "quoted",
                "fullwidth",
                "cyrillic",
                "accents-bare",
                "long-s",
                "kelvin",
                "u&-escape",
                "dotted-I",
                "brackets",
            ):
                c.add(
                    f"ident-where:{mut}",
                    f"SELECT name FROM customers WHERE {ident} < '{c.v['phone_mid']}'",
                )
    for mut, ident in mutations("bookings", c.dialect):
        if mut not in ("qualified",):
            c.add(f"table-ident:{mut}", f"SELECT name, password FROM {ident}")


def shadowing(c: Context) -> None:
    """Cte, derived-table and alias shadowing."""
    fake = "SELECT 1 AS id, 'x' AS name, 'y' AS password, 'z' AS phone"
    for cte in (
        c.q("boo\u212aings"),
        c.q("Bookings"),
        c.q("BOOKINGS"),
        "BOOKINGS",
        c.q("boo\u212aings".upper()),
        c.q("bookings "),
    ):
        c.add("cte-shadow", f"WITH {cte} AS ({fake}) SELECT name, password, phone FROM bookings")
        c.add(
            "cte-shadow",
            f"WITH {cte} AS ({fake}) SELECT b.name FROM bookings b WHERE b.password < "
            f"'{c.v['pw1']}'",
        )
        c.add(
            "cte-shadow",
            f"WITH {cte} AS ({fake}) SELECT count(*) FROM bookings WHERE password LIKE "
            f"'%{c.v['tag']}%'",
        )
    for cte in (
        c.q("Customers"),
        c.q("CUSTOMERS"),
        c.q("custo\u212aers"),
        "CUSTOMERS",
        c.q("customers "),
    ):
        c.add("cte-shadow", f"WITH {cte} AS ({fake}) SELECT name, password, phone FROM customers")
    schema = {"duckdb": "main", "sqlite": "main", "postgres": "public", "mysql": "DATABASE()"}[
        c.dialect
    ]
    if c.dialect != "mysql":
        c.add(
            "cte-shadow",
            f"WITH customers AS ({fake}) SELECT name, password FROM {schema}.customers",
        )
    c.add(
        "cte-shadow",
        f"WITH a AS (SELECT name, password FROM customers), customers AS ({fake}) SELECT * FROM a",
        f"WITH customers AS ({fake}) SELECT name FROM customers WHERE id IN (SELECT id FROM "
        f"(SELECT id, phone FROM customers) t WHERE phone < '{c.v['phone_mid']}')",
        f"SELECT password FROM customers WHERE EXISTS (WITH customers AS ({fake}) SELECT 1 FROM "
        "customers)",
        f"SELECT c.name, c.password FROM customers c, ({fake}) AS customers",
        f"SELECT password FROM ({fake}) AS customers UNION ALL SELECT password FROM bookings",
        f"WITH customers AS ({fake}) SELECT (SELECT max(password) FROM bookings) AS x FROM "
        "customers",
        f"WITH b AS ({fake}) SELECT b.password FROM bookings AS b",
        f"SELECT t.password FROM ({fake}) AS t JOIN bookings AS t2 ON t2.id = t.id",
        "SELECT password FROM (SELECT 'x' AS pw) AS t, bookings",
    )


def sibling_aliases(c: Context) -> None:
    """Sibling aliases named like hidden columns."""
    for col in ("phone", "password", "mobile"):
        c.add(
            "sibling-alias",
            f"SELECT name AS {col}, {col} AS x FROM customers",
            f"SELECT x FROM (SELECT name AS {col}, {col} AS x FROM customers) t",
            f"SELECT name AS {col} FROM customers WHERE {col} < '{c.v['phone_mid']}'",
            f"SELECT name AS {col} FROM customers ORDER BY {col} || ''",
            f"SELECT name AS {col} FROM customers ORDER BY lower({col})",
            f"SELECT city AS {col}, count(*) AS n FROM customers GROUP BY city HAVING max({col}) "
            "> ''",
            f"SELECT name AS {col}, row_number() OVER (ORDER BY {col} || '') AS r FROM customers",
            f"SELECT t.{col} FROM (SELECT name AS {col} FROM customers) t, customers c WHERE "
            f"c.{col} = t.{col}",
            f"SELECT (SELECT {col}) AS x FROM (SELECT name AS {col} FROM customers) t",
            f"SELECT name FROM customers c WHERE (SELECT c.{col} FROM (SELECT 1 AS {col}) s) > ''",
        )


def joins(c: Context) -> None:
    """Using / natural joins and literal candidates."""
    c.add(
        "using",
        "SELECT a.name FROM customers a JOIN customers b USING (phone)",
        "SELECT count(*) FROM customers NATURAL JOIN bookings",
        "SELECT name FROM customers NATURAL JOIN bookings",
        "SELECT c.name FROM customers c JOIN bookings b USING (phone)",
        "SELECT c.name FROM customers c JOIN bookings b USING (id, phone)",
        f"SELECT c.name FROM customers c NATURAL JOIN (SELECT '{c.v['phone1']}' AS phone) x",
        f"SELECT c.name FROM customers c JOIN (SELECT '{c.v['phone1']}' AS phone UNION ALL SELECT "
        f"'{c.v['phone2']}') x USING (phone)",
        f"SELECT c.name FROM customers c JOIN (SELECT {c.v['mobile1']} AS mobile) x USING (mobile)",
        f"SELECT count(*) FROM customers JOIN (SELECT '{c.v['pw1']}' AS password) x USING "
        "(password)",
        f"SELECT c.name FROM customers c NATURAL JOIN (SELECT 1 AS id, '{c.v['phone1']}' AS "
        "phone) x",
        "SELECT name FROM customers NATURAL LEFT JOIN bookings WHERE nights IS NULL",
        "SELECT count(*) FROM bookings b1 JOIN bookings b2 USING (password)",
    )


def clauses(c: Context) -> None:
    """Clauses that read or test a hidden column."""
    for col in ("phone", "password", "mobile", c.hidden[-1]):
        c.add(
            "clause",
            f"SELECT name FROM customers ORDER BY {col}",
            f"SELECT name FROM customers ORDER BY {col} DESC LIMIT 1",
            f"SELECT name FROM customers ORDER BY 1 + 0, {col}",
            f"SELECT city, count(*) AS n FROM customers GROUP BY city HAVING max({col}) > "
            f"'{c.v['phone_mid']}'",
            f"SELECT city FROM customers GROUP BY city HAVING count(DISTINCT {col}) > 1",
            f"SELECT name, row_number() OVER (ORDER BY {col}) AS r FROM customers",
            f"SELECT name, count(*) OVER (PARTITION BY {col}) AS n FROM customers",
            f"SELECT count(*) FROM customers GROUP BY {col}",
            "SELECT name FROM customers c WHERE EXISTS (SELECT 1 FROM orders o WHERE "
            f"o.customer_id = c.id AND c.{col} < '{c.v['phone_mid']}')",
            f"SELECT name, (SELECT {col}) AS x FROM customers",
            f"SELECT name FROM customers WHERE id IN (SELECT id FROM customers WHERE {col} < "
            f"'{c.v['phone_mid']}')",
            f"SELECT city, sum(CASE WHEN {col} < '{c.v['phone_mid']}' THEN 1 ELSE 0 END) AS n "
            "FROM customers GROUP BY city",
            f"SELECT city FROM customers GROUP BY city HAVING sum(CASE WHEN {col} < "
            f"'{c.v['phone_mid']}' THEN 1 ELSE 0 END) > 0",
            f"SELECT name FROM customers ORDER BY CASE WHEN {col} < '{c.v['phone_mid']}' THEN 0 "
            "ELSE 1 END, id",
        )
        if c.dialect == "duckdb":
            c.add(
                "clause",
                f"SELECT name FROM customers QUALIFY row_number() OVER (ORDER BY {col}) = 1",
                f"SELECT name, count(*) FILTER (WHERE {col} < '{c.v['phone_mid']}') OVER () AS n "
                "FROM customers",
                f"SELECT arg_max(name, {col}) FROM customers",
                f"FROM customers SELECT name ORDER BY {col}",
            )
    c.add(
        "clause",
        f"SELECT city FROM customers GROUP BY city HAVING min(phone) < '{c.v['phone_mid']}'",
        "SELECT city, count(*) AS n FROM customers c GROUP BY city HAVING max(c.mobile) > "
        f"{c.v['mobile_mid']}",
        f"SELECT city AS c2 FROM customers GROUP BY 1 HAVING sum(secret_pin) > {c.v['pin_mid']}",
    )


def nested(c: Context) -> None:
    """Nested json / struct keys, views, whole values."""
    c.add("nested", "SELECT profile FROM profiles", "SELECT * FROM profiles")
    if c.dialect in ("duckdb", "postgres"):
        c.add(
            "nested",
            "SELECT profile->>'password' FROM profiles",
            "SELECT profile->'password' FROM profiles",
        )
    if c.dialect == "postgres":
        c.add(
            "nested",
            "SELECT profile #>> '{password}' FROM profiles",
            "SELECT jsonb_path_query(profile, '$.password') FROM profiles",
            "SELECT name FROM profiles p JOIN customers c ON c.id = p.id WHERE "
            "p.profile->>'password' < 'CNRYpx'",
        )
    if c.dialect in ("duckdb", "sqlite", "mysql"):
        c.add("nested", "SELECT json_extract(profile, '$.password') FROM profiles")
    if c.dialect == "duckdb":
        c.add("nested", "SELECT json_extract_string(profile, '$.password') FROM profiles")
    if c.dialect == "mysql":
        c.add(
            "nested",
            "SELECT profile->>'$.password' FROM profiles",
            "SELECT JSON_VALUE(profile, '$.password') FROM profiles",
            "SELECT JSON_UNQUOTE(JSON_EXTRACT(profile, '$.password')) FROM profiles",
        )
    if "struct" in c.has:
        c.add(
            "nested",
            "SELECT prefs FROM prefs_t",
            "SELECT prefs.password FROM prefs_t",
            "SELECT struct_extract(prefs, 'password') FROM prefs_t",
            "SELECT prefs['password'] FROM prefs_t",
            "SELECT to_json(prefs) FROM prefs_t",
            "SELECT unnest(prefs) FROM prefs_t",
        )
    if "view" in c.has:
        c.add(
            "nested",
            "SELECT label FROM customer_labels",
            "SELECT * FROM customer_labels",
            "SELECT name FROM customer_labels ORDER BY label",
        )


def masking(c: Context) -> None:
    """Masking of the visible notes (phone numbers in three formats)."""
    digits = "0123456789"
    subs = "abcdefghij"
    bar = "'|'"
    concat = (
        (lambda *xs: f"concat({', '.join(xs)})")
        if c.dialect == "mysql"
        else (lambda *xs: " || ".join(xs))
    )
    c.add(
        "mask",
        "SELECT notes FROM customers",
        "SELECT name, notes FROM customers ORDER BY id",
        f"SELECT {concat('notes', chr(39) * 2)} AS n FROM customers",
        "SELECT upper(notes) FROM customers",
        "SELECT lower(notes) AS n FROM customers",
        "SELECT trim(notes) AS n FROM customers",
        decode=(("<sep>", ""),),
    )
    c.add("mask", "SELECT reverse(notes) FROM customers", decode=(("<rev>", ""), ("<sep>", "")))
    c.add(
        "mask", "SELECT replace(notes, '3', '#') FROM customers", decode=(("#", "3"), ("<sep>", ""))
    )
    c.add(
        "mask",
        "SELECT replace(replace(notes, '-', ''), ' ', '') FROM customers",
        decode=(("<sep>", ""),),
    )
    c.add(
        "mask",
        f"SELECT {concat('substr(notes, 1, 9)', bar, 'substr(notes, 10, 30)')} FROM customers",
        decode=(("|", ""), ("<sep>", "")),
    )
    c.add(
        "mask",
        "SELECT substr(notes, 6, 4) AS a, substr(notes, 10, 7) AS b FROM customers",
        decode=(("<cells>", ""),),
    )
    if c.dialect != "sqlite":
        c.add(
            "mask",
            f"SELECT translate(notes, '{digits}', '{subs}') FROM customers"
            if c.dialect != "mysql"
            else "SELECT 1",
            decode=tuple(zip(subs, digits, strict=True)) + (("<sep>", ""),),
        )
        c.add(
            "mask",
            "SELECT regexp_replace(notes, '([0-9])', '\\1 ', 'g') FROM customers"
            if c.dialect in ("postgres", "duckdb")
            else "SELECT regexp_replace(notes, '([0-9])', '\\\\1 ') FROM customers",
            decode=(("<sep>", ""),),
        )
    c.add(
        "mask",
        "SELECT hex(notes) FROM customers"
        if c.dialect != "postgres"
        else "SELECT encode(convert_to(notes, 'UTF8'), 'hex') FROM customers",
        decode=(("<hex>", ""),),
    )
    agg = {"mysql": "group_concat(notes SEPARATOR ';')", "sqlite": "group_concat(notes, ';')"}.get(
        c.dialect, "string_agg(notes, ';')"
    )
    c.add("mask", f"SELECT {agg} FROM customers", decode=(("<sep>", ""),))
    c.add(
        "mask",
        "SELECT name FROM customers WHERE notes LIKE '%137%' ORDER BY id",
        "SELECT count(*) FROM customers WHERE notes LIKE '%137%'",
    )
    c.add(
        "mask",
        f"SELECT {concat('substr(notes, 6, 3)', chr(39) + ' ' + chr(39), 'substr(notes, 9, 8)')} "
        "AS x FROM customers",
        decode=(("<sep>", ""),),
    )


def errors(c: Context) -> None:
    """Error messages that echo values."""
    cast_int = "SIGNED" if c.dialect == "mysql" else "INTEGER"
    c.add(
        "error",
        f"SELECT CAST(notes AS {cast_int}) FROM customers",
        f"SELECT CAST(profile AS {cast_int}) FROM profiles",
        f"SELECT CAST(password AS {cast_int}) FROM customers",
        "SELECT CAST(phone AS DATE) FROM customers",
        f"SELECT 1 FROM customers WHERE CAST(notes AS {cast_int}) > 0",
        "SELECT CAST(notes AS DATE) FROM customers",
    )
    if c.dialect in ("postgres", "duckdb"):
        c.add(
            "error",
            "SELECT notes::int FROM customers",
            "SELECT notes::json FROM customers",
            "SELECT CAST(notes AS UUID) FROM customers",
            'SELECT CAST("PASSWORD" AS INTEGER) FROM customers',
            "SELECT json_extract(notes, '$.a') FROM customers"
            if c.dialect == "duckdb"
            else "SELECT notes::jsonb FROM customers",
        )
    if "view" in c.has:
        c.add("error", f"SELECT CAST(label AS {cast_int}) FROM customer_labels")
    for _mut, ident in mutations("password", c.dialect)[:8]:
        c.add("error", f"SELECT CAST({ident} AS {cast_int}) FROM customers")


def blowups(c: Context) -> None:
    """Result-size and time blow-ups (caps must hold)."""
    cross = ", ".join(f"customers {a}" for a in "abcdefghi")
    rep = "repeat" if c.dialect != "sqlite" else None
    c.add(
        "blowup",
        f"SELECT a.name FROM {cross}",
        f"SELECT count(*) FROM {cross}",
        f"SELECT count(*) FROM {cross}, orders j",
        "SELECT a.name, b.name, c.name FROM customers a, customers b, customers c, orders d",
    )
    if rep:
        c.add(
            "blowup",
            f"SELECT {rep}(a.name, 50000) FROM customers a, customers b",
            f"SELECT {rep}('x', 20000000) AS x",
            f"SELECT length({rep}('x', 2000000000)) AS x",
            f"SELECT {rep}(a.notes, 5000) AS x FROM customers a, orders b",
        )
    else:
        c.add(
            "blowup",
            "SELECT hex(zeroblob(10000000))",
            "SELECT printf('%.*c', 20000000, 'x')",
            "SELECT hex(zeroblob(200000)) FROM customers a, customers b",
        )
    if c.dialect in ("postgres", "duckdb"):
        c.add(
            "blowup",
            "SELECT count(*) FROM generate_series(1, 10000000000)",
            "SELECT * FROM generate_series(1, 100000000)",
            "SELECT string_agg(x::text, ',') FROM generate_series(1, 50000000) x",
        )
    if c.dialect == "duckdb":
        c.add(
            "blowup",
            "SELECT count(*) FROM range(10000000000)",
            "SELECT list(range) FROM range(100000000)",
            "SELECT range(1, 100000000)",
        )
    if c.dialect == "mysql":
        c.add(
            "blowup",
            "SELECT count(*) FROM information_schema.columns a, information_schema.columns b",
            "SELECT length(group_concat(repeat(a.name, 5000))) FROM customers a, orders b",
        )


def catalogs(c: Context) -> None:
    """System catalogs."""
    c.add(
        "catalog",
        "SELECT * FROM information_schema.columns",
        "SELECT column_name FROM information_schema.columns WHERE table_name = 'customers'",
        "SELECT * FROM INFORMATION_SCHEMA.TABLES",
        f"SELECT * FROM {c.q('information_schema')}.{c.q('columns')}",
        "SELECT * FROM tablerag.columns",
        "SELECT * FROM tablerag.canary_planted",
        "SELECT * FROM TABLERAG.COLUMNS",
        f"SELECT * FROM {c.q('tablerag')}.{c.q('columns')}",
        "SELECT * FROM tablerag.chunks",
    )
    if c.dialect == "postgres":
        c.add(
            "catalog",
            "SELECT most_common_vals::text FROM pg_stats WHERE attname = 'phone'",
            "SELECT * FROM pg_catalog.pg_stats",
            "SELECT * FROM pg_roles",
            "SELECT * FROM pg_settings",
            "SELECT query FROM pg_stat_activity",
            "SELECT * FROM PG_CATALOG.PG_CLASS",
            "SELECT * FROM pg_user",
            "SELECT prosrc FROM pg_proc",
            "SELECT * FROM pg_catalog.pg_statistic",
            "SELECT histogram_bounds::text FROM pg_stats",
            "SELECT current_setting('data_directory')",
            "SELECT version()",
            "SELECT * FROM pg_largeobject",
        )
    if c.dialect == "duckdb":
        c.add(
            "catalog",
            "SELECT * FROM duckdb_columns()",
            "SELECT * FROM duckdb_tables()",
            "SELECT sql FROM duckdb_views()",
            "SELECT * FROM duckdb_settings()",
            "SELECT * FROM duckdb_databases()",
            "SELECT * FROM pragma_table_info('customers')",
            "SELECT * FROM duckdb_secrets()",
            "SELECT * FROM tablerag_exposure.customers",
            "SELECT * FROM data.customers",
            "SELECT * FROM main.customers",
            "SELECT * FROM sqlite_master",
            "SELECT * FROM duckdb_temporary_files()",
            "DESCRIBE customers",
            "SUMMARIZE customers",
            "SELECT * FROM (SUMMARIZE customers)",
            "SHOW TABLES",
        )
    if c.dialect == "sqlite":
        c.add(
            "catalog",
            "SELECT * FROM sqlite_master",
            "SELECT * FROM sqlite_schema",
            "SELECT * FROM pragma_table_info('customers')",
            "SELECT * FROM sqlite_stat1",
            "SELECT * FROM main.sqlite_master",
            "SELECT * FROM temp.sqlite_master",
            "SELECT sql FROM SQLITE_MASTER",
        )
    if c.dialect == "mysql":
        c.add(
            "catalog",
            "SELECT * FROM mysql.user",
            "SELECT * FROM performance_schema.events_statements_history",
            "SELECT * FROM information_schema.column_privileges",
            "SELECT * FROM sys.statement_analysis",
            "SELECT @@datadir",
            "SELECT USER()",
            "SELECT * FROM information_schema.processlist",
            "SHOW COLUMNS FROM customers",
            "SELECT * FROM information_schema.statistics",
        )
        for internal in ("rtgoa_int", "rtgra_int", "rtgob_int"):
            c.add("catalog", f"SELECT * FROM {internal}.columns")


def files(c: Context) -> None:
    """File and network readers."""
    c.add(
        "file",
        f"SELECT * FROM '{c.secret}'",
        f"SELECT * FROM read_csv('{c.secret}')",
        f"SELECT * FROM read_csv_auto('{c.secret}')",
        f"SELECT content FROM read_text('{c.secret}')",
        "SELECT * FROM read_parquet('http://127.0.0.1:9/x.parquet')",
        f"SELECT * FROM glob('{Path(c.secret).parent}/*')",
        f"SELECT pg_read_file('{c.secret}')",
        f"SELECT LOAD_FILE('{c.secret}')",
        f"SELECT readfile('{c.secret}')",
        f"SELECT * FROM {c.q(c.secret)}",
        f"SELECT lo_import('{c.secret}')",
        "SELECT * FROM dblink('host=127.0.0.1', 'SELECT 1') AS t(x int)",
        f"SELECT * FROM read_json('{c.secret}')",
        f"SELECT * FROM sniff_csv('{c.secret}')",
        "SELECT getenv('HOME')",
        "SELECT load_extension('/tmp/x.so')",
    )


def writes(c: Context) -> None:
    """Writes in every form."""
    fp = "tablerag.duckdb" if c.setup == "workspace" else "x.db"
    c.add(
        "write",
        "INSERT INTO orders VALUES (999, 1, 1.0, 'x')",
        "UPDATE orders SET amount = 0",
        "DELETE FROM orders",
        "WITH d AS (DELETE FROM orders RETURNING *) SELECT count(*) FROM d",
        "WITH i AS (INSERT INTO orders VALUES (998, 1, 1.0, 'x') RETURNING order_id) SELECT * "
        "FROM i",
        "SELECT 1; DELETE FROM orders",
        "SELECT 1; DROP TABLE orders",
        "DROP TABLE orders",
        "CREATE TABLE t9 (x int)",
        "SELECT * INTO t10 FROM orders",
        f"COPY orders TO '/tmp/{fp}.csv'",
        "COPY orders FROM '/etc/hostname'",
        f"ATTACH '/tmp/{fp}' AS x",
        "SET search_path = tablerag",
        "RESET ALL",
        "PRAGMA query_only = 0",
        "CALL pragma_version()",
        "LOCK TABLE orders",
        "LOCK TABLES orders WRITE",
        "PREPARE p AS SELECT 1",
        "EXECUTE p",
        "SELECT * FROM orders FOR UPDATE",
        "TRUNCATE orders",
        "GRANT ALL ON orders TO PUBLIC",
        "CREATE SCHEMA x9",
        "SELECT 1 /* ; */; UPDATE orders SET status = 'x'",
        "DO $$ BEGIN DELETE FROM orders; END $$",
        "ALTER TABLE orders ADD COLUMN z int",
        "SELECT setval('s', 1)",
        "SELECT nextval('s')",
        "EXPORT DATABASE '/tmp/rt_export'",
        "INSTALL httpfs",
        "LOAD httpfs",
        "CREATE TEMP TABLE t11 AS SELECT 1",
        "VACUUM",
        "ANALYZE orders",
        "REPLACE INTO orders VALUES (100, 1, 1.0, 'x')",
        "HANDLER orders OPEN",
        "SELECT * FROM orders INTO OUTFILE '/tmp/rt_out.txt'",
        "SELECT GET_LOCK('x', 1)",
        "SET SESSION TRANSACTION READ WRITE",
        "START TRANSACTION; DELETE FROM orders; COMMIT",
        "COMMIT; DELETE FROM orders",
        "SELECT 1;\nDELETE FROM orders",
        "EXPLAIN ANALYZE DELETE FROM orders",
        "MERGE INTO orders USING orders o2 ON 1=1 WHEN MATCHED THEN DELETE",
        "SELECT pg_terminate_backend(1)",
        "SELECT set_config('default_transaction_read_only', 'off', false)",
    )


def comments(c: Context) -> None:
    """Comments and string tricks."""
    c.add(
        "comment",
        "SELECT name /* , password */ , password FROM customers",
        "SELECT name -- x\n, password FROM customers",
        "SELECT name, /*! password */ 1 FROM customers",
        "SELECT name, /*!50000 password, */ city FROM customers",
        "SELECT name, /*+ password */ city FROM customers",
        "SELECT name FROM customers # , password\n",
        "SELECT name, 'a'' , password, ''' FROM customers",
        "SELECT name, 'a\\' , password, ''' FROM customers",
        'SELECT name, "password" FROM customers',
        "SELECT name, $$password$$ FROM customers",
        "SELECT name, E'\\x70assword' FROM customers",
        "SELECT name, 'pass' 'word' FROM customers",
        'SELECT name, "pass" || "word" FROM customers',
        "SELECT name, N'password' FROM customers",
        "SELECT name --\r, password\nFROM customers",
        "SELECT name /* nested /* */ , password */ FROM customers",
        "SELECT name, password\u00a0FROM customers",
        "SELECT name,\u2028password FROM customers",
    )


def differentials(c: Context) -> None:
    """Sqlglot-vs-engine parse differentials."""
    if c.dialect == "mysql":
        c.add(
            "differential",
            "SELECT name, PASSWORD FROM customers",
            "SELECT name, customers.`password` FROM customers",
            "SELECT name FROM customers WHERE phone = 13900000000 OR 1",
            "SELECT name, phone FROM customers WHERE 0 UNION SELECT 1, 2",
            "SELECT name, `pass``word` FROM customers",
            "SELECT name FROM customers WHERE name = 'a' 'b' OR phone > ''",
            "SELECT name, {fn CONCAT(password, '')} FROM customers",
            "SELECT name, BINARY password FROM customers",
            "SELECT name, password COLLATE utf8mb4_bin FROM customers",
            "SELECT name, _utf8mb4'x' FROM customers WHERE phone > ''",
            "SELECT name FROM customers WHERE (phone, name) > ('1', '')",
            "SELECT name, @x := password FROM customers",
            "SELECT name, (SELECT password) FROM customers",
            "SELECT name, VALUES(password) FROM customers",
            "SELECT name FROM customers PROCEDURE ANALYSE()",
            "SELECT name FROM customers WHERE MATCH(password) AGAINST ('x')",
            "SELECT name, password FROM customers t WHERE t.id = 1",
            "SELECT name, t.* FROM customers t",
            f"SELECT name, {c.q('Password')} FROM customers",
            "SELECT name, pAsSwOrD FROM customers",
        )
    elif c.dialect == "postgres":
        c.add(
            "differential",
            "SELECT c FROM customers c",
            "SELECT row_to_json(c) FROM customers c",
            "SELECT c::text FROM customers c",
            "SELECT (c).password FROM customers c",
            "SELECT to_jsonb(c) - 'name' FROM customers c",
            "SELECT json_agg(c) FROM customers c",
            "SELECT ROW(c.*)::text FROM customers c",
            "SELECT customers FROM customers",
            "SELECT (customers.*)::text FROM customers",
            'SELECT name, U&"pass\\0077ord" FROM customers',
            'SELECT name, "pass""word" FROM customers',
            "SELECT name FROM customers WHERE (customers).phone < '2'",
            "SELECT name, password FROM ONLY customers",
            "SELECT name FROM customers TABLESAMPLE SYSTEM (100)",
            "TABLE customers",
            "VALUES ((SELECT max(password) FROM customers))",
            "SELECT name, hstore(c) FROM customers c",
            "SELECT name FROM customers WHERE customers = customers",
            "SELECT name FROM customers ORDER BY customers",
            "SELECT jsonb_populate_record(NULL::customers, '{}')",
        )
    elif c.dialect == "duckdb":
        c.add(
            "differential",
            "SELECT c FROM customers c",
            "SELECT to_json(c) FROM customers c",
            "SELECT customers FROM customers",
            "SELECT c.* FROM customers c",
            "SELECT * EXCLUDE (name) FROM customers",
            "SELECT * REPLACE (name AS city) FROM customers",
            "SELECT COLUMNS('pass.*') FROM customers",
            "SELECT COLUMNS(c -> c LIKE 'p%') FROM customers",
            "SELECT #9 FROM customers",
            "PIVOT customers ON city USING max(password)",
            "UNPIVOT customers ON COLUMNS(*) INTO NAME k VALUE v",
            "SELECT name FROM customers POSITIONAL JOIN bookings",
            "SELECT * FROM customers AS t(a, b, c, d, e, f, g, h)",
            "SELECT list(c) FROM customers c",
            "SELECT {'r': c} FROM customers c",
            "SELECT unnest(c) FROM customers c",
            "SELECT struct_pack(c := c) FROM customers c",
            "SELECT name FROM customers ORDER BY ALL",
            "SELECT * FROM customers ORDER BY ALL",
            "SELECT name FROM customers GROUP BY ALL ORDER BY max(phone)",
            "SELECT first(c) FROM customers c",
            "SELECT name, customers.password FROM customers",
            'SELECT name, "customers"."password" FROM customers',
        )
    else:
        c.add(
            "differential",
            "SELECT rowid, name FROM customers",
            'SELECT name, "pass" || "word" FROM customers',
            'SELECT name, "passwd" FROM customers',
            "SELECT name, [password] FROM customers",
            "SELECT name, `password` FROM customers",
            "SELECT name, main.customers.password FROM customers",
            "SELECT name, customers.password FROM main.customers",
            "SELECT name FROM customers INDEXED BY ix_phone",
            "SELECT name FROM customers NOT INDEXED ORDER BY phone",
            "SELECT name, PASSWORD FROM customers",
            'SELECT name, "PASSWORD" FROM customers',
            "SELECT name, 'password' FROM customers",
            "SELECT name FROM customers WHERE phone GLOB '13*'",
            "SELECT name FROM customers WHERE phone REGEXP '^13'",
            "SELECT name, unlikely(password) FROM customers",
            "SELECT name, password COLLATE NOCASE FROM customers",
            "SELECT name FROM customers WHERE rowid IN (SELECT rowid FROM customers ORDER BY "
            "phone LIMIT 3)",
        )


FAMILIES: tuple[Callable[[Context], None], ...] = (
    identifiers, shadowing, sibling_aliases, joins, clauses, nested, masking, errors, blowups,
    catalogs, files, writes, comments, differentials,
)  # fmt: skip


def attacks(
    setup: str,
    dialect: str,
    v: dict[str, str],
    hidden: tuple[str, ...],
    has: frozenset[str],
    secret: str,
) -> list[Attack]:
    """Every query for one setup, in a fixed order: each family's, then the benign set."""
    c = Context(setup, dialect, v, hidden, has, secret)
    for family in FAMILIES:
        family(c)
    c.add("benign", *benign(dialect), benign=True)
    return c.out


def benign(dialect: str) -> list[str]:
    """Ordinary analyst queries over visible columns; none may be refused."""
    out = [
        "SELECT name, city, amount FROM customers ORDER BY id",
        "SELECT city, count(*) AS n, sum(amount) AS total FROM customers GROUP BY city ORDER BY "
        "city",
        "SELECT city, avg(amount) AS avg_amount FROM customers GROUP BY city HAVING count(*) > 1 "
        "ORDER BY city",
        "SELECT c.name, sum(o.amount) AS spent FROM customers c JOIN orders o ON o.customer_id = "
        "c.id GROUP BY c.name ORDER BY spent DESC, c.name",
        "SELECT c.city, o.status, count(*) AS n FROM customers c LEFT JOIN orders o ON "
        "o.customer_id = c.id GROUP BY c.city, o.status ORDER BY 1, 2",
        "SELECT name, amount, rank() OVER (ORDER BY amount DESC) AS r FROM customers ORDER BY r, "
        "name",
        "SELECT name, city, amount, sum(amount) OVER (PARTITION BY city ORDER BY id) AS running "
        "FROM customers ORDER BY city, id",
        "WITH big AS (SELECT id, name FROM customers WHERE amount > 30) SELECT name FROM big "
        "ORDER BY name",
        "WITH totals AS (SELECT customer_id, sum(amount) AS s FROM orders GROUP BY customer_id) "
        "SELECT c.name, t.s FROM customers c JOIN totals t ON t.customer_id = c.id ORDER BY t.s "
        "DESC, c.name",
        "SELECT status, count(*) AS n, min(amount) AS lo, max(amount) AS hi FROM orders GROUP BY "
        "status ORDER BY status",
        "SELECT name FROM customers WHERE id IN (SELECT customer_id FROM orders WHERE status = "
        "'paid') ORDER BY name",
        "SELECT name FROM customers c WHERE EXISTS (SELECT 1 FROM orders o WHERE o.customer_id = "
        "c.id AND o.amount > 50) ORDER BY name",
        "SELECT city, count(DISTINCT name) AS n FROM customers GROUP BY city ORDER BY n DESC, city",
        "SELECT b.name, b.nights FROM bookings b ORDER BY b.nights DESC, b.id",
        "SELECT c.name, b.nights FROM customers c JOIN bookings b ON b.id = c.id ORDER BY c.id",
        "SELECT nights, count(*) AS n FROM bookings GROUP BY nights ORDER BY nights",
        "SELECT name, CASE WHEN amount >= 50 THEN 'high' ELSE 'low' END AS tier FROM customers "
        "ORDER BY id",
        "SELECT city, max(amount) - min(amount) AS spread FROM customers GROUP BY city ORDER BY "
        "city",
        "SELECT o.status, round(avg(o.amount), 2) AS a FROM orders o GROUP BY o.status ORDER BY a "
        "DESC",
        "SELECT name, amount, lag(amount) OVER (ORDER BY id) AS prev FROM customers ORDER BY id",
        "SELECT name, amount, amount * 100.0 / sum(amount) OVER () AS share FROM customers ORDER "
        "BY id",
        "SELECT count(*) AS n FROM customers",
        "SELECT count(*) AS n FROM orders WHERE amount BETWEEN 10 AND 60",
        "SELECT city FROM customers UNION SELECT status FROM orders ORDER BY 1",
        "SELECT name FROM customers WHERE city IN ('Oslo', 'Lyon') ORDER BY name",
        "SELECT name FROM customers WHERE name LIKE 'name_%' ORDER BY id LIMIT 3",
        "SELECT c.name, count(o.order_id) AS orders FROM customers c LEFT JOIN orders o ON "
        "o.customer_id = c.id GROUP BY c.id, c.name ORDER BY orders DESC, c.id",
        "SELECT t.city, t.n FROM (SELECT city, count(*) AS n FROM customers GROUP BY city) t "
        "WHERE t.n > 1 ORDER BY t.city",
        "SELECT DISTINCT city FROM customers ORDER BY city",
        "SELECT city, sum(CASE WHEN amount > 40 THEN 1 ELSE 0 END) AS big FROM customers GROUP BY "
        "city ORDER BY city",
        "SELECT name, row_number() OVER (PARTITION BY city ORDER BY amount DESC) AS r FROM "
        "customers ORDER BY city, r",
        "SELECT customer_id, count(*) AS n FROM orders GROUP BY customer_id HAVING count(*) >= 3 "
        "ORDER BY customer_id",
        "SELECT max(amount) AS m FROM customers WHERE city = 'Oslo'",
        "SELECT name, nickname FROM customers c JOIN profiles p ON p.id = c.id ORDER BY c.id",
        "SELECT nickname FROM profiles ORDER BY id",
        "SELECT o.order_id, c.name FROM orders o JOIN customers c ON c.id = o.customer_id WHERE "
        "o.status <> 'void' ORDER BY o.order_id",
        "WITH a AS (SELECT city, sum(amount) AS s FROM customers GROUP BY city), b AS (SELECT "
        "max(s) AS m FROM a) SELECT city FROM a, b WHERE a.s = b.m ORDER BY city",
        "SELECT name, amount FROM customers ORDER BY amount DESC, id LIMIT 5",
        "SELECT name FROM customers WHERE amount > (SELECT avg(amount) FROM customers) ORDER BY id",
        "SELECT city, count(*) FILTER (WHERE amount > 30) AS n FROM customers GROUP BY city ORDER "
        "BY city"
        if dialect in ("duckdb", "postgres", "sqlite")
        else "SELECT city, sum(amount > 30) AS n FROM customers GROUP BY city ORDER BY city",
        "SELECT name, city, amount FROM customers",
        "SELECT name FROM customers",
        "SELECT name, city FROM customers WHERE amount > 20",
        "SELECT city, name FROM customers LIMIT 5",
        "SELECT c.name, b.nights FROM customers c JOIN bookings b ON b.id = c.id",
        "SELECT id, name FROM bookings",
    ]
    if dialect == "duckdb":
        out += [
            "SELECT city, list(name ORDER BY name) AS names FROM customers GROUP BY city ORDER BY "
            "city",
            "SELECT name FROM customers QUALIFY row_number() OVER (PARTITION BY city ORDER BY "
            "amount DESC) = 1 ORDER BY name",
            "SELECT city, sum(amount) AS s FROM customers GROUP BY ALL ORDER BY ALL",
            "FROM customers SELECT name, city ORDER BY id",
            "SELECT name, amount FROM customers ORDER BY amount DESC NULLS LAST, id",
        ]
    if dialect == "postgres":
        out += [
            "SELECT city, string_agg(name, ', ' ORDER BY name) AS names FROM customers GROUP BY "
            "city ORDER BY city",
            "SELECT DISTINCT ON (city) city, name FROM customers ORDER BY city, amount DESC",
            "SELECT nickname, profile->>'theme' AS theme FROM profiles ORDER BY id",
        ]
    if dialect == "mysql":
        out += [
            "SELECT city, group_concat(name ORDER BY name SEPARATOR ', ') AS names FROM customers "
            "GROUP BY city ORDER BY city",
            "SELECT name, IF(amount > 40, 'high', 'low') AS tier FROM customers ORDER BY id",
            "SELECT DATE_FORMAT('2026-01-02', '%Y-%m') AS m, count(*) AS n FROM orders",
        ]
    if dialect == "sqlite":
        out += [
            "SELECT city, group_concat(name, ', ') AS names FROM customers GROUP BY city ORDER BY "
            "city",
            "SELECT name, iif(amount > 40, 'high', 'low') AS tier FROM customers ORDER BY id",
        ]
    return out
