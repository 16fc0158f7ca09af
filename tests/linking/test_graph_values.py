"""Key inference, join trees, the value index and profiles on small hand-made catalogs."""

from __future__ import annotations

import time

from tablerag.linking.catalog import TableSample, build_catalog
from tablerag.linking.fkgraph import FKGraph, JoinEdge, infer_edges
from tablerag.linking.linker import LinkOptions, link
from tablerag.linking.profile import format_mix, profile_column, unit_of
from tablerag.linking.render import render_linked
from tablerag.linking.tiers import TierOptions
from tablerag.linking.values import ValueIndex
from tablerag.types import ColumnInfo, TableInfo


def table(name: str, *cols: tuple[str, str], pk: tuple[str, ...] = ()) -> TableInfo:
    return TableInfo(name, "test", tuple(ColumnInfo(c, t) for c, t in cols), 10, primary_key=pk)


SINGER = table("singer", ("singer_id", "INTEGER"), ("name", "VARCHAR"), ("country", "VARCHAR"))
CONCERT = table("concert", ("concert_id", "INTEGER"), ("concert_name", "VARCHAR"))
SIC = table("singer_in_concert", ("concert_id", "INTEGER"), ("singer_id", "INTEGER"))


def test_keys_are_inferred_from_names_types_and_containment() -> None:
    values = {
        ("singer", "singer_id"): frozenset({"1", "2", "3"}),
        ("concert", "concert_id"): frozenset({"1", "2"}),
        ("singer_in_concert", "singer_id"): frozenset({"1", "3"}),
        ("singer_in_concert", "concert_id"): frozenset({"1", "2"}),
    }
    unique = {("singer", "singer_id"): True, ("concert", "concert_id"): True}
    edges = infer_edges([SINGER, CONCERT, SIC], unique=unique, values=values)
    got = {(e.table, e.columns[0], e.ref_table) for e in edges}
    assert got == {
        ("singer_in_concert", "singer_id", "singer"),
        ("singer_in_concert", "concert_id", "concert"),
    }


def test_values_outside_the_key_veto_a_name_match() -> None:
    values = {
        ("singer", "singer_id"): frozenset({"1", "2"}),
        ("singer_in_concert", "singer_id"): frozenset({"7", "8", "9"}),
    }
    edges = infer_edges([SINGER, SIC], unique={("singer", "singer_id"): True}, values=values)
    assert not any(e.ref_table == "singer" for e in edges)


def test_report_tables_repeating_a_measure_column_are_not_joined_on_it() -> None:
    # two TAT-QA tables of one report: every measure is unique in 5 rows, and net sales repeat
    a = table("t_a", ("item", "VARCHAR"), ("fiscal_year_2018_net_sales", "BIGINT"))
    b = table("t_b", ("region", "VARCHAR"), ("fiscal_year_2018_net_sales", "BIGINT"))
    sales = frozenset({"120", "340", "560"})
    measure = [("t_a", "fiscal_year_2018_net_sales"), ("t_b", "fiscal_year_2018_net_sales")]
    edges = infer_edges(
        [a, b], unique=dict.fromkeys(measure, True), values=dict.fromkeys(measure, sales)
    )
    assert edges == []
    # a numeric column named as an id still refers, keys guessed or not
    shops = table("shops", ("shop_no", "BIGINT"), ("city", "VARCHAR"))
    sales_t = table("sales", ("shop_no", "BIGINT"), ("amount", "DOUBLE"))
    shop = [("shops", "shop_no"), ("sales", "shop_no")]
    edges = infer_edges(
        [shops, sales_t],
        unique={("shops", "shop_no"): True},
        values=dict.fromkeys(shop, frozenset({"1", "2"})),
    )
    assert [(e.table, e.ref_table) for e in edges] == [("sales", "shops")]


def test_chinese_column_naming_its_table_is_a_key() -> None:
    channel = table("电视频道", ("id", "text"), ("系列名", "text"), pk=("id",))
    series = table("电视连续剧", ("id", "number"), ("剧名", "text"), ("频道", "text"), pk=("id",))
    edges = infer_edges([channel, series])
    assert [(e.table, e.columns, e.ref_table, e.ref_columns) for e in edges] == [
        ("电视连续剧", ("频道",), "电视频道", ("id",))
    ]


def test_join_tree_takes_the_bridge_and_respects_max_hops() -> None:
    chain = ["a", "b", "c", "d", "e"]
    edges = [JoinEdge(x, ("k",), y, ("k",)) for x, y in zip(chain, chain[1:], strict=False)]
    graph = FKGraph(chain, edges)
    nodes, pairs = graph.join_tree(["a", "c"])
    assert nodes == ["a", "b", "c"] and len(pairs) == 2
    nodes, pairs = graph.join_tree(["a", "e"], max_hops=3)
    assert set(nodes) == {"a", "e"} and pairs == []


def test_value_index_matches_words_not_fragments() -> None:
    ix = ValueIndex()
    ix.add("pets", "pet_type", ["cat", "dog"])
    ix.add("region", "name", ["华东", "华北"])
    ix.freeze()
    assert [m.value for m in ix.search("Which students own cats?")] == ["cat"]
    assert ix.search("students in education") == []
    assert [(m.table, m.value) for m in ix.search("华东大区")] == [("region", "华东")]


def test_value_index_stays_fast_on_many_values() -> None:
    ix = ValueIndex()
    for t in range(200):
        ix.add(f"t{t}", "name", [f"item {t} {i} alpha" for i in range(300)])
    ix.add("airlines", "airline", ["JetBlue Airways"])
    ix.freeze()
    started = time.perf_counter()
    found = ix.search("which flights does jetblue airways operate")
    assert (time.perf_counter() - started) < 0.2
    assert found[0].table == "airlines" and found[0].how == "exact"


def test_profile_flags_mixed_months_and_units() -> None:
    shares, warning = format_mix(["2026-09"] * 9 + ["202609"])
    assert shares[0] == ("YYYY-MM", 0.9) and warning is not None
    assert format_mix(["2026-09", "2026-10"])[1] is None
    assert unit_of("price_fen") is not None and "cent" in str(unit_of("price_fen"))
    p = profile_column("t", ColumnInfo("status", "VARCHAR"), ["A", "B", "A", None, "A"], 5)
    assert p.enum_values == ("A", "B") and p.null_ratio == 0.2 and p.samples[0] == "A"


def test_linker_uses_values_and_keeps_join_keys() -> None:
    samples = {
        "singer": TableSample(
            (),
            {
                "singer_id": ("1", "2"),
                "name": ("Joe Sharp", "Rose White"),
                "country": ("France", "Netherlands"),
            },
        ),
        "concert": TableSample((), {"concert_id": ("1",), "concert_name": ("Auditions",)}),
        "singer_in_concert": TableSample((), {"singer_id": ("1",), "concert_id": ("1",)}),
    }
    catalog = build_catalog(
        [replace_pk(SINGER, "singer_id"), replace_pk(CONCERT, "concert_id"), SIC],
        samples=samples,
    )
    question = "Which concerts had performers from the Netherlands?"
    assert set(link(question, catalog).table_names) == {"concert", "singer", "singer_in_concert"}
    linked = link(question, catalog, options=LinkOptions(compact=TierOptions(demote=True)))
    # singer holds the value (shown in full, with samples); the bridge is listed compactly.
    assert set(linked.table_names) == {"concert", "singer"}
    assert [t.name for t in linked.compact] == ["singer_in_concert"]
    assert ("singer", "country") in linked.column_pairs
    assert ("singer_in_concert", "singer_id") in linked.shown_column_pairs
    assert linked.values[0].value == "netherlands"
    no_values = link(
        "Which concerts had performers from the Netherlands?",
        catalog,
        options=LinkOptions(use_values=False),
    )
    assert "singer" not in no_values.table_names
    text = render_linked(catalog, linked).text
    # The bridge's keys have the names of the keys they join: listed, not spelled out.
    assert text.endswith("\n-- also: singer_in_concert(concert_id, singer_id)")
    assert "-- joins:" not in text  # no join between the two tables shown in full


def replace_pk(t: TableInfo, pk: str) -> TableInfo:
    from dataclasses import replace

    return replace(t, primary_key=(pk,))


def test_follow_up_question_keeps_the_previous_turns_tables() -> None:
    catalog = build_catalog(
        [replace_pk(SINGER, "singer_id"), replace_pk(CONCERT, "concert_id"), SIC]
    )
    alone = link("Which ones are older than 30?", catalog)
    assert "singer" not in alone.table_names
    follow = link("Which ones are older than 30?", catalog, history=("List all singers",))
    assert "singer" in follow.table_names
    no_carry = link(
        "Which ones are older than 30?",
        catalog,
        history=("List all singers",),
        options=LinkOptions(history_seeds=False, history_weight=0.0),
    )
    assert "singer" not in no_carry.table_names


def test_every_equally_sure_key_between_two_tables_is_listed_in_column_order() -> None:
    from dataclasses import replace as with_

    from tablerag.types import ForeignKey

    student = table("Highschooler", ("ID", "INTEGER"), ("name", "VARCHAR"), pk=("ID",))
    friend = with_(
        table("Friend", ("student_id", "INTEGER"), ("friend_id", "INTEGER")),
        foreign_keys=(
            ForeignKey(("friend_id",), "Highschooler", ("ID",)),
            ForeignKey(("student_id",), "Highschooler", ("ID",)),
        ),
    )
    catalog = build_catalog([student, friend], infer_keys=False)
    linked = link("How many Friend rows does the Highschooler named Kyle have?", catalog)
    assert set(linked.table_names) == {"Friend", "Highschooler"}
    assert [e.condition() for e in linked.joins] == [
        "Friend.student_id = Highschooler.ID",
        "Friend.friend_id = Highschooler.ID",
    ]
    text = render_linked(catalog, linked).text
    assert text.endswith(
        "-- joins: Friend.student_id = Highschooler.ID; Friend.friend_id = Highschooler.ID"
    )


def test_a_documents_definition_table_is_quoted_not_queried_beside_data_tables() -> None:
    """A glossary cut from a document names the metric the question asks for; the data tables
    only hold its columns under other names: the data is linked, the glossary is not (its row
    stays among the value matches, for the definitions note to quote)."""
    from dataclasses import replace

    orders = table(
        "orders", ("order_id", "INTEGER"), ("status", "VARCHAR"), ("pay_amt", "BIGINT"),
        ("order_time", "TIMESTAMP"), pk=("order_id",),
    )  # fmt: skip
    glossary = replace(
        table("指标定义_table_1", ("指标", "VARCHAR"), ("计算公式", "VARCHAR")),
        source="/docs/指标定义.docx",
        origin="table 1",
    )
    samples = {
        "orders": TableSample((), {"status": ("PAID", "REFUND")}),
        "指标定义_table_1": TableSample(
            (), {"指标": ("销售额", "毛利"), "计算公式": ("SUM(pay_amt) 仅 PAID", "销售额 − 成本")}
        ),
    }
    question = "上个月的销售额是多少元？"
    linked = link(question, build_catalog([orders, glossary], samples=samples))
    assert linked.table_names == ("orders",)
    assert any(m.table == "指标定义_table_1" and m.value == "销售额" for m in linked.values)
    # a workspace of documents alone still answers from the glossary
    alone = link(question, build_catalog([glossary], samples=samples))
    assert alone.table_names == ("指标定义_table_1",)


def test_a_database_asked_in_place_is_linked_by_the_values_ingest_sampled() -> None:
    """A database's tables carry the values ingest sampled per column, not rows: the catalog
    indexes those, so a question naming one (手机数码) links the table that holds it."""
    from dataclasses import replace

    categories = replace(
        table("categories", ("category_id", "INTEGER"), ("category_name", "VARCHAR"),
              pk=("category_id",)),
        columns=(ColumnInfo("category_id", "INTEGER", samples=("1", "2")),
                 ColumnInfo("category_name", "VARCHAR", samples=("手机数码", "家用电器"))),
    )  # fmt: skip
    items = table("order_items", ("item_id", "INTEGER"), ("category_id", "INTEGER"),
                  ("qty", "INTEGER"))  # fmt: skip
    linked = link("手机数码类商品一共卖出多少件？", build_catalog([categories, items]))
    assert "categories" in linked.table_names
    assert [(m.table, m.value) for m in linked.values] == [("categories", "手机数码")]
