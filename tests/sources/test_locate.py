"""Finding the source of a query by the tables it names (no engine is opened to decide)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tablerag.errors import SQLRejected
from tablerag.sources import SourceSet, group_sources, source_label
from tablerag.store.workspace import SourceRecord
from tablerag.types import ColumnInfo, TableInfo


def table(name: str, source: str, stored: bool = False) -> TableInfo:
    return TableInfo(name, source, (ColumnInfo("id", "INTEGER"),), 1, stored=stored)


def record(location: str, fmt: str) -> SourceRecord:
    return SourceRecord("id", location, "database", fmt, None, "", 0, 0, 0, (), ())


PG = "postgresql://reader@db:5432/sales"
LITE = "sqlite:////data/hr.db"
TABLES = [
    table("orders", "/in/orders.csv", stored=True),
    table("staff", PG),
    table("audit.events", PG),
    table("sales.staff", LITE),  # a native schema named like another source's label
    table("employees", LITE),
]
SOURCES = SourceSet(
    group_sources(Path("ws"), TABLES, [record(PG, "postgresql"), record(LITE, "sqlite")])
)


@pytest.mark.parametrize(
    ("sql", "label", "ran"),
    [
        pytest.param("SELECT * FROM orders", "files", "SELECT * FROM orders", id="file-table"),
        pytest.param("SELECT * FROM staff", "sales", "SELECT * FROM staff", id="only-one-staff"),
        pytest.param("SELECT * FROM sales.staff", "sales", "SELECT * FROM staff", id="label"),
        pytest.param(
            "SELECT * FROM audit.events e JOIN staff s ON s.id = e.id",
            "sales",
            "SELECT * FROM audit.events e JOIN staff s ON s.id = e.id",
            id="native-schema",
        ),
        pytest.param(
            "SELECT * FROM sales.audit.events",
            "sales",
            "SELECT * FROM audit.events",
            id="label-and-schema",
        ),
        pytest.param(
            "WITH employees AS (SELECT 1 AS id) SELECT * FROM employees JOIN staff USING (id)",
            "sales",
            None,
            id="cte-is-no-table",
        ),
        pytest.param("SELECT * FROM hr.employees", "hr", "SELECT * FROM employees", id="hr"),
        pytest.param(
            "SELECT * FROM hr.sales.staff", "hr", "SELECT * FROM sales.staff", id="label-first"
        ),
        pytest.param("SELECT * FROM unknown_t", "files", None, id="unknown-goes-to-the-gate"),
    ],
)
def test_the_source_of_a_query(sql: str, label: str, ran: str | None) -> None:
    found = SOURCES.locate(sql)
    assert found.source.label == label
    assert found.sql == (ran if ran is not None else sql)


def test_a_query_over_two_sources_is_refused() -> None:
    with pytest.raises(SQLRejected) as caught:
        SOURCES.locate("SELECT * FROM orders JOIN employees USING (id)")
    [issue] = caught.value.issues
    assert issue.code == "cross_source"
    assert "orders in the workspace's files" in issue.message
    assert "employees in hr (sqlite:////data/hr.db)" in issue.message


def test_labels_are_names_of_their_own() -> None:
    assert [s.label for s in SOURCES.sources] == ["files", "sales", "hr"]
    assert source_label("postgresql://u@h/files") == "files"  # made unique against "files"
    twice = group_sources(
        Path("ws"),
        [
            table("t", "sqlite:///a/x.db"),
            table("t", "sqlite:///b/x.db"),
            table("u", "/f.csv", True),
        ],
        [],
    )
    assert [s.label for s in twice] == ["files", "x", "x_2"]
