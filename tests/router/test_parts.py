"""Two-part questions (issue 23): the split into parts, the side of each part, and route().

A question that asks for a figure from the tables *and* for what a document says must go to
both paths (intent ``hybrid``, ``needs_both``); a question joined by "and" / "和" / "并" that
needs one path keeps its one-path route.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from importlib import resources
from pathlib import Path

import pytest

from tablerag.linking.catalog import build_catalog
from tablerag.router import RouterContext, route
from tablerag.router.features import extract_features
from tablerag.router.parts import (
    LeanRule,
    PartEvidence,
    asks,
    cites_document,
    lean,
    split_parts,
    two_sides,
)
from tablerag.router.router import load_weights
from tablerag.service import Workspace
from tablerag.settings import Settings
from tablerag.types import Hit, TableInfo

CASES_FILE = Path(__file__).with_name("two_part_cases.jsonl")
CASES = [json.loads(line) for line in CASES_FILE.read_text("utf-8").splitlines() if line.strip()]
TWO_PART = [c for c in CASES if c["kind"] == "two-part"]
ONE_PART = [c for c in CASES if c["kind"] == "one-part"]
RULE = LeanRule(**load_weights()["two_part"])


@pytest.fixture(scope="module")
def sample_ws(sample_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Workspace]:
    """The whole sample corpus (tables, Markdown, the handbook PDF, the Word rules), ingested."""
    path = tmp_path_factory.mktemp("two-part") / "ws"
    with Workspace.open(path) as ws:
        ws.ingest(
            sorted(sample_dir.iterdir()), settings=Settings.model_validate({"embedder": "hashing"})
        )
    with Workspace.open(path, read_only=True) as ws:
        yield ws


@pytest.fixture(scope="module")
def contexts(sample_ws: Workspace) -> dict[str, RouterContext]:
    """The router's three set-ups of ``tablerag eval routing``: rules, +catalog, +probe."""
    return {
        "rules": RouterContext.empty(),
        "catalog": RouterContext.from_workspace(sample_ws, probe=False),
        "router": RouterContext.from_workspace(sample_ws),
    }


@pytest.mark.parametrize(
    ("question", "parts"),
    [
        pytest.param(
            "今年华北的净额是多少？退货政策对破损怎么规定？",
            ("今年华北的净额是多少", "退货政策对破损怎么规定"),
            id="zh-question-marks",
        ),
        pytest.param(
            "本月天猫的订单数；手册里天猫怎么结算",
            ("本月天猫的订单数", "手册里天猫怎么结算"),
            id="zh-semicolon",
        ),
        pytest.param(
            "给出各渠道的订单数，再说明经销商怎么结算",
            ("给出各渠道的订单数", "说明经销商怎么结算"),
            id="zh-comma-joiner-dropped",
        ),
        pytest.param(
            "华北上月的毛利率多少，是否达到制度要求",
            ("华北上月的毛利率多少", "是否达到制度要求"),
            id="zh-comma-opener-kept",
        ),
        pytest.param(
            "统计上月退款笔数并且说明退款时限",
            ("统计上月退款笔数", "说明退款时限"),
            id="zh-joiner-without-comma",
        ),
        pytest.param("华东和华北的毛利分别是多少", ("华东和华北的毛利分别是多少",), id="zh-he"),
        pytest.param(
            "上月华东的毛利，环比变化多少", ("上月华东的毛利，环比变化多少",), id="zh-comma"
        ),
        pytest.param(
            "What did JD sell in May, and how does JD settle?",
            ("What did JD sell in May", "how does JD settle"),
            id="en-and-how",
        ),
        pytest.param(
            "List refunds by reason, then explain the damage rule.",
            ("List refunds by reason", "explain the damage rule"),
            id="en-comma-then",
        ),
        pytest.param(
            "Show sales by month. Who sets the targets?",
            ("Show sales by month", "Who sets the targets"),
            id="en-sentences",
        ),
        pytest.param(
            "How many orders and refunds did JD have?",
            ("How many orders and refunds did JD have",),
            id="en-and-nouns",
        ),
        pytest.param(
            "Which products sold above 12.5 units?",
            ("Which products sold above 12.5 units",),
            id="en-decimal-point",
        ),
        pytest.param("  ？ ", (), id="no-words"),
    ],
)
def test_split_parts(question: str, parts: tuple[str, ...]) -> None:
    assert split_parts(question) == parts


@pytest.mark.parametrize(
    ("part", "asks_something", "cites"),
    [
        pytest.param("经销商的退货有什么限制", True, False, id="zh-question-word"),
        pytest.param("按手册他们的佣金比例是多少", True, True, id="zh-handbook"),
        pytest.param("按退货率从高到低排序", False, False, id="zh-instruction"),
        pytest.param("what does the handbook say about fees", True, True, id="en-handbook"),
        pytest.param("sorted by region", False, False, id="en-fragment"),
        pytest.param("which guidelines apply", True, True, id="en-guidelines"),
    ],
)
def test_asks_and_cites_document(part: str, asks_something: bool, cites: bool) -> None:
    assert asks(part) is asks_something
    assert cites_document(part) is cites


@pytest.mark.parametrize(
    ("part", "side"),
    [
        pytest.param(PartEvidence("上月华东的销售额是多少", 4.0, 0.3), "data", id="data"),
        pytest.param(PartEvidence("客户需要在多久内提供照片", 0.0, 3.2), "document", id="doc"),
        pytest.param(
            PartEvidence("制度要求的最低毛利率是多少", 4.2, 2.6), "document", id="cites-doc"
        ),
        pytest.param(
            PartEvidence("Who approves a discount above 10%", 2.5, 1.4, ("who approves",)),
            None,
            id="data-with-document-cue",
        ),
        pytest.param(PartEvidence("华东的毛利是多少", 1.0, 0.6), None, id="weak"),
        pytest.param(PartEvidence("那么销售额和政策呢", 3.0, 2.9), "document", id="cites-wins"),
        pytest.param(PartEvidence("各渠道的退货率是多少", 2.6, 2.0), None, id="mixed"),
        pytest.param(PartEvidence("按退货率从高到低排序", 0.3, 1.9), None, id="asks-nothing"),
    ],
)
def test_lean_with_the_packaged_thresholds(part: PartEvidence, side: str | None) -> None:
    assert lean(part, RULE) == side


def test_two_sides_needs_one_clear_part_of_each_side() -> None:
    figure = PartEvidence("今年经销商的净额是多少", 4.0, 0.3)
    rule = PartEvidence("按手册经销商怎么结算", 0.0, 3.0)
    other = PartEvidence("各渠道的净额是多少", 4.4, 0.0)
    assert two_sides([other, rule, figure], RULE) == (other, rule)  # the first of each side
    assert two_sides([figure, other], RULE) is None
    assert two_sides([rule], RULE) is None


@pytest.mark.parametrize(
    ("question", "data_part", "document_part"),
    [
        pytest.param(
            "今年华北大区的净额是多少？手册规定经销商多久结算一次？",
            "今年华北大区的净额是多少",
            "手册规定经销商多久结算一次",
            id="zh-figure-then-handbook",
        ),
        pytest.param(
            "上月各渠道的退款金额分别是多少，退款需要谁审批",
            "上月各渠道的退款金额分别是多少",
            "退款需要谁审批",
            id="zh-comma-opener",
        ),
        pytest.param(
            "统计今年各品类的订单数，另外已拆封的食品可以退吗？",
            "统计今年各品类的订单数",
            "已拆封的食品可以退吗",
            id="zh-lingwai",
        ),
        pytest.param(
            "How many orders did the app get in June, and what does the policy say about "
            "late deliveries?",
            "How many orders did the app get in June",
            "what does the policy say about late deliveries",
            id="en-and-what",
        ),
        pytest.param(
            "Give the total refund amount by category for Q2, then explain how a faulty phone "
            "is tested.",
            "Give the total refund amount by category for Q2",
            "explain how a faulty phone is tested",
            id="en-then-explain",
        ),
    ],
)
def test_a_two_part_question_runs_both_paths(
    question: str, data_part: str, document_part: str
) -> None:
    single = route(data_part)
    assert single.intent == "data" and not single.needs_both, single.reasons
    got = route(question)
    assert got.intent == "hybrid", got.reasons
    assert got.needs_both and got.to_dict()["needs_both"] is True
    reason = f"two-part question: data part {data_part!r}, document part {document_part!r}"
    assert reason in got.reasons[:2]  # after the loop's reason when multi-hop cues fire
    assert 0 < got.confidence <= 1


@pytest.mark.parametrize(
    ("question", "intent"),
    [
        pytest.param("华南和西南今年的订单数分别是多少？", "data", id="zh-he-places"),
        pytest.param("统计各大区上月的毛利并按毛利从高到低排序", "data", id="zh-bing-sort"),
        pytest.param("上月各渠道的销售额是多少，哪个渠道最高？", "data", id="zh-two-figures"),
        pytest.param(
            "退货和换货的运费分别由谁承担，需要什么手续？", "knowledge", id="zh-two-rules"
        ),
        pytest.param("客单价是怎么定义的，和平均订单行金额有什么区别？", "knowledge", id="zh-meta"),
        pytest.param("How many orders were paid and how many were unpaid in May?", "data", id="en"),
        pytest.param(
            "What is the return policy for faulty phones and how long does testing take?",
            "knowledge",
            id="en-two-rules",
        ),
    ],
)
def test_a_one_path_question_with_and_keeps_its_route(question: str, intent: str) -> None:
    got = route(question)
    assert got.intent == intent, got.reasons
    assert not got.needs_both
    assert not any(r.startswith("two-part") for r in got.reasons)


def test_low_confidence_hybrid_is_not_a_two_part_question() -> None:
    got = route("华东的毛利")
    assert got.intent == "hybrid" and not got.needs_both


def test_small_talk_is_never_two_part() -> None:
    got = route("谢谢！再见！")
    assert got.intent == "chitchat" and not got.needs_both


def test_the_two_part_set_is_labelled_and_not_the_tuning_set() -> None:
    assert len(TWO_PART) >= 20 and len(ONE_PART) >= 10
    assert {c["intent"] for c in TWO_PART} == {"hybrid"}
    joined = ("and", "和", "并")
    assert sum(any(j in c["question"] for j in joined) for c in ONE_PART) >= 10
    assert len({c["id"] for c in CASES}) == len(CASES)
    dev = resources.files("tablerag.router").joinpath("data/router_dev.jsonl").read_text("utf-8")
    tuned = {json.loads(line)["question"] for line in dev.splitlines() if line.strip()}
    routing = Path(__file__).with_name("routing_cases.jsonl").read_text("utf-8").splitlines()
    labelled = {json.loads(line)["question"] for line in routing if line.strip()}
    assert not (tuned | labelled) & {c["question"] for c in CASES}


def _flagged(cases: Sequence[dict[str, str]], context: RouterContext) -> list[str]:
    return [c["id"] for c in cases if route(c["question"], context).needs_both]


@pytest.mark.parametrize(
    ("method", "least"),
    [
        pytest.param("rules", 0.55, id="rules"),
        pytest.param("catalog", 0.55, id="catalog"),
        pytest.param("router", 0.7, id="router"),
    ],
)
def test_the_two_part_set_on_the_sample_corpus(
    contexts: dict[str, RouterContext], method: str, least: float
) -> None:
    context = contexts[method]
    found = _flagged(TWO_PART, context)
    assert len(found) / len(TWO_PART) >= least, sorted({c["id"] for c in TWO_PART} - set(found))
    assert _flagged(ONE_PART, context) == []  # no one-part question is split in two
    for case in TWO_PART:
        got = route(case["question"], context)
        assert got.needs_both == any(r.startswith("two-part") for r in got.reasons)
        assert not got.needs_both or got.intent == "hybrid"


def test_probe_hits_on_a_document_table_count_for_the_document_side() -> None:
    def probe(question: str) -> Sequence[Hit]:
        return [Hit("c1", "handbook.pdf", 0, "| fee |", (), 1, "handbook_table_1", 12.0, 1)]

    as_table = route("staff commission", RouterContext(probe=probe))
    as_prose = route(
        "staff commission",
        RouterContext(probe=probe, document_tables=frozenset({"handbook_table_1"})),
    )
    assert (as_table.evidence["doc"], as_table.evidence["table"]) == (0.0, 0.75)
    assert (as_prose.evidence["doc"], as_prose.evidence["table"]) == (0.75, 0.0)


def test_the_catalog_names_its_document_tables() -> None:
    cut = TableInfo("h_table_1", "/c/handbook.pdf", (), 5, origin="table 1 on page 2")
    csv = TableInfo("fact_sales", "/c/fact_sales.csv", (), 9, origin="fact_sales.csv")
    ctx = RouterContext.from_catalog(build_catalog([cut, csv]))
    assert ctx.document_tables == frozenset({"h_table_1"})


@pytest.mark.parametrize(
    ("question", "weeks"),
    [
        pytest.param("经销商的结算周期是多久", (), id="cycle"),
        pytest.param("库存周转天数怎么算", (), id="turnover"),
        pytest.param("上周华东的订单数", ("上周",), id="last-week"),
        pytest.param("每周的退款笔数", ("每周",), id="every-week"),
        pytest.param("周末的销售额", ("周末",), id="weekend"),
        pytest.param("近两周的销量", ("两周",), id="two-weeks"),
    ],
)
def test_a_week_is_a_time_cue_only_in_a_week_expression(
    question: str, weeks: tuple[str, ...]
) -> None:
    assert tuple(c for c in extract_features(question).cues["time"] if "周" in c) == weeks


def test_a_settlement_period_question_is_a_document_question(
    contexts: dict[str, RouterContext],
) -> None:
    question = "经销商的结算周期是多久"  # 周期 once counted as a week: a time anchor, "hybrid"
    for method, context in contexts.items():
        assert route(question, context).intent == "knowledge", method
