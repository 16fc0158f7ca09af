"""``tablerag eval retrieval``: recall@k and MRR in the JSON summary, custom gold sources."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from tablerag.cli import app
from tests.evals.test_retrieval_task import write_policyqa
from tests.plugins.answering import build_sample_workspace

runner = CliRunner()


def test_policyqa_json_has_recall_and_mrr(tmp_path: Path) -> None:
    write_policyqa(tmp_path / "dev.json")
    args = ["eval", "retrieval", "--dataset", "policyqa", "--path", str(tmp_path)]
    args += ["--embedder", "hashing", "--out", str(tmp_path / "run"), "--json"]
    res = runner.invoke(app, args)
    assert res.exit_code == 0, res.output
    summary = json.loads(res.stdout)
    assert summary["chunks"] == 3 and summary["cases"] == 3
    assert set(summary["methods"]) == {"bm25", "dense", "hybrid"}
    for mode, figures in summary["retrieval"].items():
        assert summary["methods"][mode]["accuracy"] == figures["recall_at_5"]
        assert figures["recall_at_1"] <= figures["recall_at_5"] <= figures["recall_at_10"]
        assert 0 <= figures["mrr_at_10"] <= 1 and figures["n"] == 3
    assert summary["retrieval"]["bm25"]["recall_at_1"] == 1.0
    table = runner.invoke(app, args[:-1])  # resumed, printed as tables
    assert table.exit_code == 0 and "R@5" in table.output


def test_custom_sources_over_a_workspace(tmp_path: Path, sample_dir: Path) -> None:
    ws = build_sample_workspace(sample_dir, tmp_path / "ws")
    questions = tmp_path / "q.jsonl"
    lines = [
        {"id": "1", "question": "退货退款政策", "sources": ["refund_policy.md", "退款制度.md"]},
        {"id": "2", "question": "no gold here"},
    ]
    questions.write_text("\n".join(json.dumps(x, ensure_ascii=False) for x in lines) + "\n")
    args = ["eval", "retrieval", "--dataset", "custom", "--path", str(questions)]
    args += ["--workspace", str(ws), "--methods", "bm25", "--out", str(tmp_path / "run"), "--json"]
    res = runner.invoke(app, args)
    assert res.exit_code == 0, res.output
    summary = json.loads(res.stdout)
    assert summary["cases"] == 1 and summary["methods"]["bm25"]["n"] == 1


def test_custom_questions_with_and_without_rewriting(tmp_path: Path, sample_dir: Path) -> None:
    """`--rewrite replace` adds MODE+replace, searching with the workspace's document terms: a
    question in words the documents do not use finds its passage only rewritten."""
    from tablerag.sample.documents import read_text
    from tablerag.semantic.library import import_document
    from tablerag.semantic.ossie import loads
    from tablerag.store.workspace import Workspace

    ws = build_sample_workspace(sample_dir, tmp_path / "ws")
    document = loads(read_text("semantic_model.yaml"))
    model = document.semantic_model[0]
    model.set_ext({**model.ext, "terms": [{"term": "赠品", "synonyms": ["小礼物"]}]})
    with Workspace.open(ws) as opened:
        import_document(opened.con, document, opened.tables(), origin="test")
    questions = tmp_path / "q.jsonl"
    line = {"id": "1", "question": "小礼物要寄回吗", "sources": ["退货政策.md"]}
    questions.write_text(json.dumps(line, ensure_ascii=False) + "\n", encoding="utf-8")
    args = ["eval", "retrieval", "--dataset", "custom", "--path", str(questions), "--workspace"]
    args += [str(ws), "--methods", "bm25", "--rewrite", "replace", "--out", str(tmp_path / "r")]
    res = runner.invoke(app, [*args, "--json"])
    assert res.exit_code == 0, res.output
    summary = json.loads(res.stdout)
    assert set(summary["methods"]) == {"bm25", "bm25+replace"}
    assert summary["methods"]["bm25"]["accuracy"] == 0.0  # no word in common
    assert summary["methods"]["bm25+replace"]["accuracy"] == 1.0
