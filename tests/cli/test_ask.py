"""``tablerag ask``: the JSON envelope, the rich rendering, and one-line errors."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tablerag.answer import Answer
from tablerag.cli import app
from tablerag.llm.base import Message
from tablerag.llm.testing import FunctionLLM
from tests.plugins.answering import build_sample_workspace

runner = CliRunner()


@pytest.fixture(scope="module")
def ws(sample_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_sample_workspace(sample_dir, tmp_path_factory.mktemp("ask") / "ws")


def _reply(messages: Sequence[Message]) -> str:
    system = messages[0]["content"]
    if "SELECT" in system:
        return "```sql\nSELECT count(*) AS refunds FROM fact_refund\n```"
    if "numbered passages" in system:
        return "Damaged goods are refunded in part or in full [1]."
    return "There are 152 refunds."


@pytest.fixture
def scripted(monkeypatch: pytest.MonkeyPatch) -> FunctionLLM:
    llm = FunctionLLM(_reply)
    monkeypatch.setattr("tablerag.service.load_llm", lambda spec=None, **kw: llm)
    return llm


def test_ask_json_is_the_answer_envelope(ws: Path, scripted: FunctionLLM) -> None:
    res = runner.invoke(
        app, ["ask", "How many refunds are there in total?", "-w", str(ws), "--json"]
    )
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    assert set(data) == {"id", *Answer.model_fields}  # the log's id, as POST /v1/ask gives
    Answer.model_validate({k: v for k, v in data.items() if k != "id"})  # reads back
    assert data["path"] == "nl2sql" and data["status"] == "ok"
    assert data["route"]["intent"] == "data" and 0 <= data["route"]["confidence"] <= 1
    assert data["table"] == {
        "columns": ["refunds"],
        "rows": [[152]],
        "row_count": 1,
        "truncated": False,
    }
    assert data["answer"] == "Result: refunds = 152."
    assert data["sql"].startswith("SELECT") and data["sql_attempts"][0]["error"] is None
    assert data["llm"]["calls"] == 1 and data["timings_ms"]["total"] > 0


def test_ask_json_for_documents_has_citations(ws: Path, scripted: FunctionLLM) -> None:
    res = runner.invoke(
        app, ["ask", "What is the refund policy for damaged goods?", "-w", str(ws), "--json"]
    )
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    assert data["path"] == "rag"
    first = data["citations"][0]
    assert set(first) == {"n", "chunk_id", "source", "page", "heading_path", "snippet", "table"}
    assert data["facts"][0] == {
        "text": "Damaged goods are refunded in part or in full [1].",
        "source": "document",
        "citation": 1,
    }


def test_ask_renders_answer_table_and_sql(ws: Path, scripted: FunctionLLM) -> None:
    res = runner.invoke(app, ["ask", "How many refunds are there in total?", "-w", str(ws)])
    assert res.exit_code == 0, res.output
    assert "Result: refunds = 152." in res.stdout and "fact_refund" in res.stdout
    assert "nl2sql" in res.stdout


def test_unknown_llm_backend_is_one_line_with_a_suggestion(ws: Path) -> None:
    res = runner.invoke(app, ["ask", "How many refunds?", "-w", str(ws), "--llm", "opnai:gpt"])
    assert res.exit_code == 2
    assert "Did you mean 'openai'?" in res.stderr and "Traceback" not in res.output


def test_missing_workspace_is_one_line(tmp_path: Path) -> None:
    res = runner.invoke(app, ["ask", "How many refunds?", "-w", str(tmp_path / "none")])
    assert res.exit_code == 1 and "No workspace" in res.stderr


def test_demo_builds_the_workspace_and_answers_every_kind_of_question(
    tmp_path: Path, scripted: FunctionLLM
) -> None:
    from tablerag.cli.demo import DEMO_QUESTIONS

    prompts: list[str] = []
    inner = scripted.function
    scripted.function = lambda messages: prompts.append(messages[-1]["content"]) or inner(messages)
    res = runner.invoke(app, ["demo", "-w", str(tmp_path / "demo")])
    assert res.exit_code == 0, res.output
    # "上月" means the sample's last month (2026-10) on whatever day the demo runs
    assert "today = 2026-11-15" in (tmp_path / "demo" / "tablerag.toml").read_text("utf-8")
    sql_prompts = [p for p in prompts if p.startswith("Today is")]
    assert sql_prompts and all("last month 2026-10" in p for p in sql_prompts)
    for n, (kind, question) in enumerate(DEMO_QUESTIONS, start=1):
        assert f"{n}/{len(DEMO_QUESTIONS)} · {kind}" in res.stdout
        assert question in res.stdout
    assert {"not_found", "clarify", "hybrid", "nl2sql", "rag"} <= set(res.stdout.split())
    assert "dim_region.csv " in res.stdout and "dim_region.csv dim_region.csv" not in res.stdout
    assert "sales_handbook.pdf table 1 on page" in res.stdout


def test_demo_without_a_model_says_how_to_get_one(tmp_path: Path) -> None:
    res = runner.invoke(
        app, ["demo", "-w", str(tmp_path / "demo"), "--llm", "llamacpp:/no/such/model.gguf"]
    )
    assert res.exit_code == 2
    assert "does not exist" in res.stderr and 'pip install "tablerag[local]"' in res.stderr


def test_a_data_answer_says_what_its_sql_computed_first(
    ws: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The reading comes from the executed SQL (measures, filters, period, grouping, unit),
    not from the model's words, and the terminal shows it before the figures (issue 36)."""
    sql = (
        "SELECT s.region_code, SUM(s.net_amt) AS sales FROM fact_sales s "
        "WHERE s.channel_code = 'JD' AND s.order_date >= '2026-10-01' "
        "AND s.order_date < '2026-11-01' GROUP BY 1 ORDER BY sales DESC"
    )

    def reply(messages: Sequence[Message]) -> str:
        if "SELECT" in messages[0]["content"]:
            return f"```sql\n{sql}\n```"
        return "Sales by region are in the table."

    monkeypatch.setattr("tablerag.service.load_llm", lambda spec=None, **kw: FunctionLLM(reply))
    question = "What were JD's sales by region in October 2026?"
    data = json.loads(runner.invoke(app, ["ask", question, "-w", str(ws), "--json"]).stdout)
    assert data["path"] == "nl2sql"
    assert data["reading"] == {
        "measures": ["sales = SUM(net_amt)"],
        "filters": ["channel_code = 'JD'"],
        "period": ["order_date >= '2026-10-01'", "order_date < '2026-11-01'"],
        "groups": ["region_code"],
        "units": ["sales: 元 (CNY)"],  # the catalog's unit of net_amt
        "order": ["sales DESC"],
        "limit": None,  # the gate's row cap is not the query's
    }
    shown = runner.invoke(app, ["ask", question, "-w", str(ws)], terminal_width=200).output
    first = shown.splitlines()[1]  # the line under the panel's title
    assert "Computed: sales = SUM(net_amt); where channel_code = 'JD'; period" in first
    assert shown.index("Computed:") < shown.index(data["answer"].splitlines()[0][:30])


def test_asking_a_folder_with_no_workspace_writes_nothing_there(tmp_path: Path) -> None:
    """A wrong ``--workspace`` (a user's documents folder) is an error that leaves the folder as
    it was: no reader's lock file is left behind."""
    folder = tmp_path / "documents"
    folder.mkdir()
    (folder / "notes.txt").write_text("mine", encoding="utf-8")
    for command in (["ask", "How many orders?"], ["sql", "SELECT 1"], ["search", "orders"]):
        res = runner.invoke(app, [*command, "-w", str(folder)])  # the entry point prints it
        assert res.exit_code != 0 and "No workspace at" in res.output + str(res.exception)
    assert sorted(p.name for p in folder.iterdir()) == ["notes.txt"]
