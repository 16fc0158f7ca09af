"""Documents chunked by kind (issue 23, seed 003): a clause, a question with its answer, or a
section is kept whole in one chunk; the kind is detected, reported, and settable per source."""

from __future__ import annotations

from pathlib import Path

import pytest

from tablerag.errors import ConfigError
from tablerag.ingest.chunking import chunk_document
from tablerag.ingest.dockind import choose_kind, detect_kind
from tablerag.ingest.documents import parse_markdown
from tablerag.service import Workspace
from tablerag.settings import Settings
from tablerag.tokens import count_tokens

POLICY = """# 退货政策

## 第二章 退货条件

第四条 七天无理由退货。
4.1 自签收次日起 7 日内，商品完好、配件齐全、不影响二次销售的，消费者可申请无理由退货。
4.2 食品饮料（已拆封）、美妆个护（已拆封）、定制商品不适用七天无理由退货。

第五条 商品破损。
5.1 签收时发现外包装或商品破损的，消费者应在签收后 48 小时内提供开箱照片或视频。
5.2 经核实确属运输或包装原因造成破损的，运费由公司承担。

第六条 质量问题。
6.1 自签收之日起 15 日内出现非人为性能故障的，消费者可选择退货、换货或维修。
6.2 手机数码、家用电器类商品需经售后检测确认；检测时间不超过 3 个工作日。
6.3 同一商品同一故障累计维修两次仍无法正常使用的，消费者可要求退货。
"""

FAQ = """# 常见问题

问：退款多久到账？

答：线上订单在仓库确认收货后 1 个工作日内原路退款。

信用卡退款以银行入账时间为准，一般 3 到 7 个工作日。

问：可以换货吗？

答：服装鞋帽签收后 15 日内可换货一次，换货运费由公司承担。

问：发错货怎么办？

答：公司承担全部运费，并在 24 小时内补发或退款。

Q: Do you ship abroad?

A: Not yet; we ship within mainland China only.
"""


def _clause_chunks(text: str, kind: str | None, max_tokens: int) -> list[str]:
    doc = parse_markdown(text, "policy.md")
    return [c.text for c in chunk_document(doc, table_names={}, max_tokens=max_tokens, kind=kind)]  # type: ignore[arg-type]


def test_a_clause_stays_whole_where_paragraph_packing_cuts_it() -> None:
    limit = 130  # room for about two clauses: 第六条 falls on the boundary
    packed = _clause_chunks(POLICY, "prose", limit)
    assert not any("6.1" in t and "6.3" in t for t in packed)  # the old way cut 第六条
    chunks = _clause_chunks(POLICY, None, limit)  # detected: rules
    for head, first, last in (
        ("第四条", "4.1", "4.2"),
        ("第五条", "5.1", "5.2"),
        ("第六条", "6.1", "6.3"),
    ):
        (holder,) = [t for t in chunks if head in t]
        assert first in holder and last in holder
    assert all(count_tokens(t) <= limit for t in chunks)


def test_a_clause_over_the_limit_is_still_split_at_sentences() -> None:
    long = "第一条 总则。" + "本条很长，需要拆分。" * 40 + "\n\n第二条 附则。\n"
    chunks = _clause_chunks(long, "rules", 60)
    assert len(chunks) > 3 and all(count_tokens(t) <= 60 for t in chunks)
    assert all(t.endswith(("。", "分。")) for t in chunks)
    assert chunks[-1] == "第二条 附则。"


def test_faq_keeps_each_answer_with_its_question() -> None:
    doc = parse_markdown(FAQ, "faq.md")
    assert detect_kind(doc).kind == "faq"
    limit = 70
    pairs = (
        ("退款多久到账", "一般 3 到 7 个工作日"),
        ("可以换货吗", "换货运费由公司承担"),
        ("发错货怎么办", "24 小时内补发"),
        ("ship abroad", "mainland China only"),
    )
    chunks = [c.text for c in chunk_document(doc, table_names={}, max_tokens=limit)]
    for question, answer in pairs:
        (holder,) = [t for t in chunks if question in t]
        assert answer in holder, (question, chunks)
    packed = [c.text for c in chunk_document(doc, table_names={}, max_tokens=limit, kind="prose")]
    # paragraph packing separates some answer from its question
    assert not all(any(q in t and a in t for t in packed) for q, a in pairs)


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        pytest.param(POLICY, "rules", id="articles"),
        pytest.param(FAQ, "faq", id="qa-pairs"),
        pytest.param(
            "# Policy\n\n1.1 Scope. All staff.\n\n1.2 Travel. Approved.\n\n2.1 Hotels. Paid.\n",
            "rules",
            id="dotted-numbering",
        ),
        pytest.param(
            "# 使用手册\n\n## 安装\n\n插上电源。\n\n## 设置\n\n按下按钮。\n\n## 清洁\n\n擦拭。\n",
            "manual",
            id="headings",
        ),
        pytest.param(
            "# Notes\n\nRevenue grew 3.2% in 2024. Costs fell.\n\nWhy? Prices rose.\n",
            "prose",
            id="article",
        ),
    ],
)
def test_detected_kinds(text: str, kind: str) -> None:
    assert detect_kind(parse_markdown(text, "d.md")).kind == kind


def test_setting_overrides_detection_and_a_bad_one_says_how_to_fix_it() -> None:
    doc = parse_markdown(FAQ, "/docs/help_center.md")
    assert choose_kind(doc, "*.docx=rules, help_*.md=manual").kind == "manual"
    assert choose_kind(doc, "*.docx=rules").kind == "faq"
    with pytest.raises(ConfigError, match="pattern=kind"):
        choose_kind(doc, "help.md=glossary")


def test_ingest_report_shows_the_kind(workspace: Workspace, tmp_path: Path) -> None:
    (tmp_path / "退货政策.md").write_text(POLICY, encoding="utf-8")
    (tmp_path / "faq.md").write_text(FAQ, encoding="utf-8")
    reports = workspace.ingest(
        [tmp_path], settings=Settings(index_on_ingest=False, document_kinds="faq.md=prose")
    )
    lines = {Path(r.source).name: [p.line() for p in r.problems] for r in reports}
    assert all(p.is_note for r in reports for p in r.problems)  # a fact, not a defect
    assert lines["退货政策.md"] == [
        "document kind 'rules' (detected: 3 clauses numbered 第X条 / 一、) (chunked by clause)"
    ]
    assert lines["faq.md"] == [
        "document kind 'prose' (set by document_kinds 'faq.md=prose') "
        "(chunked by section (headings))"
    ]
    clause = next(c.text for c in workspace.chunks("退货政策.md") if "第六条" in c.text)
    assert "6.1" in clause and "6.3" in clause
