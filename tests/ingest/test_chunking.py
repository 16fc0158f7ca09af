"""Chunking properties on generated documents: sizes, coverage, rows, headings, pages, ids."""

from __future__ import annotations

import random
import re
from dataclasses import dataclass

import pytest

from tablerag.errors import ConfigError
from tablerag.ingest.chunking import chunk_document, split_long, table_chunks
from tablerag.tokens import count_tokens
from tablerag.types import Block, Chunk, Document

_ZH = [
    "差旅费按标准报销",
    "超出部分由个人承担",
    "住宿费凭发票报销",
    "出差须事先审批",
    "市内交通费包干使用",
]
_EN = [
    "Travel must be approved in advance",
    "Hotels are paid up to the city limit",
    "Receipts are required for every claim",
    "Taxis are allowed after ten at night",
]


def _sentence(rng: random.Random, n: int) -> str:
    if rng.random() < 0.5:
        return f"第{n}句，{rng.choice(_ZH)}{rng.choice('。；！')}"
    return f"Sentence {n}: {rng.choice(_EN)}{rng.choice('.!?')}"


@dataclass
class Generated:
    doc: Document
    paragraphs: dict[str, tuple[tuple[str, ...], int | None]]  # text -> (heading path, page)
    tables: dict[int, str]


def _generate(seed: int) -> Generated:
    """A random document: nested headings, clauses of 1-40 sentences, tables, pages."""
    rng = random.Random(seed)
    blocks: list[Block] = []
    paragraphs: dict[str, tuple[tuple[str, ...], int | None]] = {}
    tables: dict[int, str] = {}
    stack: list[tuple[int, str]] = []
    page, counter = 1, 0
    for _ in range(rng.randint(15, 40)):
        roll = rng.random()
        if rng.random() < 0.15:
            page += 1
        if roll < 0.2:
            level = rng.randint(1, 3)
            text = f"H{len(blocks)} 第{level}级标题"
            blocks.append(Block("heading", text, level=level, page=page))
            while stack and stack[-1][0] >= level:
                stack.pop()
            stack.append((level, text))
        elif roll < 0.3:
            n_rows = rng.randint(0, 30)
            rows = [("城市", "Limit", "Note")] + [
                (f"city{r}", str(rng.randint(100, 900)), rng.choice(_EN)) for r in range(n_rows)
            ]
            if rng.random() < 0.8:
                tables[len(blocks)] = f"doc_table_{len(tables) + 1}"
            blocks.append(Block("table", text="表 标准", page=page, rows=tuple(rows)))
        else:
            counter += 1
            marker = rng.choice(["第{}条 ", "（{}）", "{}. ", ""]).format(counter)
            body = "".join(_sentence(rng, i) + " " for i in range(rng.randint(1, 40)))
            text = f"{marker}P{counter} {body}".strip()
            blocks.append(Block("paragraph", text, page=page))
            paragraphs[text] = (tuple(t for _, t in stack), page)
    return Generated(Document("gen.md", "Gen", tuple(blocks)), paragraphs, tables)


def _squash(text: str) -> str:
    return re.sub(r"\s+", "", text)


def _prose(chunks: list[Chunk]) -> list[Chunk]:
    return [
        c
        for c in chunks
        if not c.text.startswith(("Table ", "表 标准")) and "| --- |" not in c.text
    ]


SEEDS = range(12)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("max_tokens", [40, 120, 400])
def test_no_chunk_over_limit_unless_single_unit(seed: int, max_tokens: int) -> None:
    gen = _generate(seed)
    chunks = chunk_document(gen.doc, table_names=gen.tables, max_tokens=max_tokens)
    for chunk in chunks:
        if count_tokens(chunk.text) <= max_tokens:
            continue
        if "| --- |" in chunk.text:  # a table part over the limit holds exactly one row
            lines = chunk.text.splitlines()
            assert len(lines) - lines.index("| --- | --- | --- |") - 1 == 1
        else:  # prose over the limit is one unsplittable unit: one word or character
            assert "\n\n" not in chunk.text and len(chunk.text.split()) == 1


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("max_tokens", [30, 150, 400])
def test_every_paragraph_appears_exactly_once(seed: int, max_tokens: int) -> None:
    gen = _generate(seed)
    chunks = chunk_document(gen.doc, table_names=gen.tables, max_tokens=max_tokens)
    prose = _prose(chunks)
    units = [unit for c in prose for unit in c.text.split("\n\n")]
    whole = [p for p in gen.paragraphs if count_tokens(p) <= max_tokens]
    for paragraph in whole:
        assert units.count(paragraph) == 1, paragraph
    # Over-long paragraphs are split, and nothing is lost or repeated: the concatenation of all
    # prose chunks equals the concatenation of all paragraphs, whitespace aside.
    assert _squash("".join(c.text for c in prose)) == _squash("".join(gen.paragraphs))


@pytest.mark.parametrize("seed", SEEDS)
def test_table_rows_never_split_and_header_repeated(seed: int) -> None:
    gen = _generate(seed)
    chunks = chunk_document(gen.doc, table_names=gen.tables, max_tokens=60)
    for index, block in enumerate(gen.doc.blocks):
        if block.kind != "table":
            continue
        name = gen.tables.get(index)
        parts = [c for c in chunks if c.table == name] if name else []
        if name is None:
            continue
        body_rows: list[str] = []
        for part in parts:
            lines = part.text.splitlines()
            assert lines[0] == f"Table {name} — 表 标准" + (
                " — " + " > ".join(part.heading_path) if part.heading_path else ""
            )
            assert lines[1] == "| 城市 | Limit | Note |" and lines[2] == "| --- | --- | --- |"
            body_rows.extend(lines[3:])
            assert part.page == block.page
        expected = [f"| {a} | {b} | {c} |" for a, b, c in block.rows[1:]]
        assert body_rows == expected


@pytest.mark.parametrize("seed", SEEDS)
def test_heading_paths_and_pages(seed: int) -> None:
    gen = _generate(seed)
    chunks = chunk_document(gen.doc, table_names=gen.tables, max_tokens=200)
    checked = 0
    for chunk in _prose(chunks):
        first = chunk.text.split("\n\n")[0]
        owner = next(p for p in gen.paragraphs if _squash(first) in _squash(p))
        path, page = gen.paragraphs[owner]
        assert chunk.heading_path == path
        if first == owner:
            assert chunk.page == page
            checked += 1
    assert checked > 0


@pytest.mark.parametrize("seed", SEEDS)
def test_ids_deterministic_and_ordinals_dense(seed: int) -> None:
    gen = _generate(seed)
    a = chunk_document(gen.doc, table_names=gen.tables, max_tokens=100)
    b = chunk_document(gen.doc, table_names=gen.tables, max_tokens=100)
    assert a == b
    assert [c.ordinal for c in a] == list(range(len(a)))
    assert len({c.chunk_id for c in a}) == len(a)
    assert all(re.fullmatch(r"[0-9a-f]{16}", c.chunk_id) for c in a)
    assert all(c.source == "gen.md" for c in a)


def test_id_changes_with_text_source_or_ordinal() -> None:
    doc = Document("a.md", "A", (Block("paragraph", "第一条 适用范围。"),))
    base = chunk_document(doc, table_names={})[0].chunk_id
    other_text = Document("a.md", "A", (Block("paragraph", "第一条 适用范围！"),))
    other_source = Document("b.md", "A", doc.blocks)
    shifted = Document(
        "a.md", "A", (Block("paragraph", "前言。"), Block("heading", "H", level=1), *doc.blocks)
    )
    assert chunk_document(other_text, table_names={})[0].chunk_id != base
    assert chunk_document(other_source, table_names={})[0].chunk_id != base
    assert chunk_document(shifted, table_names={})[1].chunk_id != base


def test_paragraphs_packed_under_one_heading_and_split_at_headings() -> None:
    doc = Document(
        "p.md",
        "P",
        (
            Block("heading", "第一章 总则", level=1),
            Block("paragraph", "第一条 适用全体员工。", page=1),
            Block("paragraph", "第二条 按标准报销。", page=2),
            Block("heading", "第一节 住宿", level=3),
            Block("paragraph", "第三条 住宿凭发票。", page=2),
            Block("heading", "第二节 交通", level=2),
            Block("paragraph", "第四条 交通包干。", page=3),
            Block("heading", "第二章 附则", level=1),
            Block("paragraph", "第五条 自发布之日起施行。", page=3),
        ),
    )
    chunks = chunk_document(doc, table_names={})
    assert [(c.text, c.heading_path, c.page) for c in chunks] == [
        ("第一条 适用全体员工。\n\n第二条 按标准报销。", ("第一章 总则",), 1),
        ("第三条 住宿凭发票。", ("第一章 总则", "第一节 住宿"), 2),
        ("第四条 交通包干。", ("第一章 总则", "第二节 交通"), 3),
        ("第五条 自发布之日起施行。", ("第二章 附则",), 3),
    ]


def test_long_clause_split_at_sentences_before_hard_cut() -> None:
    clause = "第九条 " + "".join(f"第{i}项费用按实报销。" for i in range(30))
    doc = Document("p.md", "P", (Block("paragraph", clause),))
    chunks = chunk_document(doc, table_names={}, max_tokens=40)
    assert len(chunks) > 1
    assert all(count_tokens(c.text) <= 40 for c in chunks)
    assert all(c.text.endswith("。") for c in chunks)  # cut between sentences only
    assert "".join(c.text for c in chunks) == clause


def test_hard_cut_when_no_sentence_boundary() -> None:
    text = "无标点" * 50
    pieces = split_long(text, 16)
    assert "".join(pieces) == text
    assert all(count_tokens(p) <= 16 for p in pieces)
    words = " ".join(f"word{i}" for i in range(100))
    parts = split_long(words, 13)
    assert " ".join(parts) == words and all(count_tokens(p) <= 13 for p in parts)


def test_overlap_repeats_trailing_sentences_within_limit() -> None:
    paras = tuple(
        Block("paragraph", f"P{i} first sentence here. P{i} second sentence here.")
        for i in range(8)
    )
    doc = Document("o.md", "O", (Block("heading", "S", level=1), *paras))
    plain = chunk_document(doc, table_names={}, max_tokens=30)
    lapped = chunk_document(doc, table_names={}, max_tokens=30, overlap_tokens=8)
    assert len(plain) > 2
    assert all(count_tokens(c.text) <= 30 for c in lapped)
    for before, after in zip(lapped, lapped[1:], strict=False):
        tail = before.text.split("\n\n")[-1].split(". ")[-1]
        assert after.text.startswith(tail)
        assert after.heading_path == ("S",)


def test_table_not_in_mapping_is_still_chunked_without_table() -> None:
    doc = Document("t.md", "T", (Block("table", "", rows=(("a", "b"), ("1", "x|y"))),))
    (chunk,) = chunk_document(doc, table_names={})
    assert chunk.table is None
    assert chunk.text == "| a | b |\n| --- | --- |\n| 1 | x\\|y |"


@pytest.mark.parametrize(("size", "overlap"), [(0, 0), (10, -1), (10, 10)])
def test_bad_sizes_raise_config_error(size: int, overlap: int) -> None:
    doc = Document("t.md", "T", (Block("paragraph", "x"),))
    with pytest.raises(ConfigError, match="set"):
        chunk_document(doc, table_names={}, max_tokens=size, overlap_tokens=overlap)


def test_table_chunks_card_then_rows_split_between_rows() -> None:
    header = ["地区", "amount"]
    rows = [[f"区域{i}", i * 10] for i in range(40)]
    chunks = table_chunks(
        "sales",
        "sales.csv",
        header,
        rows,
        title="2024 sales",
        max_tokens=50,
        start_ordinal=7,
        row_count=40,
        page=3,
    )
    card, parts = chunks[0], chunks[1:]
    assert card.text.splitlines() == [
        "Table sales: 2024 sales",
        "Source: sales.csv",
        "Columns: 地区, amount",
        "Rows: 40",
    ]
    assert [c.ordinal for c in chunks] == list(range(7, 7 + len(chunks)))
    assert len(parts) > 1
    seen: list[str] = []
    for part in parts:
        lines = part.text.splitlines()
        assert lines[:3] == ["Table sales: 2024 sales", "| 地区 | amount |", "| --- | --- |"]
        assert count_tokens(part.text) <= 50
        seen.extend(lines[3:])
    assert seen == [f"| 区域{i} | {i * 10} |" for i in range(40)]
    assert {(c.table, c.page, c.source) for c in chunks} == {("sales", 3, "sales.csv")}


def test_table_chunks_oversized_row_stays_whole() -> None:
    long_cell = "很长的备注" * 40
    chunks = table_chunks(
        "t", "t.csv", ["k", "note"], [["1", "短"], ["2", long_cell], ["3", "短"]], max_tokens=30
    )
    rows = [line for c in chunks[1:] for line in c.text.splitlines()[3:]]
    assert rows == ["| 1 | 短 |", f"| 2 | {long_cell} |", "| 3 | 短 |"]
    assert any(c.text.endswith(f"| 2 | {long_cell} |") and c.text.count("\n") == 3 for c in chunks)


def test_table_chunks_without_rows_is_just_the_card() -> None:
    (card,) = table_chunks("orders", "postgresql://db", ["id", "total"], [])
    assert card.text == "Table orders\nSource: db (postgresql)\nColumns: id, total"


def test_the_card_names_the_file_not_its_folder_or_host() -> None:
    (card,) = table_chunks("budget", "/home/ana/finance/budget.xlsx", ["k"], [])
    assert "Source: budget.xlsx\n" in card.text and "/home/ana" not in card.text
    assert card.source == "/home/ana/finance/budget.xlsx"  # the chunk still records where
    (db,) = table_chunks("orders", "postgresql://ana@db.internal:5432/sales", ["id"], [])
    assert "Source: sales (postgresql)\n" in db.text and "db.internal" not in db.text
