"""Canaries: drafting, listing, exporting, checking and answering from a semantic model never
show a hidden column's values or names of what the model must not read."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import Result
from typer.testing import CliRunner

from tablerag.cli import app
from tablerag.llm.testing import ScriptedLLM
from tablerag.service import QA
from tablerag.settings import Settings
from tests.plugins.canary import HIDDEN, CanaryKit, assert_no_canary, canary_kit, write_customers

runner = CliRunner()


def run(*args: str) -> Result:
    return runner.invoke(app, list(args))


@pytest.fixture(scope="module")
def kit() -> CanaryKit:
    return canary_kit()


@pytest.fixture(scope="module")
def ws(kit: CanaryKit, tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("canary_knowledge")
    src = write_customers(base / "in", kit)
    root = base / "ws"
    res = run("ingest", str(src / "customers.csv"), str(src / "descriptions.json"), "-w", str(root))
    assert res.exit_code == 0, res.output
    return root


def test_the_drafted_model_never_names_a_hidden_column(ws: Path, tmp_path: Path) -> None:
    outputs = [run("knowledge", "draft", "-w", str(ws))]
    draft_file = tmp_path / "draft.yaml"
    outputs.append(run("knowledge", "draft", "-w", str(ws), "-o", str(draft_file)))
    outputs += [
        run("knowledge", "list", "-w", str(ws)),
        run("knowledge", "list", "--json", "-w", str(ws)),
        run("knowledge", "export", "-w", str(ws)),
        run("knowledge", "check", "-w", str(ws)),
        run("knowledge", "show", "customers", "-w", str(ws)),
    ]
    assert all(r.exit_code == 0 for r in outputs), [r.output for r in outputs]
    assert_no_canary(*outputs, draft_file)
    exported = outputs[4].output
    assert "amount" in exported
    assert not [c for c in HIDDEN if f"name: {c}\n" in exported]


def test_answering_from_the_model_shows_no_canary(ws: Path) -> None:
    run("knowledge", "draft", "-w", str(ws))
    request = {"metrics": ["total_amount"], "dimensions": ["customers.city"]}
    llm = ScriptedLLM(replies=[json.dumps(request)])
    with QA.open(ws, llm=llm, settings=Settings(embedder="hashing")) as qa:
        answer = qa.ask("What is the total amount by city?")
    assert answer.knowledge and answer.knowledge[0].name == "total_amount", answer.answer
    assert_no_canary(answer, llm.history)
    assert not [c for c in HIDDEN if c in llm.history[0].messages[-1]["content"]]
