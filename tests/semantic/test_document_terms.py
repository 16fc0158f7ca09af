"""Document terms in the semantic model's extension: checked, kept by export and import, listed,
and used to rewrite a question for retrieval (shown in the answer's trace; issue 33)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tablerag.cli import app
from tablerag.llm.testing import FunctionLLM
from tablerag.request import Request
from tablerag.sample.documents import read_text
from tablerag.semantic.ossie import dumps, loads
from tablerag.semantic.terms import TERMS_KEY, document_terms
from tablerag.service import QA
from tablerag.settings import Settings

runner = CliRunner()
TERMS = [
    {"term": "refund", "synonyms": ["money back", "reimbursed"]},
    {"term": "退款", "synonyms": ["退钱"]},
]
QUESTION = "When do I get my money back after I send a parcel back?"


@pytest.fixture
def ws(sample_ws: Path, tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    shutil.copytree(sample_ws, root)
    return root


def _model_file(tmp_path: Path, terms: object) -> Path:
    document = loads(read_text("semantic_model.yaml"))
    model = document.semantic_model[0]
    model.set_ext({**model.ext, TERMS_KEY: terms})
    path = tmp_path / "with_terms.yaml"
    path.write_text(dumps(document), encoding="utf-8")
    return path


def _run(*args: str) -> tuple[int, str]:
    result = runner.invoke(app, list(args))
    return result.exit_code, result.output


def test_terms_survive_export_and_import_and_are_listed(ws: Path, tmp_path: Path) -> None:
    source = _model_file(tmp_path, TERMS)
    assert _run("knowledge", "import", str(source), "-w", str(ws))[0] == 0
    first = _run("knowledge", "export", "-w", str(ws))[1]
    assert first == source.read_text(encoding="utf-8")
    assert document_terms(loads(first)) == (
        ("money back", "refund"),
        ("reimbursed", "refund"),
        ("退钱", "退款"),
    )
    (tmp_path / "again.yaml").write_text(first, encoding="utf-8")
    assert _run("knowledge", "import", str(tmp_path / "again.yaml"), "-w", str(ws))[0] == 0
    assert _run("knowledge", "export", "-w", str(ws))[1] == first
    code, out = _run("knowledge", "list", "--json", "-w", str(ws))
    listed = [e for e in json.loads(out) if e["kind"] == "term"]
    assert [(e["name"], e["synonyms"]) for e in listed] == [
        ("refund", ["money back", "reimbursed"]),
        ("退款", ["退钱"]),
    ]


def test_malformed_terms_are_refused_whole(ws: Path, tmp_path: Path) -> None:
    bad = [{"term": "退款", "synonyms": ["退钱"]}, {"term": "退货", "synonyms": ["退钱"]}, {}]
    before = _run("knowledge", "export", "-w", str(ws))
    code, out = _run("knowledge", "import", str(_model_file(tmp_path, bad)), "-w", str(ws))
    flat = " ".join(out.split())
    assert code == 2 and "nothing was imported" in flat
    assert "synonym '退钱' is claimed by terms '退款' and '退货'" in flat
    assert "terms[2]: needs a non-empty 'term'" in flat
    assert _run("knowledge", "export", "-w", str(ws)) == before


@pytest.mark.parametrize("rewriting", ["replace", "expand", "off"])
def test_the_answer_s_trace_and_search_show_the_rewritten_query(
    ws: Path, tmp_path: Path, rewriting: str
) -> None:
    assert _run("knowledge", "import", str(_model_file(tmp_path, TERMS)), "-w", str(ws))[0] == 0
    settings = Settings(
        today="2026-11-15",  # type: ignore[arg-type]
        embedder="hashing",
        query_rewriting=rewriting,  # type: ignore[arg-type]
    )
    llm = FunctionLLM(lambda messages: "Refunds reach you within 1 working day [1].")
    with QA.open(ws, llm=llm, settings=settings) as qa:
        rq = Request.make(QUESTION, max_seconds=60)
        qa.answer(rq)
    events = [e.data for e in rq.trace.events if e.kind == "retrieval"]
    assert events and all(e["query"] == QUESTION for e in events)
    expected = {
        "replace": "When do I get my refund after I send a parcel back?",
        "expand": f"{QUESTION} refund",
        "off": None,
    }[rewriting]
    assert {e.get("rewritten") for e in events} == {expected}
    if expected is not None:
        assert events[0]["replaced"] == [["money back", "refund"]]
    code, out = _run("search", QUESTION, "--rewrite", rewriting, "-w", str(ws))
    assert code == 0
    assert ("Searched as:" in out) == (expected is not None)
