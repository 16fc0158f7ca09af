"""Choosing the database in a catalog of many (``<db>.<table>`` names): evidence as a whole."""

from __future__ import annotations

import pytest

from tablerag.linking.catalog import SchemaCatalog, build_catalog, combine
from tablerag.linking.databases import (
    DatabaseOptions,
    database_of,
    database_scores,
    vocabulary,
)
from tablerag.linking.linker import LinkOptions, link
from tablerag.linking.tiers import TierOptions
from tablerag.linking.values import ValueMatch
from tablerag.types import ColumnInfo, TableInfo

OFF = LinkOptions(database_focus=0.0, max_databases=0)
"""The linker without database selection (every database competes table by table)."""


def table(name: str, *cols: str, pk: tuple[str, ...] = ()) -> TableInfo:
    return TableInfo(name, "t", tuple(ColumnInfo(c, "text") for c in cols), 0, primary_key=pk)


DATABASES = {
    "poker": [
        table("poker.人", "人ID", "姓名", "国籍", "身高", pk=("人ID",)),
        table("poker.扑克玩家", "扑克玩家ID", "人ID", "收入", "最好成绩", pk=("扑克玩家ID",)),
    ],
    "metro": [
        table("metro.城市", "城市id", "城市名称", "所属省份", pk=("城市id",)),
        table("metro.城市地铁日均客运量", "城市id", "日均客运量", "每公里运营成本"),
        table("metro.城市地铁里程", "城市id", "地铁运营里程", "在建里程", "规划里程"),
    ],
    "hr": [
        table("hr.员工", "员工ID", "姓名", "年龄", "城市", pk=("员工ID",)),
        table("hr.商店", "商店ID", "名称", "位置", "人数", pk=("商店ID",)),
    ],
    "wta": [
        table("wta.球员", "球员ID", "名", "姓", "国家", pk=("球员ID",)),
        table("wta.排名", "排名日期", "排名", "球员ID", "排名积分"),
    ],
    "books": [
        table("books.网络小说", "网络小说id", "名称", "作者", "类型", pk=("网络小说id",)),
        table("books.畅销榜", "网络小说id", "周排名", "月排名", "总排名"),
    ],
}


def merged(*names: str) -> SchemaCatalog:
    """The databases ``names`` (all by default) in one catalog, keys inferred per database."""
    chosen = names or tuple(DATABASES)
    return combine([build_catalog(DATABASES[n], redact=False) for n in chosen])


def databases_shown(linked_names: tuple[str, ...]) -> set[str]:
    return {database_of(t) for t in linked_names}


def test_several_rare_words_beat_one_generic_table_name() -> None:
    catalog = merged()
    question = "成都每天有多少人坐地铁呢？"
    scores = database_scores(catalog, question)
    assert max(scores, key=lambda db: scores[db]) == "metro"
    # Without database selection, the table called 人 wins on "人" alone.
    assert link(question, catalog, options=OFF).table_names[0] == "poker.人"
    tiers = LinkOptions(compact=TierOptions(max_tables=2, small_database=6))
    linked = link(question, catalog, options=tiers)
    assert database_of(linked.table_names[0]) == "metro"
    assert "metro.城市地铁日均客运量" in linked.shown_table_names
    demoted = link(question, catalog, options=LinkOptions(compact=TierOptions(demote=True)))
    assert not any(database_of(t) == "poker" for t in demoted.table_names)  # none in full
    alone = link(question, catalog, options=LinkOptions(max_databases=1))
    assert databases_shown(alone.shown_table_names) == {"metro"}
    # The scaling alone (every database allowed) already drops the generic match.
    scaled = link(question, catalog, options=LinkOptions(max_databases=0))
    assert "poker" not in databases_shown(scaled.shown_table_names)


def test_one_generic_word_weighs_less_than_a_word_found_in_one_database_only() -> None:
    catalog = merged()
    scores = database_scores(catalog, "畅销榜上排名第一的是谁？")
    assert scores["books"] > scores["wta"] > 0  # 排名 is in both, 畅销 only in books
    linked = link("畅销榜上排名第一的是谁？", catalog)
    assert linked.table_names[0] == "books.畅销榜"


def test_a_follow_up_without_evidence_stays_in_the_conversation_database() -> None:
    catalog = merged()
    history = ["每个城市的地铁运营里程是多少？"]
    linked = link("最大的是哪个？", catalog, history=history)
    assert "metro.城市地铁里程" in linked.shown_table_names
    assert database_of(linked.table_names[0]) == "metro"
    alone = database_scores(catalog, "最大的是哪个？")
    with_history = database_scores(catalog, "最大的是哪个？", history)
    assert with_history["metro"] > alone["metro"]
    assert max(with_history, key=lambda db: with_history[db]) == "metro"


def test_history_counts_less_than_the_question() -> None:
    catalog = merged()
    history = ["每个城市的地铁运营里程是多少？"]
    scores = database_scores(catalog, "畅销榜的网络小说有哪些？", history)
    assert max(scores, key=lambda db: scores[db]) == "books"
    half = database_scores(
        catalog, "最大的是哪个？", history, options=DatabaseOptions(history_weight=0.4)
    )
    full = database_scores(catalog, "最大的是哪个？", history)
    assert half["metro"] < full["metro"]


def test_a_value_found_in_one_database_is_evidence_for_it() -> None:
    catalog = merged()
    plain = database_scores(catalog, "广州怎么样？")
    found = ValueMatch("metro.城市", "城市名称", "广州", 1.0, "exact")
    scores = database_scores(catalog, "广州怎么样？", values=[(found, 1.0)])
    assert scores["metro"] > plain["metro"]
    assert max(scores, key=lambda db: scores[db]) == "metro"
    # A value every database holds says nothing.
    everywhere = [(ValueMatch(f"{db}.x", "y", "广州", 1.0, "exact"), 1.0) for db in DATABASES]
    assert database_scores(catalog, "广州怎么样？", values=everywhere) == plain


def test_a_rare_term_weighs_more_than_a_common_one() -> None:
    vocab = vocabulary(merged())
    assert vocab.size == 5
    assert vocab.rarity("地铁") > vocab.rarity("排名") > vocab.rarity("名") >= 0.0
    assert vocab.rarity("not in any name") == 0.0


def test_one_database_is_linked_exactly_as_before() -> None:
    catalog = build_catalog(
        [t for ts in DATABASES.values() for t in ts if database_of(t.name) == "metro"],
        redact=False,
    )
    assert database_scores(catalog, "成都每天有多少人坐地铁呢？") == {}
    for question in ("成都每天有多少人坐地铁呢？", "运营成本最高的城市", "最大的是哪个？"):
        on, off = link(question, catalog), link(question, catalog, options=OFF)
        assert on.shown_table_names == off.shown_table_names
        assert [t.score for t in on.tables] == [t.score for t in off.tables]


def test_bare_table_names_are_one_database() -> None:
    catalog = build_catalog([table("人", "人ID", "姓名"), table("城市", "城市名称")], redact=False)
    assert database_scores(catalog, "成都的人") == {}


@pytest.mark.parametrize("limit", [1, 2, 3])
def test_no_more_databases_than_asked_for_plus_the_conversation_one(limit: int) -> None:
    catalog = merged()
    options = LinkOptions(max_databases=limit, database_ratio=0.0)
    question = "列出每个人的名称、排名、城市和类型"  # a little of everything
    linked = link(question, catalog, options=options)
    assert 1 <= len(databases_shown(linked.shown_table_names)) <= limit
    followed = link("按年龄排序", catalog, history=[question], options=options)
    assert len(databases_shown(followed.shown_table_names)) <= limit + 1


def test_each_linked_database_shows_its_best_table() -> None:
    catalog = merged()
    question = "畅销榜排名和球员排名积分"
    linked = link(question, catalog, options=LinkOptions(max_databases=2, database_ratio=0.0))
    shown = set(linked.shown_table_names)
    assert "books.畅销榜" in shown and "wta.排名" in shown
    one = link(question, catalog, options=LinkOptions(max_databases=1))
    assert len(databases_shown(one.shown_table_names)) == 1


def test_the_reasons_say_when_database_evidence_scaled_a_table() -> None:
    catalog = merged()
    options = LinkOptions(max_databases=2, database_ratio=0.0)
    linked = link("畅销榜排名和球员排名积分", catalog, options=options)
    reasons = [(t.name, t.reasons) for t in linked.tables]
    reasons += [(t.name, t.reasons) for t in linked.compact]
    scaled = [n for n, why in reasons if any(r.startswith("database evidence") for r in why)]
    evidence = database_scores(catalog, "畅销榜排名和球员排名积分")
    best = max(evidence, key=lambda db: evidence[db])
    assert scaled and all(database_of(t) not in (best, "") for t in scaled)
