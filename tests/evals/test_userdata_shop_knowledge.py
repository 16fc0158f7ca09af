"""``--knowledge`` of the shop set: the curated model (written from the documents) passes its
check on the shop's workspace and its metrics, compiled by tablerag, give the truths computed
in plain Python; the draft is stored as a draft."""

from __future__ import annotations

from pathlib import Path

import pytest

from tablerag.errors import ConfigError
from tablerag.evals.userdata.shop import data as shopdata
from tablerag.evals.userdata.shop import truth
from tablerag.evals.userdata.shop.model import MODEL
from tablerag.evals.userdata.task import apply_knowledge
from tablerag.semantic.check import check_model
from tablerag.semantic.compile import compile_request
from tablerag.semantic.knowledge import Knowledge
from tablerag.semantic.library import stored_document
from tablerag.semantic.ossie import loads
from tablerag.semantic.request import Request
from tablerag.sql.engines import open_engine
from tablerag.store.workspace import Workspace
from tests.evals.userdata_helpers import run_eval


@pytest.fixture(scope="module")
def curated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    run = tmp_path_factory.mktemp("curated") / "run"
    summary = run_eval(run, ["--set", "shop", "--methods", "oracle", "--knowledge", "curated"])
    assert summary["knowledge"] == "curated"
    return run / "workspace"


def test_the_curated_model_is_stored_and_passes_its_check(curated: Path) -> None:
    with Workspace.open(curated, create=False) as ws:
        document, tables = stored_document(ws.con), ws.tables()
    assert document is not None and document.semantic_model[0].name == "shop"
    assert check_model(document, tables) == []
    assert apply_knowledge(curated, "curated", MODEL) == ["knowledge: curated, 9 metrics"]


@pytest.mark.parametrize(
    ("metric", "span", "want"),
    [
        ("gmv", (2026, None), truth.gmv),
        ("net_sales", (2026, 10), truth.net_sales),
        ("gross_profit", (2026, 10), truth.gross_profit),
        ("avg_order_value", (2025, None), truth.aov),
        ("return_rate", (2026, None), lambda x, s: truth.return_rate(x, s) / 100),
    ],
)
def test_the_curated_metrics_give_the_truths(curated: Path, metric: str, span, want) -> None:  # type: ignore[no-untyped-def]
    year, month = span
    period = {"period": "month", "year": year, "month": month} if month else {
        "period": "year", "year": year,
    }  # fmt: skip
    request = Request(metrics=[metric], time_range=period)  # type: ignore[arg-type]
    with Workspace.open(curated, create=False) as ws:
        tables = ws.tables()
    with open_engine(curated, catalog=tables) as engine:
        compiled = compile_request(
            request, Knowledge(loads(MODEL)), dialect=engine.dialect, today=shopdata.TODAY
        )
    # the shop's tables are a database source of the workspace: read them where they are
    db = curated.parent / "db" / "shop.duckdb"
    with open_engine(db) as engine:
        got = float(engine.execute(compiled.sql).rows[0][0])
    index = truth._Index(shopdata.build())
    span_ = truth.month(year, month) if month else truth.year(year)
    assert got == pytest.approx(want(index, span_), rel=1e-9)


def test_the_draft_is_stored_as_a_draft(tmp_path: Path) -> None:
    run = tmp_path / "run"
    summary = run_eval(run, ["--set", "shop", "--methods", "oracle", "--knowledge", "draft"])
    assert any(n.startswith("knowledge: drafted") for n in summary["ingest"])
    with Workspace.open(run / "workspace", create=False) as ws:
        document = stored_document(ws.con)
    assert document is not None and [m.name for m in document.semantic_model] == ["drafted"]
    with pytest.raises(ConfigError, match="no curated model"):
        apply_knowledge(run / "workspace", "curated", None)
