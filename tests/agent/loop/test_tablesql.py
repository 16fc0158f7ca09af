"""The loop's table set: retrieved tables first, then at most a few of the linker's."""

from __future__ import annotations

from pathlib import Path

import duckdb

from tablerag.agent.loop.tablesql import LINKED_EXTRA, table_schemas
from tablerag.linking.catalog import build_catalog
from tablerag.linking.rows import DuckDBRows
from tablerag.sql.engines import open_engine
from tablerag.types import ColumnInfo, TableInfo


def report_table(name: str) -> TableInfo:
    """One report's table: every report has the same columns."""
    columns = (
        ColumnInfo("item", "VARCHAR"),
        ColumnInfo("col_2019", "DOUBLE"),
        ColumnInfo("col_2018", "DOUBLE"),
    )
    return TableInfo(name, f"{name}.csv", columns, 5)


def test_look_alike_tables_the_linker_matches_are_capped() -> None:
    catalog = build_catalog([report_table(f"t_{i}") for i in range(8)], infer_keys=False)
    question = "What was the change in revenue between 2019 and 2018?"
    schema = table_schemas(question, catalog, ["t_5"], max_tokens=2000)
    assert "t_5" in schema.tables
    assert len(schema.tables) <= 1 + LINKED_EXTRA
    wide = table_schemas(question, catalog, ["t_5"], max_tokens=2000, linked_extra=8)
    assert len(wide.tables) > len(schema.tables)


def test_a_small_report_tables_row_labels_are_listed_in_full(tmp_path: Path) -> None:
    labels = [f"Line item number {i} of the income tax reconciliation" for i in range(8)]
    path = tmp_path / "report.duckdb"
    con = duckdb.connect(str(path))
    con.execute("CREATE TABLE report (item VARCHAR, col_2019 DOUBLE)")
    con.executemany(
        "INSERT INTO report VALUES (?, ?)", [(v, float(i)) for i, v in enumerate(labels)]
    )
    columns = (ColumnInfo("item", "VARCHAR"), ColumnInfo("col_2019", "DOUBLE"))
    tables = [TableInfo("report", "report.csv", columns, len(labels))]
    catalog = build_catalog(tables, rows=DuckDBRows(con, schema="main"))
    con.close()
    with open_engine(path, catalog=tables) as engine:
        schema = table_schemas(
            "What was it in 2019?", catalog, ["report"], max_tokens=700, engine=engine
        )
    note = next(n for n in schema.notes if n.startswith("-- report.item (all rows): "))
    assert all(f"'{v}'" in note for v in labels)
    assert schema.text.endswith(note)


def test_a_table_of_year_columns_gets_a_note_on_change_and_counting() -> None:
    from tablerag.agent.loop.tablesql import year_notes
    from tablerag.linking.catalog import build_catalog
    from tablerag.types import ColumnInfo, TableInfo

    def table(name: str, *columns: tuple[str, str]) -> TableInfo:
        return TableInfo(name, f"{name}.csv", tuple(ColumnInfo(c, t) for c, t in columns), 4)

    wide = table("report", ("item", "VARCHAR"), ("col_2018", "BIGINT"), ("col_2019", "BIGINT"))
    twice = table(
        "segments",
        ("item", "VARCHAR"),
        ("revenues_2019", "BIGINT"),
        ("col_2018", "BIGINT"),
        ("income_2019", "BIGINT"),
        ("col_2018_2", "BIGINT"),
    )
    long = table("sales", ("year", "INTEGER"), ("amount", "DOUBLE"))
    text = table("labels", ("col_2019", "VARCHAR"), ("col_2018", "VARCHAR"))
    catalog = build_catalog([wide, twice, long, text])
    (note,) = year_notes(catalog, ["report", "segments"])
    assert "the change from 2018 to 2019 is col_2019 - col_2018" in note
    wider = table("r3", ("col_2017", "BIGINT"), ("col_2018", "BIGINT"), ("col_2019", "BIGINT"))
    (asked,) = year_notes(build_catalog([wider]), ["r3"], "Change from 2017 to 2018?")
    assert "the change from 2017 to 2018 is col_2018 - col_2017" in asked
    assert not year_notes(catalog, ["sales", "labels"])
    # only the first two retrieved tables are annotated, like the row labels
    assert year_notes(catalog, ["sales", "labels", "report"]) == []


def test_the_star_a_question_names_comes_whole_with_the_glossarys_definition(
    sample_ws: Path,
) -> None:
    # The best chunk was the README's file list; the question needs refunds, sales and the
    # category names (two tables away), and 退货率 as 指标口径.md defines it.
    from tablerag.linking.cache import workspace_catalog
    from tablerag.workspace import Workspace

    with Workspace.open(sample_ws, create=False) as ws:
        tables = ws.tables()
        catalog = workspace_catalog(ws)
    question = "上个月退货率最高的三个品类"
    with open_engine(sample_ws, catalog=tables) as engine:
        schema = table_schemas(question, catalog, ["readme_table_2"], max_tokens=700, engine=engine)
    assert {"fact_refund", "fact_sales", "dim_product", "dim_category"} <= set(schema.tables)
    assert schema.tokens <= 700
    (definition,) = [n for n in schema.notes if n.startswith("-- 指标口径.md: ")]
    assert "退货率" in definition and "已支付订单数" in definition
    assert definition in schema.text
