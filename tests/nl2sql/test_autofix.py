"""The gate's own repair: a column under the wrong alias moves to the one FROM item that has it."""

from __future__ import annotations

from tablerag.nl2sql.autofix import requalify
from tablerag.sql.exposed import ExposedCatalog
from tablerag.sql.validate import validate

CAT = ExposedCatalog.from_mapping(
    {
        "people": ["People_ID", "Name", "Height"],
        "poker_player": ["Poker_Player_ID", "People_ID", "Earnings"],
        "club": ["Club_ID", "Name"],
        "member": ["People_ID", "Club_ID"],
    }
)


def fix(sql: str):  # type: ignore[no-untyped-def]
    return requalify(sql, validate(sql, dialect="sqlite", catalog=CAT), dialect="sqlite")


def test_wrong_alias_is_moved_and_the_result_passes_the_gate() -> None:
    sql = (
        "SELECT T1.Name FROM poker_player AS T1 JOIN people AS T2 "
        "ON T1.People_ID = T2.People_ID WHERE T1.Earnings > 300000 ORDER BY T1.Name"
    )
    fixed = fix(sql)
    assert fixed is not None
    assert fixed.sql == (
        "SELECT T2.Name FROM poker_player AS T1 JOIN people AS T2 "
        "ON T1.People_ID = T2.People_ID WHERE T1.Earnings > 300000 ORDER BY T2.Name"
    )
    assert fixed.note.startswith("tablerag wrote T2.Name for T1.Name")
    assert validate(fixed.sql, dialect="sqlite", catalog=CAT) == []


def test_only_the_refused_reference_moves_when_an_alias_is_reused_in_a_subquery() -> None:
    sql = (
        "SELECT T1.Earnings FROM poker_player AS T1 WHERE T1.People_ID IN "
        "(SELECT T1.People_ID FROM people AS T2 JOIN member AS T1 ON T2.People_ID = T1.People_ID "
        "WHERE T1.Height > 180)"
    )
    fixed = fix(sql)
    assert fixed is not None
    assert "WHERE T2.Height > 180" in fixed.sql
    assert fixed.sql.startswith("SELECT T1.Earnings FROM poker_player AS T1 WHERE T1.People_ID")
    assert validate(fixed.sql, dialect="sqlite", catalog=CAT) == []


def test_nothing_is_guessed_when_two_from_items_have_the_column() -> None:
    sql = (
        "SELECT m.Name FROM member AS m JOIN people AS p ON m.People_ID = p.People_ID "
        "JOIN club AS c ON m.Club_ID = c.Club_ID"
    )
    assert validate(sql, dialect="sqlite", catalog=CAT)  # refused: p.Name or c.Name?
    assert fix(sql) is None


def test_nothing_is_fixed_when_another_problem_needs_the_model() -> None:
    wrong_alias_and_unknown = (
        "SELECT T1.Name, T2.Salary FROM poker_player AS T1 JOIN people AS T2 "
        "ON T1.People_ID = T2.People_ID"
    )
    assert fix(wrong_alias_and_unknown) is None
    assert fix("SELECT Height FROM poker_player") is None  # needs a join: the model's call
    assert fix("DELETE FROM people") is None
    assert requalify("SELECT 1", [], dialect="sqlite") is None


def test_a_join_the_move_would_make_compare_a_column_with_itself_is_left_to_the_model() -> None:
    # club has no People_ID: the member table between them is missing, not the alias wrong
    sql = "SELECT c.Name FROM people AS p JOIN club AS c ON p.People_ID = c.People_ID"
    issues = validate(sql, dialect="sqlite", catalog=CAT)
    assert [i.detail.get("requalify") for i in issues] == ["p"]
    assert fix(sql) is None


def test_an_added_join_qualifies_the_bare_key_it_would_make_ambiguous() -> None:
    import sqlite3

    from tablerag.nl2sql.autofix import add_join

    likes = ExposedCatalog.from_mapping(
        {"likes": ["student_id", "liked_id"], "highschooler": ["student_id", "name"]}
    )
    sql = "SELECT student_id, name FROM likes GROUP BY student_id HAVING COUNT(*) >= 2"
    issues = validate(sql, dialect="sqlite", catalog=likes)
    fixed = add_join(sql, issues, dialect="sqlite")
    assert fixed is not None
    assert fixed.sql == (
        "SELECT likes.student_id, highschooler.name FROM likes JOIN highschooler AS highschooler "
        "ON highschooler.student_id = likes.student_id GROUP BY likes.student_id "
        "HAVING COUNT(*) >= 2"
    )
    con = sqlite3.connect(":memory:")
    con.execute("CREATE TABLE likes (student_id INT, liked_id INT)")
    con.execute("CREATE TABLE highschooler (student_id INT, name TEXT)")
    con.executemany("INSERT INTO likes VALUES (?, ?)", [(1, 2), (1, 3), (2, 1)])
    con.executemany("INSERT INTO highschooler VALUES (?, ?)", [(1, "Kyle"), (2, "Ann")])
    assert con.execute(fixed.sql).fetchall() == [(1, "Kyle")]


def test_an_added_join_to_a_table_whose_name_needs_quotes_runs() -> None:
    import sqlite3

    from tablerag.nl2sql.autofix import add_join

    cat = ExposedCatalog.from_mapping(
        {"销售 明细": ["商品编码", "金额"], "商品": ["商品编码", "名称"]}
    )
    sql = 'SELECT s.名称, SUM(s.金额) FROM "销售 明细" AS s GROUP BY s.名称'
    fixed = add_join(sql, validate(sql, dialect="sqlite", catalog=cat), dialect="sqlite")
    assert fixed is not None
    assert 'JOIN "商品" AS "商品" ON "商品"."商品编码" = s."商品编码"' in fixed.sql
    con = sqlite3.connect(":memory:")
    con.execute('CREATE TABLE "销售 明细" (商品编码 TEXT, 金额 REAL)')
    con.execute("CREATE TABLE 商品 (商品编码 TEXT, 名称 TEXT)")
    con.execute("INSERT INTO \"销售 明细\" VALUES ('A', 2), ('A', 3)")
    con.execute("INSERT INTO 商品 VALUES ('A', '手机')")
    assert con.execute(fixed.sql).fetchall() == [("手机", 5.0)]


def test_a_column_two_keys_away_is_read_through_the_bridge_table() -> None:
    import sqlite3

    from tablerag.nl2sql.autofix import add_join

    star = ExposedCatalog.from_mapping(
        {
            "fact_refund": ["refund_id", "order_id"],
            "fact_sales": ["order_id", "product_code"],
            "dim_product": ["product_code", "category_code"],
            "dim_category": ["category_code", "category_name"],
        }
    )
    sql = (
        "SELECT category_name, COUNT(r.refund_id) FROM fact_refund AS r JOIN fact_sales AS s "
        "ON r.order_id = s.order_id GROUP BY category_name"
    )
    fixed = add_join(sql, validate(sql, dialect="sqlite", catalog=star), dialect="sqlite")
    assert fixed is not None
    assert fixed.note == (
        "tablerag added JOIN dim_product AS dim_product ON dim_product.product_code = "
        "s.product_code JOIN dim_category AS dim_category ON dim_category.category_code = "
        "dim_product.category_code for category_name"
    )
    assert validate(fixed.sql, dialect="sqlite", catalog=star) == []
    con = sqlite3.connect(":memory:")
    for table in star.tables:
        con.execute(f"CREATE TABLE {table.name} ({', '.join(table.columns)})")
    con.executemany("INSERT INTO fact_refund VALUES (?, ?)", [(1, 10), (2, 11), (3, 12)])
    con.executemany("INSERT INTO fact_sales VALUES (?, ?)", [(10, "P1"), (11, "P2"), (12, "P1")])
    con.executemany("INSERT INTO dim_product VALUES (?, ?)", [("P1", "C1"), ("P2", "C2")])
    con.executemany("INSERT INTO dim_category VALUES (?, ?)", [("C1", "手机"), ("C2", "家电")])
    assert sorted(con.execute(fixed.sql).fetchall()) == [("家电", 1), ("手机", 2)]
