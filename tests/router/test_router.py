"""Router v1: the labelled question set, rules, catalog values, the probe, speed and the CLI."""

from __future__ import annotations

import json
import statistics
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from tablerag.errors import RetrievalError
from tablerag.linking.cache import workspace_catalog
from tablerag.linking.catalog import build_catalog
from tablerag.router import INTENTS, RouterContext, route
from tablerag.router.features import Vocabulary, extract_features
from tablerag.router.router import MAX_VALUES_PER_COLUMN
from tablerag.service import Workspace
from tablerag.settings import Settings
from tablerag.types import ColumnInfo, Hit, TableInfo

CASES_FILE = Path(__file__).with_name("routing_cases.jsonl")
CASES = [json.loads(line) for line in CASES_FILE.read_text("utf-8").splitlines() if line.strip()]


@pytest.fixture(scope="module")
def sample_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sample corpus's tables, descriptions and Markdown documents, ingested and closed.

    The PDF and Word files are left out to keep the test fast; the hashing embedder is enough
    because the router's probe only uses BM25.
    """
    from tablerag.sample import write_sample

    root = tmp_path_factory.mktemp("routing")
    corpus = root / "corpus"
    write_sample(corpus)
    files = sorted(p for p in corpus.iterdir() if p.suffix in (".csv", ".md", ".json"))
    with Workspace.open(root / "ws") as ws:
        ws.ingest(files, settings=Settings.model_validate({"embedder": "hashing"}))
    return root / "ws"


@pytest.fixture
def sample_ws(sample_path: Path) -> Iterator[Workspace]:
    with Workspace.open(sample_path, read_only=True) as ws:
        yield ws


def _accuracy(context: RouterContext) -> tuple[float, list[str]]:
    misses = []
    for case in CASES:
        got = route(case["question"], context)
        if got.intent != case["intent"]:
            misses.append(f"{case['id']}: {case['question']} -> {got.intent}")
    return 1 - len(misses) / len(CASES), misses


def test_labelled_set_is_big_bilingual_and_covers_every_intent() -> None:
    assert len(CASES) >= 60
    assert len({c["id"] for c in CASES}) == len(CASES)
    assert {c["intent"] for c in CASES} == set(INTENTS)
    zh = [c for c in CASES if any("\u4e00" <= ch <= "\u9fff" for ch in c["question"])]
    assert 20 <= len(zh) <= len(CASES) - 20
    assert any("note" in c for c in CASES), "unanswerable questions carry a note"


def test_labelled_set_is_not_the_tuning_set() -> None:
    from importlib import resources

    dev = resources.files("tablerag.router").joinpath("data/router_dev.jsonl").read_text("utf-8")
    tuned = {json.loads(line)["question"] for line in dev.splitlines() if line.strip()}
    assert not tuned & {c["question"] for c in CASES}


def test_rules_alone_route_the_labelled_set() -> None:
    accuracy, misses = _accuracy(RouterContext.empty())
    assert accuracy >= 0.85, misses


def test_sample_workspace_routes_the_labelled_set(sample_ws: Workspace) -> None:
    accuracy, misses = _accuracy(RouterContext.from_workspace(sample_ws))
    assert accuracy >= 0.85, misses


@pytest.mark.parametrize(
    ("question", "intent"),
    [
        pytest.param("上月华东的毛利是多少？", "data", id="zh-metric-value"),
        pytest.param("毛利是怎么定义的？", "knowledge", id="zh-meta-definition"),
        pytest.param("客单价的口径", "knowledge", id="zh-meta-koujing"),
        pytest.param("How is gross profit calculated?", "knowledge", id="en-meta"),
        pytest.param("What does net amount mean?", "knowledge", id="en-meta-mean"),
        pytest.param("退货率超过10%的商品根据退货政策应该怎么处理", "hybrid", id="zh-both"),
        pytest.param("谢谢！", "chitchat", id="zh-thanks"),
        pytest.param("who are you", "chitchat", id="en-who"),
        pytest.param("数据", "ambiguous", id="zh-vague"),
        pytest.param("show me", "ambiguous", id="en-vague"),
        pytest.param("   ", "ambiguous", id="blank"),
        pytest.param("？？", "ambiguous", id="punctuation"),
    ],
)
def test_rules(question: str, intent: str) -> None:
    got = route(question)
    assert got.intent == intent, got.reasons
    assert 0 <= got.confidence <= 1
    assert abs(sum(got.scores.values()) - 1) < 1e-3
    assert set(got.scores) == set(INTENTS)
    assert got.reasons


@pytest.mark.parametrize(
    "question",
    [
        "What is the name and country of every singer who has a song with the word 'Hey' in "
        "its title?",
        "标题里有“你好”的歌曲有多少首？",
        'Which albums are called "Hello"?',
    ],
)
def test_a_greeting_inside_quotes_is_a_name_not_small_talk(question: str) -> None:
    got = route(question)
    assert got.intent != "chitchat", got.reasons
    assert not any("small-talk" in r for r in got.reasons)


def test_reasons_name_the_cues_that_decided() -> None:
    got = route("上月华东的毛利是多少？")
    text = " | ".join(got.reasons)
    assert "多少 (aggregate)" in text and "毛利 (measure)" in text and "上月 (time)" in text
    meta = route("毛利是怎么定义的？")
    assert any(r.startswith("meta-question") for r in meta.reasons)


def test_a_catalog_value_makes_a_question_data_ish(workspace: Workspace, tmp_path: Path) -> None:
    csv = tmp_path / "shipments.csv"
    csv.write_text("warehouse,status,boxes\n北仓,SHIPPED,3\n南仓,HELD,5\n", "utf-8")
    workspace.ingest([csv], settings=Settings.model_validate({"embedder": "hashing"}))
    ctx = RouterContext.from_workspace(workspace, probe=False)
    question = "北仓 HELD 的情况"
    bare, informed = route(question), route(question, ctx)
    assert bare.intent == "ambiguous"
    assert informed.evidence["data"] > bare.evidence["data"]
    assert informed.intent == "data", informed.reasons
    assert any(
        "北仓 → shipments.warehouse" in r and "HELD → shipments.status" in r
        for r in informed.reasons
    )


def _ingest(workspace: Workspace, *files: Path) -> None:
    workspace.ingest(list(files), settings=Settings.model_validate({"embedder": "hashing"}))


def test_values_come_from_the_linkers_index(workspace: Workspace, tmp_path: Path) -> None:
    rows = [
        f"SO{n:05d},{'北仓' if n % 2 else '南仓'},{'PAID' if n % 3 else 'HELD'},{n}.5%"
        for n in range(MAX_VALUES_PER_COLUMN + 1)
    ]
    csv = tmp_path / "orders.csv"
    csv.write_text("order_no,warehouse,status,share\n" + "\n".join(rows) + "\n", "utf-8")
    _ingest(workspace, csv)
    catalog = workspace_catalog(workspace)
    assert catalog.values is not None and catalog.values.owners("SO00007")  # the linker has it
    ctx = RouterContext.from_catalog(catalog)
    assert ctx.value_columns == {
        "北仓": "orders.warehouse",
        "南仓": "orders.warehouse",
        "PAID": "orders.status",
        "HELD": "orders.status",
    }  # no order numbers (an identifier column), no percentages
    assert RouterContext.from_workspace(workspace, probe=False).vocabulary == ctx.vocabulary
    assert extract_features("Was it paid?", ctx.vocabulary).catalog_values == ()  # case kept
    assert route("SO00007 的情况", ctx).evidence == route("SO00007 的情况").evidence


def test_hidden_columns_never_feed_the_router(workspace: Workspace, tmp_path: Path) -> None:
    csv = tmp_path / "members.csv"
    csv.write_text(
        "member,nickname,contact_phone,tier\n"
        "M1,阿龙,13812345678,GOLD\nM2,小美,13987654321,SILVER\n",
        "utf-8",
    )
    notes = tmp_path / "members.json"
    notes.write_text(
        json.dumps(
            {
                "format": "tablerag-table-descriptions/1",
                "tables": {
                    "members": {"columns": {"nickname": {"en": "Nickname", "sensitive": True}}}
                },
            }
        ),
        "utf-8",
    )
    _ingest(workspace, notes, csv)
    assert any(c.sensitive for c in workspace.table("members").columns)
    ctx = RouterContext.from_workspace(workspace, probe=False)
    assert ctx.value_columns == {"GOLD": "members.tier", "SILVER": "members.tier"}
    assert not {"nickname", "contact", "phone"} & ctx.vocabulary.words
    got = route("阿龙 13812345678 的情况", ctx)
    assert not any(r.startswith("catalog values") for r in got.reasons), got.reasons


def test_tables_queried_in_place_give_their_catalog_samples() -> None:
    city = ColumnInfo("city", "VARCHAR", samples=("杭州", "宁波", "12"))
    table = TableInfo("ext_stores", "pg", (city, ColumnInfo("n", "INTEGER")), 9, stored=False)
    ctx = RouterContext.from_catalog(build_catalog([table]))
    assert ctx.value_columns == {"杭州": "ext_stores.city", "宁波": "ext_stores.city"}
    assert RouterContext.from_catalog(None).value_columns == {}


def test_upper_case_codes_match_case_sensitively() -> None:
    vocab = Vocabulary.build([], {"PAID": "fact_sales.status", "华东": "dim_region.region_name"})
    assert extract_features("How are refunds paid?", vocab).catalog_values == ()
    assert extract_features("How many PAID lines?", vocab).catalog_values == ("PAID",)


def _hit(score: float, table: str | None) -> Hit:
    return Hit("c1", "doc.md", 0, "text", (), None, table, score, 1)


def test_the_probe_adds_document_and_table_strength() -> None:
    seen: list[str] = []

    def docs(question: str) -> Sequence[Hit]:
        seen.append(question)
        return [_hit(12.0, None), _hit(1.0, "t")]

    question = "退款 流程 说明"
    plain = route(question)
    probed = route(question, RouterContext(probe=docs))
    assert seen == [question]
    assert probed.evidence["doc"] > probed.evidence["table"] > 0
    assert probed.evidence["knowledge"] > plain.evidence["knowledge"]
    assert probed.scores["knowledge"] > plain.scores["knowledge"]
    assert any(r.startswith("retrieval probe: documents 0.75") for r in probed.reasons)


def test_a_failing_probe_is_reported_not_raised() -> None:
    def broken(question: str) -> Sequence[Hit]:
        raise RetrievalError("No index in the workspace; run `tablerag ingest`.")

    got = route("上月华东的毛利是多少？", RouterContext(probe=broken))
    assert got.intent == "data"
    assert any("retrieval probe skipped: No index" in r for r in got.reasons)


def test_low_confidence_between_the_sides_runs_both() -> None:
    got = route("华东的毛利")  # a metric and a place, no verb: could be either side
    assert got.intent == "hybrid", got.reasons
    assert max(got.scores["data"], got.scores["knowledge"]) < 0.5
    assert any(r.startswith("low confidence between data") for r in got.reasons)
    assert got.confidence > max(got.scores["data"], got.scores["knowledge"])


def test_routing_is_fast_without_probe() -> None:
    route("warm up 预热")
    questions = [c["question"] for c in CASES]
    times = []
    for q in questions * 3:
        start = time.perf_counter()
        route(q)
        times.append((time.perf_counter() - start) * 1000)
    assert statistics.median(times) < 5
    assert sorted(times)[int(0.95 * len(times))] < 50


def _app() -> typer.Typer:
    from tablerag.cli.route import register

    app = typer.Typer()
    register(app)

    @app.callback()
    def _root() -> None:
        """Test root so `route` stays a sub-command."""

    return app


def test_cli_json_without_workspace(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        _app(),
        [
            "route",
            "What is the refund policy for damaged goods?",
            "--json",
            "--workspace",
            str(tmp_path / "none"),
        ],
    )
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert list(data) == ["intent", "confidence", "reasons", "scores"]
    assert data["intent"] == "knowledge"
    assert "rules and question features only" in data["reasons"][0]
    assert set(data["scores"]) == set(INTENTS)


def test_cli_uses_the_workspace_and_renders(sample_path: Path) -> None:
    path = str(sample_path)
    result = CliRunner().invoke(
        _app(), ["route", "上月华东的毛利是多少？", "--json", "--workspace", path]
    )
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["intent"] == "data"
    assert any("华东 → dim_region.region_name" in r for r in data["reasons"])
    assert any(r.startswith("retrieval probe:") for r in data["reasons"])
    shown = CliRunner().invoke(_app(), ["route", "你好", "--workspace", path])
    assert shown.exit_code == 0, shown.output
    assert shown.output.startswith("chitchat (")
    assert "small-talk cues: 你好" in shown.output


def test_intent_counts_of_the_labelled_set_are_reported() -> None:
    counts = Counter(c["intent"] for c in CASES)
    assert min(counts.values()) >= 4
