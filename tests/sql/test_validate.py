"""The AST gate through its public functions: structured issues, rewrites, scoping rules."""

from __future__ import annotations

import pytest

from tablerag.errors import SQLRejected
from tablerag.sql.exposed import ExposedCatalog
from tablerag.sql.policy import ExecutionPolicy
from tablerag.sql.validate import check, validate

CAT = ExposedCatalog.from_mapping(
    {"orders": ["id", "amount", "region"], "customers": ["id", "name", "phone"]},
    schema="data",
    hidden={"customers": ["phone"]},
)


def codes(sql: str, dialect: str = "duckdb", policy: ExecutionPolicy | None = None) -> list[str]:
    return [i.code for i in validate(sql, dialect=dialect, catalog=CAT, policy=policy)]


def test_unknown_column_has_span_and_suggestion() -> None:
    sql = "SELECT amont FROM orders"
    (issue,) = validate(sql, dialect="duckdb", catalog=CAT)
    assert issue.code == "unknown_column"
    assert issue.span is not None and sql[issue.span[0] : issue.span[1]] == "amont"
    assert issue.detail["suggestion"] == ["amount"]
    assert "Did you mean 'amount'?" in issue.message


def test_unknown_column_of_another_table_names_that_table() -> None:
    (issue,) = validate("SELECT name FROM orders", dialect="duckdb", catalog=CAT)
    assert issue.detail["tables"] == ["customers"]
    assert "It is a column of customers, not of the tables in FROM" in issue.message
    (issue,) = validate("SELECT o.name FROM orders AS o", dialect="duckdb", catalog=CAT)
    assert "It is a column of customers" in issue.message


def test_column_under_the_wrong_alias_points_at_the_alias_that_has_it() -> None:
    sql = "SELECT c.amount FROM orders AS o JOIN customers AS c ON o.id = c.id"
    (issue,) = validate(sql, dialect="duckdb", catalog=CAT)
    assert issue.message == "Unknown column 'c.amount': c has no column 'amount'; write o.amount."
    assert issue.detail["suggestion"] == ["o.amount"]
    sub = "SELECT id FROM customers AS c WHERE EXISTS (SELECT 1 FROM orders WHERE c.region = 'x')"
    (issue,) = validate(sub, dialect="duckdb", catalog=CAT)
    assert "write orders.region" in issue.message


def test_unknown_column_lists_the_columns_in_from_when_nothing_is_close() -> None:
    catalog = ExposedCatalog.from_mapping({"evaluation": ["Employee_ID", "Year_awarded", "Bonus"]})
    (issue,) = validate(
        "SELECT SUM(Bonus_number) FROM evaluation", dialect="sqlite", catalog=catalog
    )
    assert issue.message.endswith(
        "Columns of the tables in FROM: Bonus, Employee_ID, Year_awarded."
    )


def test_hidden_column_is_not_offered_as_living_elsewhere() -> None:
    (issue,) = validate("SELECT phone FROM orders", dialect="duckdb", catalog=CAT)
    assert issue.detail["tables"] == [] and "customers" not in issue.message


def test_unknown_table_suggests_closest() -> None:
    (issue,) = validate("SELECT id FROM order_s", dialect="duckdb", catalog=CAT)
    assert issue.code == "unknown_table" and "'orders'" in issue.message


def test_all_issues_are_collected() -> None:
    assert codes("SELECT pg_sleep(1), version() FROM orders", "postgres") == [
        "function_not_allowed",
        "function_not_allowed",
    ]


def test_check_qualifies_tables_clamps_limit_and_drops_comments() -> None:
    sql = "SELECT id FROM orders /* ; DROP TABLE orders */ LIMIT 100000"
    out = check(sql, dialect="duckdb", catalog=CAT, policy=ExecutionPolicy(max_rows=20))
    assert out == "SELECT id FROM data.orders LIMIT 21"


@pytest.mark.parametrize(
    ("sql", "limit"),
    [
        pytest.param("SELECT id FROM orders LIMIT 5", "LIMIT 5", id="small-kept"),
        pytest.param("SELECT id FROM orders LIMIT -1", "LIMIT 11", id="negative"),
        pytest.param("SELECT id FROM orders LIMIT ALL", "LIMIT 11", id="all"),
        pytest.param(
            "SELECT id FROM orders UNION SELECT id FROM customers", "LIMIT 11", id="union"
        ),
        pytest.param("SELECT id FROM orders LIMIT 3 OFFSET 2", "LIMIT 3 OFFSET 2", id="offset"),
    ],
)
def test_outer_limit_is_enforced(sql: str, limit: str) -> None:
    out = check(sql, dialect="postgres", catalog=CAT, policy=ExecutionPolicy(max_rows=10))
    assert out.endswith(limit)


def test_rejection_raises_with_issues() -> None:
    with pytest.raises(SQLRejected) as info:
        check("DROP TABLE orders", dialect="sqlite", catalog=CAT)
    assert info.value.issues[0].code == "statement_not_allowed"
    assert info.value.sql == "DROP TABLE orders"


def test_parse_error_points_near_the_problem() -> None:
    sql = "SELECT id FROM WHERE"
    (issue,) = validate(sql, dialect="duckdb", catalog=CAT)
    assert issue.code == "parse_error" and issue.span is not None
    assert sql[issue.span[0] : issue.span[1]] == "WHERE"


def test_sqlite_double_quoted_unknown_word_becomes_a_string() -> None:
    out = check('SELECT id FROM orders WHERE region = "north"', dialect="sqlite", catalog=CAT)
    assert "'north'" in out


def test_hidden_column_is_never_read_even_quoted_in_sqlite() -> None:
    assert codes('SELECT "phone" FROM customers', "sqlite") == ["sensitive_column"]


def test_cte_named_like_a_table_does_not_leak_into_other_scopes() -> None:
    ok = "WITH secrets AS (SELECT id FROM orders) SELECT id FROM secrets"
    assert codes(ok) == []
    bad = (
        "SELECT t.id FROM (WITH secrets AS (SELECT id FROM orders) SELECT id FROM secrets) t, "
        "secrets"
    )
    assert codes(bad) == ["unknown_table"]


def test_cte_reference_is_case_insensitive() -> None:
    assert codes("WITH Recent AS (SELECT id FROM orders) SELECT id FROM recent") == []


def test_recursive_cte_only_when_policy_allows() -> None:
    sql = (
        "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 3) "
        "SELECT n FROM r"
    )
    assert codes(sql) == ["recursive_cte"]
    assert codes(sql, policy=ExecutionPolicy(allow_recursive=True)) == []


def test_star_is_fine_without_hidden_columns_and_count_star_always() -> None:
    assert codes("SELECT * FROM orders") == []
    assert codes("SELECT count(*) FROM customers") == []
    assert codes("SELECT * FROM customers") == ["star_over_sensitive"]
    assert codes("SELECT o.* FROM orders o JOIN customers c ON c.id = o.id") == []


def test_derived_table_columns_are_checked() -> None:
    assert codes("SELECT x FROM (SELECT id AS x FROM orders) t") == []
    assert codes("SELECT y FROM (SELECT id AS x FROM orders) t") == ["unknown_column"]
    assert codes("SELECT t.region FROM (SELECT * FROM orders) t") == []
    assert codes("SELECT t.nope FROM (SELECT * FROM orders) t") == ["unknown_column"]


def test_schema_qualified_catalog_for_external_databases() -> None:
    cat = ExposedCatalog.from_mapping({"sales.orders": ["id"], "hr.staff": ["name"]})
    assert validate("SELECT id FROM sales.orders", dialect="postgres", catalog=cat) == []
    assert check("SELECT name FROM staff", dialect="postgres", catalog=cat).startswith(
        "SELECT name FROM hr.staff"
    )
    issues = validate("SELECT id FROM other.orders", dialect="postgres", catalog=cat)
    assert [i.code for i in issues] == ["unknown_table"]
    issues = validate("SELECT id FROM db.sales.orders", dialect="postgres", catalog=cat)
    assert [i.code for i in issues] == ["unknown_table"]


def test_too_long_sql_is_refused_before_parsing() -> None:
    sql = "SELECT id FROM orders WHERE " + " OR ".join(["id = 1"] * 5000)
    assert codes(sql) == ["too_long"]


def test_empty_sql() -> None:
    assert codes("  ;  ") == ["empty"]


def test_a_column_one_key_away_names_the_join_to_add() -> None:
    star = ExposedCatalog.from_mapping(
        {
            "fact_sales": ["order_id", "product_code", "amount"],
            "dim_product": ["id", "product_code", "category_code"],
            "dim_category": ["id", "category_code", "category_name"],
        }
    )
    sql = (
        "SELECT p.category_name, sum(s.amount) FROM fact_sales AS s "
        "JOIN dim_product AS p ON s.product_code = p.product_code GROUP BY 1"
    )
    (issue,) = validate(sql, dialect="duckdb", catalog=star)
    assert issue.message.endswith(
        "It is a column of dim_category, not of the tables in FROM: add JOIN dim_category "
        "ON dim_category.category_code = p.category_code and read the column there."
    )
    # two hops away, through the one table that shares a key with each: both joins named
    (far,) = validate("SELECT category_name FROM fact_sales", dialect="duckdb", catalog=star)
    assert far.message.endswith(
        "add JOIN dim_product ON dim_product.product_code = fact_sales.product_code "
        "JOIN dim_category ON dim_category.category_code = dim_product.category_code "
        "and read the column there."
    )
    # two tables could bridge (product or promotion): no guess; shared only by bare ids: none
    two = ExposedCatalog.from_mapping(
        {
            **{t.name: list(t.columns) for t in star.tables},
            "dim_promo": ["product_code", "category_code", "discount"],
        }
    )
    (either,) = validate("SELECT category_name FROM fact_sales", dialect="duckdb", catalog=two)
    assert either.message.endswith("join that table (on its key) and read the column there.")
    (ids,) = validate("SELECT o.name FROM orders AS o", dialect="duckdb", catalog=CAT)
    assert "add JOIN" not in ids.message
    # a shared column that merely ends in "id" is no key
    paid = ExposedCatalog.from_mapping({"orders": ["order_no", "paid"], "bills": ["paid", "memo"]})
    (memo,) = validate("SELECT o.memo FROM orders AS o", dialect="duckdb", catalog=paid)
    assert "add JOIN" not in memo.message


P10 = ExecutionPolicy(max_rows=10)


@pytest.mark.parametrize(
    ("dialect", "sql", "runs"),
    [
        (
            "postgres",
            "SELECT id FROM (SELECT id FROM orders ORDER BY amount LIMIT 5) AS t",
            "SELECT id FROM (SELECT id FROM data.orders ORDER BY amount LIMIT 5) AS t LIMIT 11",
        ),
        (
            "postgres",
            "(SELECT id FROM orders ORDER BY id LIMIT 5)",
            "(SELECT id FROM data.orders ORDER BY id LIMIT 5)",
        ),
        (
            "postgres",
            "((SELECT id FROM orders ORDER BY id LIMIT 500))",
            "((SELECT id FROM data.orders ORDER BY id LIMIT 11))",
        ),
        (
            "postgres",
            "(SELECT id FROM orders LIMIT 5) UNION ALL (SELECT id FROM orders LIMIT 5)",
            "(SELECT id FROM data.orders LIMIT 5) UNION ALL (SELECT id FROM data.orders LIMIT 5)"
            " LIMIT 11",
        ),
        ("sqlite", "SELECT id FROM orders LIMIT ALL", "SELECT id FROM data.orders LIMIT 11"),
        (
            "sqlite",
            "SELECT id FROM orders LIMIT ALL OFFSET 3",
            "SELECT id FROM data.orders LIMIT 11 OFFSET 3",
        ),
        (
            "sqlite",
            "SELECT id FROM (SELECT id FROM orders LIMIT ALL) AS t",
            "SELECT id FROM (SELECT id FROM data.orders LIMIT -1) AS t LIMIT 11",
        ),
        ("sqlite", "SELECT id FROM orders LIMIT -1", "SELECT id FROM data.orders LIMIT 11"),
    ],
)
def test_only_the_outermost_limit_is_clamped(dialect: str, sql: str, runs: str) -> None:
    assert check(sql, dialect=dialect, catalog=CAT, policy=P10) == runs


def test_limit_all_is_not_a_way_to_read_a_hidden_column_in_sqlite() -> None:
    assert codes('SELECT id FROM customers LIMIT "phone"', "sqlite") == ["sensitive_column"]


def test_duckdb_to_json_and_the_clock_are_allowed() -> None:
    assert codes("SELECT to_json({'id': id, 'r': region}) AS j FROM orders") == []
    assert codes("SELECT to_json(o.*) AS j FROM orders o") == []
    assert codes("SELECT to_json(c.*) AS j FROM customers c") == ["star_over_sensitive"]
    assert codes("SELECT id FROM orders WHERE now() > TIMESTAMP '2024-01-01'") == []


def test_pinned_today_is_what_now_means() -> None:
    import datetime as dt

    from tablerag.nl2sql.autofix import pin_today

    sql = pin_today("SELECT now() AS t, CURRENT_DATE AS d", dt.date(2026, 11, 15), dialect="duckdb")
    runs = check(sql, dialect="duckdb", catalog=CAT)
    assert runs.startswith("SELECT CAST('2026-11-15 00:00:00' AS TIMESTAMP) AS t, ")
    assert "NOW()" not in runs and "CURRENT_DATE" not in runs


def test_pivot_statement_is_refused_with_how_to_write_it() -> None:
    (issue,) = validate("PIVOT orders ON region USING sum(amount)", dialect="duckdb", catalog=CAT)
    assert issue.code == "statement_not_allowed"
    assert "FROM t PIVOT" in issue.message and "GROUP BY and CASE" in issue.message
    assert codes("SELECT * FROM orders PIVOT (sum(amount) FOR region IN ('a', 'b'))") == []
    assert codes("SELECT * FROM orders PIVOT (sum(amont) FOR region IN ('a'))") == [
        "unknown_column"
    ]


@pytest.mark.parametrize("dialect", ["postgres", "duckdb"])
@pytest.mark.parametrize(
    "sql",
    [
        "SELECT CAST(CAST(x AS oid) AS regclass) FROM generate_series(1, 20000) AS g(x)",
        "SELECT 'orders'::regclass AS r",
        "SELECT id::oid::text AS t FROM orders",
        "SELECT id FROM orders WHERE id::pg_catalog.regrole::text LIKE 'pg%'",
        "WITH r AS (SELECT x::regnamespace AS n FROM generate_series(1, 9) AS g(x)) "
        "SELECT n FROM r",
    ],
)
def test_casts_to_object_identifier_types_are_refused(dialect: str, sql: str) -> None:
    issues = validate(sql, dialect=dialect, catalog=CAT)
    assert issues and {i.code for i in issues} == {"catalog_cast"}
    for issue in issues:
        assert issue.message.startswith(
            "Casts to regclass/oid types read the database catalog; they are not allowed"
        )
        assert "cast to INTEGER, NUMERIC, TEXT or DATE instead" in issue.message
        assert issue.detail["type"] in {"oid", "regclass", "regrole", "regnamespace"}


def test_every_object_identifier_type_is_refused_once_per_cast() -> None:
    from tablerag.sql.functions import CATALOG_TYPES

    for kind in sorted(CATALOG_TYPES):
        sql = f"SELECT x::{kind} AS r FROM generate_series(1, 9) AS g(x)"
        issues = validate(sql, dialect="postgres", catalog=CAT)
        assert [(i.code, i.detail["type"]) for i in issues] == [("catalog_cast", kind)], sql


@pytest.mark.parametrize("dialect", ["postgres", "duckdb", "sqlite"])
@pytest.mark.parametrize(
    "name", ["to_regclass", "to_regrole", "to_regtype", "to_regnamespace", "regclass", "oid"]
)
def test_catalog_lookup_functions_are_refused_with_why(dialect: str, name: str) -> None:
    (issue,) = validate(f"SELECT {name}('orders') AS r", dialect=dialect, catalog=CAT)
    assert issue.code == "function_not_allowed"
    assert "looks names up in the database catalog" in issue.message


def test_no_catalog_lookup_is_on_an_allowlist() -> None:
    from tablerag.sql.functions import ALLOWED_ANONYMOUS, CATALOG_FUNCTION, CATALOG_TYPES

    for allowed in ALLOWED_ANONYMOUS.values():
        assert not {n for n in allowed if CATALOG_FUNCTION.match(n)}
        assert not allowed & CATALOG_TYPES


@pytest.mark.parametrize("dialect", ["postgres", "duckdb", "sqlite"])
@pytest.mark.parametrize(
    "sql",
    [
        "SELECT CAST(amount AS INTEGER) AS a, CAST(id AS TEXT) AS t FROM orders",
        "SELECT CAST(amount AS NUMERIC(10, 2)) AS a, CAST(id AS VARCHAR) AS v FROM orders",
        "SELECT id FROM orders WHERE CAST('2024-01-01' AS DATE) IS NOT NULL",
        "SELECT region::text AS r, amount::int AS a, '2024-01-01'::date AS d FROM orders",
    ],
)
def test_ordinary_casts_still_pass(dialect: str, sql: str) -> None:
    assert codes(sql, dialect) == []


def test_sqlite_has_no_object_identifier_types() -> None:
    # any type name is only an affinity in SQLite: CAST(x AS regclass) reads nothing
    assert codes("SELECT CAST(id AS regclass) AS r FROM orders", "sqlite") == []


def test_an_unknown_column_inside_a_cte_or_derived_table_is_caught() -> None:
    """A CTE's or derived table's own select list sees only its FROM: the column the outer
    query reads from it does not make it known inside (the engine's binder error reached the
    model instead of the gate's hint)."""
    assert codes("WITH r AS (SELECT nope FROM orders) SELECT * FROM r") == ["unknown_column"]
    assert codes("SELECT * FROM (SELECT nope FROM orders) r") == ["unknown_column"]
    assert codes("WITH r AS (SELECT nope FROM orders) SELECT nope FROM r") == ["unknown_column"]
    # correlated and lateral subqueries still read the enclosing query's columns
    assert codes("SELECT id FROM orders o WHERE amount > (SELECT 1 WHERE o.id > 0)") == []
    assert codes("SELECT * FROM orders o, LATERAL (SELECT o.amount * 2 AS x) s") == []
