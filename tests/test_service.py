"""The QA facade: routing to each path, the envelope's bookkeeping, bad input, Workspace.ask."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest

from tablerag.errors import ConfigError, ProviderError, ProviderTimeout, WorkspaceError
from tablerag.llm.base import Message
from tablerag.llm.testing import FunctionLLM, ScriptedLLM
from tablerag.service import QA, Workspace
from tablerag.settings import Settings

COUNT_SQL = "```sql\nSELECT count(DISTINCT order_id) AS orders FROM fact_sales\n```"


def test_data_question_goes_to_sql_with_route_timings_and_usage(sample_ws: Path) -> None:
    llm = ScriptedLLM(replies=[COUNT_SQL])
    with QA.open(sample_ws, llm=llm) as qa:
        answer = qa.ask("How many orders were placed in total?")
    assert answer.route is not None and answer.route.intent == "data"
    assert answer.path == "nl2sql" and answer.status == "ok"
    assert answer.table is not None and isinstance(answer.table.rows[0][0], int)
    assert answer.answer.startswith("Result: orders = ")
    assert answer.llm.calls == 1 and answer.llm.prompt_tokens > 0
    assert set(answer.timings_ms) >= {
        "routing",
        "schema",
        "llm",
        "validation",
        "execution",
        "total",
    }
    assert answer.timings_ms["total"] >= answer.timings_ms["schema"]
    prompt = llm.history[0].messages[-1]["content"]
    assert "fact_sales" in prompt and "mobile" not in prompt  # sensitive column never shown


def test_knowledge_question_goes_to_the_documents(sample_ws: Path) -> None:
    llm = ScriptedLLM(replies=["破损商品可以退款 [1]。"])
    with QA.open(sample_ws, llm=llm) as qa:
        answer = qa.ask("毛利是怎么定义的？")
    assert answer.route is not None and answer.route.intent == "knowledge"
    assert answer.path == "rag" and answer.citations and answer.language == "zh"


def test_small_talk_and_ambiguous_questions_need_no_model(sample_ws: Path) -> None:
    llm = ScriptedLLM()
    with QA.open(sample_ws, llm=llm) as qa:
        hello = qa.ask("谢谢！")
        vague = qa.ask("那个呢")
    assert hello.path == "chitchat" and hello.status == "ok"
    assert vague.path == "clarify" and vague.status == "clarify"
    assert [c.label.split("：")[0] for c in vague.clarifications] == ["查数据", "查文档"]
    assert llm.history == [] and hello.llm.calls == 0


def test_unanswerable_question_is_not_found(sample_ws: Path) -> None:
    with QA.open(sample_ws, llm=ScriptedLLM()) as qa:
        answer = qa.ask("火星上的天气怎么样？")
    assert answer.status == "not_found" and answer.answer == "文档中没有找到相关内容。"


def test_empty_question_is_an_error_answer(sample_ws: Path) -> None:
    with QA.open(sample_ws, llm=ScriptedLLM()) as qa:
        answer = qa.ask("   ")
    assert answer.status == "error" and answer.error is not None and "empty" in answer.error


def test_llm_timeout_on_a_knowledge_question_degrades_to_passages(sample_ws: Path) -> None:
    llm = ScriptedLLM(replies=[ProviderTimeout("The model did not answer within 120 s.")])
    with QA.open(sample_ws, llm=llm) as qa:
        answer = qa.ask("What is the refund policy for damaged goods?")
    assert answer.status == "degraded" and answer.citations and answer.error


def test_generated_sql_cannot_change_data(sample_ws: Path) -> None:
    llm = ScriptedLLM(replies=["```sql\nDROP TABLE fact_sales\n```"] * 3)
    with QA.open(sample_ws, llm=llm) as qa:
        answer = qa.ask("How many orders were placed in total?")
    # the second DROP repeats the first: the repairs end there
    assert answer.status == "error" and len(answer.sql_attempts) == 2
    assert all(a.error == "rejected by the SQL gate" for a in answer.sql_attempts)
    with Workspace.open(sample_ws, create=False, read_only=True) as ws:
        assert ws.con.execute("SELECT count(*) FROM data.fact_sales").fetchone() == (3746,)


def test_missing_model_is_one_clear_config_error(sample_ws: Path) -> None:
    with pytest.raises(ConfigError, match="does not exist; fix the path"):
        QA.open(sample_ws, llm="llamacpp:/nonexistent/model.gguf")


def test_missing_workspace_is_a_workspace_error(tmp_path: Path) -> None:
    with pytest.raises(WorkspaceError, match="No workspace"):
        QA.open(tmp_path / "nothing", llm=ScriptedLLM())


def test_workspace_without_tables_or_index_answers_with_the_fix(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "policy.md").write_text("# Policy\n\nRefunds take 14 days.\n", encoding="utf-8")
    with Workspace.open(tmp_path / "ws") as ws:
        ws.ingest([docs], settings=Settings(index_on_ingest=False, embedder="hashing"))
    with QA.open(tmp_path / "ws", llm=ScriptedLLM()) as qa:
        data = qa.ask("How many orders were placed in 2026-09?")
        docs_answer = qa.ask("What is the refund policy?")
    assert data.status == "error" and data.error is not None and "no tables" in data.error
    assert docs_answer.status == "error" and docs_answer.error is not None
    assert "tablerag ingest" in docs_answer.error


def test_workspace_ask_answers_and_leaves_the_workspace_usable(sample_ws: Path) -> None:
    def reply(messages: Sequence[Message]) -> str:
        return "The refund rules are in the policy [1]."

    with Workspace.open(sample_ws, create=False) as ws:
        answer = ws.ask("What is the refund policy for damaged goods?", llm=FunctionLLM(reply))
        assert answer.path == "rag" and answer.status == "ok"
        assert ws.con.execute("SELECT count(*) FROM data.dim_region").fetchone() == (14,)


def test_embedder_failure_falls_back_to_lexical_search(
    sample_ws: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def down(*args: object, **kwargs: object) -> object:
        raise ProviderError("Embedding endpoint answered HTTP 503.", provider="openai")

    monkeypatch.setattr("tablerag.rag.retrieve._dense", down)
    with QA.open(sample_ws, llm=ScriptedLLM(replies=["Partial refunds for damage [1]."])) as qa:
        answer = qa.ask("What is the refund policy for damaged goods?")
    assert answer.status == "ok" and answer.citations
    assert any("refund" in c.source for c in answer.citations)


@pytest.mark.slow
def test_real_local_model_answers_a_data_and_a_document_question(sample_ws: Path) -> None:
    """On the embedded Qwen2.5-Coder-1.5B (needs the `local` extra and the model files)."""
    pytest.importorskip("llama_cpp")
    try:
        qa = QA.open(sample_ws, llm="local")
    except ConfigError as exc:
        pytest.skip(str(exc))
    with qa:
        data = qa.ask("一共有多少笔退款？")
        docs = qa.ask("What is the refund policy for damaged goods?")
    assert data.path == "nl2sql" and data.status == "ok", data.model_dump_json(indent=1)
    assert data.table is not None and 152 in data.table.rows[0]
    assert docs.path == "rag" and docs.status == "ok" and docs.citations
    assert docs.llm.calls == 1 and docs.llm.prompt_tokens < 800


def test_mixed_month_formats_are_read_as_one(sample_ws: Path) -> None:
    """'2026-09' and '202609' rows both count: the executed SQL canonicalises stat_month."""
    sql = (
        "```sql\nSELECT count(DISTINCT order_id) FROM fact_sales "
        "WHERE stat_month = '2026-09' AND status = 'PAID'\n```"
    )
    with Workspace.open(sample_ws, read_only=True) as ws:
        truth = ws.con.execute(
            "SELECT count(DISTINCT order_id) FROM data.fact_sales "
            "WHERE replace(stat_month, '-', '') = '202609' AND status = 'PAID'"
        ).fetchone()
        dashed_only = ws.con.execute(
            "SELECT count(DISTINCT order_id) FROM data.fact_sales "
            "WHERE stat_month = '2026-09' AND status = 'PAID'"
        ).fetchone()
    assert truth is not None and dashed_only is not None and truth[0] > dashed_only[0]
    with QA.open(sample_ws, llm=ScriptedLLM(replies=[sql])) as qa:
        answer = qa.ask("How many orders were paid in 2026-09?")
    assert answer.status == "ok" and answer.table is not None
    assert answer.table.rows[0][0] == truth[0]
    assert answer.sql is not None and "LENGTH(" in answer.sql.upper()


def test_two_processes_can_ask_the_same_workspace_at_once(sample_ws: Path) -> None:
    holder = (
        "import sys, time\n"
        "from tablerag.service import QA\n"
        "qa = QA.open(sys.argv[1], llm='scripted')\n"
        "print('open', flush=True)\n"
        "time.sleep(60)\n"
    )
    with subprocess.Popen(
        [sys.executable, "-c", holder, str(sample_ws)], stdout=subprocess.PIPE, text=True
    ) as other:
        try:
            assert other.stdout is not None and other.stdout.readline().strip() == "open"
            with QA.open(sample_ws, llm=ScriptedLLM(replies=[COUNT_SQL])) as qa:
                answer = qa.ask("How many orders were placed in total?")
        finally:
            other.kill()
    assert answer.status == "ok", answer.error
    assert answer.table is not None and answer.table.rows[0][0] > 0


def test_a_wrong_profile_or_stage_name_fails_at_open(sample_ws: Path) -> None:
    from tablerag.errors import ConfigError
    from tablerag.service import QA
    from tablerag.settings import Settings

    with pytest.raises(ConfigError, match="Unknown model profile 'tiny'"):
        QA.open(sample_ws, settings=Settings(profile="tiny", embedder="hashing"), llm="scripted")
    with pytest.raises(ConfigError, match="Did you mean 'spelling'"):
        QA.open(
            sample_ws,
            settings=Settings(stages={"speling": False}, embedder="hashing"),
            llm="scripted",
        )
