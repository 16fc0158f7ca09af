"""The metric names a question gives in one language reach the other's words through the
workspace's semantic model (its synonyms), not a built-in list fitted to the sample."""

from __future__ import annotations

import shutil
from pathlib import Path

from tablerag.linking.lexicon import translate
from tablerag.llm.testing import ScriptedLLM
from tablerag.sample.documents import read_text
from tablerag.semantic.library import import_document
from tablerag.semantic.ossie import loads
from tablerag.service import QA
from tablerag.settings import Settings
from tablerag.store.workspace import Workspace

OFF = Settings(today="2026-11-15", embedder="hashing", semantic_model=False)  # type: ignore[arg-type]
QUESTION = "What was the number of orders in 2026-09?"
COUNT_ROWS = (
    "```sql\nSELECT COUNT(*) AS n FROM fact_sales WHERE status = 'PAID' "
    "AND order_date >= '2026-09-01' AND order_date < '2026-10-01'\n```"
)


def _workspace(sample_ws: Path, tmp_path: Path, *, model: bool) -> Path:
    root = tmp_path / ("with" if model else "without")
    shutil.copytree(sample_ws, root)
    if model:
        with Workspace.open(root) as ws:
            doc = loads(read_text("semantic_model.yaml"))
            import_document(ws.con, doc, ws.tables(), origin="sample")
    return root


def test_the_catalog_carries_the_model_s_names(sample_ws: Path, tmp_path: Path) -> None:
    root = _workspace(sample_ws, tmp_path, model=True)
    with QA.open(root, llm=ScriptedLLM(), settings=OFF) as qa:
        catalog = qa.sources.catalog
    assert catalog is not None
    assert {("return rate", "退货率"), ("number of orders", "订单数")} <= set(catalog.terms)
    assert translate(QUESTION, catalog.terms).endswith(" 订单数 订单量")
    # the model's names replace the built-in list: what only the list has is not added
    assert translate("What is the completion rate?", catalog.terms) == (
        "What is the completion rate?"
    )


def test_an_english_question_finds_the_chinese_definition_through_the_model(
    sample_ws: Path, tmp_path: Path
) -> None:
    """Free SQL (the semantic path off): the definitions row 订单数 = COUNT(DISTINCT order_id)
    is found for "number of orders" only through the model's synonyms, and the query counting
    rows is doubted by it (the mend that rewrote it was removed in issue 29)."""
    answers = {}
    for model in (False, True):
        root = _workspace(sample_ws, tmp_path, model=model)
        with QA.open(root, llm=ScriptedLLM(replies=[COUNT_ROWS] * 3), settings=OFF) as qa:
            answers[model] = qa.ask(QUESTION)
    assert "订单数" not in answers[False].answer
    assert answers[True].status != "ok" and "订单数" in answers[True].answer
    assert "COUNT(DISTINCT" in answers[True].answer, answers[True].answer
