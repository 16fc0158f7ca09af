"""Linking on CHASE-like Chinese schemas without declared keys: key inference from names,
key-column evidence, neighbour seeds and optional semantic seeds."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest

from tablerag.embed.base import Embedder, Matrix, Role
from tablerag.linking.catalog import build_catalog
from tablerag.linking.fkgraph import infer_edges
from tablerag.linking.linker import LinkOptions, link
from tablerag.linking.semantic import SemanticIndex, semantic_index
from tablerag.types import ColumnInfo, TableInfo


def table(name: str, *cols: str, pk: tuple[str, ...] = ()) -> TableInfo:
    return TableInfo(name, "t", tuple(ColumnInfo(c, "text") for c in cols), 0, primary_key=pk)


BOOK = table("图书", "图书id", "书名", "作者", "类型", pk=("图书id",))
PLATFORM = table("平台", "平台id", "平台名", "成立时间", "会员费", pk=("平台id",))
BOOK_ON_PLATFORM = table("图书与平台", "书名id", "平台id", "售价", "评分", "缺货")
EBOOK = table("电子书", "书名id", "平台id", "电子书售价", "会员价格")
SHOP = [BOOK, PLATFORM, BOOK_ON_PLATFORM, EBOOK]


def edges_of(tables: list[TableInfo]) -> set[tuple[str, str, str, str]]:
    return {(e.table, e.columns[0], e.ref_table, e.ref_columns[0]) for e in infer_edges(tables)}


def test_a_link_table_without_a_key_is_referenced_through_the_label_column() -> None:
    got = edges_of(SHOP)
    assert ("图书与平台", "书名id", "图书", "图书id") in got  # 书名id = 图书.书名 + id
    assert ("图书与平台", "平台id", "平台", "平台id") in got
    assert ("电子书", "书名id", "图书", "图书id") in got
    # No guessed key on a table that declares none while the others do, no self-references.
    assert not any(ref in ("图书与平台", "电子书") for _, _, ref, _ in got)
    assert not any(t == ref for t, _, ref, _ in got)


def test_an_abbreviated_table_name_and_the_named_sibling_win() -> None:
    team = table("篮球运动队", "id", "队名", pk=("id",))
    games = table("奥运会交手记录", "球队id", "对手id", "比分")
    assert ("奥运会交手记录", "球队id", "篮球运动队", "id") in edges_of([team, games])
    city = table("城市", "城市id", "城市名称", pk=("城市id",))
    fares = TableInfo(
        "城市地铁票价",
        "t",
        (ColumnInfo("城市id", "number"), ColumnInfo("票价", "number")),
        0,
        primary_key=("城市id",),
    )
    miles = TableInfo(
        "城市地铁里程",
        "t",
        (ColumnInfo("城市id", "number"), ColumnInfo("里程", "number")),
        0,
        primary_key=("城市id",),
    )
    got = edges_of([city, fares, miles])
    assert ("城市地铁里程", "城市id", "城市", "城市id") in got
    assert ("城市地铁票价", "城市id", "城市", "城市id") in got


def test_a_count_column_naming_a_table_is_not_a_key() -> None:
    city = table("城市", "城市id", "城市名称", pk=("城市id",))
    subway = TableInfo("中国地铁", "t", (ColumnInfo("开通城市数量", "number"),), 0)
    assert edges_of([city, subway]) == set()


def test_a_key_column_is_evidence_for_the_table_it_names() -> None:
    series = table("电视剧", "电视剧编号", "剧名", "出品公司", pk=("电视剧编号",))
    ratings = table("电视剧收视", "电视剧id", "时间段", "收视率")
    catalog = build_catalog([series, ratings], redact=False)
    assert any(e.table == "电视剧收视" and e.ref_table == "电视剧" for e in catalog.edges)
    linked = link("有哪些电视剧的出品公司是同一家？", catalog)
    series_why = " ".join(linked.tables[0].reasons)
    assert linked.tables[0].name == "电视剧" and "电视剧id" in series_why
    ratings_why = " ".join(r for t in linked.tables[1:] for r in t.reasons)
    assert "电视剧id" not in ratings_why


def test_the_dimension_a_question_hints_at_joins_its_fact() -> None:
    catalog = build_catalog(SHOP, redact=False)
    loose = LinkOptions(neighbour_ratio=0.45)
    linked = link("我想知道每本书的评分情况。", catalog, options=loose)
    assert {"图书", "图书与平台"} <= set(linked.shown_table_names)
    assert ("图书", "书名") in linked.shown_column_pairs
    strict = link("我想知道每本书的评分情况。", catalog, options=LinkOptions(neighbour_ratio=1.1))
    assert "图书" not in strict.table_names


class SynonymEmbedder(Embedder):
    """Maps each text to the concepts its synonyms name, and counts the texts it embeds."""

    backend = "synonyms"
    CONCEPTS = (("船", "战舰", "ship"), ("死亡", "伤亡", "death"), ("店", "商家", "shop"))

    def __init__(self, model: str = "") -> None:
        super().__init__(model)
        self.embedded: list[str] = []

    def embed_batch(self, texts: Sequence[str], *, role: Role) -> Matrix:
        self.embedded += list(texts)
        out = np.full((len(texts), len(self.CONCEPTS) + 1), 0.01, dtype=np.float32)
        for row, text in enumerate(texts):
            for i, words in enumerate(self.CONCEPTS):
                out[row, i] += sum(w in text for w in words)
        return out


@pytest.fixture
def battles() -> tuple[object, SynonymEmbedder]:
    ship = table("战舰", "战舰id", "舰名", "吨位", pk=("战舰id",))
    death = table("伤亡", "伤亡id", "造成伤亡的战舰id", "死亡人数", pk=("伤亡id",))
    other = table("db2.商家", "商家id", "商家名", pk=("商家id",))
    catalog = build_catalog([ship, death, other], redact=False)
    embedder = SynonymEmbedder()
    catalog.memo["semantic_index:synonyms"] = SemanticIndex.build(catalog, embedder)
    return catalog, embedder


def test_semantic_seeds_catch_a_synonym_no_word_matches(
    battles: tuple[object, SynonymEmbedder],
) -> None:
    catalog, embedder = battles
    question = "哪艘船的死亡人数最多？"
    words_only = link(question, catalog)  # type: ignore[arg-type]
    assert "战舰" not in words_only.table_names
    opts = LinkOptions(semantic_embedder="synonyms", semantic_top=2)
    linked = link(question, catalog, options=opts)  # type: ignore[arg-type]
    assert {"战舰", "伤亡"} <= set(linked.shown_table_names)
    assert "db2.商家" not in linked.shown_table_names  # another database stays out
    link(question, catalog, options=opts)  # type: ignore[arg-type]
    assert embedder.embedded.count(question) == 1  # question vectors are cached


def test_semantic_index_is_built_once_per_catalog_with_a_registered_embedder() -> None:
    catalog = build_catalog(SHOP, redact=False)
    index = semantic_index(catalog, "hashing:64")
    assert semantic_index(catalog, "hashing:64") is index
    sims = index.similarities("电子书 会员价格")
    assert max(sims, key=lambda n: sims[n]) == "电子书"
