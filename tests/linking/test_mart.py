"""Linking on the sample sales mart: the cases the issue pins, with and without declared keys."""

from __future__ import annotations

from dataclasses import replace

import pytest

from tablerag.linking.cache import table_profiles, workspace_catalog, workspace_samples
from tablerag.linking.catalog import SchemaCatalog, build_catalog
from tablerag.linking.linker import LinkOptions, link
from tablerag.linking.render import render_full, render_linked
from tablerag.linking.tiers import TierOptions
from tablerag.store.glossary import read_glossary
from tablerag.store.workspace import Workspace

REFUND_TABLES = {"fact_refund", "fact_sales", "dim_product", "dim_category"}


@pytest.fixture(scope="module")
def declared(mart: Workspace) -> SchemaCatalog:
    return workspace_catalog(mart)


@pytest.fixture(scope="module")
def inferred(mart: Workspace) -> SchemaCatalog:
    """The mart with every declared primary and foreign key removed (its glossary kept)."""
    bare = [replace(t, primary_key=(), foreign_keys=()) for t in mart.tables()]
    return build_catalog(bare, samples=workspace_samples(mart), glossary=read_glossary(mart.con))


@pytest.mark.parametrize("which", ["declared", "inferred"])
def test_region_gross_profit_links_fact_region_by_value_and_month(
    which: str, request: pytest.FixtureRequest
) -> None:
    catalog: SchemaCatalog = request.getfixturevalue(which)
    linked = link("上月华东的毛利是多少", catalog)
    assert {"fact_sales", "dim_region"} <= set(linked.table_names)
    region = linked.table("dim_region")
    assert region is not None
    assert any("value '华东'" in r for c in region.columns for r in c.reasons)
    assert ("fact_sales", "stat_month") in linked.column_pairs
    assert {("fact_sales", "net_amt"), ("fact_sales", "cost_amt")} <= linked.column_pairs
    assert "month" in linked.time_grains
    text = render_linked(catalog, linked).text
    month_line = next(
        ln for ln in text.splitlines() if ln.strip().startswith("stat_month") and "YYYYMM" in ln
    )
    assert "WARNING mixed formats" in month_line
    assert any(
        e.condition() == "fact_sales.region_code = dim_region.region_code" for e in linked.joins
    )


@pytest.mark.parametrize("which", ["declared", "inferred"])
def test_refund_by_category_brings_the_bridge_tables(
    which: str, request: pytest.FixtureRequest
) -> None:
    catalog: SchemaCatalog = request.getfixturevalue(which)
    linked = link("各品类的退款金额排名", catalog)
    assert set(linked.table_names) >= REFUND_TABLES  # every linked table in full by default
    # With demote on, the bridge is shown compactly: its keys listed, and how it joins.
    demoted = link(
        "各品类的退款金额排名", catalog, options=LinkOptions(compact=TierOptions(demote=True))
    )
    assert set(demoted.shown_table_names) >= REFUND_TABLES
    bridge = next(t for t in demoted.compact if t.name == "dim_product")
    assert {"product_code", "category_code"} <= set(bridge.columns) and bridge.via
    joined = {frozenset((e.table, e.ref_table)) for e in linked.joins}
    assert frozenset(("fact_refund", "fact_sales")) in joined
    assert frozenset(("fact_sales", "dim_product")) in joined
    assert frozenset(("dim_product", "dim_category")) in joined
    assert ("fact_refund", "refund_amt") in linked.column_pairs
    # the keys the joins need survive column pruning (or are listed in the compact tier)
    assert {("fact_sales", "product_code"), ("dim_product", "category_code")} <= (
        linked.shown_column_pairs
    )


@pytest.mark.parametrize("which", ["declared", "inferred"])
@pytest.mark.parametrize(
    "question", ["各品类上个月的销售额", "上个月退货率最高的三个品类，按退货政策分别应该怎么处理？"]
)
def test_the_table_that_names_what_the_question_groups_by_is_linked(
    which: str, question: str, request: pytest.FixtureRequest
) -> None:
    """品类 scores the category table far below the facts (one word against three), but only its
    label column, category_name ("品类名称"), can say which category; the product table only
    holds its key."""
    catalog: SchemaCatalog = request.getfixturevalue(which)
    linked = link(question, catalog)
    assert {"fact_sales", "dim_product", "dim_category"} <= set(linked.table_names)
    assert ("dim_category", "category_name") in linked.column_pairs
    assert frozenset(("dim_product", "dim_category")) in {
        frozenset((e.table, e.ref_table)) for e in linked.joins
    }


def test_a_question_that_names_no_label_adds_no_table(declared: SchemaCatalog) -> None:
    assert set(link("上月华东的毛利是多少", declared).table_names) == {
        "fact_sales",
        "dim_region",
        "dim_date",
    }


def test_inferred_keys_have_evidence_and_cover_the_mart(inferred: SchemaCatalog) -> None:
    edges = {(e.table, e.columns, e.ref_table, e.ref_columns): e for e in inferred.edges}
    expected = [
        ("fact_sales", ("product_code",), "dim_product", ("product_code",)),
        ("fact_sales", ("region_code",), "dim_region", ("region_code",)),
        ("fact_sales", ("channel_code",), "dim_channel", ("channel_code",)),
        ("fact_sales", ("emp_code",), "dim_employee", ("emp_code",)),
        ("dim_product", ("category_code",), "dim_category", ("category_code",)),
        ("dim_employee", ("region_code",), "dim_region", ("region_code",)),
        ("fact_refund", ("reason_code",), "dim_refund_reason", ("reason_code",)),
        ("fact_refund", ("order_id", "line_no"), "fact_sales", ("order_id", "line_no")),
        ("dim_region", ("parent_code",), "dim_region", ("region_code",)),
    ]
    for key in expected:
        assert key in edges, key
        edge = edges[key]
        assert not edge.declared and 0.5 <= edge.confidence <= 1.0
        assert any("values found" in ev for ev in edge.evidence)
    assert inferred.graph.self_references("dim_region")
    assert not any(
        e.table == "fact_sales" and e.ref_table == "dim_refund_reason" for e in inferred.edges
    )


def test_sensitive_column_never_reaches_the_model(declared: SchemaCatalog) -> None:
    assert ("dim_employee", "mobile") not in declared.profiles
    full = render_full(declared).text
    assert "mobile" not in full
    linked = link("华东有哪些销售人员，手机号是多少", declared)
    assert "dim_employee" in linked.shown_table_names
    text = render_linked(declared, linked).text
    assert "mobile" not in text
    assert all(c != "mobile" for t, c in linked.shown_column_pairs)


def test_profiles_know_units_grains_and_enums(declared: SchemaCatalog) -> None:
    cost = declared.profile("fact_sales", "cost_amt")
    assert cost is not None and cost.unit is not None and "分" in cost.unit
    month = declared.profile("fact_sales", "stat_month")
    assert month is not None and month.time_grain == "month"
    assert {f for f, _ in month.formats} == {"YYYY-MM", "YYYYMM"}
    status = declared.profile("fact_sales", "status")
    assert status is not None and status.enum_values == ("PAID", "REFUND", "UNPAID")
    assert month.exact and month.row_count > 1000


def test_linked_prompt_is_a_fraction_of_the_full_schema(declared: SchemaCatalog) -> None:
    linked = link("各品类的退款金额排名", declared)
    assert render_linked(declared, linked).tokens < 0.5 * render_full(declared).tokens


def test_profiles_are_cached_until_the_table_changes(mart: Workspace) -> None:
    workspace_samples(mart)
    rows = mart.con.execute(
        "SELECT table_name, fingerprint FROM tablerag.profiles ORDER BY 1"
    ).fetchall()
    assert "fact_sales" in {r[0] for r in rows}
    mart.con.execute("UPDATE tablerag.profiles SET profiles = '[]' WHERE table_name = 'dim_date'")
    cached = workspace_samples(mart)
    assert cached["dim_date"].profiles == ()  # read from the cache, not profiled again
    mart.con.execute(
        "UPDATE tablerag.profiles SET fingerprint = 'stale' WHERE table_name = 'dim_date'"
    )
    fresh = workspace_samples(mart)
    assert [p.column for p in fresh["dim_date"].profiles] == [
        "stat_month",
        "year",
        "quarter",
        "month",
    ]


def test_table_profiles_for_the_schema_command(mart: Workspace) -> None:
    profiles = {p.column: p for p in table_profiles(mart, "dim_employee")}
    assert "mobile" not in profiles
    assert profiles["emp_code"].is_unique and profiles["emp_code"].null_ratio == 0.0
    assert profiles["hire_date"].time_grain == "day"


def test_document_tables_rank_below_the_mart_tables(declared: SchemaCatalog) -> None:
    # 华东 is a value of dim_region and of the targets table in 区域销售制度.docx; 毛利 is a row
    # of the metric table in 指标口径.md: the mart tables are the ones to query.
    linked = link("上月华东的毛利是多少", declared)
    assert linked.table_names[:2] == ("fact_sales", "dim_region")
    assert "区域销售制度_table_1" not in linked.table_names
    assert "指标口径_table_1" not in linked.table_names
    refund = link("退货率超过10%的商品根据退货政策应该怎么处理", declared)
    assert not {"sales_handbook_table_2", "指标口径_table_1"} & set(refund.table_names)
    assert refund.table_names[0] in ("fact_refund", "fact_sales")


def test_a_document_table_is_linked_when_the_question_names_its_document(
    declared: SchemaCatalog,
) -> None:
    linked = link("按区域销售制度，华东第四季度的目标是多少", declared)
    assert linked.table_names[0] == "区域销售制度_table_1"
    table = linked.table("区域销售制度_table_1")
    assert table is not None and "document table" not in " ".join(table.reasons)
    # Only a document table matches: it is still found, weighting changes the order only.
    alone = link("第四季度的目标", declared)
    assert "区域销售制度_table_1" in alone.shown_table_names
