"""The two tiers of a linked schema: tables shown in full, and the compact "maybe" tier."""

from __future__ import annotations

from dataclasses import replace

from tablerag.linking.catalog import SchemaCatalog, build_catalog
from tablerag.linking.linker import LinkOptions, link
from tablerag.linking.render import render_linked
from tablerag.linking.tiers import TierOptions
from tablerag.nl2sql.schema_context import schema_context
from tablerag.types import ColumnInfo, TableInfo

TIERS = LinkOptions(compact=TierOptions(max_tables=2, small_database=6))
"""The compact tier turned on (it is off by default)."""


def table(name: str, *cols: str, pk: tuple[str, ...] = ()) -> TableInfo:
    return TableInfo(name, "t", tuple(ColumnInfo(c, "text") for c in cols), 0, primary_key=pk)


STATION = table("电视台", "id", "名称", "所属省份", pk=("id",))
SERIES = table(
    "电视剧", "电视剧id", "剧名", "电视台id", "出品公司", "集数", "首播时间", pk=("电视剧id",)
)
RATINGS = table("电视剧收视", "电视剧id", "时间段", "收视率")


def tv() -> SchemaCatalog:
    return build_catalog([STATION, SERIES, RATINGS], redact=False)


def test_a_dimension_one_key_away_is_listed_by_name_columns_and_join() -> None:
    catalog = tv()
    linked = link("庆余年的出品公司是哪家？", catalog, options=TIERS)
    assert linked.table_names == ("电视剧",)
    station = next(t for t in linked.compact if t.name == "电视台")
    assert station.columns == ("id", "名称", "所属省份") and station.via
    text = render_linked(catalog, linked).text
    assert "CREATE TABLE 电视台" not in text  # no types, comments or samples for it
    assert "-- also: 电视台(id = 电视剧.电视台id, 名称, 所属省份)" in text.splitlines()
    assert ("电视台", "名称") in linked.shown_column_pairs
    assert ("电视台", "名称") not in linked.column_pairs
    assert linked.shown_table_names[0] == "电视剧"


def test_no_compact_tier_when_turned_off() -> None:
    off = LinkOptions(compact=TierOptions(max_tables=0, full_ratio=0.0, small_database=0))
    linked = link("庆余年的出品公司是哪家？", tv(), options=off)
    assert linked.compact == ()
    assert "-- also:" not in render_linked(tv(), linked).text


def test_the_line_between_the_tiers_follows_full_ratio() -> None:
    catalog = tv()
    question = "每部电视剧的收视率和电视台名称"
    assert not link(question, catalog).compact or all(
        t.name not in ("电视台", "电视剧收视") for t in link(question, catalog).compact
    ), "by default every linked table is shown in full"
    default = link(question, catalog, options=LinkOptions(compact=TierOptions(demote=True)))
    weaker = [t.name for t in default.compact if t.name in ("电视台", "电视剧收视")]
    assert weaker, "a weaker seed is shown compactly with demote on"
    loose = link(
        question, catalog, options=LinkOptions(compact=TierOptions(demote=True, full_ratio=0.0))
    )
    assert set(weaker) <= set(loose.table_names)
    assert set(default.shown_table_names) <= set(loose.shown_table_names)


def test_a_small_database_without_keys_fills_the_free_places() -> None:
    flights = table("航班", "航班号", "起点", "终点", "票价")
    airports = table("机场", "代码", "名称", "城市")
    airlines = table("航空公司", "简称", "全称", "国家")
    catalog = build_catalog([flights, airports, airlines], redact=False)
    assert not catalog.edges
    linked = link("列出所有航班号", catalog, options=TIERS)
    assert linked.table_names == ("航班",)
    assert {t.name for t in linked.compact} == {"机场", "航空公司"}
    assert all("small database" in t.reasons[0] for t in linked.compact)
    big = LinkOptions(compact=TierOptions(small_database=2))
    assert link("列出所有航班号", catalog, options=big).compact == ()


def test_places_are_counted_per_database_of_a_merged_catalog() -> None:
    tables = [
        table(f"{db}.{name}", *cols, pk=pk)
        for db in ("a", "b")
        for name, cols, pk in (
            ("singer", ("singer_id", "name", "age"), ("singer_id",)),
            ("song", ("song_id", "title", "singer_id"), ("song_id",)),
            ("album", ("album_id", "title", "singer_id"), ("album_id",)),
            ("tour", ("tour_id", "city", "singer_id"), ("tour_id",)),
        )
    ]
    catalog = build_catalog(tables, redact=False)
    one = LinkOptions(compact=TierOptions(max_tables=1, small_database=0))
    linked = link("singer age", catalog, options=one)
    assert {t.split(".")[0] for t in linked.table_names} == {"a", "b"}
    per_db: dict[str, int] = {}
    for t in linked.compact:
        per_db[t.name.split(".")[0]] = per_db.get(t.name.split(".")[0], 0) + 1
    assert per_db == {"a": 1, "b": 1}


def test_a_wide_table_lists_its_keys_label_and_matched_columns_first() -> None:
    wide = table(
        "产品", "产品id", "产品名称", *(f"属性{i}" for i in range(8)), "价格", pk=("产品id",)
    )
    sales = table("销售", "销售id", "产品id", "数量", pk=("销售id",))
    catalog = build_catalog([wide, sales], redact=False)
    opts = LinkOptions(compact=TierOptions(max_columns=3, max_tables=2, small_database=6))
    linked = link("每笔销售的数量", catalog, options=opts)
    assert linked.table_names == ("销售",)
    product = next(t for t in linked.compact if t.name == "产品")
    assert {"产品id", "产品名称"} <= set(product.columns) and len(product.columns) == 3
    assert product.more == 8
    line = next(ln for ln in render_linked(catalog, linked).text.splitlines() if "产品(" in ln)
    assert line.endswith(", …)")


def test_unkept_columns_of_a_small_table_are_listed_by_name() -> None:
    catalog = tv()
    linked = link("庆余年的出品公司是哪家？", catalog, options=TIERS)
    series = linked.table("电视剧")
    assert series is not None and "集数" in series.other_columns
    assert "集数" not in {c.name for c in series.columns}
    text = render_linked(catalog, linked).text
    assert "  -- other columns: " in text and "集数" in text
    assert ("电视剧", "集数") in linked.shown_column_pairs
    none = link(
        "庆余年的出品公司是哪家？", catalog, options=LinkOptions(list_other_columns_up_to=0)
    )
    assert none.tables[0].other_columns == ()


def test_the_prompt_gets_the_compact_tier_and_loses_it_first_under_a_tight_budget() -> None:
    catalog = tv()
    question = "庆余年的出品公司是哪家？"
    roomy = schema_context(question, catalog, max_tokens=10_000, options=TIERS)
    assert "-- also: 电视台(" in roomy.text
    assert "电视台" in roomy.tables and roomy.tables[0] == "电视剧"
    linked = link(question, catalog, options=TIERS)
    bare = render_linked(catalog, replace(linked, compact=()), samples=False).tokens
    assert bare < render_linked(catalog, linked, samples=False).tokens
    tight = schema_context(question, catalog, max_tokens=bare, options=TIERS)
    assert "-- also:" not in tight.text and tight.tables == ("电视剧",)
    assert "电视台" in tight.dropped and tight.tokens <= bare
